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

mod console;
pub mod contract;
pub mod control;
#[cfg(test)]
mod fakes;
pub mod inspect;
mod lifecycle;
mod readiness;
mod rebuild;
mod reload;
pub mod run_config;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::browsers;
use crate::browsers::Os;
use crate::config::Config;
use crate::manifest::{self, Target};
use crate::paths::Env;
use crate::runner::{self, Family};

pub use lifecycle::run;

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
    let Some(family) = Target::named(browser).map(|t| t.family) else { return Vec::new() };
    manifest::target::targets()
        .filter(|t| t.family == family && t.name != browser)
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
    webext_mcp_host::protocol::sha256_hex(&key)[..12].to_owned()
}

/// The control socket of the session of `project` and `browser`: `<runtime>/d-<tag>.sock`,
/// or under the short socket dir when the runtime dir is too deep for a socket path.
pub fn socket_path(runtime: &Path, project: &Path, browser: &str) -> PathBuf {
    let name = format!("d-{}.sock", tag(project, browser));
    let direct = runtime.join(&name);
    if direct.as_os_str().len() <= webext_mcp_host::runtime::MAX_SOCKET_PATH {
        return direct;
    }
    let rt_tag = webext_mcp_host::protocol::sha256_hex(runtime.as_os_str().to_string_lossy().as_bytes());
    webext_mcp_host::runtime::short_socket_dir(&std::env::temp_dir(), webext_mcp_host::runtime::current_uid())
        .join(format!("d-{}-{}.sock", &rt_tag[..8], tag(project, browser)))
}

/// A browser name resolved to a build target, an engine and a binary.
#[derive(Debug, Clone)]
pub struct BrowserChoice {
    pub target: Target,
    pub family: Family,
    pub binary: PathBuf,
}

/// Programs tried for a browser name when no binary is configured (`chrome` means Google
/// Chrome, never Chromium; `chromium-based` any Chromium-engine browser).
fn candidates(name: &str) -> Vec<&'static str> {
    match browsers::browser(name) {
        Some(b) => b.binaries.on(Os::current()).collect(),
        None => browsers::engine_binaries(Family::Chromium, Os::current()),
    }
}

/// The browsers dev sessions run in, by name.
fn chromium_names() -> Vec<&'static str> {
    browsers::BROWSERS.iter().filter(|b| b.engine == Family::Chromium).map(|b| b.name).collect()
}

/// The browser a session runs in when the call names none: config `browser` (also
/// `WEBEXT_MCP_BROWSER`) when it names a Chromium-family browser, else `chromium` when a
/// Chromium binary is configured, else the first Chromium-family browser of the catalog
/// that is installed here. `None` when none is.
pub fn default_browser(env: &Env, config: &Config) -> Option<&'static str> {
    if let Some(t) = configured_browser(config) {
        return Some(t.name);
    }
    if env.get(browsers::binary_env(Family::Chromium)).is_some()
        || config.text(browsers::binary_key(Family::Chromium)).is_some_and(|v| !v.is_empty())
    {
        return Some("chromium");
    }
    first_installed()
}

/// The first Chromium-family browser of the catalog with a program installed here.
fn first_installed() -> Option<&'static str> {
    chromium_names()
        .into_iter()
        .find(|name| candidates(name).into_iter().any(|c| runner::find_program(c).is_some()))
}

/// Config `browser` as a session browser: only a Chromium-family name counts (the key also
/// picks daily browsers by label, and sessions do not run in Firefox yet).
fn configured_browser(config: &Config) -> Option<Target> {
    let name = config.text("browser")?.trim();
    Target::named(name).filter(|t| t.family == manifest::Family::Chromium)
}

/// The session browser name a project tool (`extension_wait`, `extension_stop`) falls back
/// to when no session runs: what [`resolve_browser`] would start.
pub fn default_browser_name(env: &Env, config: &Config) -> &'static str {
    default_browser(env, config).unwrap_or("chromium")
}

