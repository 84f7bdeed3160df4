//! Issue 24: surfaces `extension_add_feature` writes in React and Preact build natively and
//! render in headless Chromium and Firefox ESR: a `newtab` project gains a popup, options
//! page, sidebar, DevTools page, content script and background in each framework (its own
//! new tab page stays vanilla), with react/react-dom/preact from `scripts/setup`'s cache
//! (skipped with the reason when they are not there). Each page's component must have
//! rendered what the vanilla pattern shows; the content script's shadow-root panel must be
//! in a served page; nothing may log an error.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::browsers::Engine;
use webext_mcp::catalog::Catalog;
use webext_mcp::catalog::create::{CreateRequest, create};
use webext_mcp::feature::{AddRequest, Feature, add};

use crate::build_load::{assert_clean, copy_dir, verdict};
use crate::bundle_load::{firefox_with, jsx_deps, wait_value};
use crate::catalog_load::build_natively;
use crate::common::DEADLINE;
use crate::common::browser::{Tab, shared};
use crate::common::http::TestServer;

const FEATURES: [Feature; 6] = [
    Feature::Popup,
    Feature::Options,
    Feature::Sidebar,
    Feature::Devtools,
    Feature::ContentScript,
    Feature::Background,
];

/// (page under the build's root, probe evaluated in it, what the probe returns once the
/// component rendered).
fn pages(name_version: &str) -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("popup/popup.html", "document.getElementById('name')?.textContent || null", json!(name_version)),
        (
            "options/options.html",
            "(() => { const i = document.querySelector('#form input[name=enabled]'); \
             return i && !i.disabled ? String(i.checked) : null; })()",
            json!("true"),
        ),
        (
            "sidebar/sidebar.html",
            "document.querySelector('textarea#note')?.placeholder || null",
            json!("Anything to keep beside the page"),
        ),
        (
            "pages/devtools-panel.html",
            "document.getElementById('title')?.textContent || null",
            json!("Read the page title"),
        ),
    ]
}

/// The content script's panel, read from the page's world (the shadow root is open).
const CONTENT: &str = "(() => { const r = document.getElementById('webext-content-root'); \
     const t = r?.shadowRoot?.querySelector('.text')?.textContent; \
     return t ? r.dataset.extensionRoot + '|' + t.replace(/^[0-9]+/, 'N') : null; })()";

struct Grown {
    _dir: TempDir,
    /// (framework, project, "name version" of its manifest)
    projects: Vec<(&'static str, PathBuf, String)>,
}

fn grow(modules: &Path) -> Grown {
    let dir = tempfile::Builder::new().prefix("wxm-feature-fw-").tempdir().unwrap();
    let mut projects = Vec::new();
    for framework in ["react", "preact"] {
        let dest = dir.path().join(framework);
        let req = CreateRequest {
            dest: dest.clone(),
            project_name: format!("{framework} features"),
            template: "newtab".into(),
            install: false,
            consent: Default::default(),
            dry_run: false,
            git: None,
        };
        create(Catalog::embedded(), &req).unwrap();
        copy_dir(modules, &dest.join("node_modules"));
        for feature in FEATURES {
            let req = AddRequest {
                project: dest.clone(),
                feature,
                framework: Some(framework.into()),
                dry_run: false,
            };
            let out = add(&req).unwrap_or_else(|e| panic!("{framework} + {}: {e}", feature.name()));
            let v = out.validation.unwrap();
            assert!(v.valid, "{framework} + {}: {:?}", feature.name(), v.errors);
            assert_eq!(out.framework, framework);
        }
        build_natively(&dest, framework);
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(dest.join("dist/chrome/manifest.json")).unwrap()).unwrap();
        let shown =
            format!("{} {}", manifest["name"].as_str().unwrap(), manifest["version"].as_str().unwrap());
        projects.push((framework, dest, shown));
    }
    Grown { _dir: dir, projects }
}

async fn grown() -> Option<Grown> {
    let modules = jsx_deps()?;
    Some(tokio::task::spawn_blocking(move || grow(&modules)).await.unwrap())
}

#[tokio::test]
async fn chromium_renders_react_and_preact_features() {
    let Some(grown) = grown().await else { return };
    let site = TestServer::start();
    site.page("/", "<!doctype html><title>served</title><body><p>one two three</p></body>");
    let browser = shared(Engine::Chromium);
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    for (framework, project, shown) in &grown.projects {
        let handle = browser.runner.load_extension(&project.join("dist/chrome")).await.unwrap();
        for (page, probe, want) in pages(shown) {
            let tab = Tab::open(cdp, &format!("{}{page}", handle.base_url)).await;
            wait_value(&format!("{framework} {page}"), &want, || tab.evaluate(probe)).await;
        }
        let tab = Tab::open(cdp, &site.url("/")).await;
        wait_value(&format!("{framework} content"), &json!("content|N words on this page"), || {
            tab.evaluate(CONTENT)
        })
        .await;
        let v = verdict(&handle).await;
        assert_clean(framework, Engine::Chromium, &handle, &v);
    }
}

#[tokio::test]
async fn firefox_renders_react_and_preact_features() {
    let Some(grown) = grown().await else { return };
    let site = TestServer::start();
    site.page("/", "<!doctype html><title>served</title><body><p>one two three</p></body>");
    for (framework, project, shown) in &grown.projects {
        let runtime_dir = tempfile::tempdir().unwrap();
        let runner =
            firefox_with(&project.join("dist/firefox"), runtime_dir.path(), &format!("fw-{framework}")).await;
        let handle = runner.extensions()[0].clone();
        let tab = runner.pages().await.unwrap()[0].target_id.clone();
        let eval = |expr: &'static str| {
            let runner = &runner;
            let tab = tab.clone();
            async move { runner.evaluate_in_page(&tab, expr, DEADLINE).await.unwrap_or(Value::Null) }
        };
        for (page, probe, want) in pages(shown) {
            runner.navigate_page(&tab, &format!("{}{page}", handle.base_url)).await.unwrap();
            wait_value(&format!("{framework} {page}"), &want, || eval(probe)).await;
        }
        runner.navigate_page(&tab, &site.url("/")).await.unwrap();
        wait_value(&format!("{framework} content"), &json!("content|N words on this page"), || eval(CONTENT))
            .await;
        let v = verdict(&handle).await;
        runner.shutdown().await;
        assert_clean(framework, Engine::Gecko, &handle, &v);
    }
}
