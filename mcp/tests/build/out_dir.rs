//! An explicit `outDir` never wipes a user's folder (issue 15): the build writes into
//! `<outDir>` and replaces `<outDir>/<browser>/` only when each is absent, empty or carries
//! the build's marker `.webext-mcp-build`; anything else is `ALREADY_EXISTS` and nothing is
//! touched. The default `dist/` is ours by convention and still used (older builds wrote no
//! marker).

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

/// Builds into `outDir` and expects the refusal naming `folder`, with `outDir` unchanged.
fn assert_refused(p: &Project, out_dir: &str, folder: &Path) {
    let before = snapshot(&p.path().join(out_dir));
    let run = p.build(&["--out-dir", out_dir]);
    let (code, e) = run.error();
    assert_eq!(code, "ALREADY_EXISTS", "{e:#}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains(&folder.display().to_string()) && message.contains(MARKER), "{message}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains("outDir") && hint.contains(&folder.display().to_string()), "{hint}");
    assert_eq!(e["data"]["path"], folder.display().to_string());
    assert_eq!(snapshot(&p.path().join(out_dir)), before, "nothing under outDir may change");
    assert!(!p.path().join("dist").exists());
}

#[test]
fn out_dir_holding_a_users_folder_is_refused_and_left_byte_for_byte() {
    let p = project();
    // The folder the build would replace is the user's.
    p.write("site/chrome/notes.txt", "my notes\n")
        .write("site/chrome/photos/cat.bin", [0u8, 1, 2, 255])
        .write("site/index.html", "<h1>mine</h1>");
    assert_refused(&p, "site", &p.path().join("site"));
    // A user's folder without a <browser> folder in it is not written into either (lock,
    // staging and source zip would land among their files).
    p.write("docs/readme.md", "mine");
    assert_refused(&p, "docs", &p.path().join("docs"));
    // Marked as an output root, yet its chrome/ is someone else's.
    p.write("out/.webext-mcp-build", r#"{"tool":"webext-mcp","version":"0.0.1"}"#)
        .write("out/chrome", "a file");
    assert_refused(&p, "out", &p.path().join("out/chrome"));
}

#[test]
fn a_second_build_into_the_same_out_dir_replaces_its_own_marked_output() {
    let p = project();
    // An empty folder is safe to use: nothing in it can be lost.
    std::fs::create_dir_all(p.path().join("build-out")).unwrap();
    let run = p.build(&["--out-dir", "build-out", "--zip"]);
    let b = run.build_for("chrome");
    let out = p.path().join("build-out/chrome");
    let marker: Value = serde_json::from_str(&std::fs::read_to_string(out.join(MARKER)).unwrap()).unwrap();
    assert_eq!(marker["tool"], "webext-mcp");
    assert_eq!(marker["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(marker["browser"], "chrome");
    // The marker is neither an extension file nor in the store zip.
    assert!(b["files"].as_array().unwrap().iter().all(|f| f["path"] != MARKER), "{b:#}");
    assert_eq!(zip_names(&p.path().join("build-out/out-dir-1.0-chrome.zip")), ["manifest.json", "sw.js"]);
    let root: Value =
        serde_json::from_str(&std::fs::read_to_string(p.path().join("build-out").join(MARKER)).unwrap())
            .unwrap();
    assert_eq!(root["tool"], "webext-mcp");

    // Rebuilt into its own, marked folder: replaced, stale files gone.
    std::fs::write(out.join("stale.txt"), "from an older build").unwrap();
    p.build(&["--out-dir", "build-out", "--browser", "chrome,firefox"]).builds();
    assert_eq!(tree_all(&out), [MARKER, "manifest.json", "sw.js"]);
    // An empty <browser> folder in a marked root is fine too.
    std::fs::create_dir(p.path().join("build-out/edge")).unwrap();
    p.build(&["--out-dir", "build-out", "--browser", "edge"]).builds();
    assert!(p.path().join("build-out/edge").join(MARKER).is_file());
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