/// Resolves `browser` (default: [`default_browser`]) and its binary: `binary` argument >
/// `WEBEXT_MCP_CHROMIUM_BINARY` > config `browsers.chromium.binary` > the browser's usual
/// programs.
pub fn resolve_browser(
    name: Option<&str>,
    binary: Option<&Path>,
    env: &Env,
    config: &Config,
) -> Result<BrowserChoice, ErrorBody> {
    let given = name.map(str::trim).filter(|n| !n.is_empty()).map(str::to_ascii_lowercase);
    let name = match given {
        Some(n) => n,
        None if binary.is_some() => "chromium".to_owned(),
        None => default_browser(env, config).map(str::to_owned).ok_or_else(|| {
            let tried: Vec<&str> = chromium_names().into_iter().flat_map(candidates).collect();
            ErrorBody::new(
                ErrorCode::NotInstalled,
                format!("no Chromium-family browser is installed here (tried {})", tried.join(", ")),
            )
            .with_hint("install Chromium (or Chrome, Edge, Brave; or extension_install_browser with {\"browser\":\"chrome-for-testing\"}, then browser: \"chrome-for-testing\"), or name its program with `binary` (CLI: --binary) or WEBEXT_MCP_CHROMIUM_BINARY")
        })?,
    };
    let target = Target::named(&name).ok_or_else(|| {
        ErrorBody::invalid_argument(format!("unknown browser `{name}`"))
            .with_hint(format!("use {} or chromium-based", chromium_names().join(", ")))
    })?;
    if target.family == manifest::Family::Gecko {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            format!("dev sessions in {name} are not available yet; this release runs them in Chromium-family browsers"),
        )
        .with_hint(format!("{}; extension_build (CLI: webext-mcp build) still builds for Firefox", pass_browser(&installed_or_chromium()))));
    }
    let family = Family::Chromium;
    let configured = binary.is_some()
        || env.get(browsers::binary_env(family)).is_some()
        || config.text(browsers::binary_key(family)).is_some_and(|v| !v.is_empty());
    let binary = if configured {
        runner::resolve_binary(family, binary, env, Some(config)).map_err(ErrorBody::from)?
    } else {
        candidates(target.name).into_iter().find_map(runner::find_program).ok_or_else(|| {
            let other = installed_or_chromium();
            let hint = if target.name == "chrome" && other != "chrome" {
                format!("Google Chrome is not installed here; {} to use {other}, or extension_install_browser with {{\"browser\":\"chrome-for-testing\"}} and then {}, or set the binary (`binary`, CLI --binary, or WEBEXT_MCP_CHROMIUM_BINARY)", pass_browser(&other), pass_browser("chrome-for-testing"))
            } else {
                format!(
                    "install {} or {}; a binary elsewhere can be set with `binary` (CLI: --binary) or WEBEXT_MCP_CHROMIUM_BINARY",
                    target.name,
                    pass_browser(&other)
                )
            };
            ErrorBody::new(
                ErrorCode::NotInstalled,
                format!("{} is not installed (tried {})", target.name, candidates(target.name).join(", ")),
            )
            .with_hint(hint)
        })?
    };
    Ok(BrowserChoice { target, family, binary })
}

/// The first installed Chromium-family browser's name, else `chromium`.
fn installed_or_chromium() -> String {
    first_installed().unwrap_or("chromium").to_owned()
}

/// How to name a browser, in both syntaxes: the tools' argument and the CLI's flag.
fn pass_browser(name: &str) -> String {
    format!("pass browser: \"{name}\" (CLI: --browser {name})")
}

/// A new session id named after its command: `dev-<8 hex>`, `start-…`, `preview-…`.
pub fn new_session_id(command: Command) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!("{nanos}-{}", std::process::id());
    format!("{}-{}", command.as_str(), &webext_mcp_host::protocol::sha256_hex(seed.as_bytes())[..8])
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

