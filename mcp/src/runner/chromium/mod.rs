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
//!
//! Here: the runner (launch, load, evaluate, tabs); [`monitor`]: the CDP event state machine
//! that watches targets and consoles; [`args`]: the browser's flags and the profile
//! preferences set before launch.

use crate::browsers::Engine;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::cdp::{self, CdpClient, CdpError};
use super::log::{ConsoleEvent, ExtensionHandle};
use super::process::{
    self, BrowserProcess, ChildPipes, Tail, browser_env, is_root, remove_temp, wait_exit_status,
};
use super::{BoxFuture, PageInfo, Runner, RunnerError, RunnerOptions, answer, read_manifest};
use args::{chromium_args, enable_developer_mode};
use monitor::{Monitor, lock};

mod args;
mod monitor;
mod tabs;
mod worlds;

const SCHEME: &str = "chrome-extension://";

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
            // Private: the browser writes cookies and logins there under the user's umask.
            super::profile::create_private(dir)
                .map_err(RunnerError::io(format!("cannot create {}", dir.display())))?;
        }
        enable_developer_mode(&profile)?;
        super::write_home_files(&home, &opts.home_files)?;

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
                // Chromium copies page console messages to stderr (`…:CONSOLE(12)] "text"`):
                // page content, which logs never carry (the console tools read them over CDP).
                if line.contains(":CONSOLE") {
                    tracing::debug!(target: "webext_mcp::browser::chromium", bytes = line.len(), "page console line");
                } else {
                    tracing::debug!(target: "webext_mcp::browser::chromium", "{line}");
                }
                process::push_tail(&tail, line);
            })
        });
        let cdp = CdpClient::start(File::from(we_read), File::from(we_write))
            .map_err(RunnerError::io("cannot start the CDP threads"))?;
        let monitor = Arc::new(Monitor::new(opts.observe_workers));
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
                family: Engine::Chromium,
                timeout,
                stderr: process::read_tail(tail),
            }),
            Err(_) => {
                let status = wait_exit_status(&self.process).await;
                process::drain(stderr_reader).await;
                Err(RunnerError::Exited {
                    family: Engine::Chromium,
                    status,
                    stderr: process::read_tail(tail),
                })
            }
        }
    }

    /// The CDP connection, for tests sending commands of their own. Everything else reaches
    /// the browser through the [`Runner`] methods, so CDP stays inside this module.
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
        reply["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .map(|t| {
                Ok(PageInfo {
                    target_id: answer::owned(t, "targetId", "Target.getTargets target")?,
                    url: answer::owned(t, "url", "Target.getTargets target")?,
                })
            })
            .collect()
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
        reply["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "service_worker")
            .filter_map(|t| {
                let url = t["url"].as_str().filter(|u| u.starts_with(url_prefix))?;
                let target_id = answer::owned(t, "targetId", "Target.getTargets target");
                Some(target_id.map(|target_id| PageInfo { target_id, url: url.to_owned() }))
            })
            .collect()
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

impl Runner for ChromiumRunner {
    fn family(&self) -> Engine {
        Engine::Chromium
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
            let _ = self
                .cdp
                .send_to(
                    None,
                    "Browser.close",
                    json!({}),
                    Duration::from_millis(webext_mcp_host::protocol::timeouts::BROWSER_CLOSE_MS),
                )
                .await;
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
    fn call_isolated<'a>(
        &'a self,
        target_id: &'a str,
        function: &'a str,
        arg: &'a Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        Box::pin(self.call_isolated_world(target_id, function, arg, timeout))
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
    fn page_console<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Vec<ConsoleEvent>> {
        let events: Vec<ConsoleEvent> = lock(&self.monitor.page_logs)
            .get(target_id)
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default();
        Box::pin(async move { events })
    }
}

impl Drop for ChromiumRunner {
    fn drop(&mut self) {
        self.process.kill_now();
        remove_temp(&self.temp);
    }
}

fn declares_service_worker(dir: &Path) -> Result<bool, RunnerError> {
    let manifest = read_manifest(dir)?;
    let bg = &manifest["background"];
    Ok(bg.get("service_worker").is_some() || bg.get("page").is_some() || bg.get("scripts").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
