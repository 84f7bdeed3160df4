//! Dev-session tools: `extension_dev`, `extension_start`, `extension_preview`,
//! `extension_wait`, `extension_stop`. They start session processes (`crate::session`) and
//! talk to them through their contract files and control socket.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::timeouts::Timeout;
use webext_mcp_host::protocol::timeouts::{SESSION_STOP_MS, SESSION_WAIT_TIMEOUT_MS};

use crate::tools::registry::schema::NoOtherFields;
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub use super::describe::{describe, describe_reported};
pub use super::progress::event_text;
use crate::build::delegate::DELEGATED_ENV;
use crate::lock::Lock;
use crate::manifest;
use crate::paths::resolve_lexically;
use crate::runner::profile::ProfileRule;
use crate::session::run_config::RunConfig;
use crate::session::{self, Command, Reported, Spec, contract};

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_DEV, EXTENSION_START, EXTENSION_PREVIEW, EXTENSION_WAIT, EXTENSION_STOP]
}

/// Arguments of `extension_dev` and `extension_preview` (and, flattened, of
/// `extension_start`); also the flags of `webext-mcp dev|start|preview`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionArgs {
    /// Project root.
    #[arg(value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// chromium, chrome, edge, brave, firefox, librewolf… (default: config `browser`, else the first installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub browser: Option<String>,
    /// Profile folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "DIR")]
    pub profile: Option<String>,
    /// No window (default: config headless).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub headless: Option<bool>,
    /// Page to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "URL")]
    pub starting_url: Option<String>,
    /// Browser binary to use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "PATH")]
    pub binary: Option<String>,
    /// Outlive the caller.
    #[serde(default)]
    #[arg(long)]
    pub detach: bool,
    /// Let extension_eval run in it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[arg(long)]
    pub allow_eval: bool,
    /// Accepted for compatibility with Extension.js-style callers and not listed: sessions
    /// have no dev server, so there is no port to choose.
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    #[arg(skip)]
    pub port: Option<u32>,
}

/// Arguments of `extension_start`: a session's, and how to wait for it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase")]
// `other` refuses unknown fields, as `deny_unknown_fields` says in the other schemas.
#[schemars(extend("additionalProperties" = false))]
pub struct StartArgs {
    #[serde(flatten)]
    #[command(flatten)]
    pub session: SessionArgs,
    /// Accepted for compatibility and not listed: no `browser.*` polyfill is needed
    /// (Chromium-family browsers have `chrome.*` with promises, Firefox has `browser.*`).
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    #[arg(skip)]
    pub polyfill: Option<bool>,
    /// Return once ready.
    #[serde(default)]
    #[arg(skip)]
    pub wait: bool,
    /// How long `wait` waits, in ms (default 45000; over 50000 waits 50000; `waitTimeout` is the deprecated name).
    #[serde(default, alias = "waitTimeout", skip_serializing_if = "Option::is_none")]
    #[arg(long, alias = "timeout", value_name = "MS")]
    pub timeout_ms: Option<u64>,
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    #[arg(skip)]
    pub other: NoOtherFields,
}

/// Arguments of `extension_wait`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitArgs {
    #[arg(value_name = "PATH", default_value = ".", help = "Project root")]
    pub project_path: String,
    /// Default: the project's only session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub browser: Option<String>,
    /// Milliseconds (default 45000; over 50000 waits 50000; `timeout` is the deprecated name).
    #[serde(default, alias = "timeout", skip_serializing_if = "Option::is_none")]
    #[arg(long, alias = "timeout", value_name = "MS")]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `extension_stop`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StopArgs {
    #[arg(value_name = "PATH", default_value = ".", help = "Project root")]
    pub project_path: String,
    /// Default: the project's only session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub browser: Option<String>,
}

