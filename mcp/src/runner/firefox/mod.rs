//! Firefox runner: extensions as unsigned xpi files in the profile, output read from the
//! browser's stdout and stderr.
//!
//! Firefox ESR accepts an unsigned `PROFILE/extensions/<gecko id>.xpi` with
//! `xpinstall.signatures.required=false` and `extensions.autoDisableScopes=0`. It has no CDP,
//! so what an extension prints is read from the process output (verified on ESR 153):
//!
//! - `devtools.console.stdout.content=true` prints console calls of content and extension
//!   documents on stdout as `console.error: "text" 1 ({a:1})`. These lines carry **no
//!   source**: a web page's `console.log` looks the same. Firefox's own modules print
//!   `console.error: services.settings: …` (a module prefix, unquoted, often multi-line);
//!   those are dropped. Source-less lines go to the only extension when exactly one is
//!   loaded, else to [`FirefoxRunner::unattributed`].
//! - `browser.dom.window.dump.enabled=true` prints uncaught errors on stderr as
//!   `JavaScript error: moz-extension://<uuid>/bg.js, line 4: Error: boom` (no column);
//!   a fixed uuid per extension (`extensions.webextensions.uuids`) attributes them.
//! - Background start: with `MOZ_LOG=BCWebProgress:3` the parent process logs
//!   `OnStateChange(…, STATE_STOP|STATE_IS_NETWORK|STATE_IS_WINDOW, NS_OK) on {…,
//!   url:moz-extension://<uuid>/_generated_background_page.html}` once the background
//!   document has loaded and its top-level scripts have run. The first such line for any
//!   URL (the start page) says the browser is up.
//!
//! With [`RunnerOptions::devtools`] (dev sessions) the browser also runs its remote
//! debugging server on a unix socket in the runner's private directory (`devtools.rs`):
//! extensions are then loaded and reloaded as temporary add-ons in the running browser
//! (`temporary.rs`), tabs are listed, opened, navigated and evaluated in (a tab's target id
//! is its tab descriptor actor), backgrounds are evaluated in, and console calls arrive with
//! their file and line. Without it, tabs are read and driven over Marionette
//! (`marionette.rs`) when [`RunnerOptions::remote_control`] asks for it (tests); a tab's
//! target id is then its window handle.

use crate::browsers::Engine;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use webext_mcp_host::digest::hex;

use super::log::ConsoleEvent;
use super::log::{ExtensionHandle, ExtensionLog, LogStream};
use super::marionette::{self, Marionette};
use super::process::{self, BrowserProcess, Tail};
use super::process::{browser_env, remove_temp, wait_exit_status};
use super::read_manifest;
use super::{BoxFuture, PageInfo, Runner, RunnerError, RunnerOptions};
use devtools::Devtools;
use output::Router;
use prefs::write_user_js;
use tab_consoles::TabConsoles;
use temporary::Temporary;

mod devtools;
mod output;
mod prefs;
mod shadow;
mod tab_consoles;
mod temporary;

/// The page Firefox generates for `background.scripts`.
const GENERATED_BACKGROUND: &str = "_generated_background_page.html";

/// A running Firefox.
pub struct FirefoxRunner {
    process: BrowserProcess,
    extensions: Mutex<Vec<ExtensionHandle>>,
    unattributed: Arc<ExtensionLog>,
    router: Arc<Router>,
    home: PathBuf,
    profile: PathBuf,
    temp: Mutex<Option<tempfile::TempDir>>,
    /// With [`RunnerOptions::remote_control`].
    marionette: Option<Marionette>,
    /// With [`RunnerOptions::devtools`].
    devtools: Option<Arc<Devtools>>,
    /// With [`RunnerOptions::devtools`]: content scripts' and extension pages' consoles.
    tab_consoles: Option<TabConsoles>,
    /// Temporary add-ons installed over the debugger.
    temporary: Arc<Mutex<Vec<Temporary>>>,
    /// Held while a background's console is being followed (one follow at a time per
    /// runner: two at once would undo each other's target watch).
    following: Arc<tokio::sync::Mutex<()>>,
    /// Gecko ids whose fixed uuid the profile's prefs held from the start
    /// ([`RunnerOptions::planned_extensions`]): their install sets no pref.
    preset_uuids: Vec<String>,
}

