//! What a session does when its sources change: rebuild, then reload the extension and
//! re-inject its content scripts, or reload only its open pages; and the state that this
//! keeps current (`ready.json`, the errors, the roles of the built files).
//!
//! ```text
//! changed files ─▶ Roles::classify ─▶ Builder::build ─▶ dist/<browser>/
//!                        │ None: nothing used changed      │
//!                        ▼                                 ▼
//!                    (ignored)       Kind::Page ─▶ Runner::reload_page (extension pages)
//!                                    otherwise  ─▶ Runner::load_extension ─▶ re-inject script
//! ```
//!
//! The builder, the browser and the clock are collaborators ([`Builder`], `dyn Runner`,
//! [`Clock`]), so the decisions are tested here without a browser or a real build.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::contract::{Contract, ErrorEntry, Ready, Status, runtime_error};
use super::inspect;
use super::reload::{self, Kind, Phase, Roles};
use crate::build::dev::{self, DevChange};
use crate::build::{self, BrowserBuild, BuildError, BuildOptions, BuildRequest};
use crate::manifest;
use crate::runner::{BoxFuture, ExtensionHandle, LogStream, Runner};

/// How long the extension's worker may take to answer after a (re)load.
pub(super) const WORKER_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::EXTENSION_WORKER_MS);

/// Why a build produced no extension.
#[derive(Debug)]
pub(super) enum BuildFailure {
    /// The build ran and failed (its findings say where).
    Build(BuildError),
    /// The build did not run to its end (nothing produced, the thread stopped).
    Other(String),
}

/// Builds the project into `dist/<browser>/`.
pub(super) trait Builder: Send + Sync {
    fn build(&self) -> BoxFuture<'_, Result<BrowserBuild, BuildFailure>>;
}

/// The real build, run on a blocking thread under the lock the session holds.
pub(super) struct ProjectBuilder {
    pub req: BuildRequest,
    pub opts: BuildOptions,
}

impl Builder for ProjectBuilder {
    fn build(&self) -> BoxFuture<'_, Result<BrowserBuild, BuildFailure>> {
        let req = self.req.clone();
        let opts = self.opts;
        Box::pin(async move {
            let outcome = tokio::task::spawn_blocking(move || {
                build::build_with(
                    &req,
                    opts,
                    &mut |line: &str| tracing::info!(target: "webext_mcp::build", "{line}"),
                )
            })
            .await;
            match outcome {
                Ok(Ok(mut b)) if !b.is_empty() => Ok(b.remove(0)),
                Ok(Ok(_)) => Err(BuildFailure::Other("the build produced nothing".into())),
                Ok(Err(e)) => Err(BuildFailure::Build(e)),
                Err(e) => Err(BuildFailure::Other(format!("the build thread stopped: {e}"))),
            }
        })
    }
}

/// Wall-clock time, for `compiledAt` and the load time `extension_source_inspect` reports.
pub(super) trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
    /// ISO 8601, as `ready.json` carries it.
    fn now_iso(&self) -> String;
}

pub(super) struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        inspect::now_ms()
    }
    fn now_iso(&self) -> String {
        super::contract::now_iso()
    }
}

/// The running extension as the session knows it, and the files that report it.
pub(super) struct Live {
    /// Absolute project root.
    pub project: PathBuf,
    /// `dist/<browser>/`.
    pub dist: PathBuf,
    pub contract: Contract,
    pub ready: Ready,
    pub runner: Option<Box<dyn Runner>>,
    pub ext: Option<ExtensionHandle>,
    pub console: Option<LogStream>,
    pub errors: Vec<ErrorEntry>,
    /// Whether the last build worked.
    pub build_ok: bool,
    pub roles: Roles,
    /// Output-relative path → project file.
    pub sources: BTreeMap<String, PathBuf>,
    /// The dev build's source maps (bundled outputs), read when an error needs one.
    pub maps: super::sourcemap::Maps,
    /// Content-script entries the dev build could not wrap (their tabs are reloaded).
    pub reload_entries: Vec<usize>,
    pub dev_changes: Vec<DevChange>,
    /// The extension's latest console events, for `extension_source_inspect`.
    pub recent: VecDeque<inspect::Logged>,
    /// When the extension was last (re)loaded (ms since the epoch).
    pub loaded_at_ms: u64,
    pub builder: Box<dyn Builder>,
    pub clock: Box<dyn Clock>,
}

impl Live {
    /// A state with nothing built or loaded yet.
    pub fn new(
        project: PathBuf,
        dist: PathBuf,
        contract: Contract,
        ready: Ready,
        builder: Box<dyn Builder>,
        clock: Box<dyn Clock>,
    ) -> Live {
        Live {
            project,
            dist,
            contract,
            ready,
            runner: None,
            ext: None,
            console: None,
            errors: Vec::new(),
            build_ok: false,
            roles: Roles::default(),
            sources: BTreeMap::new(),
            maps: super::sourcemap::Maps::default(),
            reload_entries: Vec::new(),
            dev_changes: Vec::new(),
            recent: VecDeque::new(),
            loaded_at_ms: 0,
            builder,
            clock,
        }
    }

