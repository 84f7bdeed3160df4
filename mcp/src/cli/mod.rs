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

mod behaviour;
mod logs;
mod session;

use crate::config::{Config, Flags};
use crate::logging;
use crate::paths::{Env, Paths};
use crate::tools::browsers::managed::{
    DetectArgs, InstallBrowserArgs, ListBrowsersArgs, UninstallBrowserArgs,
};
use crate::tools::build::extension_build::BuildArgs;
use crate::tools::build::validate::{InspectBuildArgs, ValidateArgs};
use crate::tools::core::install::{DoctorArgs, InstallArgs, UninstallArgs};
use crate::tools::dev::logs::LogsArgs;
use crate::tools::dev::sessions::{SessionArgs, StartArgs, StopArgs, WaitArgs};
use crate::tools::dev::source_inspect::InspectArgs;
use crate::tools::templates::add_feature::AddFeatureArgs;
use crate::tools::templates::catalog::{CreateArgs, ListArgs};
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
    /// Allow the projects this command builds or installs to run their own code (package
    /// manager, build script, bundler configs, Extension.js); remembered per project until a
    /// file that chooses what runs changes. Config build.allowProjectScripts.
    #[arg(long, global = true)]
    allow_project_scripts: bool,
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
        /// Firefox container new tabs open in (name or cookieStoreId); with config
        /// `scope = "container"` the server sees and acts only on that container's tabs.
        #[arg(long, value_name = "NAME")]
        container: Option<String>,
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
    Build(Verb<BuildArgs>),
    /// Check the manifest in PATH per browser (types, values, files, locales, MDN support,
    /// permissions against the code); exits 1 when it is not valid. The
    /// `extension_manifest_validate` tool.
    Validate(Verb<ValidateArgs>),
    /// Analyze the build in PATH/dist/<browser>/ (built first if missing): sizes, entry
    /// points, permissions, store flags. The `extension_inspect` tool.
    #[command(name = "inspect-build")]
    InspectBuild(Verb<InspectBuildArgs>),
    /// List or search the extension templates; the `extension_list_templates` tool.
    Templates(Verb<ListArgs>),
    /// Create an extension project from a template; the `extension_create` tool.
    Create(Verb<CreateArgs>),
    /// Add a surface (sidebar, popup, options, content-script, …) to the project; the
    /// `extension_add_feature` tool.
    #[command(name = "add-feature")]
    AddFeature(Verb<AddFeatureArgs>),
    /// Register webext-mcp as the native-messaging host of every detected browser and unpack
    /// the helper extension; prints the next step per browser. The `install` tool.
    Install(Verb<InstallArgs>),
    /// Remove exactly what `install` wrote. The `uninstall` tool.
    Uninstall(Verb<UninstallArgs>),
    /// Start a dev session and print its events until Ctrl-C or `webext-mcp stop`: build,
    /// launch the browser, reload on save (`--detach`: return once ready). The
    /// `extension_dev` tool.
    Dev(Verb<SessionArgs>),
    /// Build for production and run it in a browser until Ctrl-C or `stop`. The
    /// `extension_start` tool.
    Start(Verb<StartArgs>),
    /// Run the already built dist/<browser>/ until Ctrl-C or `stop`. The `extension_preview`
    /// tool.
    Preview(Verb<SessionArgs>),
    /// Wait until the project's session is ready; the `extension_wait` tool.
    Wait(Verb<WaitArgs>),
    /// Stop the project's session; the `extension_stop` tool.
    Stop(Verb<StopArgs>),
    /// Look inside the project's running session: injection, rendered roots, console, HTML;
    /// the `extension_source_inspect` tool. Prints NDJSON events.
    Inspect(Verb<InspectArgs>),
    /// The project's session log (background, content scripts, pages, builds); the
    /// `extension_logs` tool. `--follow` prints new entries until Ctrl-C or the session ends.
    Logs(Verb<LogsArgs>),
    /// Internal: the session process that `dev`, `start` and `preview` spawn.
    #[command(name = "__session", hide = true)]
    SessionProcess {
        /// The session spec as JSON.
        spec: String,
    },
    /// Say why the helper extension does or does not connect, with a fix per problem. The
    /// `doctor` tool.
    Doctor(Verb<DoctorArgs>),
    /// Browsers on this machine, and browsers webext-mcp installs itself.
    #[command(subcommand)]
    Browsers(BrowsersVerb),
    /// Load a built extension folder in headless browsers on a local test page and report what
    /// it shows per surface (roots, styles, host page styles, errors, background); with
    /// `--against`, the differences from a second build.
    #[command(name = "behaviour-check")]
    BehaviourCheck(behaviour::BehaviourArgs),
}