impl std::fmt::Debug for FirefoxRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirefoxRunner")
            .field("pid", &self.process.pid())
            .field("profile", &self.profile)
            .finish()
    }
}

/// One extension as this runner prepared it.
#[derive(Debug, Clone)]
struct Prepared {
    dir: PathBuf,
    gecko_id: String,
    uuid: String,
    /// `moz-extension://<uuid>/<page>` of its background document, if any.
    background_url: Option<String>,
}

impl FirefoxRunner {
    /// Writes the profile (prefs and xpi files), starts `binary` and waits until it is up.
    pub async fn launch(opts: RunnerOptions, binary: PathBuf) -> Result<FirefoxRunner, RunnerError> {
        let temp = tempfile::Builder::new()
            .prefix("webext-mcp-firefox-")
            .tempdir()
            .map_err(RunnerError::io("cannot create a temporary directory"))?;
        let home = temp.path().join("home");
        let profile = opts.profile_dir.clone().unwrap_or_else(|| temp.path().join("profile"));
        let ext_dir = profile.join("extensions");
        for dir in [&home, &profile, &ext_dir] {
            // Private: the browser writes cookies and logins there under the user's umask.
            super::profile::create_private(dir)
                .map_err(RunnerError::io(format!("cannot create {}", dir.display())))?;
        }
        super::write_home_files(&home, &opts.home_files)?;
        let mut prepared = Vec::new();
        for dir in &opts.extensions {
            prepared.push(install_xpi(dir, &ext_dir)?);
        }
        let planned = planned_uuids(&opts.planned_extensions);
        let mut uuids: BTreeMap<String, String> =
            prepared.iter().map(|p| (p.gecko_id.clone(), p.uuid.clone())).collect();
        uuids.extend(planned.iter().cloned());
        write_user_js(&profile, &uuids, &opts)?;

        let mut args = vec!["--no-remote".to_owned(), "--profile".to_owned(), profile.display().to_string()];
        // The debugger socket is created mode 0666: only the private temp dir guards it.
        let socket = temp.path().join("rdp.sock");
        if opts.devtools {
            std::fs::set_permissions(temp.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .map_err(RunnerError::io("cannot make the runner's directory private"))?;
            args.extend(["--start-debugger-server".to_owned(), socket.display().to_string()]);
        }
        if opts.headless {
            args.insert(0, "--headless".to_owned());
        }
        if opts.remote_control {
            // A kept profile may hold the port of an earlier run.
            let _ = std::fs::remove_file(profile.join(marionette::PORT_FILE));
            // Marionette refuses to navigate to moz-extension:// without system access.
            args.extend(["-marionette".to_owned(), "-remote-allow-system-access".to_owned()]);
        }
        args.extend(opts.extra_args.iter().cloned());
        args.push(opts.start_url.clone().unwrap_or_else(|| "about:blank".to_owned()));
        let process = BrowserProcess::spawn(
            &binary,
            &home,
            &args,
            |cmd| {
                browser_env(cmd, &opts, &home);
                cmd.env("MOZ_LOG", "BCWebProgress:3")
                    .env("MOZ_CRASHREPORTER_DISABLE", "1")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
            },
            None,
            opts.die_with_parent,
        )?;

        let unattributed = ExtensionLog::new();
        let extensions: Vec<ExtensionHandle> = prepared
            .iter()
            .map(|p| ExtensionHandle {
                dir: p.dir.clone(),
                id: p.gecko_id.clone(),
                base_url: format!("moz-extension://{}/", p.uuid),
                has_background: p.background_url.is_some(),
                log: ExtensionLog::new(),
            })
            .collect();
        let (started_tx, mut started_rx) = watch::channel(false);
        let tail = Tail::default();
        let router = Arc::new(Router::new(
            prepared.into_iter().zip(extensions.iter().map(|e| e.log.clone())).collect(),
            unattributed.clone(),
            started_tx,
            tail.clone(),
            opts.devtools,
        ));
        let (stdout, stderr) = process.take_output();
        if let Some(out) = stdout {
            let r = router.clone();
            process::spawn_line_reader("firefox-stdout", out, move |line| r.on_stdout(line));
        }
        let stderr_reader = stderr.and_then(|err| {
            let r = router.clone();
            process::spawn_line_reader("firefox-stderr", err, move |line| r.on_stderr(line))
        });

        let mut runner = FirefoxRunner {
            process,
            extensions: Mutex::new(extensions),
            unattributed,
            router,
            home,
            profile,
            temp: Mutex::new(Some(temp)),
            marionette: None,
            devtools: None,
            tab_consoles: None,
            temporary: Arc::default(),
            following: Arc::default(),
            preset_uuids: planned.into_iter().map(|(id, _)| id).collect(),
        };
        let deadline = Instant::now() + opts.start_timeout;
        // With the debugger, the browser is up once its socket exists: the server starts
        // before the first window has loaded its page, and installs need no window (a
        // starting page then loads while extensions install).
        let early = opts.devtools && !opts.remote_control;
        loop {
            if *started_rx.borrow_and_update() || (early && socket.exists()) {
                if opts.remote_control {
                    runner.marionette = Some(Marionette::connect(&runner.profile, deadline).await?);
                }
                if opts.devtools {
                    runner.devtools = Some(Arc::new(Devtools::connect(&socket, deadline).await?));
                    runner.tab_consoles = Some(TabConsoles::start(&socket));
                }
                tracing::info!(pid = runner.process.pid(), "firefox started");
                return Ok(runner);
            }
            if runner.process.exited().is_some() {
                let status = wait_exit_status(&runner.process).await;
                process::drain(stderr_reader.as_ref()).await;
                return Err(RunnerError::Exited {
                    family: Engine::Gecko,
                    status,
                    stderr: process::read_tail(&tail),
                });
            }
            if Instant::now() >= deadline {
                return Err(RunnerError::StartTimeout {
                    family: Engine::Gecko,
                    timeout: opts.start_timeout,
                    stderr: process::read_tail(&tail),
                });
            }
            let poll = Duration::from_millis(if early { 20 } else { 100 });
            let _ = tokio::time::timeout(poll, started_rx.changed()).await;
        }
    }

    /// Console lines that cannot be tied to one extension (several are loaded, or none).
    pub fn unattributed(&self) -> LogStream {
        self.unattributed.subscribe()
    }

    fn marionette(&self, what: &str) -> Result<&Marionette, RunnerError> {
        self.marionette.as_ref().ok_or_else(|| RunnerError::Unsupported {
            family: Engine::Gecko,
            what: format!("{what} without RunnerOptions::devtools or remote_control"),
        })
    }

    fn devtools(&self, what: &str) -> Result<&Devtools, RunnerError> {
        self.devtools.as_deref().ok_or_else(|| RunnerError::Unsupported {
            family: Engine::Gecko,
            what: format!("{what} without RunnerOptions::devtools"),
        })
    }

    async fn list_pages(&self) -> Result<Vec<PageInfo>, RunnerError> {
        if let Some(d) = &self.devtools {
            let tabs = d.tabs().await?;
            return Ok(tabs.into_iter().map(|t| PageInfo { target_id: t.descriptor, url: t.url }).collect());
        }
        let m = self.marionette("listing tabs")?;
        let mut pages = Vec::new();
        for handle in m.windows(TAB_TIMEOUT).await? {
            let url = m.url(&handle, TAB_TIMEOUT).await?;
            pages.push(PageInfo { target_id: handle, url });
        }
        Ok(pages)
    }
}

/// How long a tab command other than evaluation may take (a navigation waits for the load).
const TAB_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::FIREFOX_TAB_COMMAND_MS);

