//! `webext-mcp behaviour-check DIST --browser chromium,firefox [--page FILE] [--against DIST2]`:
//! the behaviour harness (`crate::behaviour`) from the command line. Exit 0: no problem (one
//! build) or no difference (two builds); 1: problems or differences, or a browser that could
//! not run; 2: usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use super::{pretty, print_stdout, usage_error};
use crate::behaviour::{self, BehaviourError, Options, Report};
use crate::browsers::Engine;
use crate::tools::Ctx;

#[derive(Args, Debug)]
pub struct BehaviourArgs {
    /// The built extension folder (the one holding manifest.json), e.g. dist/chrome.
    pub dist: PathBuf,
    /// Browsers to load it in: chromium, firefox, or both as `chromium,firefox`.
    #[arg(long, value_delimiter = ',', required = true)]
    pub browser: Vec<String>,
    /// An HTML file to use as the test page (files beside it are served too); default: a
    /// page of ours with its own stylesheet.
    #[arg(long, value_name = "FILE.html")]
    pub page: Option<PathBuf>,
    /// A second build to compare with (e.g. another bundler's output); prints the
    /// differences.
    #[arg(long, value_name = "DIST2")]
    pub against: Option<PathBuf>,
    /// Print the reports, problems and differences as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The engine a `--browser` name means.
fn engine(name: &str) -> Option<Engine> {
    match name.trim() {
        "chromium" | "chrome" => Some(Engine::Chromium),
        "firefox" | "gecko" => Some(Engine::Gecko),
        _ => None,
    }
}

pub(super) async fn run(ctx: &Ctx, args: BehaviourArgs) -> ExitCode {
    let mut engines = Vec::new();
    for name in &args.browser {
        match engine(name) {
            Some(e) if !engines.contains(&e) => engines.push(e),
            Some(_) => {}
            None => {
                return usage_error(&format!(
                    "unknown browser `{name}`; use chromium, firefox or chromium,firefox"
                ));
            }
        }
    }
    let opts = Options { page: args.page.clone(), ..Options::default() };
    let mut out = Vec::new();
    let mut failed = false;
    for engine in engines {
        let left = match behaviour::check(&args.dist, engine, &opts, &ctx.env, Some(&ctx.config)).await {
            Ok(r) => r,
            Err(e) => return failure(e, args.json),
        };
        let right = match &args.against {
            Some(dist) => match behaviour::check(dist, engine, &opts, &ctx.env, Some(&ctx.config)).await {
                Ok(r) => Some(r),
                Err(e) => return failure(e, args.json),
            },
            None => None,
        };
        let entry = Entry::new(left, right);
        failed |= entry.failed();
        out.push(entry);
    }
    if args.json {
        let all: Vec<Value> = out.iter().map(Entry::json).collect();
        print_stdout(&pretty(&json!({"ok": !failed, "browsers": all})));
    } else {
        print_stdout(out.iter().map(Entry::text).collect::<Vec<_>>().join("\n").trim_end());
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// One browser's outcome.
struct Entry {
    left: Report,
    right: Option<Report>,
    differences: Vec<behaviour::Difference>,
}

impl Entry {
    fn new(left: Report, right: Option<Report>) -> Entry {
        let differences = right.as_ref().map(|r| behaviour::diff(&left, r)).unwrap_or_default();
        Entry { left, right, differences }
    }

    /// Two builds: any difference. One build: any problem.
    fn failed(&self) -> bool {
        match self.right {
            Some(_) => !self.differences.is_empty(),
            None => !behaviour::problems(&self.left).is_empty(),
        }
    }

    fn json(&self) -> Value {
        let mut v = json!({
            "browser": self.left.browser,
            "report": self.left,
            "problems": behaviour::problems(&self.left),
        });
        if let Some(r) = &self.right {
            v["against"] = json!(r);
            v["againstProblems"] = json!(behaviour::problems(r));
            v["differences"] = json!(self.differences);
        }
        v
    }

    fn text(&self) -> String {
        let mut t = format!("{}: {}\n", self.left.browser, summary(&self.left));
        for p in behaviour::problems(&self.left) {
            t.push_str(&format!("  problem: {p}\n"));
        }
        if let Some(r) = &self.right {
            t.push_str(&format!("{} (against {}): {}\n", r.browser, r.dist, summary(r)));
            for p in behaviour::problems(r) {
                t.push_str(&format!("  problem: {p}\n"));
            }
            if self.differences.is_empty() {
                t.push_str("  no difference\n");
            }
            for d in &self.differences {
                let side = |s: &Option<String>| s.clone().unwrap_or_else(|| "(absent)".to_owned());
                t.push_str(&format!("  {}: {} | {}\n", d.path, side(&d.left), side(&d.right)));
            }
        }
        t
    }
}

/// One line per build: what it mounted, where.
fn summary(r: &Report) -> String {
    if !r.loaded {
        return "not loaded".to_owned();
    }
    let parts: Vec<String> = r
        .surfaces
        .iter()
        .map(|s| {
            let mount = s.mount.as_ref().map_or(String::new(), |m| format!(", {} children", m.children));
            format!("{} {} root(s){mount}", s.name, s.root_count)
        })
        .collect();
    let bg = match (&r.background.declared, r.background.alive) {
        (None, _) => "no background".to_owned(),
        (Some(kind), true) => format!("background {kind} alive"),
        (Some(kind), false) => format!("background {kind} NOT alive"),
    };
    format!("{}; {bg}; {} error(s)", parts.join(", "), r.errors.len())
}

fn failure(e: BehaviourError, as_json: bool) -> ExitCode {
    let usage = matches!(e, BehaviourError::Dist { .. } | BehaviourError::Page { .. });
    let invalid = |e: &BehaviourError| {
        ErrorBody::new(webext_mcp_host::protocol::ErrorCode::InvalidArgument, e.to_string())
    };
    let body = match e {
        BehaviourError::Runner(r) => ErrorBody::from(r),
        e @ BehaviourError::Dist { .. } => {
            invalid(&e).with_hint("run `webext-mcp build PROJECT` and pass its dist/<browser> folder")
        }
        e @ BehaviourError::Page { .. } => invalid(&e)
            .with_hint("leave out --page to use the default test page, or pass an existing .html file"),
    };
    if as_json {
        print_stdout(&pretty(&json!({ "error": body })));
    } else {
        eprintln!("{}", body.line());
    }
    ExitCode::from(if usage { 2 } else { 1 })
}