/// A session process that has started (or failed to).
pub struct Launched {
    /// The session's `ready.json` as it was when it reported.
    pub ready: Value,
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
    pub fn keep_owned(mut self) -> Value {
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
            let ready = contract::read_ready(&dir).and_then(|r| serde_json::to_value(r).ok()).unwrap_or_else(
                || serde_json::json!({ "status": "starting", "sessionId": spec.session_id, "browser": spec.browser }),
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
    let ready = v.get_mut("ok").map(Value::take).unwrap_or(Value::Null);
    Ok(Launched { ready, child, stdin, reported: true })
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

/// Whether process `pid` exists (zombies count as gone).
pub fn pid_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => {
                let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
                state != Some("Z")
            }
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
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
) -> Result<Value, ErrorBody> {
    let not_running = |e: ErrorBody| {
        if e.code == ErrorCode::NotConnected {
            ErrorBody::not_found(format!("no {browser} session is running for {}", project.display()))
                .with_hint("extension_dev, extension_start or extension_preview start one")
        } else {
            e
        }
    };
    let socket = control::locate(runtime_dirs, project, browser).map_err(not_running)?;
    let status =
        control::request(&socket, &control::Request::Status, Duration::from_secs(10)).await.map_err(|e| {
            if e.code == ErrorCode::NotConnected {
                ErrorBody::not_found(format!("no {browser} session is running for {}", project.display()))
                    .with_hint("extension_dev, extension_start or extension_preview start one")
            } else {
                e
            }
        })?;
    let pid = status["pid"].as_u64().and_then(|p| u32::try_from(p).ok());
    control::request(&socket, &control::Request::Stop, Duration::from_secs(10)).await?;
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
    Ok(contract::read_ready(&dir).and_then(|r| serde_json::to_value(r).ok()).unwrap_or(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(env: &Env, file_text: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, file_text).unwrap();
        Config::load(&file, env, &Default::default()).unwrap()
    }

    /// Issue 19: without a `browser` argument a session runs in config `browser` (file or
    /// `WEBEXT_MCP_BROWSER`) when it names a Chromium-family browser, else in the first
    /// Chromium-family browser installed, never Google Chrome by fiat; a Firefox or label
    /// value (which picks daily browsers) does not make sessions fail.
    #[test]
    fn the_default_session_browser_is_configured_or_installed() {
        let none = Env::from_pairs(Vec::<(&str, &str)>::new(), 1);
        let edge = config(&none, "browser = \"edge\"\n");
        assert_eq!(default_browser(&none, &edge), Some("edge"));
        let e = resolve_browser(None, None, &none, &edge).err();
        if let Some(e) = e {
            // Not installed here: the error is about Edge, the configured browser.
            assert!(e.message.starts_with("edge"), "{}", e.message);
        }
        let env = Env::from_pairs([("WEBEXT_MCP_BROWSER", "brave")], 1);
        assert_eq!(default_browser(&env, &config(&env, "")), Some("brave"));
        let firefox = config(&none, "browser = \"firefox\"\n");
        assert_eq!(default_browser(&none, &firefox), first_installed());
        let binary = Env::from_pairs([("WEBEXT_MCP_CHROMIUM_BINARY", "/opt/x/chrome")], 1);
        assert_eq!(default_browser(&binary, &config(&binary, "")), Some("chromium"));
        let plain = config(&none, "");
        assert_eq!(default_browser(&none, &plain), first_installed());
        if runner::find_program("/usr/lib/chromium/chromium").is_some() && first_installed() != Some("chrome")
        {
            assert_eq!(resolve_browser(None, None, &none, &plain).unwrap().target.name, "chromium");
        }
    }

    /// The hints name the browser in both syntaxes, the tools' and the CLI's.
    #[test]
    fn hints_name_the_browser_for_tools_and_the_cli() {
        let none = Env::from_pairs(Vec::<(&str, &str)>::new(), 1);
        let e = resolve_browser(Some("firefox"), None, &none, &config(&none, "")).unwrap_err();
        assert_eq!(e.code, ErrorCode::Unsupported);
        let hint = e.hint.unwrap_or_default();
        assert!(hint.contains("browser: \"") && hint.contains("(CLI: --browser "), "{hint}");
    }

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

    /// `chrome` means Google Chrome: its programs never include Chromium's, while an engine
    /// name tries every Chromium-engine browser of the catalog.
    #[test]
    fn chrome_is_never_chromium_and_the_engine_name_tries_all() {
        let chrome = candidates("chrome");
        assert!(
            chrome.contains(&"google-chrome") && !chrome.iter().any(|c| c.contains("chromium")),
            "{chrome:?}"
        );
        assert_eq!(candidates("chromium")[0], "/usr/lib/chromium/chromium");
        let any = candidates("chromium-based");
        for b in browsers::BROWSERS.iter().filter(|b| b.engine == Family::Chromium) {
            assert!(b.binaries.unix.iter().all(|c| any.contains(c)), "{}", b.name);
        }
        assert!(chromium_names().contains(&"opera") && !chromium_names().contains(&"firefox"));
    }
}
