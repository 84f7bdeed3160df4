//! Command line: `serve`, the CLI twin `call`, and the verbs built on it.
//!
//! Exit codes: 0 ok, 1 the tool reported an error, 2 usage error (bad flags, unknown tool,
//! arguments that are not JSON, a broken config file).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use crate::config::{Config, Flags};
use crate::logging;
use crate::paths::{Env, Paths};
use crate::tools::{self, Context, Ctx, Selection};

#[derive(Parser, Debug)]
#[command(
    name = "webext-mcp",
    version,
    about = "MCP server for building browser extensions and driving real browsers"
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug)]
struct Global {
    /// Use this directory as the home directory (config, data and cache live under it).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Log filter for stderr, e.g. `debug` (overrides WEBEXT_MCP_LOG and the config file).
    #[arg(long, global = true, value_name = "FILTER")]
    log: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak MCP over stdin/stdout (what an MCP client runs).
    Serve {
        /// Tool groups shown by tools/list: `default`, `all`, or names such as `core,debug`.
        #[arg(long, value_name = "LIST")]
        toolsets: Option<String>,
        /// Browser the browser tools use by default (name, profile label or session id).
        #[arg(long, value_name = "NAME")]
        browser: Option<String>,
    },
    /// Run one tool, exactly as the MCP server would, and print its result.
    Call {
        /// Tool name, as in tools/list.
        tool: String,
        /// Arguments as a JSON object; `-` reads them from stdin. Default `{}`.
        args: Option<String>,
        /// Print the structured result (or `{"error":…}`) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List every tool with its group.
    Tools {
        #[arg(long)]
        json: bool,
    },
    /// Show the effective configuration and where each value comes from.
    Config {
        #[arg(long)]
        json: bool,
    },
    /// Build the extension in PATH (default: the current folder) into dist/<browser>/; the
    /// `extension_build` tool.
    Build {
        /// The project folder (holds manifest.json or src/manifest.json).
        path: Option<String>,
        /// Browsers: a comma list such as `chrome,firefox`, or `all`. Default chrome.
        #[arg(long, value_name = "LIST")]
        browser: Option<String>,
        /// Also write the store zip dist/<name>-<version>-<browser>.zip.
        #[arg(long)]
        zip: bool,
        /// Also write the source zip dist/<name>-<version>-source.zip.
        #[arg(long)]
        zip_source: bool,
        /// Output root relative to the project (default dist); an existing one must be empty
        /// or built by webext-mcp.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List or search the extension templates; the `extension_list_templates` tool.
    Templates {
        /// What the extension should do, in words (ranks the results).
        query: Option<String>,
        /// action (popup), content, sidebar, newtab, devtools, options or background.
        #[arg(long)]
        surface: Option<String>,
        /// react, vue, svelte, preact, or `vanilla`.
        #[arg(long)]
        framework: Option<String>,
        /// A tag every result has (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// Only featured templates.
        #[arg(long)]
        featured: bool,
        /// Results per page (default 8, max 50).
        #[arg(long)]
        limit: Option<usize>,
        /// `nextCursor` of the previous page.
        #[arg(long)]
        cursor: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Create an extension project from a template; the `extension_create` tool.
    Create {
        /// Project name; also the new folder's name unless --path is given.
        name: String,
        /// Template slug or source:slug (default starter).
        #[arg(long)]
        template: Option<String>,
        /// Folder to create instead of ./NAME.
        #[arg(long, value_name = "DIR")]
        path: Option<String>,
        /// List the files; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Do not install dependencies.
        #[arg(long)]
        no_install: bool,
        /// Do not run `git init`.
        #[arg(long)]
        no_git: bool,
        #[arg(long)]
        json: bool,
    },
    /// Register webext-mcp as the native-messaging host of every detected browser and unpack
    /// the helper extension; prints the next step per browser. The `install` tool.
    Install {
        /// Browsers to install for even when not detected: a comma list such as
        /// `chromium,firefox`, channels such as `chrome-beta`, or `all`.
        #[arg(long, value_name = "LIST")]
        browser: Option<String>,
        /// List what would be written; write nothing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Remove exactly what `install` wrote. The `uninstall` tool.
    Uninstall {
        /// List what would be removed; remove nothing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Start a dev session and print its events until Ctrl-C or `webext-mcp stop`: build,
    /// launch the browser, reload on save. The `extension_dev` tool.
    Dev(SessionVerb),
    /// Build for production and run it in a browser until Ctrl-C or `stop`. The
    /// `extension_start` tool.
    Start(SessionVerb),
    /// Run the already built dist/<browser>/ until Ctrl-C or `stop`. The `extension_preview`
    /// tool.
    Preview(SessionVerb),
    /// Wait until the project's session is ready; the `extension_wait` tool.
    Wait {
        /// The project folder (default: the current folder).
        path: Option<String>,
        #[arg(long)]
        browser: Option<String>,
        /// Milliseconds (default 60000).
        #[arg(long)]
        timeout: Option<u64>,
        #[arg(long)]
        json: bool,
    },
    /// Stop the project's session; the `extension_stop` tool.
    Stop {
        /// The project folder (default: the current folder).
        path: Option<String>,
        #[arg(long)]
        browser: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Look inside the project's running session: injection, rendered roots, console, HTML;
    /// the `extension_source_inspect` tool. Prints NDJSON events.
    Inspect {
        /// The project folder (default: the current folder).
        path: Option<String>,
        #[arg(long)]
        browser: Option<String>,
        /// Navigate the session's tab here first.
        #[arg(long)]
        url: Option<String>,
        /// A CSS selector to count and sample (repeatable).
        #[arg(long = "probe", value_name = "SELECTOR")]
        probe: Vec<String>,
        /// What to return: html, summary, meta, dom_snapshot, console, tree (comma list or
        /// repeated; default summary,meta,console).
        #[arg(long = "include", value_name = "LIST", value_delimiter = ',')]
        include: Vec<String>,
        /// page, popup, options, sidepanel, newtab, devtools or background.
        #[arg(long)]
        context: Option<String>,
        /// off, open-only or all.
        #[arg(long)]
        shadow_dom: Option<String>,
        /// off, safe or strict.
        #[arg(long)]
        redact: Option<String>,
        /// ndjson or json (the text printed without --json).
        #[arg(long)]
        format: Option<String>,
        /// Cap of page_html and dom_snapshot in bytes.
        #[arg(long)]
        max_bytes: Option<u64>,
        /// Print the structured result (with every event) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Internal: the session process that `dev`, `start` and `preview` spawn.
    #[command(name = "__session", hide = true)]
    SessionProcess {
        /// The session spec as JSON.
        spec: String,
    },
    /// Say why the helper extension does or does not connect, with a fix per problem. The
    /// `doctor` tool.
    Doctor {
        /// Only these browsers (comma list), also when not detected.
        #[arg(long, value_name = "LIST")]
        browser: Option<String>,
        /// An error message the browser showed (the helper's status page), to explain.
        #[arg(long, value_name = "TEXT")]
        browser_error: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

/// Flags of `dev`, `start` and `preview`.
#[derive(Args, Debug)]
struct SessionVerb {
    /// The project folder (default: the current folder).
    path: Option<String>,
    /// chromium, chrome (Google Chrome), edge, brave, opera, vivaldi (default chrome).
    #[arg(long)]
    browser: Option<String>,
    /// Browser profile folder (default dist/extension-js/profiles/<browser>/).
    #[arg(long, value_name = "DIR")]
    profile: Option<String>,
    /// Run the browser without a window.
    #[arg(long)]
    headless: bool,
    /// Page to open once the extension is loaded.
    #[arg(long, value_name = "URL")]
    starting_url: Option<String>,
    /// Browser binary to launch instead of the detected one.
    #[arg(long, value_name = "PATH")]
    binary: Option<String>,
    /// Return once the session is ready and leave it running (stop it with `webext-mcp stop`).
    #[arg(long)]
    detach: bool,
    /// Print the contract and events as JSON lines.
    #[arg(long)]
    json: bool,
}

impl SessionVerb {
    fn args(&self) -> Value {
        json!({
            "projectPath": self.path.clone().unwrap_or_else(|| ".".to_owned()),
            "browser": self.browser,
            "profile": self.profile,
            "headless": self.headless.then_some(true),
            "startingUrl": self.starting_url,
            "binary": self.binary,
            "detach": self.detach,
        })
    }
}

/// `dev`, `start`, `preview`: detached through the tool, else in the foreground.
async fn session_verb(ctx: &Ctx, command: crate::session::Command, verb: SessionVerb) -> ExitCode {
    let tool = match command {
        crate::session::Command::Dev => "extension_dev",
        crate::session::Command::Start => "extension_start",
        crate::session::Command::Preview => "extension_preview",
    };
    if verb.detach {
        let mut args = verb.args();
        if command == crate::session::Command::Start {
            args["wait"] = json!(true);
        }
        return call(ctx, tool, args, verb.json).await;
    }
    let code =
        tools::dev::foreground(ctx, command, verb.args(), verb.json, &mut |line| print_stdout(line)).await;
    ExitCode::from(code)
}

/// Entry point of the binary.
pub fn main(argv: Vec<OsString>) -> ExitCode {
    // A browser starting its native-messaging host: no CLI, stdout is the protocol.
    if let Some(caller) = webext_mcp_host::native::invocation(&argv) {
        return webext_mcp_host::native::run(caller);
    }
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("webext-mcp: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(run(cli))
}

fn flags_of(cli: &Cli) -> Flags {
    let mut flags = Flags::new();
    if let Some(log) = &cli.global.log {
        flags.insert("log", log.clone());
    }
    if let Command::Serve { toolsets, browser } = &cli.command {
        if let Some(t) = toolsets {
            flags.insert("toolsets", t.clone());
        }
        if let Some(b) = browser {
            flags.insert("browser", b.clone());
        }
    }
    flags
}

/// Builds the shared context: paths, config, enabled toolsets.
pub fn context(home: Option<&std::path::Path>, env: Env, flags: &Flags) -> Result<Ctx, ErrorBody> {
    let paths = match home {
        Some(h) => Paths::for_home(h, &env.for_explicit_home()),
        None => Paths::detect(&env),
    };
    let config = Config::load(&paths.config_file, &env, flags)?;
    let toolsets = std::sync::RwLock::new(Selection::parse(&config.list("toolsets"))?);
    let browser = tools::browser::BrowserState::new(&paths.runtime_search, config.text("browser"));
    Ok(Arc::new(Context { paths, config, env, toolsets, browser }))
}

async fn run(cli: Cli) -> ExitCode {
    let flags = flags_of(&cli);
    let ctx = match context(cli.global.home.as_deref(), Env::capture(), &flags) {
        Ok(ctx) => ctx,
        Err(e) => return usage_error(&e.line()),
    };
    logging::init_stderr(ctx.config.log_filter());
    match cli.command {
        Command::Serve { .. } => match crate::server::serve_stdio(ctx).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!("MCP server stopped: {e:#}");
                ExitCode::from(1)
            }
        },
        Command::Call { tool, args, json } => match parse_args(args.as_deref()) {
            Ok(args) => call(&ctx, &tool, args, json).await,
            Err(msg) => usage_error(&msg),
        },
        Command::Tools { json } => list_tools(&ctx, json),
        Command::Config { json } => call(&ctx, "get_config", json!({}), json).await,
        Command::Build { path, browser, zip, zip_source, out_dir, json } => {
            let args = json!({
                "projectPath": path.unwrap_or_else(|| ".".to_owned()),
                "browser": browser,
                "zip": zip,
                "zipSource": zip_source,
                "outDir": out_dir,
            });
            call(&ctx, "extension_build", args, json).await
        }
        Command::Templates { query, surface, framework, tags, featured, limit, cursor, json } => {
            let args = json!({
                "query": query,
                "surface": surface,
                "framework": framework,
                "tags": tags,
                "featured": featured.then_some(true),
                "limit": limit,
                "cursor": cursor,
            });
            call(&ctx, "extension_list_templates", args, json).await
        }
        Command::Create { name, template, path, dry_run, no_install, no_git, json } => {
            let args = json!({
                "projectName": name,
                "template": template,
                "projectPath": path,
                "dryRun": dry_run,
                "install": !no_install,
                "git": !no_git,
            });
            call(&ctx, "extension_create", args, json).await
        }
        Command::Install { browser, dry_run, json } => {
            let args = json!({ "browser": browser, "dryRun": dry_run });
            call(&ctx, "install", args, json).await
        }
        Command::Uninstall { dry_run, json } => {
            call(&ctx, "uninstall", json!({ "dryRun": dry_run }), json).await
        }
        Command::Dev(verb) => session_verb(&ctx, crate::session::Command::Dev, verb).await,
        Command::Start(verb) => session_verb(&ctx, crate::session::Command::Start, verb).await,
        Command::Preview(verb) => session_verb(&ctx, crate::session::Command::Preview, verb).await,
        Command::Wait { path, browser, timeout, json } => {
            let args = json!({
                "projectPath": path.unwrap_or_else(|| ".".to_owned()),
                "browser": browser,
                "timeoutMs": timeout,
            });
            call(&ctx, "extension_wait", args, json).await
        }
        Command::Stop { path, browser, json } => {
            let args = json!({ "projectPath": path.unwrap_or_else(|| ".".to_owned()), "browser": browser });
            call(&ctx, "extension_stop", args, json).await
        }
        Command::Inspect {
            path,
            browser,
            url,
            probe,
            include,
            context,
            shadow_dom,
            redact,
            format,
            max_bytes,
            json,
        } => {
            let args = json!({
                "projectPath": path.unwrap_or_else(|| ".".to_owned()),
                "browser": browser,
                "url": url,
                "probe": probe,
                "include": (!include.is_empty()).then_some(include),
                "context": context,
                "shadowDom": shadow_dom,
                "redact": redact,
                "format": format,
                "maxBytes": max_bytes,
            });
            call(&ctx, "extension_source_inspect", drop_nulls(args), json).await
        }
        Command::SessionProcess { spec } => match serde_json::from_str::<crate::session::Spec>(&spec) {
            Ok(spec) => crate::session::run(spec).await,
            Err(e) => usage_error(&format!("bad session spec: {e}")),
        },
        Command::Doctor { browser, browser_error, json } => {
            let args = json!({ "browser": browser, "browserError": browser_error });
            call(&ctx, "doctor", args, json).await
        }
    }
}

/// Progress lines on stderr when it is a terminal (never on stdout: `--json` output stays
/// clean); no sink otherwise.
fn terminal_progress() -> tools::Call {
    use std::io::IsTerminal;
    let sink: Option<tools::ProgressSink> = std::io::stderr().is_terminal().then(|| {
        let sink: tools::ProgressSink = Arc::new(|p: tools::Progress| eprintln!("… {}", p.message));
        sink
    });
    tools::Call::new(sink, Default::default())
}

async fn call(ctx: &Ctx, tool: &str, args: Value, as_json: bool) -> ExitCode {
    let Some(result) = tools::call(ctx, terminal_progress(), tool, args).await else {
        let names: Vec<&str> = tools::registry().iter().map(|t| t.name).collect();
        return usage_error(&format!("unknown tool `{tool}`; known tools: {}", names.join(", ")));
    };
    // A report that lists problems (doctor, server_info) exits 1 like a failure.
    let found_problems = result.as_ref().is_ok_and(tools::ToolOutput::reports_problems);
    match result {
        Ok(out) if as_json => print_stdout(&pretty(&out.structured)),
        Ok(out) => print_stdout(&out.text()),
        Err(err) => {
            if as_json {
                print_stdout(&pretty(&json!({ "error": err })));
            } else {
                eprintln!("{}", err.line());
            }
            return ExitCode::from(1);
        }
    }
    if found_problems {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Leaves out the flags that were not given, so the tool's defaults apply.
fn drop_nulls(mut args: Value) -> Value {
    if let Value::Object(m) = &mut args {
        m.retain(|_, v| !v.is_null());
    }
    args
}

fn parse_args(args: Option<&str>) -> Result<Value, String> {
    let text = match args {
        None => return Ok(Value::Object(Default::default())),
        Some("-") => {
            let mut buf = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut buf)
                .map_err(|e| format!("cannot read arguments from stdin: {e}"))?;
            buf
        }
        Some(s) => s.to_owned(),
    };
    serde_json::from_str(&text)
        .map_err(|e| format!("arguments are not valid JSON ({e}); pass an object such as '{{\"tabId\": 3}}'"))
}

fn list_tools(ctx: &Ctx, as_json: bool) -> ExitCode {
    let selection =
        ctx.toolsets.read().map(|s| s.clone()).unwrap_or(Selection { defaults: true, groups: vec![] });
    let rows: Vec<Value> = tools::registry()
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "toolset": t.toolset.name(),
                "enabled": selection.shows(t),
                "description": t.description,
            })
        })
        .collect();
    if as_json {
        print_stdout(&pretty(&Value::Array(rows)));
    } else {
        let mut text = String::new();
        for t in tools::registry() {
            let off = if selection.shows(t) { "" } else { " (off)" };
            text.push_str(&format!("{:<28} {:<10}{} {}\n", t.name, t.toolset.name(), off, t.description));
        }
        print_stdout(text.trim_end());
    }
    ExitCode::SUCCESS
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("webext-mcp: {message}");
    ExitCode::from(2)
}

/// Writes a line to stdout; a closed pipe (`| head`) is not an error.
fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
