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

use super::console::runtime_error;
use super::contract::{Contract, ErrorEntry, Ready, Status};
use super::inspect;
use super::reload::{self, Kind, Roles};
use crate::build::dev::{self, DevChange};
use crate::build::{self, BrowserBuild, BuildError, BuildOptions, BuildRequest};
use crate::manifest;
use crate::runner::{BoxFuture, ExtensionHandle, LogStream, Runner};

/// How long the extension's worker may take to answer after a (re)load.
pub(super) const WORKER_TIMEOUT: Duration = Duration::from_secs(15);

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
        self.sources = built.sources;
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
            self.loaded_at_ms = self.clock.now_ms();
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
    vec![ErrorEntry {
        source: "build".into(),
        message: body.message,
        file: None,
        line: None,
        column: None,
        code: body.code.as_str().into(),
    }]
}

#[cfg(test)]
mod tests {
    //! `on_changes` with a fake builder, a fake browser and a fixed clock: each records what
    //! it was asked, so a test states which rebuilds, reloads and re-injections a change
    //! causes.

    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::build::Pipeline;
    use crate::runner::{ConsoleEvent, EventKind, Family, Level, PageInfo, RunnerError};

    type Calls = Arc<Mutex<Vec<String>>>;

    fn calls(c: &Calls) -> Vec<String> {
        c.lock().unwrap().clone()
    }

    /// Answers each build with the next outcome (the last one again when none are left).
    struct FakeBuilder {
        calls: Calls,
        outcomes: Mutex<VecDeque<bool>>,
        sources: BTreeMap<String, PathBuf>,
        dist: PathBuf,
    }

