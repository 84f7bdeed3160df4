//! Issue 7: every embedded template, created as a project and built natively, loads in headless
//! Chromium and Firefox ESR through the `Runner`: the load succeeds, the background starts
//! where one is declared, and for 3 s after that the extension reports no uncaught exception
//! and no `console.error`. Plus: the content scripts that render UI are safe to inject twice.
//!
//! Chromium takes extensions at run time (the shared browser); Firefox attributes console
//! calls only when it runs one extension, so each template gets a Firefox of its own.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::build::{self, BuildRequest, Pipeline};
use webext_mcp::catalog::Catalog;
use webext_mcp::catalog::create::{CreateRequest, create};
use webext_mcp::manifest::parse_targets;
use webext_mcp::runner::{ConsoleEvent, ExtensionHandle, Level};

use crate::common::DEADLINE;
use crate::common::browser::{Tab, isolated, shared};

/// How long a started extension must stay free of errors.
const QUIET: Duration = Duration::from_secs(3);

/// Every embedded template, created and built for chrome and firefox in one temp folder.
struct Projects {
    _dir: TempDir,
    built: Vec<(String, PathBuf)>,
}

impl Projects {
    fn output(&self, slug: &str, browser: &str) -> PathBuf {
        let (_, project) = self.built.iter().find(|(s, _)| s == slug).unwrap();
        project.join("dist").join(browser)
    }
}

fn create_and_build_all() -> Projects {
    let catalog = Catalog::embedded();
    let dir = tempfile::Builder::new().prefix("wxm-catalog-load-").tempdir().unwrap();
    let mut built = Vec::new();
    for t in catalog.templates() {
        let dest = dir.path().join(&t.slug);
        let req = CreateRequest {
            dest: dest.clone(),
            project_name: format!("{} e2e", t.slug),
            template: t.slug.clone(),
            install: false,
            consent: Default::default(),
            dry_run: false,
            git: None,
        };
        create(catalog, &req).unwrap();
        build_natively(&dest, &t.slug);
        built.push((t.slug.clone(), dest));
    }
    Projects { _dir: dir, built }
}

/// Builds `project` natively for chrome and firefox into `project/dist`.
pub(crate) fn build_natively(project: &std::path::Path, label: &str) {
    let breq = BuildRequest {
        project: project.to_path_buf(),
        targets: parse_targets(&["chrome".into(), "firefox".into()]).unwrap(),
        zip: false,
        zip_source: false,
        out_dir: project.join("dist"),
        session: None,
        allow_delegation: false,
        allow_npx: false,
        node: None,
        timeout: DEADLINE,
        consent: Default::default(),
        cancel: None,
    };
    for b in build::build(&breq, &mut |_| {}).unwrap_or_else(|e| panic!("{label}: {e:?}")) {
        assert_eq!(b.pipeline, Pipeline::Native, "{label}");
    }
}

/// Loads `dist/firefox` of each project in a Firefox of its own (Firefox attributes
/// console calls only with one extension) and returns the problems seen, by label.
pub(crate) async fn firefox_failures(
    projects: impl Iterator<Item = (&str, &std::path::Path)>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for (label, project) in projects {
        let out = project.join("dist").join("firefox");
        let browser = isolated(Engine::Gecko, &[&out]).await;
        let handle = browser.runner.extensions()[0].clone();
        assert_eq!(handle.has_background, declares_background(&out), "{label}");
        let found = problems(&handle).await;
        browser.runner.shutdown().await;
        if !found.is_empty() {
            failures.push(format!("{label}: {found:#?}"));
        }
    }
    failures
}

fn is_error(e: &ConsoleEvent) -> bool {
    e.level == Level::Error
}

/// Waits for the background (where declared), then watches for [`QUIET`]; returns every
/// problem seen, the backlog included.
pub(crate) async fn problems(handle: &ExtensionHandle) -> Vec<String> {
    let mut stream = handle.subscribe();
    let mut out = Vec::new();
    if handle.has_background
        && let Err(e) = handle.wait_background(DEADLINE).await
    {
        out.push(e.to_string());
    }
    let quiet_until = Instant::now() + QUIET;
    loop {
        let left = quiet_until.saturating_duration_since(Instant::now());
        match stream.wait_for(left, is_error).await {
            Some(e) => out.push(format!("{:?}: {} ({:?}:{:?})", e.kind, e.text, e.url, e.line)),
            None => break,
        }
    }
    out
}