pub(super) fn project_of(path: &str) -> Result<PathBuf, ErrorBody> {
    if path.trim().is_empty() {
        return Err(ErrorBody::invalid_argument("`projectPath` is empty")
            .with_hint("pass the extension project's folder"));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let project = resolve_lexically(&cwd, Path::new(path));
    if !project.is_dir() {
        return Err(ErrorBody::not_found(format!("project folder {} does not exist", project.display()))
            .with_hint("pass projectPath: the folder that holds manifest.json (or src/manifest.json)"));
    }
    Ok(std::fs::canonicalize(&project).unwrap_or(project))
}

/// Starts a session process and waits for its first report (at most `timeout`, by default
/// the session-wait default, reporting progress); owned sessions live as long as this
/// process. A session still starting when the wait ends goes on and is answered as it is.
async fn start_session(
    ctx: &Ctx,
    call: &Call,
    command: Command,
    args: &SessionArgs,
    timeout: Option<Duration>,
) -> Result<Reported, ErrorBody> {
    let timeout = timeout.unwrap_or(Duration::from_millis(SESSION_WAIT_TIMEOUT_MS));
    let launched = launch(ctx, call, command, args, timeout).await?;
    Ok(if args.detach { launched.ready } else { launched.keep_owned() })
}

/// A managed build as a session's browser: it builds and runs as the catalog browser it is
/// a build of (Chrome for Testing is `chrome`: `dist/chrome/`; the Mozilla builds `firefox`).
fn managed_choice(i: crate::browsers::managed::Installed) -> Result<session::BrowserChoice, ErrorBody> {
    let browser = i.record.browser;
    if !crate::browsers::survey::runs_sessions(browser.engine()) {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            format!("dev sessions do not run in {} yet", browser.name()),
        )
        .with_hint("use browser: \"chrome-for-testing\", chromium or firefox"));
    }
    let target = manifest::Target::named(browser.catalog_browser())
        .ok_or_else(|| ErrorBody::internal(format!("{} names no build target", browser.name())))?;
    Ok(session::BrowserChoice { target, family: browser.engine(), binary: i.binary_path })
}

