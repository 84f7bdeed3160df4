//! Issue 6, "load in a real browser": fixture projects built by the real `extension_build`
//! (`webext-mcp call extension_build … --json`) load through the `Runner` in headless
//! Chromium and Firefox ESR. The load succeeds, the background starts where one is declared,
//! and within a quiet window of 3 s after that the extension reports no uncaught exception
//! and no `console.error`. The `throws-at-top-level` fixture proves the check catches one and
//! names its file and line. Issue 21's fixtures are among the clean ones: `env-files` checks
//! its injected values per browser with `console.error` on a mismatch (and a left-over
//! `process` would throw), `module-worker` needs its imports to start.
//!
//! Chromium takes extensions at run time, so those tests use the shared browser. Firefox takes
//! them only at launch, and attributes console calls only when it runs one extension, so each
//! Firefox check launches a browser of its own with one build.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::runner::{ConsoleEvent, EventKind, ExtensionHandle, Level};

use crate::common::DEADLINE;
use crate::common::browser::{Tab, isolated, shared};

/// How long a started extension must stay free of errors.
const QUIET: Duration = Duration::from_secs(3);

/// The fixtures expected to load cleanly.
/// `mv2-root-locales` checks itself (console.error on a mismatch): the root `_locales/` it
/// reads its strings from, the host permission granted, WebAssembly allowed by its policy —
/// in Firefox as an MV2 build converted from MV3-shaped keys.
const CLEAN: [&str; 7] = [
    "popup-background",
    "prefixed",
    "config-profiles",
    "env-files",
    "special-folders",
    "module-worker",
    "mv2-root-locales",
];

/// The fixture whose background calls `console.error`, then throws at line 5 of
/// `background.js`.
const BROKEN: &str = "throws-at-top-level";

/// A copy of a committed fixture project, built for chrome and firefox.
pub(crate) struct Built {
    pub(crate) project: TempDir,
    builds: Vec<Value>,
}

impl Built {
    /// `dist/<browser>/`, as the build reported it.
    pub(crate) fn output(&self, browser: &str) -> PathBuf {
        let build = self
            .builds
            .iter()
            .find(|b| b["browser"] == browser)
            .unwrap_or_else(|| panic!("no {browser} build in {:?}", self.builds));
        let out = PathBuf::from(build["outputPath"].as_str().unwrap());
        assert_eq!(out, self.project.path().join("dist").join(browser));
        assert!(out.join("manifest.json").is_file(), "{} has no manifest.json", out.display());
        out
    }
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// Copies `fixture` into a temporary folder and builds it with the real tool.
pub(crate) async fn build(fixture: &str) -> Built {
    build_prepared(fixture, |_| {}).await
}

/// [`build`], with `prepare` run on the copy first (to add `node_modules`, say).
pub(crate) async fn build_prepared(fixture: &str, prepare: impl FnOnce(&Path)) -> Built {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/build/fixtures").join(fixture);
    let project = tempfile::Builder::new().prefix("wxm-build-load-").tempdir().unwrap();
    copy_dir(&src, project.path());
    prepare(project.path());
    let home = project.path().join(".cli-home");
    std::fs::create_dir_all(&home).unwrap();
    let args = json!({"projectPath": project.path(), "browser": ["chrome", "firefox"]});
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_webext-mcp"))
        .args(["call", "extension_build", &args.to_string(), "--json"])
        .env("HOME", &home)
        .env("WEBEXT_MCP_RUNTIME_DIR", home.join("run"))
        .env_remove("WEBEXT_MCP_DELEGATED")
        .env_remove("WEBEXT_MCP_SESSION")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(DEADLINE, output).await.expect("extension_build hung").unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("extension_build printed no JSON ({e}): {stdout}\n{}", String::from_utf8_lossy(&output.stderr))
    });
    assert_eq!(output.status.code(), Some(0), "{fixture}: build failed: {result:#}");
    let builds = result["builds"].as_array().unwrap().clone();
    for b in &builds {
        assert_eq!(b["pipeline"], "native", "{fixture}: {b:#}");
    }
    Built { project, builds }
}

/// What loading one build showed.
pub(crate) struct Verdict {
    background: Result<(), String>,
    errors: Vec<ConsoleEvent>,
}

impl Verdict {
    pub(crate) fn is_clean(&self) -> bool {
        self.background.is_ok() && self.errors.is_empty()
    }

    /// One line per problem, errors as `text (url:line:column)`.
    pub(crate) fn report(&self) -> String {
        let mut lines: Vec<String> = self.background.as_ref().err().cloned().into_iter().collect();
        for e in &self.errors {
            let place = match (&e.url, e.line) {
                (Some(url), Some(line)) => match e.column {
                    Some(column) => format!("{url}:{line}:{column}"),
                    None => format!("{url}:{line}"),
                },
                (Some(url), None) => url.clone(),
                _ => "unknown place".to_owned(),
            };
            lines.push(format!("{:?} {:?}: {} ({place})", e.kind, e.level, e.text));
        }
        lines.join("\n")
    }
}

fn is_error(e: &ConsoleEvent) -> bool {
    e.level == Level::Error
}

