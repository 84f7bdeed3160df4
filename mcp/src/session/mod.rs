//! Dev sessions: a browser running the extension under development, kept in step with its
//! sources.
//!
//! ```text
//! extension_dev / `webext-mcp dev` ──spawn──▶ webext-mcp __session <spec>   (own process group)
//!        ▲   │ stdin pipe: owner alive          │ build lock, profile lock, control socket
//!        │   └─────────────────────────────────▶│ build (dev transforms) ─▶ dist/<browser>/
//!        │ first stdout line: started / error   │ Runner: browser + extension + helper
//!        │                                      │ watch ─▶ rebuild ─▶ reload ─▶ re-inject
//!        └── control socket (status, stop) ◀────┘ ready.json, events.ndjson, logs.ndjson
//! ```
//!
//! A session is its own process so that it survives the call that started it, and is found
//! again by project path and browser: its control socket's name is a hash of both. Through
//! MCP it belongs to the server that started it (it reads its stdin, a pipe the server holds;
//! end of file means the server exited) unless detached.

mod act;
mod choice;
mod console;
pub mod contract;
pub mod control;
#[cfg(test)]
mod fakes;
pub mod inspect;
mod lifecycle;
pub mod logs;
pub mod readiness;
mod rebuild;
mod reload;
pub mod run_config;
mod sourcemap;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::manifest::{self, Target};

pub use act::{Area, ReloadTabs, StorageOp, StorageRequest};
pub use choice::{BrowserChoice, default_browser, default_browser_name, resolve_browser};
pub use lifecycle::run;
pub use webext_mcp_host::process::pid_alive;

/// What a session does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// Dev build, watch, reload.
    Dev,
    /// Production build once, then run it.
    Start,
    /// Run the existing `dist/<browser>/`.
    Preview,
}

impl Command {
    pub const fn as_str(self) -> &'static str {
        match self {
            Command::Dev => "dev",
            Command::Start => "start",
            Command::Preview => "preview",
        }
    }
}

/// Everything a session process needs, passed to it as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    pub command: Command,
    /// Absolute project root.
    pub project: PathBuf,
    /// The browser name as given (names `dist/<browser>/` and the contract dir).
    pub browser: String,
    /// The resolved browser binary.
    pub binary: PathBuf,
    /// Absolute output root (`<project>/dist`).
    pub out_dir: PathBuf,
    pub profile: PathBuf,
    pub headless: bool,
    pub starting_url: Option<String>,
    pub session_id: String,
    /// Stop when stdin reaches end of file (the starting process exited).
    pub owned: bool,
    pub runtime_dir: PathBuf,
    /// Node.js for delegated builds.
    pub node: Option<PathBuf>,
    pub allow_delegation: bool,
    /// Config `build.allowNpx`: see [`crate::build::BuildRequest::allow_npx`].
    pub allow_npx: bool,
    /// The home directory of the starting process (`--home`), so the session reads the same
    /// configuration.
    pub home: PathBuf,
    /// What the project's `extension.config.*` sets for running this browser, vetted.
    #[serde(default)]
    pub run_config: run_config::RunConfig,
    /// `extension_eval` may run in this session's background (`allowEval` at start, or
    /// config `tools.extension_eval`).
    #[serde(default)]
    pub allow_eval: bool,
    /// What the user said about running the project's own code in its builds.
    #[serde(default)]
    pub consent: crate::build::consent::Consent,
}

/// `dist/extension-js/<browser>/`: ready.json, events.ndjson, logs.ndjson, session.log.
pub fn contract_dir(out_dir: &Path, browser: &str) -> PathBuf {
    out_dir.join("extension-js").join(browser)
}

/// Where a session's builds go: `dist/dev/` for dev builds (they carry dev-only permissions
/// and the reload hooks, so they never land where a production build is expected:
/// `dist/<browser>/` is what `extension_create` tells users to load unpacked and what
/// `extension_start` and `extension_preview` run), `dist/` otherwise.
pub fn build_root(out_dir: &Path, command: Command) -> PathBuf {
    match command {
        Command::Dev => out_dir.join("dev"),
        Command::Start | Command::Preview => out_dir.to_path_buf(),
    }
}

