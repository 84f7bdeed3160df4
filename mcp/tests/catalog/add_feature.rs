//! Issue 24: `extension_add_feature` for every surface, into a fresh `starter` project and a
//! fresh `content` project: the manifest diffs match the goldens (comments and browser
//! prefixes kept), the result validates and builds natively for Chrome and Firefox with
//! every pattern file shipped, a second call changes nothing, and a surface the manifest
//! already has is `ALREADY_EXISTS` with nothing touched. Set `WEBEXT_MCP_BLESS=1` to rewrite
//! the goldens after an intended change.

use serde_json::json;
use std::path::{Path, PathBuf};
use webext_mcp::build::{self, Pipeline};
use webext_mcp::catalog::Catalog;
use webext_mcp::catalog::create::{CreateRequest, create};
use webext_mcp::feature::{AddRequest, Feature, FeatureError, add};
use webext_mcp_host::protocol::ErrorBody;

use super::{call, snapshot};

/// Creates the embedded template `slug` in `work/<name>` (no install, no git).
pub fn project(work: &Path, slug: &str, name: &str) -> PathBuf {
    let dest = work.join(name);
    let req = CreateRequest {
        dest: dest.clone(),
        project_name: format!("{slug} features"),
        template: slug.to_owned(),
        install: false,
        consent: Default::default(),
        dry_run: false,
        git: None,
    };
    create(Catalog::embedded(), &req).unwrap();
    dest
}

pub fn request(project: &Path, feature: Feature) -> AddRequest {
    AddRequest { project: project.to_path_buf(), feature, framework: None, dry_run: false }
}

/// Builds natively for chrome and firefox; returns the problems found.
pub fn build_both(project: &Path) -> Vec<String> {
    let req = super::native_build(project, false);
    let mut problems = Vec::new();
    match build::build(&req, &mut |_| {}) {
        Err(e) => problems.push(format!("build: {e:?}")),
        Ok(builds) => {
            for b in builds {
                if b.pipeline != Pipeline::Native {
                    problems.push(format!("{}: pipeline {:?}", b.browser, b.pipeline));
                }
                if !b.warnings.is_empty() {
                    problems.push(format!("{}: warnings {:?}", b.browser, b.warnings));
                }
            }
        }
    }
    problems
}

fn golden(base: &str, got: &str) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/catalog/fixtures/add-feature/{base}.txt"));
    if std::env::var_os("WEBEXT_MCP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "{base}: set WEBEXT_MCP_BLESS=1 after an intended change");
}

