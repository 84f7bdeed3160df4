//! The session process (`webext-mcp __session <spec>`): owns the locks, the browser, the
//! watcher and the control socket, and keeps the contract files current.
//!
//! It reports once on stdout (`{"ok": <ready.json>}` or `{"error": …}`) when it is ready, or
//! in error after a failed first build, or when it could not start; the process that spawned
//! it waits for that line. After that it only writes files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode, NATIVE_HOST_NAME};

use super::contract::{Contract, ErrorEntry, Ready, Status, now_iso};
use super::control::{self, Incoming, Request};
use super::inspect;
use super::reload::{self, Kind, Roles};
use super::{Command, Spec, contract_dir, socket_path, watch};
use crate::build::dev::{self, DevChange};
use crate::build::lock::{BuildLock, LockError};
use crate::build::{self, BuildError, BuildOptions, BuildRequest};
use crate::manifest::{self, Target};
use crate::paths::Env;
use crate::runner::{
    self, ConsoleEvent, EventKind, ExtensionHandle, Family, LogStream, Runner, RunnerOptions,
};
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::private_dir::{Ours, PrivateDir};
use webext_mcp_host::transport::{Platform, Transport};

/// How long the extension's worker may take to answer after a (re)load.
const WORKER_TIMEOUT: Duration = Duration::from_secs(15);

/// Runs a session until it is stopped; the exit code says whether it started.
pub async fn run(spec: Spec) -> ExitCode {
    let mut session = match Session::open(spec) {
        Ok(s) => s,
        Err(e) => {
            report(Err(e));
            return ExitCode::from(1);
        }
    };
    if let Err(e) = session.boot().await {
        session.fail(&e);
        // Report only once the browser is gone and the locks are free, so a caller that
        // gets the error can start again at once.
        session.finish("failed to start").await;
        report(Err(e));
        return ExitCode::from(1);
    }
    report(Ok(session.ready_value()));
    let reason = session.serve().await;
    session.finish(&reason).await;
    ExitCode::SUCCESS
}