/// The production build `extension_preview` runs for `browser`: `dist/<browser>/` when it
/// holds a manifest, else the build of another browser of the same family (`npm run build`
/// builds `dist/chrome/`; a preview in Chromium runs it), else `dist/<browser>/` (which the
/// session then reports missing, naming what is there).
pub fn preview_dist(out_dir: &Path, browser: &str) -> PathBuf {
    let own = out_dir.join(browser);
    if own.join("manifest.json").is_file() {
        return own;
    }
    sibling_builds(out_dir, browser).into_iter().next().unwrap_or(own)
}

/// Built folders `dist/<name>/` (with a manifest) of other browsers of `browser`'s family,
/// in catalog order.
pub fn sibling_builds(out_dir: &Path, browser: &str) -> Vec<PathBuf> {
    let Some(family) = Target::named(browser).map(|t| t.engine) else { return Vec::new() };
    manifest::target::targets()
        .filter(|t| t.engine == family && t.name != browser)
        .map(|t| out_dir.join(t.name))
        .filter(|d| d.join("manifest.json").is_file())
        .collect()
}

/// `dist/extension-js/profiles/<browser>/`.
pub fn default_profile(out_dir: &Path, browser: &str) -> PathBuf {
    out_dir.join("extension-js").join("profiles").join(browser)
}

/// 12 hex digits naming the session of `project` and `browser`.
pub fn tag(project: &Path, browser: &str) -> String {
    let mut key = project.to_string_lossy().into_owned().into_bytes();
    key.push(0);
    key.extend_from_slice(browser.as_bytes());
    webext_mcp_host::digest::sha256_hex(&key)[..12].to_owned()
}

/// The control socket of the session of `project` and `browser`: `<runtime>/d-<tag>.sock`,
/// or under the short socket dir when the runtime dir is too deep for a socket path.
pub fn socket_path(runtime: &Path, project: &Path, browser: &str) -> PathBuf {
    let name = format!("d-{}.sock", tag(project, browser));
    let direct = runtime.join(&name);
    if direct.as_os_str().len() <= webext_mcp_host::runtime::MAX_SOCKET_PATH {
        return direct;
    }
    let rt_tag = webext_mcp_host::digest::sha256_hex(runtime.as_os_str().to_string_lossy().as_bytes());
    webext_mcp_host::runtime::short_socket_dir(&std::env::temp_dir(), webext_mcp_host::runtime::current_uid())
        .join(format!("d-{}-{}.sock", &rt_tag[..8], tag(project, browser)))
}

/// A new session id named after its command: `dev-<8 hex>`, `start-…`, `preview-…`.
pub fn new_session_id(command: Command) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!("{nanos}-{}", std::process::id());
    format!("{}-{}", command.as_str(), &webext_mcp_host::digest::sha256_hex(seed.as_bytes())[..8])
}

/// The sessions this process owns, with their stdin pipes: while a pipe is open its session
/// lives. Closed by the OS when this process exits, which ends the sessions.
static OWNED: Mutex<Vec<Owned>> = Mutex::new(Vec::new());

/// A session process this process owns.
pub struct Owned {
    pub pid: u32,
    pub child: tokio::process::Child,
    /// The owner pipe: dropping it tells the session to stop.
    pub stdin: tokio::process::ChildStdin,
}

/// What a starting session is known by: its `ready.json`, or, before it wrote one, its id
/// and browser (`{"status": "starting", "sessionId", "browser"}`).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Reported {
    Ready(Box<contract::Ready>),
    Starting(Starting),
}

/// A session that has not written its `ready.json` yet.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Starting {
    /// Always `starting`.
    pub status: contract::Status,
    pub session_id: String,
    pub browser: String,
}

impl Reported {
    pub fn status(&self) -> contract::Status {
        match self {
            Reported::Ready(r) => r.status,
            Reported::Starting(s) => s.status,
        }
    }

    pub fn browser(&self) -> &str {
        match self {
            Reported::Ready(r) => &r.browser,
            Reported::Starting(s) => &s.browser,
        }
    }

    pub fn session_id(&self) -> &str {
        match self {
            Reported::Ready(r) => &r.session_id,
            Reported::Starting(s) => &s.session_id,
        }
    }

