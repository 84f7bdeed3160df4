//! An explicit `outDir` never wipes a user's folder (issue 15): the build replaces
//! `<outDir>/<browser>/` only when it is absent, empty or carries the build's marker
//! `.webext-mcp-build`; anything else is `ALREADY_EXISTS` and nothing is touched. The default
//! `dist/<browser>/` is ours by convention and still replaced (older builds wrote no marker).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::{MARKER, Project, tree, tree_all, zip_names};

const MANIFEST: &str =
    r#"{"manifest_version":3,"name":"Out Dir","version":"1.0","background":{"service_worker":"sw.js"}}"#;

fn project() -> Project {
    let p = Project::empty();
    p.write("manifest.json", MANIFEST).write("sw.js", "void 0;\n");
    p
}

/// Every file and folder under `root` with its bytes (`None` for folders).
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

#[test]
fn out_dir_holding_a_users_folder_is_refused_and_left_byte_for_byte() {
    let p = project();
    p.write("site/chrome/notes.txt", "my notes\n")
        .write("site/chrome/photos/cat.bin", [0u8, 1, 2, 255])
        .write("site/index.html", "<h1>mine</h1>");
    let before = snapshot(&p.path().join("site"));
    let run = p.build(&["--out-dir", "site"]);
    let (code, e) = run.error();
    assert_eq!(code, "ALREADY_EXISTS", "{e:#}");
    let folder = p.path().join("site/chrome");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains(&folder.display().to_string()) && message.contains(MARKER), "{message}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains("outDir") && hint.contains(&folder.display().to_string()), "{hint}");
    assert_eq!(e["data"]["path"], folder.display().to_string());
    assert_eq!(snapshot(&p.path().join("site")), before, "nothing under outDir may change");
    assert!(!p.path().join("dist").exists());
}

#[test]
fn out_dir_with_a_file_where_the_browser_folder_goes_is_refused() {
    let p = project();
    p.write("out/chrome", "a file of mine");
    let before = snapshot(&p.path().join("out"));
    assert_eq!(p.build(&["--out-dir", "out"]).error().0, "ALREADY_EXISTS");
    assert_eq!(snapshot(&p.path().join("out")), before);
}

#[test]
fn a_second_build_into_the_same_out_dir_replaces_its_own_marked_output() {
    let p = project();
    // An empty folder is safe to use: nothing in it can be lost.
    std::fs::create_dir_all(p.path().join("build-out/chrome")).unwrap();
    let run = p.build(&["--out-dir", "build-out", "--zip"]);
    let b = run.build_for("chrome");
    let out = p.path().join("build-out/chrome");
    let marker: Value = serde_json::from_str(&std::fs::read_to_string(out.join(MARKER)).unwrap()).unwrap();
    assert_eq!(marker["tool"], "webext-mcp");
    assert_eq!(marker["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(marker["browser"], "chrome");
    // The marker is neither an extension file nor in the store zip.
    assert!(b["files"].as_array().unwrap().iter().all(|f| f["path"] != MARKER), "{b:#}");
    assert_eq!(zip_names(&out.join("out-dir-1.0.zip")), ["manifest.json", "sw.js"]);

    // Rebuilt into its own, marked folder: replaced, stale files gone.
    std::fs::write(out.join("stale.txt"), "from an older build").unwrap();
    p.build(&["--out-dir", "build-out"]).builds();
    assert_eq!(tree_all(&out), [MARKER, "manifest.json", "sw.js"]);
}

#[test]
fn the_default_dist_folder_without_a_marker_is_still_replaced_and_gets_one() {
    let p = project();
    // dist/chrome from a webext-mcp that wrote no marker.
    p.write("dist/chrome/old.js", "old");
    p.build(&[]).builds();
    let out = p.path().join("dist/chrome");
    assert_eq!(tree(&out), ["manifest.json", "sw.js"]);
    assert!(out.join(MARKER).is_file());
    // `--out-dir dist` is the default spelled out.
    p.write("dist/chrome/old.js", "old");
    std::fs::remove_file(out.join(MARKER)).unwrap();
    p.build(&["--out-dir", "dist"]).builds();
    assert_eq!(tree(&out), ["manifest.json", "sw.js"]);
}
