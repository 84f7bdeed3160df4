//! Browser runners: launch a real browser with an isolated `HOME` and profile, load unpacked
//! extensions into it, and watch what those extensions print.
//!
//! Dev sessions and the end-to-end tests both stand on this module, so browser differences
//! live behind one trait with one file per family:
//!
//! ```text
//! RunnerOptions ──▶ launch(family) ──▶ ChromiumRunner ── CDP over fd 3/4 (cdp.rs) ──▶ chromium
//!                                  └─▶ FirefoxRunner  ── user.js + xpi, stdout/stderr ─▶ firefox
//!                                                  ├─ RDP on a unix socket, opt-in (rdp/) ─▶ firefox
//!                                                  └─ Marionette, tests only (marionette.rs) ─▶ firefox
//!
//!  each loaded extension ──▶ ExtensionHandle ──▶ LogStream (console + uncaught errors)
//!                                           └──▶ wait_background()
//! ```
//!
//! Every browser runs in its own process group, killed by its id on [`Runner::shutdown`] or
//! on drop, and on Linux it is also killed when the thread that spawned it exits
//! (`PR_SET_PDEATHSIG`, unless [`RunnerOptions::die_with_parent`] is off), so a crashed
//! caller does not leave browsers behind. Launch from a thread that lives as long as the
//! browser should: the main thread of a current-thread runtime, a worker of a multi-thread
//! runtime (not a `spawn_blocking` thread: those exit when idle), or a dedicated thread.

pub mod answer;
pub mod binary;
pub mod cdp;
mod chromium;
mod firefox;
pub mod flags;
mod log;
mod marionette;
mod process;
pub mod profile;
pub mod rdp;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

pub use chromium::ChromiumRunner;
pub use firefox::FirefoxRunner;
pub use log::{ConsoleEvent, EventKind, ExtensionHandle, Level, LogStream};

use crate::browsers;
use crate::browsers::{Engine, Os};
use crate::config::Config;
use crate::paths::{Env, find_executable, is_executable};
use cdp::CdpError;

/// Closed shadow roots handed to [`Runner::call_with_closed_shadow_roots`] at most.
pub const MAX_CLOSED_ROOTS: usize = 200;

/// A boxed future, so that [`Runner`] stays usable as `dyn Runner`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What to launch and how.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    /// The browser binary; `None` resolves it with [`resolve_binary`].
    pub binary: Option<PathBuf>,
    pub headless: bool,
    /// Unpacked extension directories (each holds a `manifest.json`), loaded in order.
    pub extensions: Vec<PathBuf>,
    /// The profile directory; `None` uses a temporary one, removed with the runner. A given
    /// directory is kept.
    pub profile_dir: Option<PathBuf>,
    /// Passed to the browser (and so to native hosts it starts) as `WEBEXT_MCP_RUNTIME_DIR`.
    pub runtime_dir: Option<PathBuf>,
    /// Passed to the browser as `WEBEXT_MCP_SESSION`.
    pub session: Option<String>,
    /// More environment variables for the browser.
    pub env: Vec<(String, String)>,
    /// The first page; `about:blank` when `None`.
    pub start_url: Option<String>,
    /// How long the browser may take to come up.
    pub start_timeout: Duration,
    /// Linux: kill the browser when the thread that launched it exits
    /// (`PR_SET_PDEATHSIG`), so a crashed caller leaves nothing behind. Turn off for a
    /// browser that must outlive its launcher (a detached session); drop and
    /// [`Runner::shutdown`] still kill it.
    pub die_with_parent: bool,
    /// Chromium: keep a CDP session with `Runtime` enabled on every service worker, which the
    /// console and exception streams of workers need. An attached inspector slows every task
    /// of the worker (the helper's native round trip went from about 1.1 ms to 1.8 ms), so
    /// benchmarks of the helper as users run it turn this off.
    pub observe_workers: bool,
    /// Firefox: run Marionette (`-marionette -remote-allow-system-access` on a free port of
    /// 127.0.0.1), so that [`Runner::pages`], [`Runner::navigate_page`] and
    /// [`Runner::evaluate_in_page`] work, on `moz-extension://` pages too (hence system
    /// access). Any local process can then drive the browser, so only tests turn it on; off,
    /// no port is opened. Chromium ignores it (its CDP pipe is not reachable by others).
    pub remote_control: bool,
    /// More launch flags, after ours (a project's `browserFlags`, vetted by [`flags`]).
    pub extra_args: Vec<String>,
    /// Default flags of ours to leave out, by name (vetted by [`flags::removable`]).
    pub exclude_args: Vec<String>,
    /// Firefox: more preferences for the profile's user.js (vetted by
    /// [`flags::vet_preference`]); Chromium takes none.
    pub preferences: serde_json::Map<String, serde_json::Value>,
    /// Firefox: run the remote debugging server (RDP, `rdp/`) on a unix-domain socket in
    /// the runner's private temporary directory (mode 0700: the socket itself is created
    /// 0666, and whoever reaches it runs code as the user). With it, extensions are installed
    /// and reloaded as temporary add-ons in the running browser, and tabs, evaluation and
    /// the consoles work without Marionette and without any TCP port. Dev sessions turn it
    /// on. Chromium ignores it (its CDP pipe is always there).
    pub devtools: bool,
    /// Files written into the browser's private `HOME` before it starts, by path relative
    /// to it: a session's native host manifest for Firefox, which reads it only from
    /// `HOME/.mozilla/native-messaging-hosts/` and as early as a preloaded helper starts.
    pub home_files: Vec<(PathBuf, Vec<u8>)>,
    /// Firefox: extension directories the caller will load with [`Runner::load_extension`]
    /// once the browser is up (a dev session's build). Their fixed moz-extension uuids go
    /// into the profile's prefs before the start, so the first load needs no preference
    /// round trips while the browser is still busy starting (issue 25: about 0.3 s of a
    /// cold start). Chromium ignores it.
    pub planned_extensions: Vec<PathBuf>,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        RunnerOptions {
            binary: None,
            headless: true,
            extensions: Vec::new(),
            profile_dir: None,
            runtime_dir: None,
            session: None,
            env: Vec::new(),
            start_url: None,
            start_timeout: Duration::from_millis(webext_mcp_host::protocol::timeouts::BROWSER_START_MS),
            die_with_parent: true,
            observe_workers: true,
            remote_control: false,
            extra_args: Vec::new(),
            exclude_args: Vec::new(),
            preferences: serde_json::Map::new(),
            devtools: false,
            home_files: Vec::new(),
            planned_extensions: Vec::new(),
        }
    }
}