/// `webext-mcp browsers …`: one verb per tool of the `browsers` group.
#[derive(Subcommand, Debug)]
enum BrowsersVerb {
    /// Every installed browser with path, version and abilities; the
    /// `extension_detect_browsers` tool.
    Detect(Verb<DetectArgs>),
    /// The managed browsers and each engine's default; the `extension_list_browsers` tool.
    List(Verb<ListBrowsersArgs>),
    /// Download a browser into the managed cache (or print the package-manager command with
    /// `--via system`); the `extension_install_browser` tool.
    Install(Verb<InstallBrowserArgs>),
    /// Remove a managed browser; the `extension_uninstall_browser` tool.
    Uninstall(Verb<UninstallBrowserArgs>),
}

/// A verb that is one tool: the tool's own argument type (so a renamed field renames the
/// flag), plus how to print.
#[derive(Args, Debug)]
struct Verb<A: Args> {
    #[command(flatten)]
    args: A,
    /// Print the structured result (or `{"error":…}`) as JSON.
    #[arg(long)]
    json: bool,
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
    if cli.global.allow_project_scripts {
        flags.insert(crate::build::consent::CONFIG_KEY, "1".to_owned());
    }
    if let Command::Serve { toolsets, browser, container } = &cli.command {
        if let Some(t) = toolsets {
            flags.insert("toolsets", t.clone());
        }
        if let Some(b) = browser {
            flags.insert("browser", b.clone());
        }
        if let Some(c) = container {
            flags.insert("container", c.clone());
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
    let containers = crate::bridge::Containers::new(config.text("container"), config.text("scope"))?;
    let browser = crate::bridge::BrowserState::new(&paths.runtime_search, config.text("browser"))
        .with_containers(containers);
    Ok(Arc::new(Context { paths, config, env, toolsets, browser, tools: tools::registry() }))
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
            Ok(args) if session::SESSION_TOOLS.contains(&tool.as_str()) => {
                session::call_detached(&ctx, &tool, args, json).await
            }
            Ok(args) => call(&ctx, &tool, args, json).await,
            Err(msg) => usage_error(&msg),
        },
        Command::Tools { json } => list_tools(&ctx, json),
        Command::Config { json } => call(&ctx, "get_config", json!({}), json).await,
        Command::SessionProcess { spec } => match serde_json::from_str::<crate::session::Spec>(&spec) {
            Ok(spec) => {
                // The session asks its own runtime dir for its helper, through the bridge.
                let helper = crate::bridge::BrowserState::new(std::slice::from_ref(&spec.runtime_dir), None);
                crate::session::run(spec, Box::new(helper)).await
            }
            Err(e) => usage_error(&format!("bad session spec: {e}")),
        },
        Command::Logs(v) if v.args.follow => logs::follow(&ctx, v.args, v.json).await,
        Command::BehaviourCheck(args) => behaviour::run(&ctx, args).await,
        command => match command.tool_call() {
            Some(ToolCall { tool, args: Ok(args), json, session: Some(detach) }) => {
                session::verb(&ctx, tool, args, detach, json).await
            }
            Some(ToolCall { tool, args: Ok(args), json, session: None }) => {
                call(&ctx, tool, args, json).await
            }
            Some(ToolCall { args: Err(e), .. }) => usage_error(&format!("cannot encode the arguments: {e}")),
            None => usage_error("this verb runs no tool"),
        },
    }
}