    /// The session process (unknown before its `ready.json`).
    pub fn pid(&self) -> Option<u32> {
        match self {
            Reported::Ready(r) => Some(r.pid),
            Reported::Starting(_) => None,
        }
    }
}

/// A session process that has started (or failed to).
pub struct Launched {
    /// The session's `ready.json` as it was when it reported.
    pub ready: Reported,
    pub child: tokio::process::Child,
    /// The owner pipe (only for owned sessions).
    pub stdin: Option<tokio::process::ChildStdin>,
    /// Whether the session reported within the wait; when not, `ready` is its `ready.json`
    /// of that moment (still `starting`) and the session goes on.
    pub reported: bool,
}

impl Launched {
    /// Keeps the session owned for the life of this process (MCP: the session stops when the
    /// server exits), unless [`take_owned`] hands it to someone who watches it.
    pub fn keep_owned(mut self) -> Reported {
        if let (Some(stdin), Some(pid)) = (self.stdin.take(), self.child.id()) {
            let mut owned = OWNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            owned.push(Owned { pid, child: self.child, stdin });
        }
        self.ready
    }
}

/// Takes an owned session out of this process's list, to wait for it and to stop it by
/// dropping its pipe (the CLI's foreground `dev`).
pub fn take_owned(pid: u32) -> Option<Owned> {
    let mut owned = OWNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let at = owned.iter().position(|o| o.pid == pid)?;
    Some(owned.swap_remove(at))
}

/// Spawns the session process and waits for its first report: its `ready.json` once it is
/// ready (or in error after a failed first build), or the error that stopped it. `waiting`
/// runs once a second until then (progress). A session that has not reported within
/// `timeout` keeps running: the answer is its `ready.json` of the moment, `reported: false`.
pub async fn launch(
    spec: &Spec,
    timeout: Duration,
    waiting: &mut (dyn FnMut() + Send),
) -> Result<Launched, ErrorBody> {
    let exe = std::env::current_exe()
        .map_err(|e| ErrorBody::internal(format!("cannot find the webext-mcp binary: {e}")))?;
    let dir = contract_dir(&spec.out_dir, &spec.browser);
    std::fs::create_dir_all(&dir).map_err(|e| {
        ErrorBody::new(ErrorCode::PermissionDenied, format!("cannot create {}: {e}", dir.display()))
            .with_hint("check that the project folder is writable")
    })?;
    let log_path = dir.join("session.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| ErrorBody::internal(format!("cannot open {}: {e}", log_path.display())))?;
    let spec_json = serde_json::to_string(spec).map_err(|e| ErrorBody::internal(e.to_string()))?;
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg("--home")
        .arg(&spec.home)
        .arg("__session")
        .arg(spec_json)
        .stdin(if spec.owned { std::process::Stdio::piped() } else { std::process::Stdio::null() })
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .env("WEBEXT_MCP_RUNTIME_DIR", &spec.runtime_dir)
        .env("WEBEXT_MCP_SESSION", &spec.session_id);
    #[cfg(unix)]
    {
        // SAFETY: setsid is async-signal-safe and only detaches the child from our session
        // and process group, so Ctrl-C in a terminal reaches the CLI, not the session.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    let mut child =
        cmd.spawn().map_err(|e| ErrorBody::internal(format!("cannot start the session process: {e}")))?;
    let stdin = child.stdin.take();
    let Some(stdout) = child.stdout.take() else {
        return Err(ErrorBody::internal("the session process has no stdout"));
    };
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut beat = tokio::time::interval_at(
        tokio::time::Instant::now() + Duration::from_secs(1),
        Duration::from_secs(1),
    );
    let first = loop {
        tokio::select! {
            line = lines.next_line() => break Some(line),
            () = tokio::time::sleep_until(deadline) => break None,
            _ = beat.tick() => waiting(),
        }
    };
    let line = match first {
        Some(Ok(Some(line))) => line,
        Some(_) => {
            let tail = tail_of(&log_path);
            return Err(ErrorBody::internal(format!(
                "the session process exited before it reported; its log ends: {tail}"
            )));
        }
        None => {
            let ready = contract::read_ready(&dir).map_or_else(
                || {
                    Reported::Starting(Starting {
                        status: contract::Status::Starting,
                        session_id: spec.session_id.clone(),
                        browser: spec.browser.clone(),
                    })
                },
                |r| Reported::Ready(Box::new(r)),
            );
            return Ok(Launched { ready, child, stdin, reported: false });
        }
    };
    let mut v: Value = serde_json::from_str(&line)
        .map_err(|e| ErrorBody::internal(format!("unreadable report from the session: {e}")))?;
    if let Some(err) = v.get_mut("error") {
        return Err(serde_json::from_value(err.take())
            .unwrap_or_else(|e| ErrorBody::internal(format!("unreadable error from the session: {e}"))));
    }
    let ready: contract::Ready =
        serde_json::from_value(v.get_mut("ok").map(Value::take).unwrap_or(Value::Null)).map_err(|e| {
            ErrorBody::internal(format!("unreadable ready.json in the session's report: {e}"))
        })?;
    Ok(Launched { ready: Reported::Ready(Box::new(ready)), child, stdin, reported: true })
}

fn tail_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        "(empty)".to_owned()
    } else {
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }
}

