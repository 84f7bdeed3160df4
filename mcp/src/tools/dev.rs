//! Dev-session tools: `extension_dev`, `extension_start`, `extension_preview`,
//! `extension_wait`, `extension_stop`. They start session processes (`crate::session`) and
//! talk to them through their contract files and control socket.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::timeouts::Timeout;
use webext_mcp_host::protocol::timeouts::SESSION_WAIT_TIMEOUT_MS;

use super::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

mod progress;
use crate::build::delegate::DELEGATED_ENV;
use crate::build::lock::BuildLock;
use crate::manifest;
use crate::paths::resolve_lexically;
use crate::session::{self, Command, Spec, contract};

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "extension_dev",
            title: "Start a dev session",
            toolset: Toolset::Dev,
            description: "Dev session in a Chromium browser with an isolated profile: on save, rebuild, reload and re-inject content scripts. Returns ready.json (ready, or error with file:line) and the sessionId (a `browser` for the page tools). Ends with this server unless detach.",
            effect: Effect::Additive,
            input_schema: schema_of::<SessionArgs>,
            run: |ctx, call, args| Box::pin(extension_dev(ctx, call, args)),
        },
        ToolDef {
            name: "extension_start",
            title: "Build and run (production)",
            toolset: Toolset::Dev,
            description: "Production build run in a browser, no reload: the pre-publish check. With wait: ready.json once ready (errors fail).",
            effect: Effect::Additive,
            input_schema: schema_of::<StartArgs>,
            run: |ctx, call, args| Box::pin(extension_start(ctx, call, args)),
        },
        ToolDef {
            name: "extension_preview",
            title: "Run a built extension",
            toolset: Toolset::Dev,
            description: "Run the already built dist/<browser>/ in a browser, without building or watching. Returns ready.json and the sessionId.",
            effect: Effect::Additive,
            input_schema: schema_of::<SessionArgs>,
            run: |ctx, call, args| Box::pin(extension_preview(ctx, call, args)),
        },
        ToolDef {
            name: "extension_wait",
            title: "Wait for a session",
            toolset: Toolset::Dev,
            description: "Wait until a project's session is ready (ready.json ready, process alive); error status fails with file:line, TIMEOUT gives the last status.",
            effect: Effect::Read,
            input_schema: schema_of::<WaitArgs>,
            run: |ctx, call, args| Box::pin(extension_wait(ctx, call, args)),
        },
        ToolDef {
            name: "extension_stop",
            title: "Stop a session",
            toolset: Toolset::Dev,
            description: "Stop a project's session: browser, host and watcher end, the build lock is released.",
            effect: Effect::Idempotent,
            input_schema: schema_of::<StopArgs>,
            run: |ctx, _call, args| Box::pin(extension_stop(ctx, args)),
        },
    ]
}

/// Arguments of `extension_dev` and `extension_preview`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionArgs {
    /// Project root.
    pub project_path: String,
    /// chromium, chrome (default), edge, brave…
    #[serde(default)]
    pub browser: Option<String>,
    /// Profile folder.
    #[serde(default)]
    pub profile: Option<String>,
    /// No window (default: config headless).
    #[serde(default)]
    pub headless: Option<bool>,
    /// Page to open.
    #[serde(default)]
    pub starting_url: Option<String>,
    /// Browser binary to use.
    #[serde(default)]
    pub binary: Option<String>,
    /// Outlive the caller.
    #[serde(default)]
    pub detach: bool,
    /// Accepted for compatibility with Extension.js-style callers and not listed: sessions
    /// have no dev server, so there is no port to choose.
    #[serde(default)]
    #[schemars(skip)]
    pub port: Option<u32>,
}

