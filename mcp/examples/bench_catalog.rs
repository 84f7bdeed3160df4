//! In-process timing of `extension_list_templates` (figures, not pass/fail), run by
//! `scripts/bench-catalog`: the warm tool call through the registry (decode, search, compact
//! JSON, text) and the pure listing, median of many runs, plus the bytes returned.
//! `cargo run --release -p webext-mcp --example bench_catalog`.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;
use std::time::Instant;

use serde_json::{Value, json};
use webext_mcp::catalog::Catalog;
use webext_mcp::config::Flags;
use webext_mcp::paths::Env;
use webext_mcp::tools::templates::catalog::{ListArgs, list};

const RUNS: usize = 2001;

#[path = "bench_catalog/remote_bench.rs"]
mod remote_bench;

fn median_us(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> ExitCode {
    let temp = match tempfile::tempdir() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("cannot make a temporary home: {e}");
            return ExitCode::from(1);
        }
    };
    // `WEBEXT_MCP_BENCH_HOME`: warm that home's catalog cache and leave it, for the CLI runs.
    let home = std::env::var_os("WEBEXT_MCP_BENCH_HOME").map(std::path::PathBuf::from);
    let home = home.as_deref().unwrap_or(temp.path());
    let ctx = match webext_mcp::cli::context(Some(home), Env::capture(), &Flags::new()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}", e.line());
            return ExitCode::from(1);
        }
    };
    if let Err(e) = remote_bench::warm(&ctx.paths.cache_dir) {
        eprintln!("cannot warm the remote catalog cache: {e}");
        return ExitCode::from(1);
    }
    remote_bench::add_feature();
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        eprintln!("cannot start a runtime");
        return ExitCode::from(1);
    };
    let cases: [(&str, Value); 3] = [
        ("default page", json!({})),
        ("query", json!({"query": "sidebar to chat with an AI about the page"})),
        ("all, limit 50", json!({"limit": 50})),
    ];
    for (name, args) in cases {
        let mut bytes = 0;
        let mut samples = Vec::with_capacity(RUNS);
        for i in 0..RUNS + 1 {
            let t0 = Instant::now();
            let out = rt.block_on(webext_mcp::tools::call(
                &ctx,
                Default::default(),
                "extension_list_templates",
                args.clone(),
            ));
            let elapsed = t0.elapsed().as_secs_f64() * 1e6;
            let Some(Ok(out)) = out else {
                eprintln!("extension_list_templates failed");
                return ExitCode::from(1);
            };
            // The first call parses the embedded catalog: not a warm call.
            if i > 0 {
                samples.push(elapsed);
            }
            bytes = out.structured.to_string().len() + out.text().len();
        }
        println!(
            "list_templates_tool[{name}] median {:.1} us, {bytes} bytes (structured + text), n={RUNS}",
            median_us(samples)
        );
    }
    let extension_js = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/catalog/fixtures/templates-meta.v2.json"),
    );
    let mut samples = Vec::with_capacity(RUNS);
    let args = ListArgs { query: Some("content script with Sass modules".into()), ..ListArgs::default() };
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let _ = list(Catalog::embedded(), &args);
        samples.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    println!("list_pure[embedded, query] median {:.1} us, n={RUNS}", median_us(samples));
    if let Ok(text) = extension_js
        && let Ok(templates) = webext_mcp::catalog::parse_catalog(&text, "extension-js")
    {
        let catalog = Catalog::new(vec![Box::new(MetaOnly(templates))]);
        let mut samples = Vec::with_capacity(RUNS);
        let mut bytes = 0;
        for _ in 0..RUNS {
            let t0 = Instant::now();
            let out = list(&catalog, &args);
            samples.push(t0.elapsed().as_secs_f64() * 1e6);
            bytes = out.map(|v| v.to_string().len()).unwrap_or(0);
        }
        println!(
            "list_pure[extension-js 53 templates, query] median {:.1} us, {bytes} bytes, n={RUNS}",
            median_us(samples)
        );
    }
    ExitCode::SUCCESS
}

struct MetaOnly(Vec<webext_mcp::catalog::Template>);

impl webext_mcp::catalog::TemplateSource for MetaOnly {
    fn name(&self) -> &str {
        "extension-js"
    }
    fn templates(&self) -> &[webext_mcp::catalog::Template] {
        &self.0
    }
    fn read(
        &self,
        slug: &str,
        _path: &str,
    ) -> Result<Option<std::borrow::Cow<'static, [u8]>>, webext_mcp::catalog::CatalogError> {
        Err(webext_mcp::catalog::CatalogError::FilesUnavailable {
            source_name: "extension-js".into(),
            slug: slug.into(),
        })
    }
}