/// A tab (page target) of a running browser.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub target_id: String,
    pub url: String,
}

/// A running browser with its extensions.
///
/// The page and background methods are what dev sessions need to reload an extension in
/// place; a family that cannot do them yet answers [`RunnerError::Unsupported`].
pub trait Runner: Send + Sync {
    fn family(&self) -> Engine;
    /// The browser's process id, which is also its process-group id.
    fn pid(&self) -> u32;
    /// The `HOME` the browser runs with (Firefox reads native host manifests from
    /// `HOME/.mozilla/native-messaging-hosts/`).
    fn home_dir(&self) -> &Path;
    fn profile_dir(&self) -> &Path;
    /// The extensions loaded so far, in load order.
    fn extensions(&self) -> Vec<ExtensionHandle>;
    /// The Chromium runner behind this one, if it is one: what tests use to send CDP
    /// commands of their own. Code outside the runner uses the trait's methods, never CDP.
    fn as_chromium(&self) -> Option<&ChromiumRunner> {
        None
    }
    /// Loads (or reloads) one more unpacked extension into the running browser.
    fn load_extension<'a>(&'a self, dir: &'a Path) -> BoxFuture<'a, Result<ExtensionHandle, RunnerError>>;
    /// Whether the browser process is still alive.
    fn is_running(&self) -> bool;
    /// Ends the browser (politely, then by force) and removes its temporary directories.
    fn shutdown(&self) -> BoxFuture<'_, ()>;

    /// Whether the browser itself runs an extension's content scripts in the open tabs they
    /// match whenever the extension is (re)loaded (Firefox does; Chromium does not), so a
    /// dev session only clears what the old copy rendered, before the reload, instead of
    /// injecting again after it.
    fn injects_on_load(&self) -> bool {
        false
    }