impl Runner for FirefoxRunner {
    fn family(&self) -> Engine {
        Engine::Gecko
    }
    fn pid(&self) -> u32 {
        self.process.pid()
    }
    fn home_dir(&self) -> &Path {
        &self.home
    }
    fn profile_dir(&self) -> &Path {
        &self.profile
    }
    fn extensions(&self) -> Vec<ExtensionHandle> {
        self.extensions.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
    fn load_extension<'a>(&'a self, dir: &'a Path) -> BoxFuture<'a, Result<ExtensionHandle, RunnerError>> {
        Box::pin(self.load_temporary(dir))
    }
    /// Verified on ESR 153: installing or reloading a temporary add-on runs its content
    /// scripts in the matching open tabs.
    fn injects_on_load(&self) -> bool {
        true
    }
    fn is_running(&self) -> bool {
        self.process.exited().is_none()
    }
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.process
                .shutdown(Duration::from_millis(webext_mcp_host::protocol::timeouts::BROWSER_SHUTDOWN_MS))
                .await;
            remove_temp(&self.temp);
        })
    }
    fn pages(&self) -> BoxFuture<'_, Result<Vec<PageInfo>, RunnerError>> {
        Box::pin(self.list_pages())
    }
    fn evaluate_in_page<'a>(
        &'a self,
        target_id: &'a str,
        expression: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        Box::pin(async move {
            if let Some(d) = &self.devtools {
                return d.evaluate_in_tab(target_id, expression, timeout).await;
            }
            self.marionette("evaluating in a tab")?.evaluate(target_id, expression, timeout).await
        })
    }
    fn navigate_page<'a>(
        &'a self,
        target_id: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<(), RunnerError>> {
        Box::pin(async move {
            if self.devtools.is_some() {
                return self.navigate_tab(target_id, url).await;
            }
            self.marionette("navigating a tab")?.navigate(target_id, url, TAB_TIMEOUT).await
        })
    }
    fn open_page<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<PageInfo, RunnerError>> {
        Box::pin(async move { self.devtools("opening a tab")?.open_tab(url).await })
    }
    fn reload_page<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Result<(), RunnerError>> {
        Box::pin(async move {
            let d = self.devtools("reloading a tab")?;
            d.evaluate_in_tab(target_id, "void location.reload()", TAB_TIMEOUT).await.map(|_| ())
        })
    }
    fn page_console<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Vec<ConsoleEvent>> {
        Box::pin(async move {
            match &self.devtools {
                Some(d) => d.page_messages(target_id).await.unwrap_or_default(),
                None => Vec::new(),
            }
        })
    }
    fn call_with_closed_shadow_roots<'a>(
        &'a self,
        target_id: &'a str,
        function: &'a str,
        arg: &'a Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, RunnerError>> {
        Box::pin(self.call_with_closed(target_id, function, arg, timeout))
    }
    fn call_isolated<'a>(
        &'a self,
        target_id: &'a str,
        function: &'a str,
        arg: &'a Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        Box::pin(self.call_isolated_world(target_id, function, arg, timeout))
    }
    fn popups(&self) -> BoxFuture<'_, Result<Vec<String>, RunnerError>> {
        Box::pin(async move { self.devtools("listing popups")?.popups().await })
    }
    fn evaluate_in_background<'a>(
        &'a self,
        ext: &'a ExtensionHandle,
        expression: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        Box::pin(self.evaluate_background(ext, expression, timeout))
    }
}