/// The one line the spawning process reads.
fn report(outcome: Result<Value, ErrorBody>) {
    let line = match outcome {
        Ok(v) => json!({ "ok": v }),
        Err(e) => json!({ "error": e }),
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

struct Session {
    spec: Spec,
    target: Target,
    contract: Contract,
    ready: Ready,
    dist: PathBuf,
    socket: PathBuf,
    control: Option<mpsc::Receiver<Incoming>>,
    runner: Option<Box<dyn Runner>>,
    ext: Option<ExtensionHandle>,
    console: Option<LogStream>,
    errors: Vec<ErrorEntry>,
    build_ok: bool,
    roles: Roles,
    sources: BTreeMap<String, PathBuf>,
    reload_entries: Vec<usize>,
    dev_changes: Vec<DevChange>,
    /// The extension's latest console events, for `extension_source_inspect`.
    recent: std::collections::VecDeque<inspect::Logged>,
    /// When the extension was last (re)loaded (ms since the epoch).
    loaded_at_ms: u64,
    // Held for the session's life; released on drop.
    _build_lock: BuildLock,
    _profile_lock: BuildLock,
}

fn busy(what: &str, path: &Path, holder: Option<crate::build::lock::Holder>, hint: &str) -> ErrorBody {
    let who = holder.as_ref().map_or_else(|| "another process".to_owned(), |h| h.to_string());
    ErrorBody::new(ErrorCode::Busy, format!("{what} is in use by {who}"))
        .with_hint(hint.to_owned())
        .with_data(json!({ "lock": path, "holder": holder }))
}

fn lock_error(e: LockError, what: &str, hint: &str) -> ErrorBody {
    match e {
        LockError::Busy { path, holder } => busy(what, &path, holder, hint),
        LockError::Io { path, source } => ErrorBody::new(
            ErrorCode::PermissionDenied,
            format!("cannot take the lock {}: {source}", path.display()),
        )
        .with_hint("check that the folder is writable"),
    }
}

impl Session {
    /// Takes the locks and the control socket, and starts the contract files. Nothing of
    /// another session is touched before the locks are ours.
    fn open(spec: Spec) -> Result<Session, ErrorBody> {
        let target = Target::named(&spec.browser)
            .ok_or_else(|| ErrorBody::invalid_argument(format!("unknown browser `{}`", spec.browser)))?;
        if spec.command != Command::Preview && manifest::find_manifest(&spec.project).is_none() {
            return Err(ErrorBody::not_found(format!(
                "no manifest.json in {} or its src/ folder",
                spec.project.display()
            ))
            .with_hint("pass the extension project's root folder (the one with manifest.json)"));
        }
        let build_lock = BuildLock::acquire(&spec.out_dir, &spec.browser, Some(&spec.session_id)).map_err(|e| {
            lock_error(
                e,
                &format!("the {} build of {}", spec.browser, spec.project.display()),
                "a session or build already runs for this project and browser: extension_stop it (or wait for the build), then start again",
            )
        })?;
        std::fs::create_dir_all(&spec.profile).map_err(|e| {
            ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!("cannot create the profile {}: {e}", spec.profile.display()),
            )
            .with_hint("pass a writable `profile` folder")
        })?;
        let profile_lock =
            BuildLock::acquire(&spec.profile, "profile", Some(&spec.session_id)).map_err(|e| {
                lock_error(
                    e,
                    &format!("the profile {}", spec.profile.display()),
                    "another session uses this profile: stop it, or pass another `profile`",
                )
            })?;
        let runtime = webext_mcp_host::runtime::ensure_private_dir(&spec.runtime_dir).map_err(|e| {
            ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!("runtime dir {}: {e}", spec.runtime_dir.display()),
            )
            .with_hint("set WEBEXT_MCP_RUNTIME_DIR to a private folder")
        })?;
        let socket = socket_path(&spec.runtime_dir, &spec.project, &spec.browser);
        if let Some(parent) = socket.parent() {
            let _ = webext_mcp_host::runtime::ensure_private_dir(parent);
        }
        let token = Token::generate()
            .map_err(|e| ErrorBody::internal(format!("cannot make a session token: {e}")))?;
        let control = control::serve(&socket, token.clone()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                ErrorBody::new(
                    ErrorCode::Busy,
                    format!("a session of this project already listens on {}", socket.display()),
                )
                .with_hint("extension_stop it first")
            } else {
                ErrorBody::internal(format!("cannot bind the control socket {}: {e}", socket.display()))
            }
        })?;
        let tag = super::tag(&spec.project, &spec.browser);
        let ticket = control::Ticket { socket: socket.clone(), token, pid: std::process::id() };
        control::publish(&runtime, &tag, &ticket).map_err(|e| {
            Platform::remove(&socket);
            ErrorBody::internal(format!(
                "cannot write the session ticket in {}: {e}",
                spec.runtime_dir.display()
            ))
        })?;
        let contract = Contract { dir: contract_dir(&spec.out_dir, &spec.browser) };
        std::fs::create_dir_all(&contract.dir)
            .map_err(|e| ErrorBody::internal(format!("cannot create {}: {e}", contract.dir.display())))?;
        contract.reset_streams();
        let dist = spec.out_dir.join(&spec.browser);
        let ready = Ready {
            schema_version: super::contract::SCHEMA_VERSION,
            schema: super::contract::SCHEMA.into(),
            status: Status::Starting,
            command: spec.command.as_str().into(),
            browser: spec.browser.clone(),
            run_id: spec.session_id.clone(),
            pid: std::process::id(),
            browser_pid: None,
            port: None,
            manifest_path: dist.join("manifest.json"),
            dist_path: dist.clone(),
            started_at: now_iso(),
            compiled_at: None,
            errors: Vec::new(),
            error_details: Vec::new(),
            extension_id: None,
            profile_path: spec.profile.clone(),
            session_id: spec.session_id.clone(),
            project_path: spec.project.clone(),
            control_socket: socket.clone(),
        };
        let session = Session {
            target,
            contract,
            ready,
            dist,
            socket,
            control: Some(control),
            runner: None,
            ext: None,
            console: None,
            errors: Vec::new(),
            build_ok: false,
            roles: Roles::default(),
            sources: BTreeMap::new(),
            reload_entries: Vec::new(),
            dev_changes: Vec::new(),
            recent: std::collections::VecDeque::new(),
            loaded_at_ms: 0,
            _build_lock: build_lock,
            _profile_lock: profile_lock,
            spec,
        };
        session.write_ready();
        session.contract.event(
            "session",
            json!({"status": "starting", "command": session.spec.command.as_str(), "sessionId": session.spec.session_id, "pid": std::process::id()}),
        );
        Ok(session)
    }

    fn ready_value(&self) -> Value {
        serde_json::to_value(&self.ready).unwrap_or(Value::Null)
    }

    fn write_ready(&self) {
        if let Err(e) = self.contract.write_ready(&self.ready) {
            tracing::warn!(error = %e, "cannot write ready.json");
        }
    }

    /// Sets the status from the current errors and writes `ready.json`.
    fn settle(&mut self) {
        self.ready.status = if self.errors.is_empty() { Status::Ready } else { Status::Error };
        self.ready.set_errors(&self.errors);
        self.write_ready();
    }

    fn fail(&mut self, e: &ErrorBody) {
        self.errors.push(ErrorEntry {
            source: "session".into(),
            message: e.message.clone(),
            file: None,
            line: None,
            column: None,
            code: e.code.as_str().into(),
        });
        self.ready.set_errors(&self.errors);
    }

    /// Builds, launches the browser, loads the extension and the helper, opens the start page.
    async fn boot(&mut self) -> Result<(), ErrorBody> {
        match self.spec.command {
            Command::Dev => {
                if let Err(errors) = self.build().await {
                    self.errors = errors;
                }
            }
            Command::Start => self.build().await.map_err(|errors| {
                let text: Vec<String> = errors.iter().map(ErrorEntry::line_text).collect();
                ErrorBody::new(
                    ErrorCode::BuildFailed,
                    format!("the production build failed: {}", text.join("; ")),
                )
                .with_hint("fix the build (extension_build shows the findings), then start again")
                .with_data(json!({ "errors": errors }))
            })?,
            Command::Preview => {
                if !self.dist.join("manifest.json").is_file() {
                    return Err(ErrorBody::not_found(format!(
                        "no built extension in {}",
                        self.dist.display()
                    ))
                    .with_hint(format!(
                        "build it first: extension_build with browser {}",
                        self.spec.browser
                    )));
                }
                self.build_ok = true;
                self.roles = Roles::read(&self.dist, &BTreeMap::new());
            }
        }
        let helper = self.prepare_helper();
        let opts = RunnerOptions {
            binary: Some(self.spec.binary.clone()),
            headless: self.spec.headless,
            profile_dir: Some(self.spec.profile.clone()),
            runtime_dir: Some(self.spec.runtime_dir.clone()),
            session: Some(self.spec.session_id.clone()),
            ..RunnerOptions::default()
        };
        let runner =
            runner::launch(Family::Chromium, opts, &Env::capture(), None).await.map_err(ErrorBody::from)?;
        self.ready.browser_pid = Some(runner.pid());
        self.contract
            .event("browser", json!({"status": "started", "pid": runner.pid(), "binary": self.spec.binary}));
        self.runner = Some(runner);
        if self.build_ok {
            self.load_first().await?;
        }
        if let (Some(dir), Some(runner)) = (helper, &self.runner) {
            match runner.load_extension(&dir).await {
                Ok(h) => self.contract.event("helper", json!({"status": "loaded", "extensionId": h.id})),
                Err(e) => {
                    self.contract.event("helper", json!({"status": "failed", "message": e.to_string()}))
                }
            }
        }
        if let Some(url) = self.spec.starting_url.clone()
            && let Some(runner) = &self.runner
        {
            let first = runner.pages().await.ok().and_then(|p| p.into_iter().next());
            if let Some(page) = first {
                runner.navigate_page(&page.target_id, &url).await.map_err(ErrorBody::from)?;
            }
        }
        self.drain_console();
        self.settle();
        self.contract.event("session", json!({"status": self.ready.status.as_str()}));
        Ok(())
    }

    /// Loads the built extension for the first time. A refusal stops the session.
    async fn load_first(&mut self) -> Result<(), ErrorBody> {
        let Some(runner) = &self.runner else { return Ok(()) };
        self.loaded_at_ms = inspect::now_ms();
        let ext = runner.load_extension(&self.dist).await.map_err(ErrorBody::from)?;
        self.ready.extension_id = Some(ext.id.clone());
        self.console = Some(ext.subscribe());
        self.contract.event("load", json!({"extensionId": ext.id, "path": self.dist}));
        if ext.has_background
            && let Err(e) = ext.wait_background(WORKER_TIMEOUT).await
        {
            self.errors.push(runtime_error(e.to_string(), None, None, None));
        }
        self.ext = Some(ext);
        Ok(())
    }

    /// Unpacks the helper next to the contract files and registers the native host in the
    /// session's profile, so the browser tools reach this browser (`browser: <sessionId>`).
    fn prepare_helper(&self) -> Option<PathBuf> {
        if !crate::helper::is_embedded(Family::Chromium) {
            self.contract.event(
                "helper",
                json!({"status": "missing", "message": "this build embeds no helper extension"}),
            );
            return None;
        }
        let dir = self.contract.dir.join("helper");
        if let Err(e) = crate::helper::unpack(Family::Chromium, &dir) {
            self.contract.event("helper", json!({"status": "failed", "message": e.to_string()}));
            return None;
        }
        let host = std::env::current_exe()
            .ok()
            .and_then(|exe| crate::install::render_manifest(Family::Chromium, &exe).ok());
        let hosts = self.spec.profile.join("NativeMessagingHosts");
        let written = host.ok_or_else(|| "cannot render the host manifest".to_owned()).and_then(|text| {
            std::fs::create_dir_all(&hosts)
                .and_then(|()| std::fs::write(hosts.join(format!("{NATIVE_HOST_NAME}.json")), text))
                .map_err(|e| e.to_string())
        });
        if let Err(e) = written {
            self.contract.event("helper", json!({"status": "failed", "message": e}));
        }
        Some(dir)
    }

    /// Runs a build of the project into `dist/<browser>/` under the held lock.
    async fn build(&mut self) -> Result<(), Vec<ErrorEntry>> {
        let started = Instant::now();
        let req = BuildRequest {
            project: self.spec.project.clone(),
            targets: vec![self.target],
            zip: false,
            zip_source: false,
            out_dir: self.spec.out_dir.clone(),
            session: Some(self.spec.session_id.clone()),
            allow_delegation: self.spec.allow_delegation,
            node: self.spec.node.clone(),
            timeout: Duration::from_secs(600),
            cancel: None,
        };
        let opts = BuildOptions { dev: self.spec.command == Command::Dev, lock_held: true };
        let outcome = tokio::task::spawn_blocking(move || {
            build::build_with(
                &req,
                opts,
                &mut |line: &str| tracing::info!(target: "webext_mcp::build", "{line}"),
            )
        })
        .await;
        let built = match outcome {
            Ok(Ok(mut b)) if !b.is_empty() => b.remove(0),
            Ok(Ok(_)) => return Err(vec![build_entry("the build produced nothing".into(), None, None)]),
            Ok(Err(e)) => {
                self.build_ok = false;
                let entries = build_errors(e);
                self.contract.event("compile", json!({"status": "error", "errors": entries}));
                return Err(entries);
            }
            Err(e) => return Err(vec![build_entry(format!("the build thread stopped: {e}"), None, None)]),
        };
        self.build_ok = true;
        self.ready.compiled_at = Some(now_iso());
        self.contract.event(
            "compile",
            json!({"status": "success", "durationMs": started.elapsed().as_millis() as u64, "pipeline": built.pipeline, "files": built.files.len()}),
        );
        if built.dev_changes != self.dev_changes {
            self.contract.event("dev-build", json!({"added": built.dev_changes}));
            self.dev_changes = built.dev_changes.clone();
        }
        self.reload_entries = dev::unwrapped_entries(&built.dev_changes);
        self.roles = Roles::read(&self.dist, &built.sources);
        self.sources = built.sources;
        Ok(())
    }

    /// Serves until asked to stop; returns why it stopped.
    async fn serve(&mut self) -> String {
        let mut control = self.control.take();
        let changes = if self.spec.command == Command::Dev {
            match watch::watch(self.spec.project.clone(), self.spec.out_dir.clone()) {
                Ok(rx) => Some(rx),
                Err(e) => {
                    self.contract.event("watch", json!({"status": "failed", "message": e.to_string()}));
                    None
                }
            }
        } else {
            None
        };
        let mut owner_gone = owner_watch(self.spec.owned);
        let mut changes_rx = changes;
        let mut term = signal(tokio::signal::unix::SignalKind::terminate());
        let mut int = signal(tokio::signal::unix::SignalKind::interrupt());
        let mut hup = signal(tokio::signal::unix::SignalKind::hangup());
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        loop {
            tokio::select! {
                Some(batch) = recv_unbounded(&mut changes_rx) => self.on_changes(batch).await,
                Some((req, reply)) = recv(&mut control) => {
                    if let Request::Stop = req {
                        let _ = reply.send(Ok(json!({"stopping": true})));
                        return "stopped by request".into();
                    }
                    let answer = self.answer(req).await;
                    let _ = reply.send(answer);
                }
                Some(ev) = next_console(&mut self.console) => self.on_console(ev, true),
                Some(()) = recv(&mut owner_gone) => return "the process that started the session exited".into(),
                _ = recv_signal(&mut term) => return "terminated".into(),
                _ = recv_signal(&mut int) => return "interrupted".into(),
                _ = recv_signal(&mut hup) => return "hung up".into(),
                _ = tick.tick() => {
                    if self.runner.as_ref().is_some_and(|r| !r.is_running()) {
                        self.contract.event("browser", json!({"status": "exited"}));
                        return "the browser exited".into();
                    }
                }
            }
        }
    }

    async fn answer(&mut self, req: Request) -> Result<Value, ErrorBody> {
        if matches!(req, Request::Inspect(_)) {
            // Console output already on its way belongs in the summary.
            let before = self.errors.len();
            self.drain_console();
            if self.errors.len() != before {
                self.settle();
            }
        }
        let runner = self
            .runner
            .as_ref()
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotConnected, "the browser is not running"))?;
        match req {
            Request::Status | Request::Stop => Ok(self.ready_value()),
            Request::Pages => {
                let pages = runner.pages().await.map_err(ErrorBody::from)?;
                serde_json::to_value(pages).map_err(|e| ErrorBody::internal(e.to_string()))
            }
            Request::Evaluate { expression, url } => {
                let pages = runner.pages().await.map_err(ErrorBody::from)?;
                let page = pages
                    .iter()
                    .find(|p| match &url {
                        Some(u) => p.url.contains(u.as_str()),
                        None => p.url.starts_with("http://") || p.url.starts_with("https://"),
                    })
                    .ok_or_else(|| {
                        ErrorBody::not_found("no open tab matches").with_data(json!({ "pages": pages }))
                    })?;
                runner
                    .evaluate_in_page(&page.target_id, &expression, Duration::from_secs(10))
                    .await
                    .map_err(ErrorBody::from)
            }
            Request::Inspect(req) => {
                let inputs = inspect::Inputs {
                    runner: runner.as_ref(),
                    ext: self.ext.as_ref(),
                    dist: &self.dist,
                    recent: &self.recent,
                    loaded_at_ms: self.loaded_at_ms,
                    session_id: &self.spec.session_id,
                };
                inspect::inspect(inputs, req).await
            }
        }
    }

    /// A change on disk: rebuild, then reload what it needs.
    async fn on_changes(&mut self, batch: Vec<PathBuf>) {
        let manifest_path = manifest::find_manifest(&self.spec.project);
        let Some(kind) = self.roles.classify(&batch, manifest_path.as_deref(), self.build_ok) else { return };
        let started = Instant::now();
        let files: Vec<String> = batch
            .iter()
            .map(|p| p.strip_prefix(&self.spec.project).unwrap_or(p).to_string_lossy().into_owned())
            .collect();
        self.contract.event("compile", json!({"status": "start", "files": files}));
        // Whatever the old code reported before this change is no longer the state.
        self.drain_console_silently();
        self.errors.clear();
        if let Err(errors) = self.build().await {
            self.errors = errors;
            self.settle();
            return;
        }
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "rebuilt");
        if self.ext.is_none() {
            if let Err(e) = self.load_first().await {
                self.errors.push(load_entry(&e));
            }
            self.reinject(kind, &files, started).await;
        } else if kind == Kind::Page {
            self.reload_pages(&files, started).await;
        } else {
            self.loaded_at_ms = inspect::now_ms();
            let loaded = match &self.runner {
                Some(r) => Some(r.load_extension(&self.dist).await),
                None => None,
            };
            tracing::debug!(ms = started.elapsed().as_millis() as u64, "extension reloaded");
            match loaded {
                Some(Ok(_)) => self.reinject(kind, &files, started).await,
                Some(Err(e)) => {
                    let body = ErrorBody::from(e);
                    self.contract.event(
                        "reload",
                        json!({"kind": kind.as_str(), "files": files, "status": "refused", "message": body.message}),
                    );
                    self.errors.push(load_entry(&body));
                }
                None => {}
            }
        }
        self.drain_console();
        self.settle();
    }

    /// Re-injects content scripts into open tabs, as the extension, and records the reload.
    async fn reinject(&mut self, kind: Kind, files: &[String], started: Instant) {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return };
        let script = reload::reinject_script(&self.reload_entries);
        let tabs = match runner.evaluate_in_background(ext, &script, WORKER_TIMEOUT).await {
            Ok(v) => v,
            Err(e) => {
                self.errors.push(runtime_error(
                    format!("re-injecting content scripts failed: {e}"),
                    None,
                    None,
                    None,
                ));
                Value::Null
            }
        };
        self.contract.event(
            "reload",
            json!({"kind": kind.as_str(), "files": files, "tabs": tabs, "durationMs": started.elapsed().as_millis() as u64}),
        );
    }

    /// Reloads the open pages of the extension (popup, options, … opened as tabs).
    async fn reload_pages(&mut self, files: &[String], started: Instant) {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return };
        let pages = runner.pages().await.unwrap_or_default();
        let mut reloaded = Vec::new();
        for p in pages.iter().filter(|p| p.url.starts_with(&ext.base_url)) {
            if runner.reload_page(&p.target_id).await.is_ok() {
                reloaded.push(p.url.clone());
            }
        }
        self.contract.event(
            "reload",
            json!({"kind": "page", "files": files, "pages": reloaded, "durationMs": started.elapsed().as_millis() as u64}),
        );
    }

    /// Records console output already received (exceptions count as errors).
    fn drain_console(&mut self) {
        while let Some(ev) = self.console.as_mut().and_then(try_next) {
            self.on_console(ev, false);
        }
    }

    /// Logs console output already received without counting it (it predates a rebuild).
    fn drain_console_silently(&mut self) {
        while let Some(ev) = self.console.as_mut().and_then(try_next) {
            self.log_console(&ev);
        }
    }

    fn log_console(&mut self, ev: &ConsoleEvent) {
        inspect::remember(&mut self.recent, ev);
        self.contract.log(
            match ev.kind {
                EventKind::Console => "console",
                EventKind::Exception => "exception",
            },
            json!({"level": ev.level, "text": ev.text, "url": ev.url, "line": ev.line, "column": ev.column, "context": ev.context}),
        );
    }

    fn on_console(&mut self, ev: ConsoleEvent, write: bool) {
        self.log_console(&ev);
        if ev.kind != EventKind::Exception || reload::expected_after_reload(&ev.text) {
            return;
        }
        let file = ev.url.as_deref().map(|u| self.source_of(u));
        let entry = runtime_error(ev.text.clone(), file, ev.line, ev.column);
        self.contract.event("error", json!({"error": entry}));
        if !self.errors.contains(&entry) {
            self.errors.push(entry);
        }
        if write {
            self.settle();
        }
    }

    /// The project file behind an extension URL (`chrome-extension://<id>/content.js`).
    fn source_of(&self, url: &str) -> String {
        let rel = self
            .ext
            .as_ref()
            .and_then(|e| url.strip_prefix(e.base_url.as_str()))
            .map(|r| r.split(['?', '#']).next().unwrap_or(r).to_owned());
        let Some(rel) = rel else { return url.to_owned() };
        match self.sources.get(&rel) {
            Some(src) => src.strip_prefix(&self.spec.project).unwrap_or(src).to_string_lossy().into_owned(),
            None => rel,
        }
    }

    /// Stops the browser and watcher, writes the final state, frees the socket (the locks
    /// go with `self`).
    async fn finish(mut self, reason: &str) {
        if let Some(runner) = self.runner.take() {
            runner.shutdown().await;
            self.contract.event("browser", json!({"status": "exited", "reason": "session stopped"}));
        }
        self.ready.status = Status::Stopped;
        self.ready.set_errors(&self.errors);
        self.write_ready();
        self.contract.event("session", json!({"status": "stopped", "reason": reason}));
        if let Ok(dir) = PrivateDir::open(&self.spec.runtime_dir) {
            dir.remove(
                &control::ticket_name(&super::tag(&self.spec.project, &self.spec.browser)),
                Ours::File,
            );
        }
        Platform::remove(&self.socket);
        tracing::info!(reason, "session stopped");
    }
}

