//! Chromium-family runner: CDP over `--remote-debugging-pipe`.
//!
//! Extensions are loaded with `Extensions.loadUnpacked` (branded Chrome 137+ ignores
//! `--load-extension`; the CDP command needs `--enable-unsafe-extension-debugging`).
//! Browser-wide `Target.setAutoAttach {waitForDebuggerOnStart, flatten}` attaches to every
//! new page and worker *paused*, so `Runtime.enable` is in place before the first line of an
//! extension's service worker runs and an exception at its top level is still seen. A worker
//! that stops and is started again later keeps its target and session and waits again; the
//! monitor resumes it when that session reports `Inspector.targetReloadedAfterCrash`.
//! Console calls and exceptions are attributed to an extension by the origin of the target
//! they ran in, or else by the script URL on top of their stack (content scripts).

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::cdp::{self, CdpClient, CdpError, CdpEvent};
use super::log::{ConsoleEvent, EventKind, ExtensionHandle, ExtensionLog, Level};
use super::process::{self, BrowserProcess, ChildPipes, Tail};
use super::{BoxFuture, Family, PageInfo, Runner, RunnerError, RunnerOptions};

const SCHEME: &str = "chrome-extension://";
/// Console events kept per page for [`Runner::page_console`].
const PAGE_LOG: usize = 200;

/// A running Chromium-family browser.
pub struct ChromiumRunner {
    process: BrowserProcess,
    cdp: CdpClient,
    monitor: Arc<Monitor>,
    extensions: Mutex<Vec<ExtensionHandle>>,
    home: PathBuf,
    profile: PathBuf,
    temp: Mutex<Option<tempfile::TempDir>>,
}

impl std::fmt::Debug for ChromiumRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChromiumRunner")
            .field("pid", &self.process.pid())
            .field("profile", &self.profile)
            .finish()
    }
}

impl ChromiumRunner {
    /// Starts `binary` and loads `opts.extensions`.
    pub async fn launch(opts: RunnerOptions, binary: PathBuf) -> Result<ChromiumRunner, RunnerError> {
        let temp = tempfile::Builder::new()
            .prefix("webext-mcp-chromium-")
            .tempdir()
            .map_err(RunnerError::io("cannot create a temporary directory"))?;
        let home = temp.path().join("home");
        let profile = opts.profile_dir.clone().unwrap_or_else(|| temp.path().join("profile"));
        for dir in [&home, &profile] {
            std::fs::create_dir_all(dir)
                .map_err(RunnerError::io(format!("cannot create {}", dir.display())))?;
        }
        enable_developer_mode(&profile)?;

        let (browser_reads, we_write) = process::pipe().map_err(RunnerError::io("cannot create a pipe"))?;
        let (we_read, browser_writes) = process::pipe().map_err(RunnerError::io("cannot create a pipe"))?;
        let args = chromium_args(&opts, &profile, is_root());
        let process = BrowserProcess::spawn(
            &binary,
            &home,
            &args,
            |cmd| {
                browser_env(cmd, &opts, &home);
                cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
            },
            Some(ChildPipes { fd3: browser_reads, fd4: browser_writes }),
            opts.die_with_parent,
        )?;
        let tail = Tail::default();
        let stderr_reader = process.take_output().1.and_then(|stderr| {
            let tail = tail.clone();
            process::spawn_line_reader("chromium-stderr", stderr, move |line| {
                tracing::debug!(target: "webext_mcp::browser::chromium", "{line}");
                process::push_tail(&tail, line);
            })
        });
        let cdp = CdpClient::start(File::from(we_read), File::from(we_write))
            .map_err(RunnerError::io("cannot start the CDP threads"))?;
        let monitor = Arc::new(Monitor { observe_workers: opts.observe_workers, ..Monitor::default() });
        let m = monitor.clone();
        cdp.add_listener(move |cdp, event| m.on_event(cdp, event));

        let runner = ChromiumRunner {
            process,
            cdp,
            monitor,
            extensions: Mutex::new(Vec::new()),
            home,
            profile,
            temp: Mutex::new(Some(temp)),
        };
        runner.wait_started(opts.start_timeout, &tail, stderr_reader.as_ref()).await?;
        runner
            .cdp
            .send(
                "Target.setAutoAttach",
                json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
            )
            .await?;
        runner.cdp.send("Target.setDiscoverTargets", json!({"discover": true})).await?;
        for dir in &opts.extensions {
            runner.load(dir).await?;
        }
        Ok(runner)
    }