    /// The open tabs, in the browser's order.
    fn pages(&self) -> BoxFuture<'_, Result<Vec<PageInfo>, RunnerError>> {
        let family = self.family();
        Box::pin(async move { Err(RunnerError::Unsupported { family, what: "listing tabs".into() }) })
    }

    /// Evaluates `expression` in a tab's page (awaiting a promise) and returns its value.
    fn evaluate_in_page<'a>(
        &'a self,
        target_id: &'a str,
        expression: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<serde_json::Value, RunnerError>> {
        let _ = (target_id, expression, timeout);
        let family = self.family();
        Box::pin(async move { Err(RunnerError::Unsupported { family, what: "evaluating in a tab".into() }) })
    }

    /// Navigates a tab to `url` (returns once the navigation committed).
    fn navigate_page<'a>(
        &'a self,
        target_id: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<(), RunnerError>> {
        let _ = (target_id, url);
        let family = self.family();
        Box::pin(async move { Err(RunnerError::Unsupported { family, what: "navigating a tab".into() }) })
    }

    /// Opens `url` in a new background tab and returns it (without waiting for the load).
    fn open_page<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<PageInfo, RunnerError>> {
        let _ = url;
        let family = self.family();
        Box::pin(async move { Err(RunnerError::Unsupported { family, what: "opening a tab".into() }) })
    }

    /// The running service workers whose script URL starts with `url_prefix` (an
    /// extension's base URL), as targets.
    fn service_workers<'a>(
        &'a self,
        url_prefix: &'a str,
    ) -> BoxFuture<'a, Result<Vec<PageInfo>, RunnerError>> {
        let _ = url_prefix;
        let family = self.family();
        Box::pin(
            async move { Err(RunnerError::Unsupported { family, what: "listing service workers".into() }) },
        )
    }

    /// Calls `function` (a function expression) in a tab's page as
    /// `function(arg, ...closedShadowRoots)`: the page's closed shadow roots, which its own
    /// scripts cannot reach, are handed over as arguments (the top document's, at most
    /// [`MAX_CLOSED_ROOTS`]). `None` when the page has none (a plain evaluation does then).
    fn call_with_closed_shadow_roots<'a>(
        &'a self,
        target_id: &'a str,
        function: &'a str,
        arg: &'a serde_json::Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<serde_json::Value>, RunnerError>> {
        let _ = (target_id, function, arg, timeout);
        let family = self.family();
        Box::pin(async move {
            Err(RunnerError::Unsupported { family, what: "reaching closed shadow roots".into() })
        })
    }

    /// Calls `function` (a function expression) in a tab's top document as
    /// `function(arg, ...closedShadowRoots)`, from a JavaScript world of its own where the
    /// family has one: the page's DOM, with built-ins the page's scripts cannot patch, so a
    /// page cannot lie to the caller through its own JavaScript. Chromium: an isolated world
    /// (`Page.createIsolatedWorld`), closed shadow roots included. Firefox: a web page's
    /// content-script world, through an extension of the runner's own loaded on first use
    /// (`firefox/shadow.rs`); an extension page in its own world. Families without either:
    /// the page's own world, which sees what the page's scripts changed.
    fn call_isolated<'a>(
        &'a self,
        target_id: &'a str,
        function: &'a str,
        arg: &'a serde_json::Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<serde_json::Value, RunnerError>> {
        Box::pin(async move {
            let expression = format!("({})({arg})", function.trim_end());
            self.evaluate_in_page(target_id, &expression, timeout).await
        })
    }

    /// Reloads a tab.
    fn reload_page<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Result<(), RunnerError>> {
        let _ = target_id;
        let family = self.family();
        Box::pin(async move { Err(RunnerError::Unsupported { family, what: "reloading a tab".into() }) })
    }

    /// What a tab's own scripts printed since its document loaded (not the extensions': those
    /// are in [`ExtensionHandle::history`], content scripts' included, although Firefox files
    /// their calls under the page), oldest first, bounded.
    fn page_console<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Vec<ConsoleEvent>> {
        let _ = target_id;
        Box::pin(async { Vec::new() })
    }

    /// The URLs of the extension popups the browser shows now (opened by
    /// `action.openPopup()`). Chromium: a popup is a page target, so [`Runner::pages`] lists
    /// it; Firefox overrides this (a popup is no tab).
    fn popups(&self) -> BoxFuture<'_, Result<Vec<String>, RunnerError>> {
        Box::pin(async move { Ok(self.pages().await?.into_iter().map(|p| p.url).collect()) })
    }

    /// Evaluates `expression` in the extension's background (its service worker, woken when
    /// stopped), awaiting a promise, as the extension itself: with its `chrome.*` APIs.
    fn evaluate_in_background<'a>(
        &'a self,
        ext: &'a ExtensionHandle,
        expression: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<serde_json::Value, RunnerError>> {
        let _ = (ext, expression, timeout);
        let family = self.family();
        Box::pin(async move {
            Err(RunnerError::Unsupported { family, what: "evaluating in an extension's background".into() })
        })
    }
}

/// Writes [`RunnerOptions::home_files`] under `home`. Paths that would leave it are refused.
pub(crate) fn write_home_files(home: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<(), RunnerError> {
    for (rel, bytes) in files {
        if rel.is_absolute() || rel.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Err(RunnerError::Io {
                what: format!("{} is not a path inside the browser's home", rel.display()),
                source: std::io::Error::from(std::io::ErrorKind::InvalidInput),
            });
        }
        let path = home.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(RunnerError::io(format!("cannot create {}", parent.display())))?;
        }
        std::fs::write(&path, bytes).map_err(RunnerError::io(format!("cannot write {}", path.display())))?;
    }
    Ok(())
}