/// Spawns the session process for `command` and waits (up to `timeout`) for its first
/// report, telling `call` the session's status once a second.
async fn launch(
    ctx: &Ctx,
    call: &Call,
    command: Command,
    args: &SessionArgs,
    timeout: Duration,
) -> Result<session::Launched, ErrorBody> {
    if args.port.is_some() {
        tracing::debug!("`port` ignored: sessions have no dev server");
    }
    let project = project_of(&args.project_path)?;
    if command != Command::Preview && manifest::find_manifest(&project).is_none() {
        return Err(ErrorBody::not_found(format!("no manifest.json in {} or its src/ folder", project.display()))
            .with_hint("pass the extension project's root folder, or create manifest.json there (extension_create scaffolds one)"));
    }
    let binary = args.binary.as_deref().map(PathBuf::from);
    let (name, cache) = (args.browser.as_deref(), &ctx.paths.browsers_dir);
    // A managed build the call names is what the caller asked for: a config binary does not
    // replace it (it still replaces a managed build standing in for a missing browser).
    let asked_managed = crate::browsers::managed::for_session(name, cache);
    let named_managed = asked_managed.is_some();
    let mut choice = match asked_managed {
        Some(managed) => managed_choice(managed?)?,
        None => match session::resolve_browser(name, binary.as_deref(), &ctx.env, &ctx.config) {
            // No such browser on the system: a managed build of it (or any) stands in.
            Err(e) if e.code == ErrorCode::NotInstalled && binary.is_none() => {
                managed_choice(crate::browsers::managed::fallback(name, cache).ok_or(e)?)?
            }
            other => other?,
        },
    };
    // The project's extension.config.* run keys (issue 21), vetted; the call's own win.
    let profiles = ProfileRule::for_user(&ctx.paths, &ctx.env, &project);
    let from_config = RunConfig::read(&project, choice.target.name, choice.target.engine, command, &profiles);
    if binary.is_none()
        && !named_managed
        && let Some(b) = &from_config.binary
    {
        choice = session::resolve_browser(Some(choice.target.name), Some(b), &ctx.env, &ctx.config)?;
    }
    let browser = choice.target.name.to_owned();
    let out_dir = project.join("dist");
    let runtime = ctx.paths.runtime_dir.clone();
    let running = match session::control::locate(&ctx.paths.runtime_search, &project, &browser) {
        Ok(socket) => {
            session::control::request(&socket, &session::control::Call::status(), Duration::from_secs(2))
                .await
        }
        Err(e) => Err(e),
    };
    if let Ok(status) = running {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            format!("a {} session of {} is already running ({browser})", status.command, project.display()),
        )
        .with_hint("use it (extension_wait), or extension_stop it and start again")
        .with_data(json!({ "sessionId": status.session_id, "pid": status.pid })));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let profile = match args.profile.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(p) => profiles.from_caller(&resolve_lexically(&cwd, Path::new(p))).map_err(|why| {
            ErrorBody::new(ErrorCode::PermissionDenied, format!("`profile` {p} is refused: {why}"))
                .with_hint("omit `profile` (the session keeps its own in dist/extension-js/profiles/) or pass a new folder")
        })?,
        None => from_config.profile.clone().unwrap_or_else(|| session::default_profile(&out_dir, &browser)),
    };
    let spec = Spec {
        command,
        project,
        browser,
        binary: choice.binary,
        out_dir,
        profile,
        headless: args.headless.unwrap_or_else(|| ctx.config.flag("headless")),
        starting_url: args
            .starting_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .or(from_config.starting_url.clone()),
        session_id: session::new_session_id(command),
        owned: !args.detach,
        runtime_dir: runtime,
        node: ctx.env.get("WEBEXT_MCP_NODE").map(PathBuf::from),
        allow_delegation: ctx.env.get(DELEGATED_ENV) != Some("1"),
        allow_npx: ctx.config.flag("build.allowNpx"),
        home: ctx.paths.home.clone(),
        run_config: from_config.clone(),
        allow_eval: args.allow_eval || ctx.config.flag("tools.extension_eval"),
        consent: crate::build::consent::Consent::from_config(&ctx.config, &ctx.paths.data_dir),
    };
    let dir = session::contract_dir(&spec.out_dir, &spec.browser);
    let (call, browser) = (call.clone(), spec.browser.clone());
    session::launch(&spec, timeout, &mut move || call.status(super::progress::session_status(&dir, &browser)))
        .await
}

const EXTENSION_DEV: ToolDef = ToolDef {
    name: "extension_dev",
    title: "Start a dev session",
    toolset: Toolset::Dev,
    description: "Dev session in Chromium or Firefox with an isolated profile: on save, rebuild, reload and re-inject content scripts. Returns ready.json (ready, or error with file:line) and the sessionId (a `browser` for the page tools). Ends with this server unless detach.",
    effect: Effect::Additive,
    input_schema: schema_of::<SessionArgs>,
    run: |ctx, call, args| Box::pin(extension_dev(ctx, call, args)),
};

async fn extension_dev(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: SessionArgs = decode(args)?;
    let ready = start_session(&ctx, &call, Command::Dev, &args, None).await?;
    Ok(ToolOutput { text: Some(describe_reported(&ready)), structured: structured(&ready)? })
}

const EXTENSION_PREVIEW: ToolDef = ToolDef {
    name: "extension_preview",
    title: "Run a built extension",
    toolset: Toolset::Dev,
    description: "Run the already built dist/<browser>/ in a browser, without building or watching. Returns ready.json and the sessionId.",
    effect: Effect::Additive,
    input_schema: schema_of::<SessionArgs>,
    run: |ctx, call, args| Box::pin(extension_preview(ctx, call, args)),
};

async fn extension_preview(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: SessionArgs = decode(args)?;
    let ready = start_session(&ctx, &call, Command::Preview, &args, None).await?;
    let mut text = describe_reported(&ready);
    let browser = ready.browser();
    let dist = match &ready {
        Reported::Ready(r) => r.dist_path.as_path(),
        Reported::Starting(_) => Path::new(""),
    };
    if dist.file_name().is_some_and(|n| n != browser) {
        text.push_str(&format!(
            "\nno dist/{browser}/ build: running {}, the build of another browser of the same engine",
            dist.display()
        ));
    }
    Ok(ToolOutput { text: Some(text), structured: structured(&ready)? })
}