    impl Builder for FakeBuilder {
        fn build(&self) -> BoxFuture<'_, Result<BrowserBuild, BuildFailure>> {
            self.calls.lock().unwrap().push("build".into());
            let ok = {
                let mut o = self.outcomes.lock().unwrap();
                if o.len() > 1 { o.pop_front().unwrap() } else { *o.front().unwrap() }
            };
            let out = if ok {
                Ok(BrowserBuild {
                    browser: "chromium".into(),
                    pipeline: Pipeline::Native,
                    output_path: self.dist.clone(),
                    duration_ms: 1,
                    zip_path: None,
                    source_zip_path: None,
                    bytes: 0,
                    files: Vec::new(),
                    warnings: Vec::new(),
                    dev_changes: Vec::new(),
                    sources: self.sources.clone(),
                })
            } else {
                Err(BuildFailure::Build(BuildError::Failed {
                    message: "content.js: unexpected token".into(),
                    hint: "fix it".into(),
                    findings: Vec::new(),
                    output_tail: Vec::new(),
                }))
            };
            Box::pin(async move { out })
        }
    }

    struct FakeRunner {
        calls: Calls,
        home: PathBuf,
        pages: Vec<PageInfo>,
        refuse_load: bool,
        ext: ExtensionHandle,
    }

    impl Runner for FakeRunner {
        fn family(&self) -> Family {
            Family::Chromium
        }
        fn pid(&self) -> u32 {
            4242
        }
        fn home_dir(&self) -> &Path {
            &self.home
        }
        fn profile_dir(&self) -> &Path {
            &self.home
        }
        fn extensions(&self) -> Vec<ExtensionHandle> {
            vec![self.ext.clone()]
        }
        fn load_extension<'a>(
            &'a self,
            dir: &'a Path,
        ) -> BoxFuture<'a, Result<ExtensionHandle, RunnerError>> {
            self.calls.lock().unwrap().push(format!("load {}", dir.file_name().unwrap().to_string_lossy()));
            let out = if self.refuse_load {
                Err(RunnerError::LoadRefused {
                    dir: dir.to_owned(),
                    message: "Manifest is not valid JSON".into(),
                })
            } else {
                Ok(self.ext.clone())
            };
            Box::pin(async move { out })
        }
        fn is_running(&self) -> bool {
            true
        }
        fn shutdown(&self) -> BoxFuture<'_, ()> {
            Box::pin(async {})
        }
        fn pages(&self) -> BoxFuture<'_, Result<Vec<PageInfo>, RunnerError>> {
            let pages = self.pages.clone();
            Box::pin(async move { Ok(pages) })
        }
        fn reload_page<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Result<(), RunnerError>> {
            self.calls.lock().unwrap().push(format!("reload-page {target_id}"));
            Box::pin(async { Ok(()) })
        }
        fn evaluate_in_background<'a>(
            &'a self,
            _ext: &'a ExtensionHandle,
            expression: &'a str,
            _timeout: Duration,
        ) -> BoxFuture<'a, Result<Value, RunnerError>> {
            let what = if expression == reload::reinject_script(&[]) { "reinject" } else { "evaluate" };
            self.calls.lock().unwrap().push(what.into());
            Box::pin(async { Ok(json!([{"tabId": 1, "action": "reinjected"}])) })
        }
    }

    struct FixedClock;

    impl Clock for FixedClock {
        fn now_ms(&self) -> u64 {
            1_700_000_000_000
        }
        fn now_iso(&self) -> String {
            "2026-12-01T10:00:00.000Z".into()
        }
    }

    struct Setup {
        _tmp: tempfile::TempDir,
        project: PathBuf,
        live: Live,
        calls: Calls,
        ext: ExtensionHandle,
    }

    /// A project with a content script, a worker and a popup, built into `dist/chromium/`.
    fn setup(builds: &[bool], refuse_load: bool, loaded: bool) -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        let dist = project.join("dist").join("chromium");
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(project.join("manifest.json"), "{}").unwrap();
        std::fs::write(
            dist.join("manifest.json"),
            r#"{"manifest_version":3,"content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}],"background":{"service_worker":"bg.js"}}"#,
        )
        .unwrap();
        std::fs::write(dist.join("popup.html"), r#"<script src="popup.js"></script>"#).unwrap();
        let sources: BTreeMap<String, PathBuf> =
            ["content.js", "bg.js", "popup.html", "popup.js", "manifest.json"]
                .iter()
                .map(|rel| (rel.to_string(), project.join(rel)))
                .collect();
        let calls = Calls::default();
        let builder = FakeBuilder {
            calls: calls.clone(),
            outcomes: Mutex::new(builds.iter().copied().collect()),
            sources,
            dist: dist.clone(),
        };
        let contract = Contract { dir: project.join("dist").join("extension-js").join("chromium") };
        std::fs::create_dir_all(&contract.dir).unwrap();
        let ready = Ready {
            schema_version: super::super::contract::SCHEMA_VERSION,
            schema: super::super::contract::SCHEMA.into(),
            status: Status::Starting,
            command: "dev".into(),
            browser: "chromium".into(),
            run_id: "s1".into(),
            pid: 1,
            browser_pid: None,
            port: None,
            dist_path: dist.clone(),
            manifest_path: dist.join("manifest.json"),
            started_at: "2026-12-01T09:00:00.000Z".into(),
            compiled_at: None,
            errors: Vec::new(),
            error_details: Vec::new(),
            extension_id: None,
            profile_path: tmp.path().join("profile"),
            session_id: "s1".into(),
            project_path: project.clone(),
            control_socket: tmp.path().join("d.sock"),
        };
        let ext = ExtensionHandle::detached(dist.clone(), "abcdefghijklmnopabcdefghijklmnop", false);
        let runner = FakeRunner {
            calls: calls.clone(),
            home: tmp.path().to_owned(),
            pages: vec![
                PageInfo { target_id: "t-web".into(), url: "https://example.com/".into() },
                PageInfo { target_id: "t-popup".into(), url: format!("{}popup.html", ext.base_url) },
            ],
            refuse_load,
            ext: ext.clone(),
        };
        let mut live =
            Live::new(project.clone(), dist, contract, ready, Box::new(builder), Box::new(FixedClock));
        live.runner = Some(Box::new(runner));
        if loaded {
            live.ext = Some(ext.clone());
            live.console = Some(ext.subscribe());
        }
        Setup { _tmp: tmp, project, live, calls, ext }
    }

    /// The session's first build (as `boot` runs it), then forgets the calls it made.
    async fn booted(builds: &[bool], refuse_load: bool, loaded: bool) -> Setup {
        let mut s = setup(builds, refuse_load, loaded);
        let first = s.live.build().await;
        if let Err(errors) = first {
            s.live.errors = errors;
        }
        s.live.settle();
        s.calls.lock().unwrap().clear();
        s
    }

    fn on_disk(live: &Live) -> Ready {
        super::super::contract::read_ready(&live.contract.dir).unwrap()
    }

    #[tokio::test]
    async fn content_script_change_rebuilds_reloads_the_extension_and_reinjects() {
        let mut s = booted(&[true], false, true).await;
        s.live.on_changes(vec![s.project.join("content.js")]).await;
        assert_eq!(calls(&s.calls), ["build", "load chromium", "reinject"]);
        assert_eq!(s.live.loaded_at_ms, 1_700_000_000_000);
        let ready = on_disk(&s.live);
        assert_eq!(ready.status, Status::Ready);
        assert_eq!(ready.compiled_at.as_deref(), Some("2026-12-01T10:00:00.000Z"));
        let text = std::fs::read_to_string(s.live.contract.events_path()).unwrap();
        assert!(text.contains(r#""kind":"content-script""#), "{text}");
        assert!(text.contains(r#""files":["content.js"]"#), "{text}");
    }

    #[tokio::test]
    async fn worker_change_reloads_the_extension() {
        let mut s = booted(&[true], false, true).await;
        s.live.on_changes(vec![s.project.join("bg.js")]).await;
        assert_eq!(calls(&s.calls), ["build", "load chromium", "reinject"]);
        let text = std::fs::read_to_string(s.live.contract.events_path()).unwrap();
        assert!(text.contains(r#""kind":"background""#), "{text}");
    }

    #[tokio::test]
    async fn page_change_reloads_only_the_extensions_open_pages() {
        let mut s = booted(&[true], false, true).await;
        s.live.on_changes(vec![s.project.join("popup.js")]).await;
        assert_eq!(calls(&s.calls), ["build", "reload-page t-popup"]);
        let text = std::fs::read_to_string(s.live.contract.events_path()).unwrap();
        assert!(text.contains(r#""kind":"page""#), "{text}");
        assert!(text.contains("popup.html"), "{text}");
    }

    #[tokio::test]
    async fn change_to_a_file_the_extension_does_not_use_builds_nothing() {
        let mut s = booted(&[true], false, true).await;
        s.live.on_changes(vec![s.project.join("README.md")]).await;
        assert!(calls(&s.calls).is_empty());
    }

    #[tokio::test]
    async fn failed_build_puts_the_session_in_error_and_reloads_nothing() {
        let mut s = booted(&[true, false], false, true).await;
        s.live.on_changes(vec![s.project.join("content.js")]).await;
        assert_eq!(calls(&s.calls), ["build"]);
        assert!(!s.live.build_ok);
        let ready = on_disk(&s.live);
        assert_eq!(ready.status, Status::Error);
        assert_eq!(ready.error_details.len(), 1);
        assert_eq!(ready.error_details[0].source, "build");
        assert_eq!(ready.error_details[0].code, "BUILD_FAILED");
        assert!(ready.errors[0].contains("unexpected token"), "{:?}", ready.errors);
    }

    #[tokio::test]
    async fn after_a_failed_build_any_change_rebuilds_and_success_recovers_ready() {
        let mut s = booted(&[true, false, true], false, true).await;
        s.live.on_changes(vec![s.project.join("content.js")]).await;
        assert_eq!(on_disk(&s.live).status, Status::Error);
        // Not an output of the last good build, but the build is broken: worth a rebuild.
        s.live.on_changes(vec![s.project.join("notes.txt")]).await;
        assert_eq!(calls(&s.calls), ["build", "build", "load chromium", "reinject"]);
        let ready = on_disk(&s.live);
        assert_eq!(ready.status, Status::Ready);
        assert!(ready.errors.is_empty());
    }

    #[tokio::test]
    async fn refused_reload_is_a_load_error_on_the_manifest() {
        let mut s = booted(&[true], true, true).await;
        s.live.on_changes(vec![s.project.join("manifest.json")]).await;
        assert_eq!(calls(&s.calls), ["build", "load chromium"]);
        let ready = on_disk(&s.live);
        assert_eq!(ready.status, Status::Error);
        assert_eq!(ready.error_details[0].source, "load");
        assert_eq!(ready.error_details[0].file.as_deref(), Some("manifest.json"));
        let text = std::fs::read_to_string(s.live.contract.events_path()).unwrap();
        assert!(text.contains(r#""status":"refused""#), "{text}");
    }

    #[tokio::test]
    async fn first_good_build_after_a_failed_start_loads_the_extension() {
        let mut s = booted(&[false, true], false, false).await;
        assert!(s.live.ext.is_none());
        assert_eq!(on_disk(&s.live).status, Status::Error);
        s.live.on_changes(vec![s.project.join("content.js")]).await;
        assert_eq!(calls(&s.calls), ["build", "load chromium", "reinject"]);
        assert_eq!(s.live.ready.extension_id.as_deref(), Some(s.ext.id.as_str()));
        assert_eq!(on_disk(&s.live).status, Status::Ready);
    }

    fn exception(text: &str, url: &str) -> ConsoleEvent {
        ConsoleEvent {
            kind: EventKind::Exception,
            level: Level::Error,
            text: text.into(),
            url: Some(url.into()),
            line: Some(3),
            column: Some(7),
            context: None,
        }
    }

    #[tokio::test]
    async fn exception_names_the_project_file_and_reload_noise_is_not_an_error() {
        let mut s = booted(&[true], false, true).await;
        let base = s.ext.base_url.clone();
        s.ext.record(exception("Error: Extension context invalidated.", &format!("{base}content.js")));
        s.live.drain_console();
        assert!(s.live.errors.is_empty());
        s.live.on_console(exception("TypeError: x is undefined", &format!("{base}content.js?v=2")), true);
        let ready = on_disk(&s.live);
        assert_eq!(ready.status, Status::Error);
        assert_eq!(ready.errors, ["content.js:3:7 TypeError: x is undefined"]);
        assert_eq!(ready.error_details[0].source, "runtime");
        // Both went to logs.ndjson and to the recent list.
        assert_eq!(s.live.recent.len(), 2);
    }

    #[tokio::test]
    async fn output_of_the_old_code_is_logged_not_counted_after_a_change() {
        let mut s = booted(&[true], false, true).await;
        let base = s.ext.base_url.clone();
        s.ext.record(exception("TypeError: old bug", &format!("{base}content.js")));
        s.live.on_changes(vec![s.project.join("content.js")]).await;
        assert!(s.live.errors.is_empty());
        assert_eq!(on_disk(&s.live).status, Status::Ready);
        assert_eq!(s.live.recent.len(), 1);
    }
}
