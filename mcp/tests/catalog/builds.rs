//! Every embedded template, created as a project, builds natively for Chrome and Firefox,
//! and every file it ships ends up in the output.

use std::path::PathBuf;
use std::time::Duration;

use webext_mcp::build::{self, BuildRequest, Pipeline};
use webext_mcp::catalog::Catalog;
use webext_mcp::catalog::create::{CreateRequest, create};
use webext_mcp::manifest::parse_targets;

/// Files of a project that are not part of the extension.
fn project_only(path: &str) -> bool {
    matches!(path, "README.md" | "package.json" | ".gitignore")
}

#[test]
fn every_template_builds_natively_for_chrome_and_firefox() {
    let catalog = Catalog::embedded();
    let work = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for t in catalog.templates() {
        let dest = work.path().join(&t.slug);
        let req = CreateRequest {
            dest: dest.clone(),
            project_name: format!("{} test", t.slug),
            template: t.slug.clone(),
            install: false,
            dry_run: false,
            git: None,
        };
        let created = create(catalog, &req).unwrap();
        let breq = BuildRequest {
            project: dest.clone(),
            targets: parse_targets(&["chrome".into(), "firefox".into()]).unwrap(),
            zip: true,
            zip_source: false,
            out_dir: dest.join("dist"),
            session: None,
            allow_delegation: false,
            allow_npx: false,
            node: None,
            timeout: Duration::from_secs(60),
            cancel: None,
        };
        let builds = match build::build(&breq, &mut |_| {}) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e:?}", t.slug));
                continue;
            }
        };
        for b in &builds {
            assert_eq!(b.pipeline, Pipeline::Native, "{}", t.slug);
            if !b.warnings.is_empty() {
                failures.push(format!("{} {}: warnings {:?}", t.slug, b.browser, b.warnings));
            }
            let out: Vec<String> = b.files.iter().map(|f| f.path.clone()).collect();
            for file in created.files.iter().filter(|f| !project_only(f)) {
                // src/x → x (the manifest's folder is the extension root); pages/x stays.
                let shipped = file.strip_prefix("src/").unwrap_or(file);
                if !out.iter().any(|o| o == shipped) {
                    failures.push(format!("{} {}: {file} is not in the output", t.slug, b.browser));
                }
            }
            let manifest: serde_json::Value =
                serde_json::from_slice(&std::fs::read(b.output_path.join("manifest.json")).unwrap()).unwrap();
            assert_eq!(manifest["manifest_version"], 3, "{}", t.slug);
            assert_eq!(manifest["name"], format!("{} test", t.slug));
            let text = manifest.to_string();
            assert!(!text.contains("chromium:") && !text.contains("firefox:"), "{}: prefixes left", t.slug);
            if b.browser == "firefox" {
                assert!(manifest["browser_specific_settings"]["gecko"]["id"].is_string(), "{}", t.slug);
                assert!(manifest["background"].get("service_worker").is_none(), "{}", t.slug);
            } else {
                assert!(manifest.get("browser_specific_settings").is_none(), "{}", t.slug);
            }
            assert!(b.zip_path.as_ref().is_some_and(|z: &PathBuf| z.is_file()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