/// Arguments of `extension_start`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StartArgs {
    /// Project root.
    pub project_path: String,
    /// chromium, chrome (default), edge, brave…
    #[serde(default)]
    pub browser: Option<String>,
    /// Profile folder.
    #[serde(default)]
    pub profile: Option<String>,
    /// No window (default: config headless).
    #[serde(default)]
    pub headless: Option<bool>,
    /// Page to open.
    #[serde(default)]
    pub starting_url: Option<String>,
    /// Browser binary to use.
    #[serde(default)]
    pub binary: Option<String>,
    /// Outlive the caller.
    #[serde(default)]
    pub detach: bool,
    /// Accepted for compatibility and not listed: Chromium-family browsers need no
    /// `browser.*` polyfill.
    #[serde(default)]
    #[schemars(skip)]
    pub polyfill: Option<bool>,
    /// Return once ready.
    #[serde(default)]
    pub wait: bool,
    /// How long `wait` waits, in ms (default 45000; over 50000 waits 50000; `waitTimeout` is the deprecated name).
    #[serde(default, alias = "waitTimeout")]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `extension_wait`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitArgs {
    pub project_path: String,
    /// Default: the project's only session.
    #[serde(default)]
    pub browser: Option<String>,
    /// Milliseconds (default 45000; over 50000 waits 50000; `timeout` is the deprecated name).
    #[serde(default, alias = "timeout")]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `extension_stop`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StopArgs {
    pub project_path: String,
    /// Default: the project's only session.
    #[serde(default)]
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
) -> Result<Value, ErrorBody> {
    let timeout = timeout.unwrap_or(Duration::from_millis(SESSION_WAIT_TIMEOUT_MS));
    let launched = launch(ctx, call, command, args, timeout).await?;
    Ok(if args.detach { launched.ready } else { launched.keep_owned() })
}

/// Spawns the session process for `command` and waits (up to `timeout`) for its first
/// report, telling `call` the session's status once a second.
pub async fn launch(
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
    let choice = session::resolve_browser(args.browser.as_deref(), binary.as_deref(), &ctx.env, &ctx.config)?;
    let browser = choice.target.name.to_owned();
    let out_dir = project.join("dist");
    let runtime = ctx.paths.runtime_dir.clone();
    let running = match session::control::locate(&ctx.paths.runtime_search, &project, &browser) {
        Ok(socket) => {
            session::control::request(&socket, &session::control::Request::Status, Duration::from_secs(2))
                .await
        }
        Err(e) => Err(e),
    };
    if let Ok(status) = running {
        return Err(ErrorBody::new(
            ErrorCode::Busy,
            format!(
                "a {} session of {} is already running ({browser})",
                status["command"].as_str().unwrap_or("dev"),
                project.display()
            ),
        )
        .with_hint("use it (extension_wait), or extension_stop it and start again")
        .with_data(json!({ "sessionId": status["sessionId"], "pid": status["pid"] })));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let profile = match args.profile.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(p) => resolve_lexically(&cwd, Path::new(p)),
        None => session::default_profile(&out_dir, &browser),
    };
    let spec = Spec {
        command,
        project,
        browser,
        binary: choice.binary,
        out_dir,
        profile,
        headless: args.headless.unwrap_or_else(|| ctx.config.flag("headless")),
        starting_url: args.starting_url.clone().filter(|u| !u.trim().is_empty()),
        session_id: session::new_session_id(command),
        owned: !args.detach,
        runtime_dir: runtime,
        node: ctx.env.get("WEBEXT_MCP_NODE").map(PathBuf::from),
        allow_delegation: ctx.env.get(DELEGATED_ENV) != Some("1"),
        home: ctx.paths.home.clone(),
    };
    let dir = session::contract_dir(&spec.out_dir, &spec.browser);
    let (call, browser) = (call.clone(), spec.browser.clone());
    session::launch(&spec, timeout, &mut move || call.status(progress::session_status(&dir, &browser))).await
}

/// `webext-mcp dev|start|preview` in the foreground: start an owned session, print its
/// events until it ends (stopped from elsewhere, browser closed) or Ctrl-C stops it.
/// Returns the process exit code.
pub async fn foreground(
    ctx: &Ctx,
    command: Command,
    args: Value,
    as_json: bool,
    out: &mut dyn FnMut(&str),
) -> u8 {
    let args: SessionArgs = match decode(args) {
        Ok(a) => a,
        Err(e) => {
            out(&e.line());
            return 2;
        }
    };
    let launched = match launch(ctx, &Call::default(), command, &args, session::START_TIMEOUT).await {
        Ok(l) if !l.reported => Err(progress::not_reported(session::START_TIMEOUT)),
        other => other,
    };
    let launched = match launched {
        Ok(l) => l,
        Err(e) => {
            if as_json {
                out(&json!({ "error": e }).to_string());
            } else {
                eprintln!("{}", e.line());
            }
            return 1;
        }
    };
    let session::Launched { ready, mut child, stdin, .. } = launched;
    out(&if as_json { ready.to_string() } else { describe(&ready) });
    let events = PathBuf::from(ready["distPath"].as_str().unwrap_or("."))
        .parent()
        .map(|d| {
            session::contract_dir(d, ready["browser"].as_str().unwrap_or("chrome")).join("events.ndjson")
        })
        .unwrap_or_default();
    let mut offset = std::fs::metadata(&events).map(|m| m.len()).unwrap_or(0);
    let mut stdin = stdin;
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = child.wait() => {
                print_events(&events, &mut offset, as_json, out);
                return 0;
            }
            _ = tokio::signal::ctrl_c(), if stdin.is_some() => {
                // Closing the owner pipe is how an owned session is told to stop.
                stdin = None;
                if !as_json {
                    out("stopping…");
                }
            }
            _ = tick.tick() => print_events(&events, &mut offset, as_json, out),
        }
    }
}