/// What a verb that is one tool runs.
struct ToolCall {
    tool: &'static str,
    /// The verb's arguments as the JSON object the tool decodes.
    args: Result<Value, serde_json::Error>,
    json: bool,
    /// For `dev`, `start` and `preview`: whether to detach (else the CLI follows the session).
    session: Option<bool>,
}

impl Command {
    /// The tool a verb is and what it passes; `None` for the verbs that are not one tool.
    fn tool_call(self) -> Option<ToolCall> {
        fn plain<A: serde::Serialize + Args>(tool: &'static str, v: Verb<A>) -> ToolCall {
            ToolCall { tool, args: serde_json::to_value(&v.args), json: v.json, session: None }
        }
        fn session<A: serde::Serialize + Args>(tool: &'static str, v: Verb<A>, detach: bool) -> ToolCall {
            ToolCall { session: Some(detach), ..plain(tool, v) }
        }
        Some(match self {
            Command::Build(v) => plain("extension_build", v),
            Command::Validate(v) => plain("extension_manifest_validate", v),
            Command::InspectBuild(v) => plain("extension_inspect", v),
            Command::Templates(v) => plain("extension_list_templates", v),
            Command::Create(v) => plain("extension_create", v),
            Command::AddFeature(v) => plain("extension_add_feature", v),
            Command::Install(v) => plain("install", v),
            Command::Uninstall(v) => plain("uninstall", v),
            Command::Dev(v) => {
                let detach = v.args.detach;
                session("extension_dev", v, detach)
            }
            Command::Start(mut v) => {
                // Detached, `start` answers once the session is ready, as `dev --detach` does.
                let detach = v.args.session.detach;
                v.args.wait = detach;
                session("extension_start", v, detach)
            }
            Command::Preview(v) => {
                let detach = v.args.detach;
                session("extension_preview", v, detach)
            }
            Command::Wait(v) => plain("extension_wait", v),
            Command::Stop(v) => plain("extension_stop", v),
            Command::Inspect(v) => plain("extension_source_inspect", v),
            Command::Logs(v) => plain("extension_logs", v),
            Command::Doctor(v) => plain("doctor", v),
            Command::Browsers(BrowsersVerb::Detect(v)) => plain("extension_detect_browsers", v),
            Command::Browsers(BrowsersVerb::List(v)) => plain("extension_list_browsers", v),
            Command::Browsers(BrowsersVerb::Install(v)) => plain("extension_install_browser", v),
            Command::Browsers(BrowsersVerb::Uninstall(v)) => plain("extension_uninstall_browser", v),
            Command::Serve { .. }
            | Command::Call { .. }
            | Command::Tools { .. }
            | Command::Config { .. }
            | Command::BehaviourCheck(_)
            | Command::SessionProcess { .. } => return None,
        })
    }
}

/// Progress lines on stderr when it is a terminal (never on stdout: `--json` output stays
/// clean); no sink otherwise.
pub(super) fn terminal_progress() -> tools::Call {
    use std::io::IsTerminal;
    let sink: Option<tools::ProgressSink> = std::io::stderr().is_terminal().then(|| {
        let sink: tools::ProgressSink = Arc::new(|p: tools::Progress| eprintln!("… {}", p.message));
        sink
    });
    tools::Call::new(sink, Default::default())
}

pub(super) async fn call(ctx: &Ctx, tool: &str, args: Value, as_json: bool) -> ExitCode {
    let Some(result) = tools::call(ctx, terminal_progress(), tool, args).await else {
        let names: Vec<&str> = tools::registry().iter().map(|t| t.name).collect();
        return usage_error(&format!("unknown tool `{tool}`; known tools: {}", names.join(", ")));
    };
    print_result(result, as_json)
}

/// Prints a tool's result (its text, or with `--json` its structured content or error) and
/// returns the exit code.
pub(super) fn print_result(result: tools::ToolResult, as_json: bool) -> ExitCode {
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
pub(super) fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests;