    pub fn ready_value(&self) -> Value {
        serde_json::to_value(&self.ready).unwrap_or(Value::Null)
    }

    pub fn write_ready(&self) {
        if let Err(e) = self.contract.write_ready(&self.ready) {
            tracing::warn!(error = %e, "cannot write ready.json");
        }
    }

    /// Sets the status from the current errors and writes `ready.json`.
    pub fn settle(&mut self) {
        self.ready.status = if self.errors.is_empty() { Status::Ready } else { Status::Error };
        self.ready.set_errors(&self.errors);
        self.write_ready();
    }

    /// Runs a build of the project into `dist/<browser>/`.
    pub async fn build(&mut self) -> Result<(), Vec<ErrorEntry>> {
        let started = Instant::now();
        let built = match self.builder.build().await {
            Ok(b) => b,
            Err(BuildFailure::Build(e)) => {
                self.build_ok = false;
                let entries = build_errors(e);
                self.contract.event("compile", json!({"status": "error", "errors": entries}));
                return Err(entries);
            }
            Err(BuildFailure::Other(message)) => return Err(vec![build_entry(message, None, None)]),
        };
        self.build_ok = true;
        self.ready.compiled_at = Some(self.clock.now_iso());
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
        self.roles.add_bundle_inputs(&built.inputs);
        self.sources = built.sources;
        self.maps = super::sourcemap::Maps::new(self.dist.clone());
        Ok(())
    }

    /// Loads the built extension for the first time. A refusal stops the session.
    pub async fn load_first(&mut self) -> Result<(), ErrorBody> {
        let Some(runner) = &self.runner else { return Ok(()) };
        self.loaded_at_ms = self.clock.now_ms();
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

    /// A change on disk: rebuild, then reload what it needs.
    pub async fn on_changes(&mut self, batch: Vec<PathBuf>) {
        let manifest_path = manifest::find_manifest(&self.project);
        let Some(kind) = self.roles.classify(&batch, manifest_path.as_deref(), self.build_ok) else { return };
        let started = Instant::now();
        let files: Vec<String> = batch
            .iter()
            .map(|p| p.strip_prefix(&self.project).unwrap_or(p).to_string_lossy().into_owned())
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
            // A browser that runs the new content scripts itself gets the old copy cleared
            // first, by the old extension (afterwards it is gone); elsewhere the old mounts'
            // cleanups run first, while their world still exists.
            let cleared = if self.browser_injects() {
                Some(self.clear_tabs(Phase::Clean).await)
            } else {
                self.clear_tabs(Phase::Unmount).await;
                None
            };
            self.loaded_at_ms = self.clock.now_ms();
            let loaded = match &self.runner {
                Some(r) => Some(r.load_extension(&self.dist).await),
                None => None,
            };
            tracing::debug!(ms = started.elapsed().as_millis() as u64, "extension reloaded");
            match loaded {
                Some(Ok(_)) if cleared.is_some() => {
                    let tabs = cleared.unwrap_or(Value::Null);
                    self.contract.event(
                        "reload",
                        json!({"kind": kind.as_str(), "files": files, "tabs": tabs, "durationMs": started.elapsed().as_millis() as u64}),
                    );
                }
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

    /// Whether the session's browser runs content scripts in open tabs by itself on a load.
    fn browser_injects(&self) -> bool {
        self.runner.as_ref().is_some_and(|r| r.injects_on_load())
    }

    /// Before a reload: calls what the running copy's mounts returned in its tabs, and with
    /// [`Phase::Clean`] also clears what it rendered and counts the coming injection (the
    /// browser's own, at the reload); answers one row per tab. A background that cannot be
    /// reached leaves the tabs as they are.
    pub(super) async fn clear_tabs(&mut self, phase: Phase) -> Value {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return Value::Null };
        let script = reload::reinject_script(&[], phase);
        match runner.evaluate_in_background(ext, &script, WORKER_TIMEOUT).await {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(error = %e, "cannot clear the old content scripts' output");
                Value::Null
            }
        }
    }

    /// Re-injects content scripts into open tabs, as the extension, and records the reload.
    async fn reinject(&mut self, kind: Kind, files: &[String], started: Instant) {
        if self.browser_injects() {
            // The browser ran them at the load.
            self.contract.event(
                "reload",
                json!({"kind": kind.as_str(), "files": files, "tabs": [], "durationMs": started.elapsed().as_millis() as u64}),
            );
            return;
        }
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return };
        let script = reload::reinject_script(&self.reload_entries, Phase::Inject);
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
}

pub(super) fn build_entry(message: String, file: Option<String>, line: Option<u32>) -> ErrorEntry {
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
    // A refusal says how the user allows it: ready.json has no hint of its own.
    let message = match (&body.code, &body.hint) {
        (ErrorCode::ProjectScriptsNotAllowed, Some(hint)) => format!("{} — {hint}", body.message),
        _ => body.message,
    };
    vec![ErrorEntry {
        source: "build".into(),
        message,
        file: None,
        line: None,
        column: None,
        code: body.code.as_str().into(),
    }]
}

#[cfg(test)]
mod tests;