    async fn wait_started(
        &self,
        timeout: Duration,
        tail: &Tail,
        stderr_reader: Option<&std::thread::JoinHandle<()>>,
    ) -> Result<(), RunnerError> {
        match self.cdp.send_to(None, "Browser.getVersion", json!({}), timeout).await {
            Ok(v) => {
                let product = v.get("product").and_then(serde_json::Value::as_str).unwrap_or("?");
                tracing::info!(pid = self.process.pid(), product, "chromium started");
                Ok(())
            }
            Err(CdpError::Timeout { .. }) => Err(RunnerError::StartTimeout {
                family: Family::Chromium,
                timeout,
                stderr: process::read_tail(tail),
            }),
            Err(_) => {
                let status = wait_exit_status(&self.process).await;
                process::drain(stderr_reader).await;
                Err(RunnerError::Exited {
                    family: Family::Chromium,
                    status,
                    stderr: process::read_tail(tail),
                })
            }
        }
    }

    /// The CDP connection, for tests sending commands of their own. Everything else reaches
    /// the browser through the [`Runner`] methods, so CDP stays inside this file.
    pub fn cdp(&self) -> &CdpClient {
        &self.cdp
    }

    /// Loads (or, for an already loaded path, reloads) an unpacked extension. After a
    /// reload, [`ExtensionHandle::wait_background`] waits for the new worker version.
    pub async fn load(&self, dir: &Path) -> Result<ExtensionHandle, RunnerError> {
        let dir = std::fs::canonicalize(dir)
            .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
        let has_background = declares_service_worker(&dir)?;
        let previous = self.extensions().into_iter().find(|e| e.dir == dir);
        if let Some(previous) = &previous {
            previous.log.reset_background();
        }
        let before = self.monitor.next_seq();
        let reply =
            self.cdp.send("Extensions.loadUnpacked", json!({ "path": dir })).await.map_err(|e| match e {
                CdpError::Protocol { message, .. } => RunnerError::LoadRefused { dir: dir.clone(), message },
                other => RunnerError::Cdp(other),
            })?;
        let id = reply.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let handle = ExtensionHandle {
            base_url: format!("{SCHEME}{id}/"),
            log: self.monitor.log(&id),
            id,
            dir,
            has_background,
        };
        // A reload replaces the worker without telling its old session (no
        // `targetDestroyed`); commands sent there would hang, so forget it.
        self.monitor.forget_workers(&handle.base_url, before);
        tracing::info!(id = %handle.id, dir = %handle.dir.display(), "extension loaded");
        let mut list = self.extensions.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|e| e.id != handle.id);
        list.push(handle.clone());
        Ok(handle)
    }
}

impl ChromiumRunner {
    /// The session to talk to a page target on: the monitor's, else a new one.
    async fn page_session(&self, target_id: &str) -> Result<String, RunnerError> {
        if let Some(s) = self.monitor.page_session(target_id) {
            return Ok(s);
        }
        let attached =
            self.cdp.send("Target.attachToTarget", json!({"targetId": target_id, "flatten": true})).await?;
        attached["sessionId"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| RunnerError::Script { message: format!("cannot attach to tab {target_id}") })
    }