/// The `manifest.json` of an unpacked extension directory.
pub(crate) fn read_manifest(dir: &Path) -> Result<serde_json::Value, RunnerError> {
    let path = dir.join("manifest.json");
    let bytes = std::fs::read(&path)
        .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
    serde_json::from_slice(&bytes).map_err(|e| RunnerError::BadExtension {
        dir: dir.to_owned(),
        reason: format!("manifest.json is not valid JSON: {e}"),
    })
}

/// Launches a browser of `family`, resolving its binary from the options, `env` and `config`.
pub async fn launch(
    family: Engine,
    mut opts: RunnerOptions,
    env: &Env,
    config: Option<&Config>,
) -> Result<Box<dyn Runner>, RunnerError> {
    let binary = resolve_binary(family, opts.binary.as_deref(), env, config)?;
    opts.binary = Some(binary.clone());
    Ok(match family {
        Engine::Chromium => Box::new(ChromiumRunner::launch(opts, binary).await?),
        Engine::Gecko => Box::new(FirefoxRunner::launch(opts, binary).await?),
    })
}

/// The binary to launch: explicit argument > `WEBEXT_MCP_<FAMILY>_BINARY` > config key
/// `browsers.<family>.binary` > the first installed of the catalog's binaries for the
/// engine ([`browsers::engine_binaries`]).
pub fn resolve_binary(
    family: Engine,
    explicit: Option<&Path>,
    env: &Env,
    config: Option<&Config>,
) -> Result<PathBuf, RunnerError> {
    resolve_binary_with(family, explicit, env, config, &find_program)
}

/// [`resolve_binary`] with the program lookup injected (tests).
pub fn resolve_binary_with(
    family: Engine,
    explicit: Option<&Path>,
    env: &Env,
    config: Option<&Config>,
    find: &dyn Fn(&str) -> Option<PathBuf>,
) -> Result<PathBuf, RunnerError> {
    let (env_key, config_key) = (browsers::binary_env(family), browsers::binary_key(family));
    let chosen = explicit
        .map(|p| (p.to_string_lossy().into_owned(), "the `binary` argument".to_owned()))
        .or_else(|| env.get(env_key).map(|v| (v.to_owned(), env_key.to_owned())))
        .or_else(|| {
            config
                .and_then(|c| c.text(config_key))
                .map(|v| (v.to_owned(), format!("config key `{config_key}`")))
        });
    if let Some((name, origin)) = chosen {
        return find(&name).ok_or(RunnerError::BinaryMissing { family, binary: name, origin });
    }
    let candidates = browsers::engine_binaries(family, Os::current());
    candidates
        .iter()
        .find_map(|c| find(c))
        .ok_or_else(|| RunnerError::NotInstalled { family, tried: candidates.join(", ") })
}

/// A name with a slash is a path that must exist; a bare name is looked up in `PATH`.
pub fn find_program(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return is_executable(&p).then_some(p);
    }
    find_executable(name, std::env::var_os("PATH").as_deref())
}

/// Why a browser could not be run or watched. Messages say what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// No browser of the family was found.
    #[error("no {} browser found (tried {tried}); {}", family.name(), browsers::install_hint(*family))]
    NotInstalled { family: Engine, tried: String },
    /// The configured binary does not exist or is not executable.
    #[error("{} binary `{binary}` (from {origin}) is not an executable file; fix the path or unset it", family.name())]
    BinaryMissing { family: Engine, binary: String, origin: String },
    /// The browser process could not be started.
    #[error("cannot start {binary}: {source}")]
    Spawn { binary: PathBuf, source: std::io::Error },
    /// A file or directory the runner prepares could not be written.
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    /// An extension directory is unusable (no or unreadable `manifest.json`).
    #[error("extension {dir}: {reason}; pass a directory holding a built extension's manifest.json")]
    BadExtension { dir: PathBuf, reason: String },
    /// The browser refused the extension.
    #[error("the browser refused to load {dir}: {message}")]
    LoadRefused { dir: PathBuf, message: String },
    /// The browser did not come up in time.
    #[error("{} did not start within {} s; last output: {stderr}", family.name(), timeout.as_secs())]
    StartTimeout { family: Engine, timeout: Duration, stderr: String },
    /// The browser exited before it was ready.
    #[error("{} exited during start ({status}); last output: {stderr}", family.name())]
    Exited { family: Engine, status: String, stderr: String },
    /// The extension's background never started.
    #[error("extension {id}: background never started within {} s", timeout.as_secs())]
    BackgroundTimeout { id: String, timeout: Duration },
    /// The extension declares no background, so there is nothing to wait for.
    #[error("extension {id} declares no background script or service worker")]
    NoBackground { id: String },
    /// Evaluated code threw (the first line of the exception).
    #[error("the script threw: {message}")]
    Script { message: String },
    /// The operation does not exist for this browser family.
    #[error("{what} is not supported for {}", family.name())]
    Unsupported { family: Engine, what: String },
    /// The CDP connection failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// A Marionette command failed (Firefox with [`RunnerOptions::remote_control`]).
    #[error("Firefox remote control: {message}")]
    Remote { message: String },
    /// The Firefox debugger connection failed (Firefox with [`RunnerOptions::devtools`]).
    #[error(transparent)]
    Rdp(#[from] rdp::RdpError),
    /// A browser's protocol answer lacks a field it must carry ([`answer`]).
    #[error(
        "the browser's {what} answer lacks `{field}`; this browser version speaks a protocol the runner does not know"
    )]
    Answer { what: String, field: String },
}

