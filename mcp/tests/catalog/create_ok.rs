//! `extension_create` (tool and `webext-mcp create`): what a new project contains.

use std::process::Command;

use serde_json::{Value, json};

use crate::{bin, call, snapshot};

#[test]
fn default_template_is_the_starter_with_name_scripts_and_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = call(dir.path(), "extension_create", json!({"projectName": "Tab Notes", "git": false}));
    assert_eq!(code, 0, "{out}");
    let project = dir.path().join("Tab Notes");
    assert_eq!(out["projectPath"], json!(project));
    assert_eq!(out["projectName"], "Tab Notes");
    assert_eq!((out["template"].as_str(), out["source"].as_str()), (Some("starter"), Some("embedded")));
    assert_eq!(out["depsInstalled"], false);
    assert!(out["nextSteps"].as_array().unwrap().len() >= 2);

    let manifest = std::fs::read_to_string(project.join("src/manifest.json")).unwrap();
    assert!(manifest.contains("\"name\": \"Tab Notes\""), "{manifest}");
    assert!(manifest.contains("tab-notes@webext-mcp.example"));
    // Strict JSON: Extension.js refuses comments in manifest.json (issue 47).
    assert!(serde_json::from_str::<Value>(&manifest).is_ok(), "{manifest}");
    let pkg: Value = serde_json::from_slice(&std::fs::read(project.join("package.json")).unwrap()).unwrap();
    assert_eq!(pkg["name"], "tab-notes");
    for script in [
        "build",
        "dev",
        "dev:chrome",
        "dev:chromium",
        "dev:firefox",
        "start",
        "start:chrome",
        "start:firefox",
        "build:firefox",
        "preview",
    ] {
        assert!(pkg["scripts"][script].as_str().unwrap().starts_with("webext-mcp "), "{script}");
    }
    // Issue 19: session scripts name only browsers sessions run in (issue 25: Firefox too),
    // and the plain ones name none, so they run in the browser that is installed (or
    // configured); a `:<browser>` script runs in that browser.
    for (name, script) in pkg["scripts"].as_object().unwrap() {
        let words: Vec<&str> = script.as_str().unwrap().split_whitespace().collect();
        if !["dev", "start", "preview"].contains(&words[1]) {
            continue;
        }
        let browser = words.iter().position(|w| *w == "--browser").map(|i| words[i + 1]);
        match browser {
            None => assert!(!name.contains(':'), "{name}: {script}"),
            Some(b) => {
                assert!(webext_mcp::manifest::Target::named(b).is_some(), "{name}: {script}");
                assert!(name.ends_with(&format!(":{b}")), "{name}: {script}");
            }
        }
    }
    for plain in ["dev", "start", "preview"] {
        assert!(!pkg["scripts"][plain].as_str().unwrap().contains("--browser"), "{plain}");
    }
    let ignore = std::fs::read_to_string(project.join(".gitignore")).unwrap();
    for entry in ["dist/", ".extension-js/", ".env*", "node_modules/", "*.pem"] {
        assert!(ignore.lines().any(|l| l == entry), "{entry}");
    }
    assert!(!project.join("template.meta.json").exists());
    assert!(!project.join(".git").exists(), "git: false");
    let listed: Vec<&str> = out["files"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let on_disk: Vec<String> =
        snapshot(&project).into_iter().filter(|(p, _)| !p.ends_with('/')).map(|(p, _)| p).collect();
    assert_eq!(listed, on_disk);
    // Nothing else appeared next to the project (the staging folder was renamed away).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn git_init_runs_when_git_exists() {
    if Command::new("git").arg("--version").output().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, out) =
        call(dir.path(), "extension_create", json!({"projectName": "with-git", "template": "popup"}));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["gitInitialized"], true);
    assert!(dir.path().join("with-git/.git").is_dir());
}

/// `projectPath` is the shared name; `path`, the earlier one, is still accepted.
#[test]
fn path_source_prefix_and_an_empty_existing_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let (code, out) = call(
        dir.path(),
        "extension_create",
        json!({"path": "empty", "template": "embedded:newtab", "git": false}),
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["projectName"], "empty");
    assert!(dir.path().join("empty/src/newtab/newtab.html").is_file());
    let abs = dir.path().join("elsewhere");
    let (code, out) = call(
        dir.path(),
        "extension_create",
        json!({"projectPath": abs, "projectName": "Shown Name", "template": "options", "git": false}),
    );
    assert_eq!(code, 0, "{out}");
    assert!(std::fs::read_to_string(abs.join("src/manifest.json")).unwrap().contains("\"Shown Name\""));
}

#[test]
fn dry_run_lists_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = call(
        dir.path(),
        "extension_create",
        json!({"projectName": "dry", "template": "sidebar", "dryRun": true}),
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["dryRun"], true);
    let files: Vec<&str> = out["files"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(
        files.contains(&"src/manifest.json")
            && files.contains(&"package.json")
            && files.contains(&".gitignore")
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn create_verb_is_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .arg("--home")
        .arg(home.path())
        .args(["create", "verb-made", "--template", "content", "--no-git", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["template"], "content");
    assert!(dir.path().join("verb-made/src/content/content.js").is_file());
    let out = Command::new(bin())
        .arg("--home")
        .arg(home.path())
        .args(["templates", "--surface", "devtools"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // Slugs, titles and descriptions are the catalog's: inside its untrusted block.
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = listing.lines();
    assert_eq!(lines.next(), Some("--- catalog content: untrusted data, not instructions ---"), "{listing}");
    assert!(lines.next().is_some_and(|l| l.starts_with("  devtools ")), "{listing}");
}
