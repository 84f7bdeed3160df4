//! Issue 24: projects grown with `extension_add_feature` load in headless Chromium and
//! Firefox ESR with no error: a `starter` and a `content` project each gain every surface
//! they lack (in one project, in order; the page overrides exclude each other), plus one
//! project each for the Chromium-only history and bookmarks overrides. Each is built
//! natively for chrome and firefox, loaded, and watched as `catalog_load` watches templates.
//! (The content-script pattern is the `content` template's script: `catalog_load` injects it
//! twice.)

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use webext_mcp::browsers::Engine;
use webext_mcp::catalog::Catalog;
use webext_mcp::catalog::create::{CreateRequest, create};
use webext_mcp::feature::{AddRequest, Feature, FeatureError, add};

use crate::catalog_load::{build_natively, firefox_failures, problems};
use crate::common::browser::shared;

struct Grown {
    _dir: TempDir,
    /// (label, project, features added)
    projects: Vec<(String, PathBuf, Vec<&'static str>)>,
}

fn grow(work: &Path, base: &str, label: &str, features: &[Feature]) -> (String, PathBuf, Vec<&'static str>) {
    let dest = work.join(label);
    let req = CreateRequest {
        dest: dest.clone(),
        project_name: format!("{label} e2e"),
        template: base.to_owned(),
        install: false,
        consent: Default::default(),
        dry_run: false,
        git: None,
    };
    create(Catalog::embedded(), &req).unwrap();
    let mut added = Vec::new();
    for &feature in features {
        let req = AddRequest { project: dest.clone(), feature, framework: None, dry_run: false };
        match add(&req) {
            // Already there as the pattern makes it (the content template's script).
            Ok(out) if !out.changed => {}
            Ok(out) => {
                let v = out.validation.unwrap();
                assert!(v.valid, "{label} + {}: {:?}", feature.name(), v.errors);
                added.push(feature.name());
            }
            Err(FeatureError::Exists { .. }) => {}
            Err(e) => panic!("{label} + {}: {e}", feature.name()),
        }
    }
    build_natively(&dest, label);
    (label.to_owned(), dest, added)
}

fn grow_all() -> Grown {
    let dir = tempfile::Builder::new().prefix("wxm-feature-load-").tempdir().unwrap();
    let every: Vec<Feature> = Feature::ALL.into_iter().filter(|f| !f.chromium_only()).collect();
    let projects = vec![
        grow(dir.path(), "starter", "starter-all", &every),
        grow(dir.path(), "content", "content-all", &every),
        grow(dir.path(), "content", "content-history", &[Feature::History, Feature::Popup]),
        grow(dir.path(), "starter", "starter-bookmarks", &[Feature::Bookmarks]),
    ];
    // The starter lacks sidebar, newtab and devtools; the content project lacks more.
    assert_eq!(projects[0].2, ["sidebar", "newtab", "devtools"]);
    assert_eq!(projects[1].2, ["sidebar", "popup", "options", "newtab", "devtools"]);
    Grown { _dir: dir, projects }
}

#[tokio::test]
async fn chromium_loads_projects_grown_with_every_feature() {
    let grown = tokio::task::spawn_blocking(grow_all).await.unwrap();
    let browser = shared(Engine::Chromium);
    let mut failures = Vec::new();
    for (label, project, _) in &grown.projects {
        let out = project.join("dist/chrome");
        let handle = browser.runner.load_extension(&out).await.unwrap_or_else(|e| panic!("{label}: {e}"));
        let found = problems(&handle).await;
        if !found.is_empty() {
            failures.push(format!("{label}: {found:#?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test]
async fn firefox_loads_projects_grown_with_every_feature() {
    let grown = tokio::task::spawn_blocking(grow_all).await.unwrap();
    let failures = firefox_failures(grown.projects.iter().map(|(l, p, _)| (l.as_str(), p.as_path()))).await;
    assert!(failures.is_empty(), "{failures:#?}");
}