impl RunnerError {
    fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> RunnerError {
        let what = what.into();
        move |source| RunnerError::Io { what, source }
    }
}

/// Keeps the last lines of a browser's output for error messages.
pub(crate) fn tail(lines: &std::collections::VecDeque<String>) -> String {
    if lines.is_empty() {
        return "(none)".to_owned();
    }
    lines.iter().cloned().collect::<Vec<_>>().join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Flags;

    fn finder(existing: &'static [&'static str]) -> impl Fn(&str) -> Option<PathBuf> {
        move |name| existing.contains(&name).then(|| PathBuf::from(format!("/found/{name}")))
    }

    #[test]
    fn binary_precedence_explicit_env_config_detection() {
        let cfg_file = std::env::temp_dir().join("webext-mcp-runner-test-missing.toml");
        let env = Env::from_pairs([("WEBEXT_MCP_CHROMIUM_BINARY", "from-env")], 0);
        let mut flags = Flags::new();
        flags.insert("browsers.chromium.binary", "from-config".to_owned());
        let config = Config::load(&cfg_file, &Env::default(), &flags).unwrap();
        let find = finder(&["from-arg", "from-env", "from-config", "chromium"]);
        let fam = Engine::Chromium;
        let got = resolve_binary_with(fam, Some(Path::new("from-arg")), &env, Some(&config), &find).unwrap();
        assert_eq!(got, Path::new("/found/from-arg"));
        let got = resolve_binary_with(fam, None, &env, Some(&config), &find).unwrap();
        assert_eq!(got, Path::new("/found/from-env"));
        let got = resolve_binary_with(fam, None, &Env::default(), Some(&config), &find).unwrap();
        assert_eq!(got, Path::new("/found/from-config"));
        let got = resolve_binary_with(fam, None, &Env::default(), None, &find).unwrap();
        assert_eq!(got, Path::new("/found/chromium"));
    }

    #[test]
    fn missing_browser_is_not_installed_with_hint() {
        let err = resolve_binary_with(Engine::Gecko, None, &Env::default(), None, &|_| None).unwrap_err();
        assert!(matches!(err, RunnerError::NotInstalled { .. }));
        assert!(err.to_string().contains("apt-get install firefox-esr"), "{err}");
        let env = Env::from_pairs([("WEBEXT_MCP_FIREFOX_BINARY", "/nope/firefox")], 0);
        let err = resolve_binary_with(Engine::Gecko, None, &env, None, &|_| None).unwrap_err();
        assert!(err.to_string().contains("WEBEXT_MCP_FIREFOX_BINARY"), "{err}");
    }

    /// CDP only inside the Chromium runner: no module outside `runner/` sends CDP or reaches
    /// for the Chromium runner behind the trait.
    #[test]
    fn cdp_stays_inside_the_runner() {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if path.file_name().is_some_and(|n| n != "runner") {
                        walk(&path, out);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        assert!(files.len() > 20, "{files:?}");
        for path in files {
            let source = std::fs::read_to_string(&path).unwrap();
            for needle in [".cdp()", "as_chromium", "CdpClient", "ChromiumRunner"] {
                assert!(
                    !source.contains(needle),
                    "{} uses `{needle}`: CDP belongs to runner/chromium.rs",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn find_program_needs_an_executable() {
        assert!(find_program("/nonexistent/browser").is_none());
        assert!(find_program("sh").is_some());
    }
}
