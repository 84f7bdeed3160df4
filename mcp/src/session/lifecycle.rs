//! The session process (`webext-mcp __session <spec>`): owns the locks, the browser, the
//! watcher and the control socket, and keeps the contract files current.
//!
//! It reports once on stdout (`{"ok": <ready.json>}` or `{"error": …}`) when it is ready, or
//! in error after a failed first build, or when it could not start; the process that spawned
//! it waits for that line. After that it only writes files.

use crate::browsers::Engine;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::private_dir::{Ours, PrivateDir};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode, NATIVE_HOST_NAME};
use webext_mcp_host::transport::{Platform, Transport};

use super::console::next_console;
use super::contract::{Contract, ErrorEntry, Ready, Status, now_iso};
use super::control::{self, Answer, Incoming, Request};
use super::inspect;
use super::readiness::{self, HelperProbe};
use super::rebuild::{Live, ProjectBuilder, SystemClock};
use super::reload::Roles;
use super::{Command, Spec, contract_dir, socket_path, watch};
use crate::build::{BuildOptions, BuildRequest};
use crate::lock::{Lock, LockError};
use crate::manifest::{self, Target};
use crate::paths::Env;
use crate::runner::{self, BoxFuture, Runner, RunnerError, RunnerOptions};
use waits::{owner_watch, recv, recv_signal, recv_unbounded, signal};

/// Runs a session until it is stopped; the exit code says whether it started.
/// `helper` is how it asks whether its helper answers (the bridge's).
pub async fn run(spec: Spec, helper: Box<dyn HelperProbe>) -> ExitCode {
    let mut session = match Session::open(spec, Box::new(EngineLauncher), helper) {
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
    report(Ok(session.live.ready_value()));
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
    /// `spec.browser` as a build target: looked up once, in [`Session::open`].
    target: Target,
    live: Live,
    socket: PathBuf,
    control: Option<mpsc::Receiver<Incoming>>,
    /// A dev session's saves, watched from before its first build ([`Session::boot`]).
    changes: Option<mpsc::UnboundedReceiver<Vec<PathBuf>>>,
    launcher: Box<dyn Launcher>,
    helper: Box<dyn HelperProbe>,
    // Held for the session's life; released on drop.
    _build_lock: Lock,
    _profile_lock: Lock,
}

/// Starts the browser a session runs, of the engine of its build target (resolved once).
pub(super) trait Launcher: Send + Sync {
    fn launch(
        &self,
        engine: Engine,
        opts: RunnerOptions,
    ) -> BoxFuture<'_, Result<Box<dyn Runner>, RunnerError>>;
}

/// Launches a browser of the given engine with the environment of this process.
pub(super) struct EngineLauncher;

impl Launcher for EngineLauncher {
    fn launch(
        &self,
        engine: Engine,
        opts: RunnerOptions,
    ) -> BoxFuture<'_, Result<Box<dyn Runner>, RunnerError>> {
        Box::pin(async move { runner::launch(engine, opts, &Env::capture(), None).await })
    }
}