/// Watches a freshly loaded extension: until its background started (or the first error),
/// then for [`QUIET`]; every error event on the way is kept, the backlog included.
pub(crate) async fn verdict(handle: &ExtensionHandle) -> Verdict {
    let mut stream = handle.subscribe();
    let mut errors = Vec::new();
    let mut background = Ok(());
    if handle.has_background {
        tokio::select! {
            started = handle.wait_background(DEADLINE) => {
                background = started.map_err(|e| e.to_string());
            }
            first = stream.wait_for(DEADLINE, is_error) => errors.extend(first),
        }
    }
    let quiet_until = Instant::now() + QUIET;
    loop {
        let left = quiet_until.saturating_duration_since(Instant::now());
        match stream.wait_for(left, is_error).await {
            Some(e) => errors.push(e),
            None => break,
        }
    }
    if background.is_ok() && handle.has_background && !handle.background_started() {
        background = Err(format!("background of {} did not start", handle.id));
    }
    Verdict { background, errors }
}

pub(crate) fn assert_clean(fixture: &str, family: Engine, handle: &ExtensionHandle, v: &Verdict) {
    assert!(handle.has_background, "{fixture}: the build lost its background");
    assert!(
        v.is_clean(),
        "{fixture} in {}: not clean:\n{}\nhistory {:?}",
        family.name(),
        v.report(),
        handle.history()
    );
    assert!(handle.background_started());
}

/// Both errors are caught: the `console.error` at its level, the throw as an exception of
/// `background.js`, line 5, and the report names that place.
fn assert_caught(family: Engine, handle: &ExtensionHandle, v: &Verdict) {
    assert!(!v.is_clean(), "{}: the broken fixture passed the check", family.name());
    let logged = v
        .errors
        .iter()
        .find(|e| e.text.contains("console-error-at-top-level"))
        .unwrap_or_else(|| panic!("{}: the console.error is not among\n{}", family.name(), v.report()));
    assert_eq!((logged.kind, logged.level), (EventKind::Console, Level::Error), "{logged:?}");
    let thrown = v
        .errors
        .iter()
        .find(|e| e.text.contains("thrown-at-top-level"))
        .unwrap_or_else(|| panic!("{}: the throw is not among\n{}", family.name(), v.report()));
    assert_eq!((thrown.kind, thrown.level), (EventKind::Exception, Level::Error), "{thrown:?}");
    let url = thrown.url.as_deref().unwrap_or_default();
    assert!(url.starts_with(&handle.base_url) && url.ends_with("/background.js"), "{thrown:?}");
    assert_eq!(thrown.line, Some(5), "{thrown:?}");
    let report = v.report();
    assert!(report.contains("/background.js:5"), "{report}");
}

#[tokio::test]
async fn chromium_loads_built_fixtures_cleanly() {
    let browser = shared(Engine::Chromium);
    for fixture in CLEAN {
        let built = build(fixture).await;
        let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
        let v = verdict(&handle).await;
        assert_clean(fixture, Engine::Chromium, &handle, &v);
    }
}

#[tokio::test]
async fn chromium_reports_a_broken_build_with_file_and_line() {
    let built = build(BROKEN).await;
    let browser = shared(Engine::Chromium);
    let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
    let v = verdict(&handle).await;
    assert_caught(Engine::Chromium, &handle, &v);
}

/// The built popup page runs and reaches the built background, which answers from storage.
#[tokio::test]
async fn chromium_built_popup_talks_to_its_background() {
    let built = build("popup-background").await;
    let browser = shared(Engine::Chromium);
    let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
    handle.wait_background(DEADLINE).await.unwrap();
    let tab = Tab::open(
        browser.runner.as_chromium().unwrap().cdp(),
        &format!("{}popup/popup.html", handle.base_url),
    )
    .await;
    let deadline = Instant::now() + DEADLINE;
    loop {
        let count = tab
            .evaluate(
                "location.protocol === 'chrome-extension:' && document.readyState === 'complete' \
                 ? document.getElementById('count').textContent : null",
            )
            .await;
        if count == json!("1") {
            break;
        }
        assert!(Instant::now() < deadline, "popup count is {count}; history {:?}", handle.history());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let errors: Vec<_> = handle.history().into_iter().filter(is_error).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test]
async fn firefox_loads_built_fixtures_cleanly() {
    for fixture in CLEAN {
        let built = build(fixture).await;
        let browser = isolated(Engine::Gecko, &[&built.output("firefox")]).await;
        let handle = browser.runner.extensions()[0].clone();
        let v = verdict(&handle).await;
        browser.runner.shutdown().await;
        assert_clean(fixture, Engine::Gecko, &handle, &v);
    }
}

#[tokio::test]
async fn firefox_reports_a_broken_build_with_file_and_line() {
    let built = build(BROKEN).await;
    let browser = isolated(Engine::Gecko, &[&built.output("firefox")]).await;
    let handle = browser.runner.extensions()[0].clone();
    let v = verdict(&handle).await;
    browser.runner.shutdown().await;
    assert_caught(Engine::Gecko, &handle, &v);
}

/// Issue 21: a `pages/` page linking `../public/css/file.css` loads with that stylesheet
/// applied and its script run, from the built output.
#[tokio::test]
async fn chromium_special_folder_page_gets_its_public_stylesheet() {
    let built = build("special-folders").await;
    let browser = shared(Engine::Chromium);
    let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
    handle.wait_background(DEADLINE).await.unwrap();
    let tab = Tab::open(
        browser.runner.as_chromium().unwrap().cdp(),
        &format!("{}pages/main.html", handle.base_url),
    )
    .await;
    let deadline = Instant::now() + DEADLINE;
    loop {
        let seen = tab
            .evaluate(
                "document.readyState === 'complete' && document.getElementById('title') \
                 ? [getComputedStyle(document.getElementById('title')).color, document.getElementById('title').dataset.ran] \
                 : null",
            )
            .await;
        if seen == json!(["rgb(1, 2, 3)", "yes"]) {
            break;
        }
        assert!(Instant::now() < deadline, "page shows {seen}; history {:?}", handle.history());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