impl Drop for FirefoxRunner {
    fn drop(&mut self) {
        self.process.kill_now();
        remove_temp(&self.temp);
    }
}

/// The gecko id from the manifest.
fn manifest_gecko_id(manifest: &Value) -> Option<&str> {
    ["browser_specific_settings", "applications"]
        .iter()
        .find_map(|k| manifest[k]["gecko"]["id"].as_str())
        .filter(|s| !s.is_empty())
}

/// A gecko id for a manifest without one: stable per directory.
fn generated_gecko_id(dir: &Path) -> String {
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    format!("{}@webext-mcp.local", hex(&digest[..8]))
}

/// A fixed moz-extension uuid per gecko id, so output lines can be attributed.
fn uuid_for(gecko_id: &str) -> String {
    let d = Sha256::digest(format!("webext-mcp uuid {gecko_id}").as_bytes());
    let mut b: [u8; 16] = [0; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// Writes `browser_specific_settings.gecko.id` into a manifest.
fn set_gecko_id(manifest: &mut Value, id: &str) {
    if !manifest["browser_specific_settings"].is_object() {
        manifest["browser_specific_settings"] = json!({});
    }
    if !manifest["browser_specific_settings"]["gecko"].is_object() {
        manifest["browser_specific_settings"]["gecko"] = json!({});
    }
    manifest["browser_specific_settings"]["gecko"]["id"] = Value::String(id.to_owned());
}

/// `moz-extension://<uuid>/<page>` of the extension's background document, if it has one.
fn background_url(manifest: &Value, uuid: &str) -> Option<String> {
    let bg = &manifest["background"];
    if bg.get("scripts").is_some() {
        Some(format!("moz-extension://{uuid}/{GENERATED_BACKGROUND}"))
    } else {
        bg["page"].as_str().map(|p| format!("moz-extension://{uuid}/{}", p.trim_start_matches('/')))
    }
}

/// `(gecko id, uuid)` of each extension directory loaded later over the debugger, as
/// [`FirefoxRunner::load_temporary`] will name them (a directory without a readable
/// manifest yet is left out: its load sets the pref then).
fn planned_uuids(dirs: &[PathBuf]) -> Vec<(String, String)> {
    dirs.iter()
        .filter_map(|dir| {
            let dir = std::fs::canonicalize(dir).ok()?;
            let manifest = read_manifest(&dir).ok()?;
            let id = manifest_gecko_id(&manifest).map_or_else(|| generated_gecko_id(&dir), str::to_owned);
            let uuid = uuid_for(&id);
            Some((id, uuid))
        })
        .collect()
}

/// Zips `dir` into `ext_dir/<gecko id>.xpi`, writing a gecko id into the manifest when it
/// has none.
fn install_xpi(dir: &Path, ext_dir: &Path) -> Result<Prepared, RunnerError> {
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
    let mut manifest = read_manifest(&dir)?;
    let (gecko_id, rewritten) = match manifest_gecko_id(&manifest) {
        Some(id) => (id.to_owned(), None),
        None => {
            let id = generated_gecko_id(&dir);
            set_gecko_id(&mut manifest, &id);
            (id, Some(manifest.to_string()))
        }
    };
    let uuid = uuid_for(&gecko_id);
    let background_url = background_url(&manifest, &uuid);
    let xpi = ext_dir.join(format!("{gecko_id}.xpi"));
    write_zip(&dir, &xpi, rewritten.as_deref())
        .map_err(|e| RunnerError::Io { what: format!("cannot write {}", xpi.display()), source: e })?;
    Ok(Prepared { dir, gecko_id, uuid, background_url })
}

fn write_zip(dir: &Path, xpi: &Path, manifest: Option<&str>) -> std::io::Result<()> {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(xpi)?);
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for rel in files {
        zip.start_file(rel.as_str(), options).map_err(std::io::Error::other)?;
        match manifest {
            Some(text) if rel == "manifest.json" => zip.write_all(text.as_bytes())?,
            _ => zip.write_all(&std::fs::read(dir.join(&rel))?)?,
        }
    }
    zip.finish().map_err(std::io::Error::other)?;
    Ok(())
}

/// Files under `dir`, as `/`-separated paths relative to `root`.
fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let meta = std::fs::metadata(&path)?;
        if meta.is_dir() {
            collect_files(root, &path, out)?;
        } else if meta.is_file()
            && let Ok(rel) = path.strip_prefix(root)
        {
            out.push(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