/// A session's state as a tool's structured output (serialized once, here at the edge).
fn structured<T: serde::Serialize>(ready: &T) -> Result<Value, ErrorBody> {
    serde_json::to_value(ready).map_err(|e| ErrorBody::internal(e.to_string()))
}

const EXTENSION_START: ToolDef = ToolDef {
    name: "extension_start",
    title: "Build and run (production)",
    toolset: Toolset::Dev,
    description: "Production build run in a browser, no reload: the pre-publish check. With wait: ready.json once ready (errors fail).",
    effect: Effect::Additive,
    input_schema: schema_of::<StartArgs>,
    run: |ctx, call, args| Box::pin(extension_start(ctx, call, args)),
};

async fn extension_start(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: StartArgs = decode(args)?;
    if args.polyfill.is_some() {
        tracing::debug!("`polyfill` ignored: no session browser needs one");
    }
    // timeoutMs bounds the launch wait like every wait (more than the maximum waits the
    // maximum); without it the session-wait default applies.
    let wait = Timeout::for_wait(args.timeout_ms, SESSION_WAIT_TIMEOUT_MS)?;
    let timeout = Some(wait.duration());
    let ready = start_session(&ctx, &call, Command::Start, &args.session, timeout).await?;
    if !args.wait {
        let short =
            json!({ "pid": ready.pid(), "browser": ready.browser(), "sessionId": ready.session_id() });
        return Ok(ToolOutput { text: Some(describe_reported(&ready)), structured: short });
    }
    let ready = match ready {
        Reported::Ready(r) if r.status == contract::Status::Ready => r,
        Reported::Ready(r) if r.status == contract::Status::Error => return Err(error_of(&r)),
        other => {
            let browser = other.browser().to_owned();
            return Err(wait.explain(super::progress::not_ready(&browser, wait.ms(), &structured(&other)?)));
        }
    };
    Ok(ToolOutput { text: Some(describe(&ready)), structured: structured(&ready)? })
}

/// The error a session in `error` status answers with: the code of its first problem.
fn error_of(ready: &contract::Ready) -> ErrorBody {
    let details = &ready.error_details;
    let code = details
        .first()
        .and_then(|d| serde_json::from_value::<ErrorCode>(Value::String(d.code.clone())).ok())
        .unwrap_or(ErrorCode::ScriptError);
    ErrorBody::new(code, format!("the session is in error: {}", ready.errors.join("; ")))
        .with_hint(
            "fix the file and line named and save; the session rebuilds and recovers `ready` by itself",
        )
        .with_data(json!({ "errors": details, "ready": ready }))
}

/// Which session's browser to use when the caller names none: the project's only running
/// session, else the browser of its latest session (so a chromium project's messages say
/// chromium), else the browser a new session would run in (`session::default_browser`).
pub(super) fn session_browser(ctx: &Ctx, out_dir: &Path, given: Option<&str>) -> Result<String, ErrorBody> {
    if let Some(b) = given.map(str::trim).filter(|b| !b.is_empty()) {
        return manifest::Target::named(b).map(|t| t.name.to_owned()).ok_or_else(|| {
            ErrorBody::invalid_argument(format!("unknown browser `{b}`"))
                .with_hint("use the browser the session was started with")
        });
    }
    let mut live = Vec::new();
    let mut latest: Option<(std::time::SystemTime, String)> = None;
    for entry in std::fs::read_dir(out_dir.join("extension-js")).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(r) = contract::read_ready(&entry.path()) else { continue };
        if r.status != contract::Status::Stopped && session::pid_alive(r.pid) {
            live.push(name.clone());
        }
        let at = std::fs::metadata(entry.path().join("ready.json")).and_then(|m| m.modified()).ok();
        if let Some(at) = at
            && latest.as_ref().is_none_or(|(t, _)| at > *t)
            && manifest::Target::named(&name).is_some()
        {
            latest = Some((at, name));
        }
    }
    match live.len() {
        0 => Ok(latest.map_or_else(
            || session::default_browser_name(&ctx.env, &ctx.config).to_owned(),
            |(_, name)| name,
        )),
        1 => Ok(live.remove(0)),
        _ => Err(ErrorBody::invalid_argument(format!(
            "sessions run for several browsers: {}",
            live.join(", ")
        ))
        .with_hint("pass `browser`")),
    }
}