/// Prints the lines appended to `events.ndjson` since `offset`.
fn print_events(path: &Path, offset: &mut u64, as_json: bool, out: &mut dyn FnMut(&str)) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else { return };
    if f.seek(SeekFrom::Start(*offset)).is_err() {
        return;
    }
    let mut text = String::new();
    if f.read_to_string(&mut text).is_err() {
        return;
    }
    let Some(end) = text.rfind('\n') else { return };
    *offset += end as u64 + 1;
    for line in text[..end].lines() {
        if as_json {
            out(line);
        } else if let Ok(v) = serde_json::from_str::<Value>(line) {
            out(&event_text(&v));
        }
    }
}

/// One event as a line for people: `10:30:00 reload content-script content.js (212 ms)`.
fn event_text(v: &Value) -> String {
    let time = v["time"].as_str().and_then(|t| t.get(11..19)).unwrap_or("");
    let kind = v["type"].as_str().unwrap_or("?");
    let what = v["status"].as_str().or_else(|| v["kind"].as_str()).unwrap_or("");
    let files: Vec<&str> = v["files"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let mut line = format!("{time} {kind} {what}");
    if !files.is_empty() {
        line.push(' ');
        line.push_str(&files.join(", "));
    }
    if let Some(ms) = v["durationMs"].as_u64() {
        line.push_str(&format!(" ({ms} ms)"));
    }
    if let Some(e) = v.get("error") {
        line.push_str(&format!(
            " {}",
            e["file"].as_str().map_or(String::new(), |f| format!("{f}:{} ", e["line"]))
        ));
        line.push_str(e["message"].as_str().unwrap_or(""));
    }
    if let Some(errors) = v["errors"].as_array() {
        for e in errors {
            line.push_str(&format!("\n    {}", e["message"].as_str().unwrap_or("")));
        }
    }
    if let Some(m) = v["message"].as_str().or_else(|| v["reason"].as_str()) {
        line.push_str(&format!(" — {m}"));
    }
    line
}

/// One paragraph about a session's state.
fn describe(ready: &Value) -> String {
    let mut text = format!(
        "{} session {} is {}: {} (pid {}), browser pid {}, extension {} from {}",
        ready["command"].as_str().unwrap_or("?"),
        ready["sessionId"].as_str().unwrap_or("?"),
        ready["status"].as_str().unwrap_or("?"),
        ready["browser"].as_str().unwrap_or("?"),
        ready["pid"],
        ready["browserPid"],
        ready["extensionId"].as_str().unwrap_or("(not loaded)"),
        ready["distPath"].as_str().unwrap_or("?"),
    );
    if ready["status"] == "starting" {
        text.push_str(
            "\nstill starting (a first build can take minutes): extension_wait waits on, its progress says what the session is doing",
        );
    }
    if let Some(errors) = ready["errors"].as_array().filter(|e| !e.is_empty()) {
        text.push_str("\nerrors:");
        for e in errors {
            text.push_str(&format!("\n  {}", e.as_str().unwrap_or("")));
        }
        text.push_str("\nfix them and save: the session rebuilds and reloads by itself");
    }
    text
}

async fn extension_dev(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: SessionArgs = decode(args)?;
    let ready = start_session(&ctx, &call, Command::Dev, &args, None).await?;
    Ok(ToolOutput { text: Some(describe(&ready)), structured: ready })
}

async fn extension_preview(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: SessionArgs = decode(args)?;
    let ready = start_session(&ctx, &call, Command::Preview, &args, None).await?;
    Ok(ToolOutput { text: Some(describe(&ready)), structured: ready })
}

async fn extension_start(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: StartArgs = decode(args)?;
    if args.polyfill.is_some() {
        tracing::debug!("`polyfill` ignored: Chromium-family browsers need none");
    }
    // timeoutMs bounds the launch wait like every wait (more than the maximum waits the
    // maximum); without it the session-wait default applies.
    let wait = Timeout::for_wait(args.timeout_ms, SESSION_WAIT_TIMEOUT_MS)?;
    let timeout = Some(wait.duration());
    let session = SessionArgs {
        project_path: args.project_path,
        browser: args.browser,
        profile: args.profile,
        headless: args.headless,
        starting_url: args.starting_url,
        binary: args.binary,
        detach: args.detach,
        port: None,
    };
    let ready = start_session(&ctx, &call, Command::Start, &session, timeout).await?;
    if !args.wait {
        let short =
            json!({ "pid": ready["pid"], "browser": ready["browser"], "sessionId": ready["sessionId"] });
        return Ok(ToolOutput { text: Some(describe(&ready)), structured: short });
    }
    if ready["status"] == "error" {
        return Err(error_of(&ready));
    }
    if ready["status"] != "ready" {
        return Err(wait.explain(progress::not_ready(
            ready["browser"].as_str().unwrap_or("?"),
            wait.ms(),
            &ready,
        )));
    }
    Ok(ToolOutput { text: Some(describe(&ready)), structured: ready })
}

/// The error a session in `error` status answers with: the code of its first problem.
fn error_of(ready: &Value) -> ErrorBody {
    let details = ready["errorDetails"].as_array().cloned().unwrap_or_default();
    let code = details
        .first()
        .and_then(|d| d["code"].as_str())
        .and_then(|c| serde_json::from_value::<ErrorCode>(Value::String(c.to_owned())).ok())
        .unwrap_or(ErrorCode::ScriptError);
    let lines: Vec<&str> =
        ready["errors"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    ErrorBody::new(code, format!("the session is in error: {}", lines.join("; ")))
        .with_hint(
            "fix the file and line named and save; the session rebuilds and recovers `ready` by itself",
        )
        .with_data(json!({ "errors": details, "ready": ready }))
}

/// Which session's browser to use when the caller names none: the project's only running
/// session, else the browser of its latest session (so a chromium project's messages say
/// chromium), else `chrome`.
pub(super) fn session_browser(out_dir: &Path, given: Option<&str>) -> Result<String, ErrorBody> {
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
        0 => Ok(latest.map_or_else(|| "chrome".into(), |(_, name)| name)),
        1 => Ok(live.remove(0)),
        _ => Err(ErrorBody::invalid_argument(format!(
            "sessions run for several browsers: {}",
            live.join(", ")
        ))
        .with_hint("pass `browser`")),
    }
}

async fn extension_wait(_ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let args: WaitArgs = decode(args)?;
    let project = project_of(&args.project_path)?;
    let out_dir = project.join("dist");
    let browser = session_browser(&out_dir, args.browser.as_deref())?;
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
                    let v = serde_json::to_value(&r).map_err(|e| ErrorBody::internal(e.to_string()))?;
                    return Ok(ToolOutput { text: Some(describe(&v)), structured: v });
                }
                contract::Status::Error if alive => {
                    let v = serde_json::to_value(&r).map_err(|e| ErrorBody::internal(e.to_string()))?;
                    return Err(error_of(&v));
                }
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
            return Err(wait.explain(progress::not_ready(&browser, wait.ms(), &ready)));
        }
        if Instant::now() >= next_report {
            call.status(progress::session_status(&dir, &browser));
            next_report += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn extension_stop(ctx: Ctx, args: Value) -> ToolResult {
    let args: StopArgs = decode(args)?;
    let project = project_of(&args.project_path)?;
    let out_dir = project.join("dist");
    let browser = session_browser(&out_dir, args.browser.as_deref())?;
    if args.browser.is_none() && !session::contract_dir(&out_dir, &browser).exists() {
        // Nothing ever ran here: name no browser the caller did not choose.
        return Err(ErrorBody::not_found(format!("no session is running for {}", project.display()))
            .with_hint("extension_dev, extension_start or extension_preview start one"));
    }
    let ready =
        session::stop(&ctx.paths.runtime_search, &out_dir, &project, &browser, Duration::from_secs(15))
            .await?;
    let lock_free = BuildLock::acquire(&out_dir, &browser, None).is_ok();
    let mut out = ready;
    out["lockFree"] = json!(lock_free);
    let text = format!(
        "stopped the {browser} session {} of {} (browser, host and watcher ended; build lock {})",
        out["sessionId"].as_str().unwrap_or("?"),
        project.display(),
        if lock_free { "released" } else { "still held by another process" }
    );
    Ok(ToolOutput { text: Some(text), structured: out })
}