/// Asks the session of `project` and `browser` to stop and waits (up to `timeout`) until its
/// process is gone. Returns its last `ready.json`.
pub async fn stop(
    runtime_dirs: &[PathBuf],
    out_dir: &Path,
    project: &Path,
    browser: &str,
    timeout: Duration,
) -> Result<contract::Ready, ErrorBody> {
    let not_running = |e: ErrorBody| {
        if e.code == ErrorCode::NotConnected {
            ErrorBody::not_found(format!("no {browser} session is running for {}", project.display()))
                .with_hint("extension_dev, extension_start or extension_preview start one")
        } else {
            e
        }
    };
    let socket = control::locate(runtime_dirs, project, browser).map_err(not_running)?;
    let status = control::request(
        &socket,
        &control::Call::status(),
        Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_CONTROL_MS),
    )
    .await
    .map_err(|e| {
        if e.code == ErrorCode::NotConnected {
            ErrorBody::not_found(format!("no {browser} session is running for {}", project.display()))
                .with_hint("extension_dev, extension_start or extension_preview start one")
        } else {
            e
        }
    })?;
    let pid = Some(status.pid);
    control::request(
        &socket,
        &control::Call::stop(),
        Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_CONTROL_MS),
    )
    .await?;
    let deadline = Instant::now() + timeout;
    if let Some(pid) = pid {
        while pid_alive(pid) {
            if Instant::now() >= deadline {
                return Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    format!("session pid {pid} did not exit within {} s", timeout.as_secs()),
                )
                .with_hint("it may be stuck closing the browser; kill that pid"));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    let dir = contract_dir(out_dir, browser);
    Ok(contract::read_ready(&dir).unwrap_or(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dev builds have their own folder; a preview falls back to a build of the same engine.
    #[test]
    fn dev_builds_have_their_own_folder_and_preview_finds_a_sibling_build() {
        let dist = tempfile::tempdir().unwrap();
        let out = dist.path();
        assert_eq!(build_root(out, Command::Dev), out.join("dev"));
        assert_eq!(build_root(out, Command::Start), out);
        assert_eq!(preview_dist(out, "chromium"), out.join("chromium"));
        std::fs::create_dir_all(out.join("firefox")).unwrap();
        std::fs::write(out.join("firefox/manifest.json"), "{}").unwrap();
        assert_eq!(
            preview_dist(out, "chromium"),
            out.join("chromium"),
            "another engine's build is no stand-in"
        );
        std::fs::create_dir_all(out.join("chrome")).unwrap();
        std::fs::write(out.join("chrome/manifest.json"), "{}").unwrap();
        assert_eq!(preview_dist(out, "chromium"), out.join("chrome"));
        std::fs::create_dir_all(out.join("chromium")).unwrap();
        std::fs::write(out.join("chromium/manifest.json"), "{}").unwrap();
        assert_eq!(preview_dist(out, "chromium"), out.join("chromium"), "its own build first");
    }
}
