//! `on_changes` with a fake builder, a fake browser and a fixed clock: each records what
//! it was asked, so a test states which rebuilds, reloads and re-injections a change
//! causes.

use std::sync::Mutex;

use super::super::fakes::{Calls, FakeRunner, FixedClock, calls};
use super::*;
use crate::build::Pipeline;
use crate::runner::{ConsoleEvent, EventKind, Level, PageInfo};

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
                delegation: None,
                sources: self.sources.clone(),
                inputs: BTreeMap::new(),
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
        run_config: None,
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
    let mut live = Live::new(project.clone(), dist, contract, ready, Box::new(builder), Box::new(FixedClock));
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
    assert_eq!(calls(&s.calls), ["build", "unmount", "load chromium", "reinject"]);
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
    assert_eq!(calls(&s.calls), ["build", "unmount", "load chromium", "reinject"]);
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
    assert_eq!(calls(&s.calls), ["build", "build", "unmount", "load chromium", "reinject"]);
    let ready = on_disk(&s.live);
    assert_eq!(ready.status, Status::Ready);
    assert!(ready.errors.is_empty());
}

#[tokio::test]
async fn refused_reload_is_a_load_error_on_the_manifest() {
    let mut s = booted(&[true], true, true).await;
    s.live.on_changes(vec![s.project.join("manifest.json")]).await;
    assert_eq!(calls(&s.calls), ["build", "unmount", "load chromium"]);
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
        tab_id: None,
        frame_id: None,
        page_world: false,
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

/// Issue 26: `extension_reload` rebuilds, reloads, then re-injects (or reloads the web
/// tabs, never the extension's own pages), and the reload is in the log stream; a failed
/// build reloads nothing and says where it failed.
#[tokio::test]
async fn requested_reload_rebuilds_reloads_and_reinjects_or_reloads_web_tabs() {
    use super::super::act::ReloadTabs;
    let mut s = booted(&[true], false, true).await;
    let out = s.live.reload_now(ReloadTabs::Reinject, true).await.unwrap();
    assert_eq!(calls(&s.calls), ["build", "unmount", "load chromium", "reinject"]);
    assert_eq!(out.tabs[0]["action"], "reinjected", "{out:?}");
    assert_eq!(out.background_ms, None, "the fake extension has no background");
    s.calls.lock().unwrap().clear();
    s.live.reload_now(ReloadTabs::Reload, false).await.unwrap();
    assert_eq!(calls(&s.calls), ["load chromium", "reload-page t-web"]);
    let log = std::fs::read_to_string(s.live.contract.logs_path()).unwrap();
    let reloads = log
        .lines()
        .filter(|l| l.contains("\"source\":\"session\"") && l.contains("reloaded (requested)"))
        .count();
    assert_eq!(reloads, 2, "{log}");

    let mut s = booted(&[true, false], false, true).await;
    let e = s.live.reload_now(ReloadTabs::Reinject, true).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BuildFailed, "{e:?}");
    assert_eq!(calls(&s.calls), ["build"], "nothing reloaded after a failed build");
    assert_eq!(on_disk(&s.live).status, Status::Error);
}