    async fn list_pages(&self) -> Result<Vec<PageInfo>, RunnerError> {
        let reply = self.cdp.send("Target.getTargets", json!({})).await?;
        Ok(reply["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .map(|t| PageInfo {
                target_id: t["targetId"].as_str().unwrap_or("").to_owned(),
                url: t["url"].as_str().unwrap_or("").to_owned(),
            })
            .collect())
    }

    async fn open_tab(&self, url: &str) -> Result<PageInfo, RunnerError> {
        let created = self.cdp.send("Target.createTarget", json!({"url": url, "background": true})).await?;
        let target_id = created["targetId"]
            .as_str()
            .ok_or_else(|| RunnerError::Script { message: format!("no tab was opened for {url}") })?;
        Ok(PageInfo { target_id: target_id.to_owned(), url: url.to_owned() })
    }

    async fn list_workers(&self, url_prefix: &str) -> Result<Vec<PageInfo>, RunnerError> {
        let reply = self.cdp.send("Target.getTargets", json!({})).await?;
        Ok(reply["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "service_worker")
            .filter_map(|t| {
                let url = t["url"].as_str().filter(|u| u.starts_with(url_prefix))?;
                Some(PageInfo {
                    target_id: t["targetId"].as_str().unwrap_or("").to_owned(),
                    url: url.to_owned(),
                })
            })
            .collect())
    }

    /// [`Runner::call_with_closed_shadow_roots`]: the closed roots are found with
    /// `DOM.getDocument {pierce}` and passed to `Runtime.callFunctionOn`, on a session of our
    /// own without `Runtime.enable`, so the monitor stays the only one that reports this
    /// tab's console.
    async fn call_with_closed(
        &self,
        target_id: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
    ) -> Result<Option<Value>, RunnerError> {
        let attached =
            self.cdp.send("Target.attachToTarget", json!({"targetId": target_id, "flatten": true})).await?;
        let Some(session) = attached["sessionId"].as_str().map(str::to_owned) else {
            return Err(RunnerError::Script { message: format!("cannot attach to tab {target_id}") });
        };
        let cdp = &self.cdp;
        let result = async {
            let doc = cdp
                .send_to(Some(&session), "DOM.getDocument", json!({"depth": -1, "pierce": true}), timeout)
                .await?;
            let mut closed = Vec::new();
            closed_roots(&doc["root"], &mut closed);
            let mut args = vec![json!({ "value": arg })];
            let mut this = None;
            for id in closed.into_iter().take(super::MAX_CLOSED_ROOTS) {
                let r = cdp
                    .send_to(Some(&session), "DOM.resolveNode", json!({ "backendNodeId": id }), timeout)
                    .await?;
                if let Some(obj) = r["object"]["objectId"].as_str() {
                    args.push(json!({ "objectId": obj }));
                    this.get_or_insert_with(|| obj.to_owned());
                }
            }
            let Some(this) = this else { return Ok(None) };
            let call = json!({"functionDeclaration": function, "objectId": this, "arguments": args,
                              "returnByValue": true, "awaitPromise": true});
            let reply = cdp.send_to(Some(&session), "Runtime.callFunctionOn", call, timeout).await?;
            by_value(reply).map(Some)
        }
        .await;
        cdp.send_detached(None, "Target.detachFromTarget", json!({ "sessionId": session }));
        result
    }

    async fn evaluate_page(
        &self,
        target_id: &str,
        expr: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let session = self.page_session(target_id).await?;
        evaluate(&self.cdp, &session, expr, timeout).await
    }

    async fn navigate_tab(&self, target_id: &str, url: &str) -> Result<(), RunnerError> {
        let session = self.page_session(target_id).await?;
        let reply = self
            .cdp
            .send_to(Some(&session), "Page.navigate", json!({"url": url}), cdp::DEFAULT_TIMEOUT)
            .await?;
        match reply.get("errorText").and_then(Value::as_str) {
            Some(e) if !e.is_empty() => {
                Err(RunnerError::Script { message: format!("cannot open {url}: {e}") })
            }
            _ => Ok(()),
        }
    }

    async fn reload_tab(&self, target_id: &str) -> Result<(), RunnerError> {
        let session = self.page_session(target_id).await?;
        self.cdp.send_to(Some(&session), "Page.reload", json!({}), cdp::DEFAULT_TIMEOUT).await?;
        Ok(())
    }

    /// Runs `expr` in the extension's newest service worker. A stopped worker (or none yet,
    /// right after a reload) is started with `ServiceWorker.startWorker`, at most twice a
    /// second; a command that gets no reply means the worker went away under it.
    async fn evaluate_worker(
        &self,
        ext: &ExtensionHandle,
        expr: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let deadline = std::time::Instant::now() + timeout;
        let mut last_wake: Option<std::time::Instant> = None;
        loop {
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(RunnerError::BackgroundTimeout { id: ext.id.clone(), timeout });
            }
            match self.monitor.latest_worker(&ext.base_url) {
                Some((session, false)) => {
                    tracing::debug!(
                        waited_ms = (timeout - (deadline - now)).as_millis() as u64,
                        "worker session found"
                    );
                    let left = (deadline - now).min(Duration::from_secs(5));
                    match evaluate(&self.cdp, &session, expr, left).await {
                        Err(RunnerError::Cdp(CdpError::Timeout { .. })) => {
                            self.monitor.set_stopped(&session, true);
                        }
                        Err(RunnerError::Cdp(CdpError::Protocol { message, .. }))
                            if message.contains("session") || message.contains("target") =>
                        {
                            self.monitor.forget_session(&session);
                        }
                        // A worker attached before its first line ran has no extension
                        // bindings yet; they appear once the script starts.
                        Err(RunnerError::Script { message }) if message.contains("chrome is not defined") => {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        other => return other,
                    }
                }
                _ => {
                    if last_wake.is_none_or(|t| t.elapsed() > Duration::from_millis(500)) {
                        last_wake = Some(std::time::Instant::now());
                        self.monitor.wake_worker(&self.cdp, &ext.base_url);
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
    }
}

/// `Runtime.evaluate` with the value returned by value and a thrown exception as an error.
async fn evaluate(
    cdp: &CdpClient,
    session: &str,
    expr: &str,
    timeout: Duration,
) -> Result<Value, RunnerError> {
    let reply = cdp
        .send_to(
            Some(session),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            timeout,
        )
        .await?;
    by_value(reply)
}

/// The value of a `Runtime.evaluate` / `Runtime.callFunctionOn` reply (`returnByValue`), or
/// the exception it threw as [`RunnerError::Script`].
fn by_value(mut reply: Value) -> Result<Value, RunnerError> {
    if let Some(d) = reply.get("exceptionDetails") {
        return Err(RunnerError::Script { message: exception_text(d) });
    }
    Ok(reply["result"].get_mut("value").map(Value::take).unwrap_or(Value::Null))
}

/// The one reading of CDP's `exceptionDetails`: the first line of the exception's
/// description (`Error: boom`, without the stack), else the details' own text.
fn exception_text(d: &Value) -> String {
    d["exception"]["description"]
        .as_str()
        .and_then(|s| s.lines().next())
        .or_else(|| d["text"].as_str())
        .unwrap_or("uncaught exception")
        .to_owned()
}

/// The backend node ids of the closed shadow roots of a `DOM.getDocument` tree (the top
/// document only: a frame's nodes live in another JavaScript context).
fn closed_roots(node: &Value, out: &mut Vec<u64>) {
    for root in node["shadowRoots"].as_array().into_iter().flatten() {
        if root["shadowRootType"] == "closed"
            && let Some(id) = root["backendNodeId"].as_u64()
        {
            out.push(id);
        }
        closed_roots(root, out);
    }
    for child in node["children"].as_array().into_iter().flatten() {
        closed_roots(child, out);
    }
    if let Some(t) = node.get("templateContent") {
        closed_roots(t, out);
    }
}

impl Runner for ChromiumRunner {
    fn family(&self) -> Family {
        Family::Chromium
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
    fn as_chromium(&self) -> Option<&ChromiumRunner> {
        Some(self)
    }
    fn load_extension<'a>(&'a self, dir: &'a Path) -> BoxFuture<'a, Result<ExtensionHandle, RunnerError>> {
        Box::pin(self.load(dir))
    }
    fn is_running(&self) -> bool {
        self.process.exited().is_none()
    }
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.cdp.send_to(None, "Browser.close", json!({}), Duration::from_secs(2)).await;
            self.process.shutdown(Duration::from_secs(3)).await;
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
        Box::pin(self.evaluate_page(target_id, expression, timeout))
    }
    fn reload_page<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Result<(), RunnerError>> {
        Box::pin(self.reload_tab(target_id))
    }
    fn open_page<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<PageInfo, RunnerError>> {
        Box::pin(self.open_tab(url))
    }
    fn service_workers<'a>(
        &'a self,
        url_prefix: &'a str,
    ) -> BoxFuture<'a, Result<Vec<PageInfo>, RunnerError>> {
        Box::pin(self.list_workers(url_prefix))
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
    fn navigate_page<'a>(
        &'a self,
        target_id: &'a str,
        url: &'a str,
    ) -> BoxFuture<'a, Result<(), RunnerError>> {
        Box::pin(self.navigate_tab(target_id, url))
    }
    fn evaluate_in_background<'a>(
        &'a self,
        ext: &'a ExtensionHandle,
        expression: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        Box::pin(self.evaluate_worker(ext, expression, timeout))
    }
    fn page_console(&self, target_id: &str) -> Vec<ConsoleEvent> {
        lock(&self.monitor.page_logs).get(target_id).map(|q| q.iter().cloned().collect()).unwrap_or_default()
    }
}