fn declares_background(project_output: &std::path::Path) -> bool {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(project_output.join("manifest.json")).unwrap()).unwrap();
    manifest.get("background").is_some()
}

#[tokio::test]
async fn chromium_loads_every_template_cleanly() {
    let projects = tokio::task::spawn_blocking(create_and_build_all).await.unwrap();
    let browser = shared(Engine::Chromium);
    let mut handles = Vec::new();
    for (slug, _) in &projects.built {
        let out = projects.output(slug, "chrome");
        let handle = browser.runner.load_extension(&out).await.unwrap_or_else(|e| panic!("{slug}: {e}"));
        assert_eq!(handle.has_background, declares_background(&out), "{slug}");
        handles.push((slug.clone(), handle));
    }
    let mut failures = Vec::new();
    for (slug, handle) in &handles {
        let found = problems(handle).await;
        if !found.is_empty() {
            failures.push(format!("{slug}: {found:#?}"));
        }
        if handle.has_background && !handle.background_started() {
            failures.push(format!("{slug}: background never started"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test]
async fn firefox_loads_every_template_cleanly() {
    let projects = tokio::task::spawn_blocking(create_and_build_all).await.unwrap();
    let failures = firefox_failures(projects.built.iter().map(|(s, p)| (s.as_str(), p.as_path()))).await;
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The UI content scripts, run twice in a real page (with a stub extension API): one root
/// each, `data-extension-generation` 2, no error.
#[tokio::test]
async fn content_scripts_are_safe_to_inject_twice() {
    // (template, scripts in injection order, root id)
    let cases: [(&str, &[&str], &str); 5] = [
        ("starter", &["src/content/content.js"], "webext-starter-root"),
        ("content", &["src/content/content.js"], "webext-content-root"),
        (
            "content-main-world",
            &["src/content/isolated.js", "src/content/main-world.js"],
            "webext-main-world-root",
        ),
        (
            "content-multi-entry",
            &["src/content/shared.js", "src/content/everywhere.js"],
            "webext-multi-everywhere",
        ),
        (
            "content-multi-entry",
            &["src/content/shared.js", "src/content/example-site.js"],
            "webext-multi-example",
        ),
    ];
    let stub = "globalThis.browser = { runtime: { sendMessage: () => Promise.resolve({ clicks: 0 }) }, \
                storage: { local: { get: (d) => Promise.resolve(d && typeof d === 'object' ? d : {}) }, \
                onChanged: { addListener() {}, removeListener() {} } } };";
    let source = Catalog::embedded().sources().next().unwrap();
    let browser = shared(Engine::Chromium);
    for (slug, scripts, root) in cases {
        let tab = Tab::open(browser.runner.as_chromium().unwrap().cdp(), "about:blank").await;
        let mut program = format!("(async () => {{ const errors = []; {stub}\n");
        for _ in 0..2 {
            for path in scripts {
                let code = source.read(slug, path).unwrap().unwrap();
                let code = serde_json::to_string(std::str::from_utf8(&code).unwrap()).unwrap();
                program.push_str(&format!(
                    "try {{ (0, eval)({code}); }} catch (e) {{ errors.push(String(e)); }}\n"
                ));
            }
            // Let window messages (main world → isolated) arrive before the second run.
            program.push_str("await new Promise((r) => setTimeout(r, 50));\n");
        }
        program.push_str(&format!(
            "const roots = document.querySelectorAll('#{root}'); \
             return {{ errors, count: roots.length, generation: roots[0]?.getAttribute('data-extension-generation') }}; }})()"
        ));
        let deadline = Instant::now() + DEADLINE;
        let result = loop {
            let r = tab.evaluate(&program).await;
            if r["count"] == 1 || Instant::now() > deadline {
                break r;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        // Each evaluation above runs the scripts twice more in the same page.
        assert_eq!(result["errors"], json!([]), "{slug} {root}");
        assert_eq!(result["count"], 1, "{slug} {root}: {result}");
        let generation: u32 = result["generation"].as_str().unwrap().parse().unwrap();
        assert!(generation >= 2 && generation.is_multiple_of(2), "{slug} {root}: {result}");
    }
}