const EXTENSION_WAIT: ToolDef = ToolDef {
    name: "extension_wait",
    title: "Wait for a session",
    toolset: Toolset::Dev,
    description: "Wait until a project's session is ready (ready.json ready, process alive); error status fails with file:line, TIMEOUT gives the last status.",
    effect: Effect::Read,
    input_schema: schema_of::<WaitArgs>,
    run: |ctx, call, args| Box::pin(extension_wait(ctx, call, args)),
};

async fn extension_wait(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: WaitArgs = decode(args)?;
    let project = project_of(&args.project_path)?;
    let out_dir = project.join("dist");
    let browser = session_browser(&ctx, &out_dir, args.browser.as_deref())?;
    let dir = session::contract_dir(&out_dir, &browser);
    let wait = Timeout::for_wait(args.timeout_ms, SESSION_WAIT_TIMEOUT_MS)?;
    let timeout = wait.duration();
    let deadline = Instant::now() + timeout;
    let mut last: Option<contract::Ready> = None;
    let mut next_report = Instant::now() + Duration::from_secs(1);
    loop {
        if let Some(r) = contract::read_ready(&dir) {
            let alive = session::pid_alive(r.pid);
            match r.status {
                contract::Status::Ready if alive => {
                    return Ok(ToolOutput { text: Some(describe(&r)), structured: structured(&r)? });
                }
                contract::Status::Error if alive => return Err(error_of(&r)),
                contract::Status::Stopped => {
                    return Err(ErrorBody::not_found(format!(
                        "the {browser} session of {} has stopped",
                        project.display()
                    ))
                    .with_hint("start one with extension_dev, extension_start or extension_preview")
                    .with_data(json!({ "ready": r })));
                }
                _ if !alive => {
                    return Err(ErrorBody::not_found(format!(
                        "the {browser} session of {} is gone (pid {} no longer runs)",
                        project.display(),
                        r.pid
                    ))
                    .with_hint("start it again; its session.log says why it ended")
                    .with_data(json!({ "ready": r })));
                }
                _ => {}
            }
            last = Some(r);
        }
        if Instant::now() >= deadline {
            let ready = serde_json::to_value(&last).unwrap_or(Value::Null);
            return Err(wait.explain(super::progress::not_ready(&browser, wait.ms(), &ready)));
        }
        if Instant::now() >= next_report {
            call.status(super::progress::session_status(&dir, &browser));
            next_report += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const EXTENSION_STOP: ToolDef = ToolDef {
    name: "extension_stop",
    title: "Stop a session",
    toolset: Toolset::Dev,
    description: "Stop a project's session: browser, host and watcher end, the build lock is released.",
    effect: Effect::Idempotent,
    input_schema: schema_of::<StopArgs>,
    run: |ctx, _call, args| Box::pin(extension_stop(ctx, args)),
};

async fn extension_stop(ctx: Ctx, args: Value) -> ToolResult {
    let args: StopArgs = decode(args)?;
    let project = project_of(&args.project_path)?;
    let out_dir = project.join("dist");
    let browser = session_browser(&ctx, &out_dir, args.browser.as_deref())?;
    if args.browser.is_none() && !session::contract_dir(&out_dir, &browser).exists() {
        // Nothing ever ran here: name no browser the caller did not choose.
        return Err(ErrorBody::not_found(format!("no session is running for {}", project.display()))
            .with_hint("extension_dev, extension_start or extension_preview start one"));
    }
    let ready = session::stop(
        &ctx.paths.runtime_search,
        &out_dir,
        &project,
        &browser,
        Duration::from_millis(SESSION_STOP_MS),
    )
    .await?;
    let lock_free = Lock::acquire(&out_dir, &browser, None).is_ok();
    let text = format!(
        "stopped the {browser} session {} of {} (browser, host and watcher ended; build lock {})",
        ready.session_id,
        project.display(),
        if lock_free { "released" } else { "still held by another process" }
    );
    let mut out = serde_json::to_value(&ready).map_err(|e| ErrorBody::internal(e.to_string()))?;
    out["lockFree"] = json!(lock_free);
    Ok(ToolOutput { text: Some(text), structured: out })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `describe` reads the typed `ready.json`; a session without one yet is described by
    /// its id and browser, as the JSON stand-in was.
    #[test]
    fn describes_ready_and_starting_sessions() {
        let starting = Reported::Starting(session::Starting {
            status: contract::Status::Starting,
            session_id: "dev-1".into(),
            browser: "firefox".into(),
        });
        assert_eq!(
            serde_json::to_value(&starting).unwrap(),
            json!({"status": "starting", "sessionId": "dev-1", "browser": "firefox"})
        );
        assert_eq!(
            describe_reported(&starting),
            "? session dev-1 is starting: firefox (pid null), browser pid null, extension (not loaded) from ?\nstill starting (a first build can take minutes): extension_wait waits on, its progress says what the session is doing"
        );
        let ready: contract::Ready = serde_json::from_value(json!({
            "schemaVersion": 1, "schema": "extension-js/ready", "status": "error", "command": "dev",
            "browser": "chromium", "runId": "r", "pid": 7, "browserPid": null, "port": null,
            "distPath": "/p/dist/dev/chromium", "manifestPath": "/p/dist/dev/chromium/manifest.json",
            "startedAt": "t", "compiledAt": null, "errors": ["a.js:1 boom"], "extensionId": "abc",
            "profilePath": "/p/prof", "sessionId": "dev-2", "projectPath": "/p", "controlSocket": "/s",
            "runConfig": {"file": "extension.config.mjs", "profile": null, "startingUrl": null, "binary": null,
                          "browserFlags": ["--x"], "excludeBrowserFlags": [], "preferences": {},
                          "refused": [{"key": "k", "value": "v", "why": "w"}]}
        }))
        .unwrap();
        assert_eq!(
            describe(&ready),
            "dev session dev-2 is error: chromium (pid 7), browser pid null, extension abc from /p/dist/dev/chromium\nprofile /p/prof\nflags from extension.config.mjs: --x\nnot applied from extension.config.mjs: k `v`: w\nerrors:\n  a.js:1 boom\nfix them and save: the session rebuilds and reloads by itself"
        );
    }

    /// `extension_start` embeds the session's arguments and still refuses unknown ones, with
    /// the field named; the deprecated and compatibility names keep working.
    #[test]
    fn start_args_flatten_the_session_and_refuse_unknown_fields() {
        let args: StartArgs = decode(json!({
            "projectPath": "p", "browser": "chromium", "waitTimeout": 5, "polyfill": true, "port": 1, "wait": true
        }))
        .unwrap();
        assert_eq!(args.session.project_path, "p");
        assert_eq!(args.session.browser.as_deref(), Some("chromium"));
        assert_eq!(args.timeout_ms, Some(5));
        assert!(args.wait);
        let err = decode::<StartArgs>(json!({"projectPath": "p", "bogus": 1})).unwrap_err();
        assert!(err.message.contains("bogus"), "{}", err.message);
        let err = decode::<SessionArgs>(json!({"projectPath": "p", "wait": true})).unwrap_err();
        assert!(err.message.contains("wait"), "{}", err.message);
        assert!(decode::<StartArgs>(json!({"browser": "chromium"})).is_err(), "projectPath is required");
    }
}