fn busy(what: &str, path: &Path, holder: Option<crate::lock::Holder>, hint: &str) -> ErrorBody {
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
    fn open(
        spec: Spec,
        launcher: Box<dyn Launcher>,
        helper: Box<dyn HelperProbe>,
    ) -> Result<Session, ErrorBody> {
        let target = Target::named(&spec.browser)
            .ok_or_else(|| ErrorBody::invalid_argument(format!("unknown browser `{}`", spec.browser)))?;
        if spec.command != Command::Preview && manifest::find_manifest(&spec.project).is_none() {
            return Err(ErrorBody::not_found(format!(
                "no manifest.json in {} or its src/ folder",
                spec.project.display()
            ))
            .with_hint("pass the extension project's root folder (the one with manifest.json)"));
        }
        let build_lock = Lock::acquire(&spec.out_dir, &spec.browser, Some(&spec.session_id)).map_err(|e| {
            lock_error(
                e,
                &format!("the {} build of {}", spec.browser, spec.project.display()),
                "a session or build already runs for this project and browser: extension_stop it (or wait for the build), then start again",
            )
        })?;
        crate::runner::profile::create_private(&spec.profile).map_err(|e| {
            ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!("cannot create the profile {}: {e}", spec.profile.display()),
            )
            .with_hint("pass a writable `profile` folder")
        })?;
        let profile_lock = Lock::acquire(&spec.profile, "profile", Some(&spec.session_id)).map_err(|e| {
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
        let ticket = control::Ticket {
            socket: socket.clone(),
            token,
            pid: std::process::id(),
            session: Some(spec.session_id.clone()),
            project: Some(spec.project.clone()),
            profile: Some(spec.profile.clone()),
        };
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
        let build_root = super::build_root(&spec.out_dir, spec.command);
        let dist = match spec.command {
            Command::Preview => super::preview_dist(&spec.out_dir, &spec.browser),
            _ => build_root.join(&spec.browser),
        };
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
            run_config: spec.run_config.file.is_some().then(|| spec.run_config.clone()),
        };
        let builder = ProjectBuilder {
            req: BuildRequest {
                project: spec.project.clone(),
                targets: vec![target],
                zip: false,
                zip_source: false,
                out_dir: build_root,
                session: Some(spec.session_id.clone()),
                allow_delegation: spec.allow_delegation,
                allow_npx: spec.allow_npx,
                node: spec.node.clone(),
                timeout: Duration::from_millis(webext_mcp_host::protocol::timeouts::BUILD_MS),
                consent: spec.consent.clone(),
                cancel: None,
            },
            opts: BuildOptions { dev: spec.command == Command::Dev, lock_held: true },
        };
        let live =
            Live::new(spec.project.clone(), dist, contract, ready, Box::new(builder), Box::new(SystemClock));
        let session = Session {
            live,
            socket,
            control: Some(control),
            changes: None,
            launcher,
            helper,
            _build_lock: build_lock,
            _profile_lock: profile_lock,
            spec,
            target,
        };
        session.live.write_ready();
        session.live.contract.event(
            "session",
            json!({"status": "starting", "command": session.spec.command.as_str(), "sessionId": session.spec.session_id, "pid": std::process::id()}),
        );
        Ok(session)
    }

    fn fail(&mut self, e: &ErrorBody) {
        self.live.errors.push(ErrorEntry {
            source: "session".into(),
            message: e.message.clone(),
            file: None,
            line: None,
            column: None,
            code: e.code.as_str().into(),
        });
        self.live.ready.set_errors(&self.live.errors);
    }

    /// Builds, launches the browser, loads the extension and the helper, opens the start page.
    async fn boot(&mut self) -> Result<(), ErrorBody> {
        match self.spec.command {
            Command::Dev => {
                // Watched before the build reads the sources: a save made while the session
                // starts is a rebuild once it is ready (not lost in the watcher's first picture).
                let (project, out) = (self.spec.project.clone(), self.spec.out_dir.clone());
                let failed = |e: std::io::Error| json!({"status": "failed", "message": e.to_string()});
                self.changes =
                    watch::watch(project, out).map_err(|e| self.live.contract.event("watch", failed(e))).ok();
                if let Err(errors) = self.live.build().await {
                    self.live.errors = errors;
                }
            }
            Command::Start => self.live.build().await.map_err(|errors| {
                let text: Vec<String> = errors.iter().map(ErrorEntry::line_text).collect();
                ErrorBody::new(
                    ErrorCode::BuildFailed,
                    format!("the production build failed: {}", text.join("; ")),
                )
                .with_hint("fix the build (extension_build shows the findings), then start again")
                .with_data(json!({ "errors": errors }))
            })?,
            Command::Preview => {
                if !self.live.dist.join("manifest.json").is_file() {
                    return Err(ErrorBody::not_found(format!(
                        "no built extension in {} (nor a build of another {} browser in {})",
                        self.live.dist.display(),
                        self.target.engine.name(),
                        self.spec.out_dir.display()
                    ))
                    .with_hint(format!(
                        "build it first: extension_build with browser {b} (CLI: webext-mcp build {p} --browser {b})",
                        b = self.spec.browser,
                        p = self.spec.project.display()
                    )));
                }
                if self.live.dist != self.spec.out_dir.join(&self.spec.browser) {
                    self.live.contract.event(
                        "preview",
                        json!({"status": "substituted", "distPath": self.live.dist, "message": format!("no {} build; running the build of the same engine in {}", self.spec.browser, self.live.dist.display())}),
                    );
                }
                self.live.build_ok = true;
                self.live.roles = Roles::read(&self.live.dist, &BTreeMap::new());
            }
        }
        let helper = self.prepare_helper();
        let host = self.host_manifest();
        let mut opts = RunnerOptions {
            binary: Some(self.spec.binary.clone()),
            headless: self.spec.headless,
            profile_dir: Some(self.spec.profile.clone()),
            runtime_dir: Some(self.spec.runtime_dir.clone()),
            session: Some(self.spec.session_id.clone()),
            extra_args: self.spec.run_config.browser_flags.clone(),
            exclude_args: self.spec.run_config.exclude_browser_flags.clone(),
            preferences: self.spec.run_config.preferences.clone(),
            devtools: true,
            ..RunnerOptions::default()
        };
        // Firefox runs an add-on's content scripts in the open tabs when it installs it, so it
        // opens the starting page itself, which then loads while the browser comes up and the
        // add-on installs (issue 25: about 1.5 s of a cold start). Chromium injects nothing at
        // a load: it navigates once the extension is in.
        let opens_start = self.family() == Engine::Gecko;
        if opens_start {
            opts.start_url = self.spec.starting_url.clone();
        }
        if self.live.build_ok {
            opts.planned_extensions.push(self.live.dist.clone());
        }
        // Firefox starts the helper with the browser (an xpi in the profile: no install
        // round trip, about a second less to ready); it connects at once, so its host
        // manifest is in the browser's private HOME before the start. Firefox reads it only
        // there (LibreWolf in its own folder: every Gecko folder of the catalog gets one).
        let preload = self.family() == Engine::Gecko && host.is_some();
        if let (true, Some(dir), Some(text)) = (preload, &helper, &host) {
            opts.extensions.push(dir.clone());
            for rel in crate::browsers::home_hosts_dirs(Engine::Gecko, crate::browsers::Os::current()) {
                opts.home_files
                    .push((rel.join(format!("{NATIVE_HOST_NAME}.json")), text.clone().into_bytes()));
            }
        }
        let runner = self.launcher.launch(self.target.engine, opts).await.map_err(ErrorBody::from)?;
        if let (false, Some(_), Some(text)) = (preload, &helper, &host) {
            self.register_host(text);
        }
        self.live.ready.browser_pid = Some(runner.pid());
        self.live
            .contract
            .event("browser", json!({"status": "started", "pid": runner.pid(), "binary": self.spec.binary}));
        self.live.runner = Some(runner);
        if self.live.build_ok {
            self.live.load_first().await?;
        }
        let mut helper_loaded = false;
        let preloaded = helper.as_ref().filter(|_| preload).and_then(|dir| {
            let dir = std::fs::canonicalize(dir).ok()?;
            self.live.runner.as_ref()?.extensions().into_iter().find(|e| e.dir == dir)
        });
        if let Some(h) = preloaded {
            helper_loaded = true;
            self.live.contract.event("helper", json!({"status": "loaded", "extensionId": h.id}));
        } else if let (Some(dir), Some(runner)) = (helper, &self.live.runner) {
            match runner.load_extension(&dir).await {
                Ok(h) => {
                    helper_loaded = true;
                    self.live.contract.event("helper", json!({"status": "loaded", "extensionId": h.id}));
                }
                Err(e) => {
                    self.live.contract.event("helper", json!({"status": "failed", "message": e.to_string()}))
                }
            }
        }
        let deadline = std::time::Instant::now() + readiness::USABLE_TIMEOUT;
        if let Some(url) = self.spec.starting_url.clone()
            && let Some(runner) = &self.live.runner
        {
            let first = readiness::first_page(runner.as_ref(), deadline).await;
            if let Some(page) = first {
                if !opens_start {
                    runner.navigate_page(&page.target_id, &url).await.map_err(ErrorBody::from)?;
                }
                readiness::wait_loaded(runner.as_ref(), &page.target_id, &url, &self.live.contract, deadline)
                    .await;
            }
        }
        // Ready means usable: page tools addressed to this session reach it at once.
        if helper_loaded {
            readiness::wait_helper(
                self.helper.as_ref(),
                &self.spec.session_id,
                &self.live.contract,
                deadline,
            )
            .await;
        }
        self.live.drain_console();
        self.live.settle();
        self.live.contract.event("session", json!({"status": self.live.ready.status.as_str()}));
        Ok(())
    }

    /// The engine this session's browser runs.
    fn family(&self) -> Engine {
        self.target.engine
    }

    /// Unpacks the helper next to the contract files, so the browser tools reach this
    /// browser (`browser: <sessionId>`) once the browser knows where the native host is
    /// ([`Session::host_manifest`]).
    fn prepare_helper(&self) -> Option<PathBuf> {
        let family = self.family();
        if !crate::helper::is_embedded(family) {
            self.live.contract.event(
                "helper",
                json!({"status": "missing", "message": "this build embeds no helper extension"}),
            );
            return None;
        }
        let dir = self.live.contract.dir.join("helper");
        if let Err(e) = crate::helper::unpack(family, &dir) {
            self.live.contract.event("helper", json!({"status": "failed", "message": e.to_string()}));
            return None;
        }
        Some(dir)
    }

    /// The native host manifest of this session's engine, pointing at this binary.
    fn host_manifest(&self) -> Option<String> {
        let text = std::env::current_exe()
            .ok()
            .and_then(|exe| crate::install::render_manifest(self.family(), &exe).ok());
        if text.is_none() {
            self.live
                .contract
                .event("helper", json!({"status": "failed", "message": "cannot render the host manifest"}));
        }
        text
    }

    /// Writes the native host manifest into the profile's `NativeMessagingHosts/`, where a
    /// Chromium browser with this profile reads it (at the helper's first connect, so after
    /// the launch is early enough).
    fn register_host(&self, text: &str) {
        let hosts = self.spec.profile.join("NativeMessagingHosts");
        let written = std::fs::create_dir_all(&hosts)
            .and_then(|()| std::fs::write(hosts.join(format!("{NATIVE_HOST_NAME}.json")), text));
        if let Err(e) = written {
            self.live.contract.event("helper", json!({"status": "failed", "message": e.to_string()}));
        }
    }

    /// Serves until asked to stop; returns why it stopped.
    async fn serve(&mut self) -> String {
        let mut control = self.control.take();
        let mut owner_gone = owner_watch(self.spec.owned);
        let mut changes_rx = self.changes.take();
        let mut term = signal(tokio::signal::unix::SignalKind::terminate());
        let mut int = signal(tokio::signal::unix::SignalKind::interrupt());
        let mut hup = signal(tokio::signal::unix::SignalKind::hangup());
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        loop {
            tokio::select! {
                Some(batch) = recv_unbounded(&mut changes_rx) => self.live.on_changes(batch).await,
                Some((req, reply, written)) = recv(&mut control) => {
                    if let Request::Stop = req {
                        let _ = reply.send(Ok(Answer::Stopping(control::Stopping { stopping: true })));
                        // The caller gets its answer before this process goes away.
                        let _ = tokio::time::timeout(Duration::from_secs(2), written).await;
                        return "stopped by request".into();
                    }
                    let answer = self.answer(req).await;
                    let _ = reply.send(answer);
                }
                Some(ev) = next_console(&mut self.live.console) => self.live.on_console(ev, true),
                Some(()) = recv(&mut owner_gone) => return "the process that started the session exited".into(),
                _ = recv_signal(&mut term) => return "terminated".into(),
                _ = recv_signal(&mut int) => return "interrupted".into(),
                _ = recv_signal(&mut hup) => return "hung up".into(),
                _ = tick.tick() => {
                    if self.live.runner.as_ref().is_some_and(|r| !r.is_running()) {
                        self.live.contract.event("browser", json!({"status": "exited"}));
                        return "the browser exited".into();
                    }
                }
            }
        }
    }

    async fn answer(&mut self, req: Request) -> Result<Answer, ErrorBody> {
        if matches!(req, Request::Inspect(_)) {
            // Console output already on its way belongs in the summary.
            let before = self.live.errors.len();
            self.live.drain_console();
            if self.live.errors.len() != before {
                self.live.settle();
            }
        }
        let req = match super::act::answer(&mut self.live, &self.spec, req).await {
            Ok(answer) => return answer,
            Err(req) => req,
        };
        let runner = self
            .live
            .runner
            .as_ref()
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotConnected, "the browser is not running"))?;
        match req {
            Request::Status | Request::Stop => Ok(Answer::Ready(Box::new(self.live.ready.clone()))),
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
                    .map(Answer::Value)
                    .map_err(ErrorBody::from)
            }
            Request::Inspect(req) => {
                let inputs = inspect::Inputs {
                    runner: runner.as_ref(),
                    ext: self.live.ext.as_ref(),
                    dist: &self.live.dist,
                    recent: &self.live.recent,
                    loaded_at_ms: self.live.loaded_at_ms,
                    session_id: &self.spec.session_id,
                };
                inspect::inspect(inputs, req).await.map(Answer::Inspection)
            }
            _ => Err(ErrorBody::internal("answered by session::act")),
        }
    }

    /// Stops the browser and watcher, writes the final state, frees the socket (the locks
    /// go with `self`).
    async fn finish(mut self, reason: &str) {
        if let Some(runner) = self.live.runner.take() {
            runner.shutdown().await;
            self.live.contract.event("browser", json!({"status": "exited", "reason": "session stopped"}));
        }
        self.live.ready.status = Status::Stopped;
        self.live.ready.set_errors(&self.live.errors);
        self.live.write_ready();
        self.live.contract.event("session", json!({"status": "stopped", "reason": reason}));
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

mod waits;

#[cfg(test)]
mod tests;