fn every_surface_into(base: &str) {
    let work = tempfile::tempdir().unwrap();
    let mut record = String::new();
    let mut failures = Vec::new();
    for feature in Feature::ALL {
        let dir = project(work.path(), base, feature.name());
        let before = snapshot(&dir);
        record.push_str(&format!("== {} into {base}\n", feature.name()));
        match add(&request(&dir, feature)) {
            Err(e @ FeatureError::Exists { .. }) => {
                assert_eq!(snapshot(&dir), before, "{}: a refusal touched the project", feature.name());
                let body = ErrorBody::from(e);
                record.push_str(&format!("{}: {}\n", body.code.as_str(), body.message));
            }
            Err(e) => failures.push(format!("{}: {e}", feature.name())),
            // Declared exactly as the pattern makes it (the `content` template's script is
            // the content-script pattern): reported, nothing written.
            Ok(added) if !added.changed => {
                assert_eq!(snapshot(&dir), before, "{}", feature.name());
                assert!(added.manifest_diff.is_empty() && added.validation.is_none());
                record.push_str("unchanged: already there as extension_add_feature adds it\n");
            }
            Ok(added) => {
                record.push_str(&format!("files: {}\n", added.files.join(", ")));
                record.push_str(&added.manifest_diff);
                for w in &added.warnings {
                    record.push_str(&format!("warning: {w}\n"));
                }
                let v = added.validation.as_ref().unwrap();
                if !v.valid || !v.errors.is_empty() {
                    failures.push(format!("{}: validation {:?}", feature.name(), v.errors));
                }
                for f in &added.files {
                    assert!(dir.join(f).is_file(), "{}: {f} missing", feature.name());
                }
                // Idempotent: the same call again reports the surface and changes nothing.
                let after = snapshot(&dir);
                let again =
                    add(&request(&dir, feature)).unwrap_or_else(|e| panic!("{}: {e}", feature.name()));
                assert!(!again.changed, "{}", feature.name());
                assert_eq!(again.manifest_diff, "");
                assert_eq!(snapshot(&dir), after, "{}: the second call changed files", feature.name());
                for p in build_both(&dir) {
                    failures.push(format!("{}: {p}", feature.name()));
                }
                for (rel, _) in feature.files() {
                    // Firefox has no history or bookmarks override: its build leaves them out.
                    let browsers: &[&str] =
                        if feature.chromium_only() { &["chrome"] } else { &["chrome", "firefox"] };
                    for browser in browsers {
                        if !dir.join("dist").join(browser).join(rel).is_file() {
                            failures.push(format!("{} {browser}: {rel} is not in the build", feature.name()));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    golden(base, &record);
}

#[test]
fn every_surface_into_the_starter() {
    every_surface_into("starter");
}

#[test]
fn every_surface_into_a_content_project() {
    every_surface_into("content");
}

/// The starter's manifest opens with comments and uses `chromium:`/`firefox:` keys; after
/// a sidebar they are all still there, and each family resolves to its own sidebar key.
#[test]
fn comments_and_prefixes_survive_and_each_family_gets_its_sidebar() {
    let work = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "starter", "s");
    let manifest = dir.join("src/manifest.json");
    let old = std::fs::read_to_string(&manifest).unwrap();
    add(&request(&dir, Feature::Sidebar)).unwrap();
    let new = std::fs::read_to_string(&manifest).unwrap();
    for line in old.lines().filter(|l| l.trim_start().starts_with("//") || l.contains(':')) {
        let line = line.trim_end_matches(',');
        assert!(new.contains(line), "lost {line:?}:\n{new}");
    }
    let json = webext_mcp::manifest::parse_jsonc(&new).unwrap();
    let chrome = webext_mcp::manifest::resolve(&json, webext_mcp::manifest::Target::named("chrome").unwrap())
        .manifest
        .to_serde();
    let firefox =
        webext_mcp::manifest::resolve(&json, webext_mcp::manifest::Target::named("firefox").unwrap())
            .manifest
            .to_serde();
    assert_eq!(chrome["side_panel"]["default_path"], "sidebar/sidebar.html");
    assert!(chrome.get("sidebar_action").is_none());
    assert_eq!(firefox["sidebar_action"]["default_panel"], "sidebar/sidebar.html");
    assert!(firefox.get("side_panel").is_none());
    assert_eq!(chrome["permissions"], json!(["storage", "sidePanel"]));
    assert_eq!(firefox["permissions"], json!(["storage"]));
}

/// A dry run lists the files and the diff and writes nothing.
#[test]
fn a_dry_run_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "content", "c");
    let before = snapshot(&dir);
    let out = add(&AddRequest { dry_run: true, ..request(&dir, Feature::Popup) }).unwrap();
    assert!(out.dry_run && out.changed);
    assert_eq!(out.files, ["src/popup/popup.html", "src/popup/popup.js", "src/popup/popup.css"]);
    assert!(out.manifest_diff.contains("+  \"action\": {"), "{}", out.manifest_diff);
    assert!(out.validation.is_none());
    assert_eq!(snapshot(&dir), before);
}

/// A file already where the pattern would write is never overwritten.
#[test]
fn a_file_in_the_way_is_already_exists_and_untouched() {
    let work = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "content", "c");
    std::fs::create_dir_all(dir.join("src/options")).unwrap();
    std::fs::write(dir.join("src/options/options.js"), "// mine\n").unwrap();
    let before = snapshot(&dir);
    let err = add(&request(&dir, Feature::Options)).unwrap_err();
    assert!(
        matches!(&err, FeatureError::Exists { file: Some(f), .. } if f == "src/options/options.js"),
        "{err}"
    );
    assert_eq!(snapshot(&dir), before);
}

/// Hostile projects: a pattern folder that is a symlink out of the project, a manifest
/// nested past the editor's depth limit, an MV2 manifest. Each is refused, nothing written.
#[test]
fn hostile_projects_are_refused_without_writing() {
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "content", "c");
    std::os::unix::fs::symlink(outside.path(), dir.join("src/popup")).unwrap();
    let before = snapshot(&dir);
    let err = add(&request(&dir, Feature::Popup)).unwrap_err();
    assert!(matches!(err, FeatureError::OutsideProject(_)), "{err}");
    assert_eq!(snapshot(&dir), before);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);

    let deep = work.path().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    let nested = format!(
        "{{\"manifest_version\": 3, \"name\": \"d\", \"version\": \"1\", \"x\": {}1{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    std::fs::write(deep.join("manifest.json"), &nested).unwrap();
    let err = add(&request(&deep, Feature::Devtools)).unwrap_err();
    assert!(matches!(err, FeatureError::Unsupported(_) | FeatureError::Manifest(_)), "{err}");
    assert_eq!(std::fs::read_to_string(deep.join("manifest.json")).unwrap(), nested);
    assert!(!deep.join("devtools").exists());

    let mv2 = work.path().join("mv2");
    std::fs::create_dir_all(&mv2).unwrap();
    std::fs::write(mv2.join("manifest.json"), r#"{"manifest_version": 2, "name": "o", "version": "1"}"#)
        .unwrap();
    let err = add(&request(&mv2, Feature::Popup)).unwrap_err();
    assert_eq!(ErrorBody::from(err).code.as_str(), "UNSUPPORTED");
    assert!(!mv2.join("popup").exists());
}

/// React and Preact surfaces are JSX (asked for, or the project's framework from
/// `package.json`); the manifest names the same pages, a content script's `.jsx`; the next
/// step names the packages to install; a second call changes nothing. Vue and Svelte
/// surfaces are single-file components with a mount module, built by the project's
/// toolchain; an unknown name is an invalid argument. (JSX surfaces build and render in
/// real browsers in `e2e::feature_frameworks`; the components compile below.)
#[test]
fn framework_surfaces_are_components_in_the_projects_framework() {
    let work = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "content", "c");
    let react = |feature| AddRequest { framework: Some("React".into()), ..request(&dir, feature) };
    let popup = add(&react(Feature::Popup)).unwrap();
    assert_eq!(popup.framework, "react");
    assert_eq!(popup.files, ["src/popup/popup.html", "src/popup/popup.jsx", "src/popup/popup.css"]);
    assert!(popup.validation.as_ref().unwrap().valid, "{:?}", popup.validation);
    let html = std::fs::read_to_string(dir.join("src/popup/popup.html")).unwrap();
    assert!(html.contains(r#"<script type="module" src="popup.jsx"></script>"#), "{html}");
    let jsx = std::fs::read_to_string(dir.join("src/popup/popup.jsx")).unwrap();
    assert!(jsx.contains("from 'react-dom/client'") && jsx.contains("<Popup />"), "{jsx}");
    assert!(popup.next_steps[0].starts_with("npm install react react-dom"), "{:?}", popup.next_steps);
    assert!(
        popup.manifest_diff.contains(r#""default_popup": "popup/popup.html""#),
        "{}",
        popup.manifest_diff
    );
    assert!(!add(&react(Feature::Popup)).unwrap().changed, "a second call changes nothing");

    let starter = project(work.path(), "newtab", "n");
    std::fs::write(starter.join("package.json"), r#"{"dependencies": {"preact": "10"}}"#).unwrap();
    let content = add(&request(&starter, Feature::ContentScript)).unwrap();
    assert_eq!(
        (content.framework, content.files.as_slice()),
        ("preact", &["src/content/content.jsx".to_owned()][..])
    );
    assert!(content.manifest_diff.contains(r#""content/content.jsx""#), "{}", content.manifest_diff);
    let script = std::fs::read_to_string(starter.join("src/content/content.jsx")).unwrap();
    assert!(script.starts_with("/** @jsxImportSource preact */") && script.contains("'data-extension-root'"));
    assert!(!add(&request(&starter, Feature::ContentScript)).unwrap().changed);
    // The background has no UI: vanilla whatever the framework.
    let background = add(&request(&starter, Feature::Background)).unwrap();
    assert_eq!(
        (background.framework, background.files.as_slice()),
        ("preact", &["src/background.js".to_owned()][..])
    );
    assert!(background.next_steps[0].starts_with("npm install preact"), "{:?}", background.next_steps);

    let vue = add(&AddRequest { framework: Some("vue".into()), ..request(&dir, Feature::Options) }).unwrap();
    assert_eq!(
        vue.files,
        [
            "src/options/options.html",
            "src/options/options.js",
            "src/options/Options.vue",
            "src/options/options.css"
        ]
    );
    assert!(vue.validation.as_ref().unwrap().valid, "{:?}", vue.validation);
    assert!(
        vue.next_steps[0].contains("npm install vue") && vue.next_steps[0].contains("toolchain"),
        "{:?}",
        vue.next_steps
    );
    std::fs::write(dir.join("package.json"), r#"{"dependencies": {"svelte": "5"}}"#).unwrap();
    let svelte = add(&request(&dir, Feature::Sidebar)).unwrap();
    assert_eq!(svelte.framework, "svelte");
    assert!(svelte.files.contains(&"src/sidebar/Sidebar.svelte".to_owned()), "{:?}", svelte.files);
    let err =
        add(&AddRequest { framework: Some("angular".into()), ..request(&dir, Feature::Newtab) }).unwrap_err();
    assert_eq!(ErrorBody::from(err).code.as_str(), "INVALID_ARGUMENT");
    assert!(!dir.join("src/newtab").exists(), "a refused framework writes nothing");
}

/// Every Vue and Svelte component `extension_add_feature` writes compiles, with no warning,
/// by the official compilers (`vue/compiler-sfc`, `svelte/compiler`, which `scripts/setup`
/// installs from the npm registry; skipped with the reason when they or Node are missing).
#[test]
fn generated_vue_and_svelte_components_compile() {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap();
    let modules = cache.join("webext-mcp-ci/sfc-deps/node_modules");
    if !modules.join("vue/package.json").is_file() || !modules.join("svelte/package.json").is_file() {
        eprintln!("skipped: no vue/svelte in {} (run scripts/setup online)", modules.display());
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let mut components = Vec::new();
    for framework in ["vue", "svelte"] {
        for (base, features) in [
            (
                "newtab",
                &[
                    Feature::Popup,
                    Feature::Options,
                    Feature::Sidebar,
                    Feature::Devtools,
                    Feature::ContentScript,
                ][..],
            ),
            ("starter", &[Feature::Newtab][..]),
            ("popup", &[Feature::History][..]),
            ("options", &[Feature::Bookmarks][..]),
        ] {
            let dir = project(work.path(), base, &format!("{framework}-{base}"));
            for &feature in features {
                let req = AddRequest { framework: Some(framework.into()), ..request(&dir, feature) };
                let out = add(&req).unwrap_or_else(|e| panic!("{framework} {}: {e}", feature.name()));
                assert!(out.validation.as_ref().unwrap().valid, "{:?}", out.validation);
                let ext = format!(".{framework}");
                components.extend(out.files.iter().filter(|f| f.ends_with(&ext)).map(|f| dir.join(f)));
            }
        }
    }
    assert_eq!(components.len(), 16, "{components:?}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/catalog/sfc-check.mjs");
    let run = std::process::Command::new("node")
        .arg(&script)
        .args(&components)
        .env("SFC_MODULES", &modules)
        .output();
    let Ok(run) = run else {
        eprintln!("skipped: node not found");
        return;
    };
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(text.lines().filter(|l| l.ends_with(": ok")).count(), 16, "{text}");
}

/// The CLI twins: `webext-mcp add-feature` and `call extension_add_feature` run the same
/// function; a bad feature is INVALID_ARGUMENT naming the features.
#[test]
fn the_cli_twins_add_and_refuse() {
    let work = tempfile::tempdir().unwrap();
    let dir = project(work.path(), "content", "c");
    let (code, out) =
        call(work.path(), "extension_add_feature", json!({"projectPath": "c", "feature": "newtab"}));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["changed"], true);
    assert!(dir.join("src/newtab/newtab.html").is_file());
    let (code, out) =
        call(work.path(), "extension_add_feature", json!({"projectPath": "c", "feature": "history"}));
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("ALREADY_EXISTS")), "{out}");
    let (code, out) =
        call(work.path(), "extension_add_feature", json!({"projectPath": "c", "feature": "widget"}));
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("INVALID_ARGUMENT")), "{out}");
    assert!(out["error"]["hint"].as_str().unwrap().contains("content-script"), "{out}");

    let home = tempfile::tempdir().unwrap();
    let verb = std::process::Command::new(super::bin())
        .arg("--home")
        .arg(home.path())
        .args(["add-feature", "devtools", "--project-path", "c", "--json"])
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(verb.status.success(), "{}", String::from_utf8_lossy(&verb.stdout));
    let out: serde_json::Value = serde_json::from_slice(&verb.stdout).unwrap();
    assert_eq!(out["files"][0], "src/devtools/devtools.html");
}