impl Drop for ChromiumRunner {
    fn drop(&mut self) {
        self.process.kill_now();
        remove_temp(&self.temp);
    }
}

pub(crate) fn remove_temp(temp: &Mutex<Option<tempfile::TempDir>>) {
    if let Some(dir) = temp.lock().unwrap_or_else(PoisonError::into_inner).take() {
        let path = dir.path().to_owned();
        if let Err(e) = dir.close() {
            tracing::debug!(error = %e, path = %path.display(), "temporary browser dir not fully removed; retrying");
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

pub(crate) async fn wait_exit_status(process: &BrowserProcess) -> String {
    for _ in 0..20 {
        if let Some(status) = process.exited() {
            return status.to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "still running".to_owned()
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The flags of a quiet, isolated Chromium (see reference/browsers-here.md).
fn chromium_args(opts: &RunnerOptions, profile: &Path, root: bool) -> Vec<String> {
    let mut args = vec![
        "--remote-debugging-pipe".to_owned(),
        "--enable-unsafe-extension-debugging".to_owned(),
        format!("--user-data-dir={}", profile.display()),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--password-store=basic".to_owned(),
        "--window-size=1280,800".to_owned(),
    ];
    if opts.headless {
        args.push("--headless=new".to_owned());
        args.push("--disable-gpu".to_owned());
    }
    // The sandbox cannot run as root; a normal user keeps it.
    if root {
        args.push("--no-sandbox".to_owned());
    }
    args.push(opts.start_url.clone().unwrap_or_else(|| "about:blank".to_owned()));
    args
}

/// The browser's environment: inherited, with its own `HOME` (Chromium writes there even
/// with `--user-data-dir`), XDG dirs following it, and the session variables only when given.
pub(crate) fn browser_env(cmd: &mut std::process::Command, opts: &RunnerOptions, home: &Path) {
    for key in [
        "WEBEXT_MCP_RUNTIME_DIR",
        "WEBEXT_MCP_SESSION",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HOME", home);
    if let Some(dir) = &opts.runtime_dir {
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", dir);
    }
    if let Some(session) = &opts.session {
        cmd.env("WEBEXT_MCP_SESSION", session);
    }
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
}

/// `chrome.runtime.reload()` leaves an unpacked extension disabled unless developer mode is
/// on, and the only switch is the profile's preferences, set before launch.
fn enable_developer_mode(profile: &Path) -> Result<(), RunnerError> {
    let dir = profile.join("Default");
    std::fs::create_dir_all(&dir).map_err(RunnerError::io(format!("cannot create {}", dir.display())))?;
    let file = dir.join("Preferences");
    let mut prefs = std::fs::read(&file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    prefs["extensions"] = merge(prefs.get("extensions"), json!({"ui": {"developer_mode": true}}));
    std::fs::write(&file, prefs.to_string())
        .map_err(RunnerError::io(format!("cannot write {}", file.display())))
}

fn merge(old: Option<&Value>, new: Value) -> Value {
    match (old, new) {
        (Some(Value::Object(old)), Value::Object(new)) => {
            let mut out = old.clone();
            for (k, v) in new {
                let merged = merge(out.get(&k), v);
                out.insert(k, merged);
            }
            Value::Object(out)
        }
        (_, new) => new,
    }
}

pub(crate) fn read_manifest(dir: &Path) -> Result<Value, RunnerError> {
    let path = dir.join("manifest.json");
    let bytes = std::fs::read(&path)
        .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
    serde_json::from_slice(&bytes).map_err(|e| RunnerError::BadExtension {
        dir: dir.to_owned(),
        reason: format!("manifest.json is not valid JSON: {e}"),
    })
}

fn declares_service_worker(dir: &Path) -> Result<bool, RunnerError> {
    let manifest = read_manifest(dir)?;
    let bg = &manifest["background"];
    Ok(bg.get("service_worker").is_some() || bg.get("page").is_some() || bg.get("scripts").is_some())
}

/// The extension id in a `chrome-extension://<id>/…` URL.
fn extension_of(url: &str) -> Option<&str> {
    let rest = url.strip_prefix(SCHEME)?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then_some(id)
}

/// A session the monitor watches (one per target).
#[derive(Debug, Clone)]
struct Attached {
    target_id: String,
    kind: String,
    url: String,
    /// Order of attachment: the newest worker of an extension is the live one.
    seq: u64,
    /// A worker that stopped (`Inspector.targetCrashed`) and has not restarted yet.
    stopped: bool,
}

/// Watches targets, their consoles and service-worker versions; one per browser.
///
/// "Background started" comes from the `ServiceWorker` domain (enabled on one page
/// session; it reports every registration of the profile, extensions included): a version
/// of the extension's worker that is `running` and `activated`. A bare `service_worker`
/// target is not enough: a module worker with top-level `await` gets a target, then fails
/// to register (`workerErrorReported`: "Top-level await is disallowed in service workers.")
/// and the target disappears. Only while no page is open does the monitor fall back to the
/// target signal.
#[derive(Default)]
struct Monitor {
    sessions: Mutex<HashMap<String, Attached>>,
    /// Keyed by extension id. Created on first sight, so events that arrive before
    /// `loadUnpacked` returns are kept.
    logs: Mutex<HashMap<String, Arc<ExtensionLog>>>,
    /// The page session the `ServiceWorker` domain is enabled on.
    sw_session: Mutex<Option<String>>,
    /// Service-worker registration id → extension id.
    registrations: Mutex<HashMap<String, String>>,
    /// Worker errors whose registration was not known yet, by registration id.
    orphan_errors: Mutex<HashMap<String, Vec<ConsoleEvent>>>,
    /// See [`RunnerOptions::observe_workers`]; when off, workers are resumed and left alone.
    observe_workers: bool,
    /// Console output of pages' own scripts, by target id; emptied when the page's
    /// document is replaced (`Runtime.executionContextsCleared`).
    page_logs: Mutex<HashMap<String, std::collections::VecDeque<ConsoleEvent>>>,
    seq: std::sync::atomic::AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Monitor {
    fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }

    fn page_session(&self, target_id: &str) -> Option<String> {
        lock(&self.sessions)
            .iter()
            .find(|(_, a)| a.target_id == target_id && a.kind == "page")
            .map(|(s, _)| s.clone())
    }

    /// The newest worker session at `base_url` and whether it is stopped.
    fn latest_worker(&self, base_url: &str) -> Option<(String, bool)> {
        lock(&self.sessions)
            .iter()
            .filter(|(_, a)| a.kind == "service_worker" && a.url.starts_with(base_url))
            .max_by_key(|(_, a)| a.seq)
            .map(|(s, a)| (s.clone(), a.stopped))
    }

    fn forget_workers(&self, base_url: &str, before: u64) {
        lock(&self.sessions)
            .retain(|_, a| !(a.kind == "service_worker" && a.url.starts_with(base_url) && a.seq < before));
    }

    fn forget_session(&self, session: &str) {
        lock(&self.sessions).remove(session);
    }

    fn set_stopped(&self, session: &str, stopped: bool) {
        if let Some(a) = lock(&self.sessions).get_mut(session) {
            a.stopped = stopped;
        }
    }

    /// Starts the extension's worker from the page session that has the `ServiceWorker`
    /// domain (any page session can; ~5 ms).
    fn wake_worker(&self, cdp: &CdpClient, base_url: &str) {
        if let Some(s) = lock(&self.sw_session).clone() {
            cdp.send_detached(Some(&s), "ServiceWorker.startWorker", json!({"scopeURL": base_url}));
        }
    }

    fn log(&self, id: &str) -> Arc<ExtensionLog> {
        lock(&self.logs).entry(id.to_owned()).or_insert_with(ExtensionLog::new).clone()
    }

    fn note_target(&self, info: &Value) {
        let kind = info.get("type").and_then(Value::as_str).unwrap_or("");
        let url = info.get("url").and_then(Value::as_str).unwrap_or("");
        if kind == "service_worker"
            && lock(&self.sw_session).is_none()
            && let Some(id) = extension_of(url)
        {
            self.log(id).set_background_started();
        }
    }

    /// Enables the `ServiceWorker` domain on `session` unless another page has it.
    fn watch_workers_from(&self, cdp: &CdpClient, session: &str) {
        let mut sw = lock(&self.sw_session);
        if sw.is_none() {
            *sw = Some(session.to_owned());
            cdp.send_detached(Some(session), "ServiceWorker.enable", json!({}));
        }
    }

    fn on_event(&self, cdp: &CdpClient, ev: &CdpEvent) {
        match ev.method.as_str() {
            "Target.attachedToTarget" => {
                let info = &ev.params["targetInfo"];
                let Some(session) = ev.params.get("sessionId").and_then(Value::as_str) else { return };
                let kind = info.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
                let url = info.get("url").and_then(Value::as_str).unwrap_or("").to_owned();
                let target_id = info.get("targetId").and_then(Value::as_str).unwrap_or("").to_owned();
                self.note_target(info);
                // Only the first session per target is watched: the auto-attached one. A
                // later `Target.attachToTarget` by other code would otherwise double every
                // console event once that code enables `Runtime` on its own session.
                let first = !lock(&self.sessions).values().any(|a| a.target_id == target_id);
                if first {
                    // An unobserved worker is still attached (so a restart can be resumed),
                    // but never instrumented.
                    let instrument = kind != "service_worker" || self.observe_workers;
                    if instrument
                        && matches!(
                            kind.as_str(),
                            "page" | "service_worker" | "worker" | "shared_worker" | "background_page"
                        )
                    {
                        cdp.send_detached(Some(session), "Runtime.enable", json!({}));
                    }
                    if kind == "page" {
                        self.watch_workers_from(cdp, session);
                    }
                    let seq = self.next_seq();
                    lock(&self.sessions)
                        .insert(session.to_owned(), Attached { target_id, kind, url, seq, stopped: false });
                }
                if ev.params.get("waitingForDebugger").and_then(Value::as_bool).unwrap_or(false) {
                    cdp.send_detached(Some(session), "Runtime.runIfWaitingForDebugger", json!({}));
                }
            }
            "Target.detachedFromTarget" => {
                let Some(session) = ev.params.get("sessionId").and_then(Value::as_str) else { return };
                lock(&self.sessions).remove(session);
                let mut sw = lock(&self.sw_session);
                if sw.as_deref() == Some(session) {
                    *sw = None;
                    drop(sw);
                    let next =
                        lock(&self.sessions).iter().find(|(_, a)| a.kind == "page").map(|(s, _)| s.clone());
                    if let Some(next) = next {
                        self.watch_workers_from(cdp, &next);
                    }
                }
            }
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                let info = &ev.params["targetInfo"];
                self.note_target(info);
                let (Some(target), Some(url)) =
                    (info.get("targetId").and_then(Value::as_str), info.get("url").and_then(Value::as_str))
                else {
                    return;
                };
                for attached in lock(&self.sessions).values_mut().filter(|a| a.target_id == target) {
                    attached.url = url.to_owned();
                }
            }
            // A service worker that stopped and is started again by an event (alarm, message,
            // `ServiceWorker.startWorker`) keeps its target and our session: no new
            // `attachedToTarget` arrives, yet the new worker thread honours
            // `waitForDebuggerOnStart` and waits. Chromium 156 reports the stop as
            // `Inspector.targetCrashed` and the restart as `Inspector.targetReloadedAfterCrash`
            // on that session (measured; `Runtime` stays enabled), so resume it there.
            "Inspector.targetCrashed" => {
                if let Some(session) = ev.session_id.as_deref() {
                    self.set_stopped(session, true);
                }
            }
            "Inspector.targetReloadedAfterCrash" => {
                let Some(session) = ev.session_id.as_deref() else { return };
                self.set_stopped(session, false);
                if lock(&self.sessions).contains_key(session) {
                    tracing::debug!(session, "target restarted; resuming it");
                    cdp.send_detached(Some(session), "Runtime.runIfWaitingForDebugger", json!({}));
                }
            }
            "Runtime.consoleAPICalled" | "Runtime.exceptionThrown" => self.on_console(ev),
            "Runtime.executionContextsCleared" => {
                let target = ev.session_id.as_deref().and_then(|s| lock(&self.sessions).get(s).cloned());
                if let Some(a) = target.filter(|a| a.kind == "page") {
                    lock(&self.page_logs).remove(&a.target_id);
                }
            }
            m if m.starts_with("ServiceWorker.")
                && ev.session_id.is_some()
                && ev.session_id == *lock(&self.sw_session) =>
            {
                self.on_service_worker(ev);
            }
            _ => {}
        }
    }

    fn on_service_worker(&self, ev: &CdpEvent) {
        let p = &ev.params;
        match ev.method.as_str() {
            "ServiceWorker.workerRegistrationUpdated" => {
                for r in p["registrations"].as_array().into_iter().flatten() {
                    let (Some(reg), Some(id)) =
                        (r["registrationId"].as_str(), r["scopeURL"].as_str().and_then(extension_of))
                    else {
                        continue;
                    };
                    self.register(reg, id);
                }
            }
            "ServiceWorker.workerVersionUpdated" => {
                for v in p["versions"].as_array().into_iter().flatten() {
                    let Some(id) = v["scriptURL"].as_str().and_then(extension_of) else { continue };
                    if let Some(reg) = v["registrationId"].as_str() {
                        self.register(reg, id);
                    }
                    if v["runningStatus"] == "running" && v["status"] == "activated" {
                        self.log(id).set_background_started();
                    }
                }
            }
            "ServiceWorker.workerErrorReported" => {
                // Errors with a source URL also arrive as `Runtime.exceptionThrown`; the ones
                // without (registration failures, top-level await) arrive only here.
                let e = &p["errorMessage"];
                if !e["sourceURL"].as_str().unwrap_or("").is_empty() {
                    return;
                }
                let reg = e["registrationId"].as_str().unwrap_or("").to_owned();
                let text = e["errorMessage"].as_str().unwrap_or("service worker error").trim_end().to_owned();
                let event = ConsoleEvent {
                    kind: EventKind::Exception,
                    level: Level::Error,
                    text,
                    url: None,
                    line: None,
                    column: None,
                    context: Some("service worker registration".to_owned()),
                };
                let owner = lock(&self.registrations).get(&reg).cloned();
                match owner {
                    Some(id) => self.log(&id).push(event),
                    None => lock(&self.orphan_errors).entry(reg).or_default().push(event),
                }
            }
            _ => {}
        }
    }

    /// Records which extension a registration belongs to and hands it any errors that
    /// arrived before the registration was known.
    fn register(&self, reg: &str, id: &str) {
        lock(&self.registrations).insert(reg.to_owned(), id.to_owned());
        let waiting = lock(&self.orphan_errors).remove(reg);
        for event in waiting.into_iter().flatten() {
            self.log(id).push(event);
        }
    }

    fn on_console(&self, ev: &CdpEvent) {
        let context = ev.session_id.as_deref().and_then(|s| lock(&self.sessions).get(s).cloned());
        let Some(event) = console_event(ev, context.as_ref().map(|c| c.url.as_str())) else { return };
        let owner = context
            .as_ref()
            .and_then(|c| extension_of(&c.url))
            .or_else(|| event.url.as_deref().and_then(extension_of))
            .map(str::to_owned);
        match (owner, context) {
            (Some(id), _) => self.log(&id).push(event),
            (None, Some(page)) if page.kind == "page" => {
                let mut logs = lock(&self.page_logs);
                let log = logs.entry(page.target_id).or_default();
                if log.len() == PAGE_LOG {
                    log.pop_front();
                }
                log.push_back(event);
            }
            _ => {}
        }
    }
}

/// Turns `Runtime.consoleAPICalled` / `Runtime.exceptionThrown` into an event (1-based
/// lines; CDP's are 0-based).
fn console_event(ev: &CdpEvent, context: Option<&str>) -> Option<ConsoleEvent> {
    let p = &ev.params;
    let context = context.filter(|c| !c.is_empty()).map(str::to_owned);
    if ev.method == "Runtime.consoleAPICalled" {
        let text = p["args"].as_array().map(|a| a.iter().map(remote_text).collect::<Vec<_>>().join(" "))?;
        let frame = &p["stackTrace"]["callFrames"][0];
        return Some(ConsoleEvent {
            kind: EventKind::Console,
            level: Level::from_method(p["type"].as_str().unwrap_or("log")),
            text,
            url: frame["url"].as_str().filter(|u| !u.is_empty()).map(str::to_owned),
            line: frame["lineNumber"].as_u64().map(|n| n as u32 + 1),
            column: frame["columnNumber"].as_u64().map(|n| n as u32 + 1),
            context,
        });
    }
    let d = &p["exceptionDetails"];
    let frame = &d["stackTrace"]["callFrames"][0];
    let text = exception_text(d);
    let url =
        d["url"].as_str().or_else(|| frame["url"].as_str()).filter(|u| !u.is_empty()).map(str::to_owned);
    Some(ConsoleEvent {
        kind: EventKind::Exception,
        level: Level::Error,
        text,
        url,
        line: d["lineNumber"].as_u64().map(|n| n as u32 + 1),
        column: d["columnNumber"].as_u64().map(|n| n as u32 + 1),
        context,
    })
}

/// A console argument as text: primitives by value, objects by their description.
fn remote_text(obj: &Value) -> String {
    match obj.get("value") {
        Some(Value::String(s)) => s.clone(),
        Some(v) if !v.is_null() || obj["subtype"] == "null" => v.to_string(),
        _ => obj["unserializableValue"]
            .as_str()
            .or_else(|| obj["description"].as_str())
            .or_else(|| obj["type"].as_str())
            .unwrap_or("")
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_lines_become_one_based_and_attributed() {
        let ev = CdpEvent {
            method: "Runtime.exceptionThrown".into(),
            session_id: Some("S".into()),
            params: json!({"exceptionDetails": {
                "text": "Uncaught", "lineNumber": 1, "columnNumber": 6,
                "url": "chrome-extension://abc/bg.js",
                "exception": {"description": "Error: boom\n    at bg.js:2:7"}
            }}),
        };
        let e = console_event(&ev, Some("chrome-extension://abc/bg.js")).unwrap();
        assert_eq!((e.kind, e.level, e.text.as_str()), (EventKind::Exception, Level::Error, "Error: boom"));
        assert_eq!((e.line, e.column), (Some(2), Some(7)));
        assert_eq!(extension_of(e.url.as_deref().unwrap()), Some("abc"));
    }

    #[test]
    fn exception_details_read_one_way_for_evaluations_and_events() {
        let thrown = json!({"result": {"type": "object"}, "exceptionDetails": {
            "text": "Uncaught", "exception": {"description": "TypeError: x is not a function\n    at <anonymous>:1:1"}}});
        let e = by_value(thrown).unwrap_err();
        assert_eq!(e.to_string(), "the script threw: TypeError: x is not a function");
        let bare = json!({"exceptionDetails": {"text": "Uncaught SyntaxError"}});
        assert!(
            matches!(by_value(bare), Err(RunnerError::Script { message }) if message == "Uncaught SyntaxError")
        );
        assert_eq!(exception_text(&json!({})), "uncaught exception");
        assert_eq!(by_value(json!({"result": {"type": "number", "value": 3}})).unwrap(), json!(3));
        assert_eq!(by_value(json!({"result": {"type": "undefined"}})).unwrap(), Value::Null);
    }

    #[test]
    fn closed_roots_are_found_at_any_depth_but_not_in_frames() {
        let tree = json!({"children": [
            {"shadowRoots": [{"shadowRootType": "open", "backendNodeId": 1,
                              "children": [{"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 2}]}]}]},
            {"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 3}]},
            {"contentDocument": {"children": [{"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 4}]}]}},
        ]});
        let mut out = Vec::new();
        closed_roots(&tree, &mut out);
        assert_eq!(out, [2, 3]);
    }

    #[test]
    fn console_args_join_as_text() {
        let ev = CdpEvent {
            method: "Runtime.consoleAPICalled".into(),
            session_id: None,
            params: json!({"type": "warning", "args": [
                {"type": "string", "value": "a"}, {"type": "number", "value": 1},
                {"type": "object", "subtype": "null", "value": null},
                {"type": "object", "description": "Object"},
                {"type": "number", "unserializableValue": "NaN"}
            ]}),
        };
        let e = console_event(&ev, None).unwrap();
        assert_eq!(e.level, Level::Warn);
        assert_eq!(e.text, "a 1 null Object NaN");
    }

    #[test]
    fn developer_mode_merges_into_existing_preferences() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Default")).unwrap();
        std::fs::write(dir.path().join("Default/Preferences"), r#"{"extensions":{"x":1},"y":2}"#).unwrap();
        enable_developer_mode(dir.path()).unwrap();
        let v: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("Default/Preferences")).unwrap()).unwrap();
        assert_eq!(v["extensions"]["ui"]["developer_mode"], true);
        assert_eq!(v["extensions"]["x"], 1);
        assert_eq!(v["y"], 2);
    }

    #[test]
    fn no_sandbox_only_for_root() {
        let opts = RunnerOptions::default();
        assert!(chromium_args(&opts, Path::new("/p"), true).contains(&"--no-sandbox".to_owned()));
        assert!(!chromium_args(&opts, Path::new("/p"), false).contains(&"--no-sandbox".to_owned()));
    }
}