fn runtime_error(
    message: String,
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
) -> ErrorEntry {
    ErrorEntry {
        source: "runtime".into(),
        message,
        file,
        line,
        column,
        code: ErrorCode::ScriptError.as_str().into(),
    }
}

fn build_entry(message: String, file: Option<String>, line: Option<u32>) -> ErrorEntry {
    ErrorEntry {
        source: "build".into(),
        message,
        file,
        line,
        column: None,
        code: ErrorCode::BuildFailed.as_str().into(),
    }
}

fn load_entry(e: &ErrorBody) -> ErrorEntry {
    ErrorEntry {
        source: "load".into(),
        message: e.message.clone(),
        file: Some("manifest.json".into()),
        line: None,
        column: None,
        code: e.code.as_str().into(),
    }
}

/// One entry per blocking finding (with its file and line), else the build's message.
fn build_errors(e: BuildError) -> Vec<ErrorEntry> {
    if let BuildError::Failed { findings, .. } = &e {
        let blocking: Vec<ErrorEntry> = findings
            .iter()
            .filter(|f| f.is_error())
            .map(|f| ErrorEntry {
                source: "build".into(),
                message: f.line_text(),
                file: f.file.clone(),
                line: f.line.and_then(|l| u32::try_from(l).ok()),
                column: f.column.and_then(|c| u32::try_from(c).ok()),
                code: ErrorCode::BuildFailed.as_str().into(),
            })
            .collect();
        if !blocking.is_empty() {
            return blocking;
        }
    }
    let body = ErrorBody::from(e);
    vec![ErrorEntry {
        source: "build".into(),
        message: body.message,
        file: None,
        line: None,
        column: None,
        code: body.code.as_str().into(),
    }]
}

async fn recv<T>(rx: &mut Option<mpsc::Receiver<T>>) -> Option<T>
where
    T: Send,
{
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn recv_unbounded<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn next_console(stream: &mut Option<LogStream>) -> Option<ConsoleEvent> {
    match stream {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

/// The next event if one is already there.
fn try_next(stream: &mut LogStream) -> Option<ConsoleEvent> {
    use std::future::Future;
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let fut = stream.next();
    let mut fut = std::pin::pin!(fut);
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(ev) => ev,
        std::task::Poll::Pending => None,
    }
}

fn signal(kind: tokio::signal::unix::SignalKind) -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind).ok()
}

async fn recv_signal(sig: &mut Option<tokio::signal::unix::Signal>) {
    match sig {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// Fires when stdin reaches end of file (the owner exited), for owned sessions.
fn owner_watch(owned: bool) -> Option<mpsc::Receiver<()>> {
    if !owned {
        return None;
    }
    let (tx, rx) = mpsc::channel(1);
    {
        let spawned = std::thread::Builder::new().name("session-owner".into()).spawn(move || {
            let mut buf = [0u8; 256];
            let mut stdin = std::io::stdin().lock();
            loop {
                match std::io::Read::read(&mut stdin, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            let _ = tx.blocking_send(());
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot watch the owner; the session will run until stopped");
            return None;
        }
    }
    Some(rx)
}
