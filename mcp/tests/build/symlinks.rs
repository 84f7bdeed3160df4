//! Builds stay inside the project (issue 15): a file the build would copy or read whose real
//! path (after symlinks) is outside the project is `MANIFEST_PATH_OUTSIDE`, the build fails
//! and the old output stays. Links inside the project, and pnpm's `node_modules` links into
//! the workspace's `node_modules/.pnpm`, keep working. The source zip never follows a link.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::{Project, tree, zip_names};

const SECRET: &str = "SECRET-KEY-MATERIAL";

/// Every file under `root` with its bytes.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    super::tree_all(root)
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(root.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

fn contains_secret(root: &Path) -> bool {
    files(root).values().any(|b| String::from_utf8_lossy(b).contains(SECRET))
}

#[test]
fn a_symlink_out_of_the_project_is_refused_and_dist_is_untouched() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("id_ed25519"), SECRET).unwrap();
    std::fs::create_dir(outside.path().join("lib")).unwrap();
    std::fs::write(outside.path().join("lib/vendor.js"), format!("// {SECRET}\n")).unwrap();

    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Links","version":"1.0",
            "content_scripts":[{"matches":["<all_urls>"],"js":["vendor/vendor.js","content.js"]}]}"#,
    )
    .write("content.js", "void 0;\n")
    .write("vendor/vendor.js", "void 1;\n");
    p.build(&["--zip"]).builds();
    let before = files(&p.path().join("dist"));

    // A referenced file, a folder on a referenced path, and a file in public/ lead out.
    std::fs::remove_file(p.path().join("content.js")).unwrap();
    symlink(outside.path().join("id_ed25519"), p.path().join("content.js")).unwrap();
    std::fs::remove_dir_all(p.path().join("vendor")).unwrap();
    symlink(outside.path().join("lib"), p.path().join("vendor")).unwrap();
    std::fs::create_dir(p.path().join("public")).unwrap();
    symlink(outside.path().join("id_ed25519"), p.path().join("public/key.txt")).unwrap();

    let run = p.build(&["--zip"]);
    let (code, e) = run.error();
    assert_eq!(code, "BUILD_FAILED", "{e:#}");
    let findings = e["data"]["findings"].as_array().unwrap();
    let outside_real = std::fs::canonicalize(outside.path()).unwrap();
    for (file, how) in [
        ("content.js", "`content.js` is a symlink to"),
        ("vendor/vendor.js", "through the symlink `vendor`"),
        ("public/key.txt", "`public/key.txt` is a symlink to"),
    ] {
        let f = findings
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("no finding for {file}: {findings:#?}"));
        assert_eq!(f["code"], "MANIFEST_PATH_OUTSIDE");
        let message = f["message"].as_str().unwrap();
        assert!(message.contains(how), "{message}");
        assert!(message.contains(&outside_real.display().to_string()), "{message}");
        assert!(!message.contains(SECRET), "messages never carry file contents");
    }
    assert_eq!(files(&p.path().join("dist")), before, "the old output must stay as it was");
    assert!(!contains_secret(&p.path().join("dist")));
}

#[test]
fn a_manifest_symlinked_out_of_the_project_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("manifest.json"),
        r#"{"manifest_version":3,"name":"Elsewhere","version":"1.0"}"#,
    )
    .unwrap();
    let p = Project::empty();
    symlink(outside.path().join("manifest.json"), p.path().join("manifest.json")).unwrap();
    let run = p.build(&[]);
    assert_eq!(run.error().0, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_PATH_OUTSIDE"]);
    assert!(!p.path().join("dist/chrome").exists());
}

#[test]
fn symlinks_that_stay_inside_the_project_keep_working() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Inside","version":"1.0","background":{"service_worker":"sw.js"},
            "content_scripts":[{"matches":["<all_urls>"],"js":["lib/shared.js"]}]}"#,
    )
    .write("shared/sw.js", "void 'sw';\n")
    .write("shared/lib/shared.js", "void 'shared';\n")
    .write("assets/icon.txt", "icon");
    symlink("shared/sw.js", p.path().join("sw.js")).unwrap();
    symlink("shared/lib", p.path().join("lib")).unwrap();
    std::fs::create_dir(p.path().join("public")).unwrap();
    symlink("../assets/icon.txt", p.path().join("public/icon.txt")).unwrap();
    p.build(&["--zip"]).builds();
    let out = p.path().join("dist/chrome");
    assert_eq!(tree(&out), ["icon.txt", "lib/shared.js", "manifest.json", "sw.js"]);
    assert_eq!(zip_names(&p.path().join("dist/inside-1.0-chrome.zip")), tree(&out));
    assert_eq!(p.read("dist/chrome/sw.js"), "void 'sw';\n");
    assert_eq!(p.read("dist/chrome/lib/shared.js"), "void 'shared';\n");
    assert_eq!(p.read("dist/chrome/icon.txt"), "icon");
}

/// A pnpm workspace: `<ws>/pnpm-workspace.yaml`, the store `<ws>/node_modules/.pnpm`, and the
/// extension `<ws>/ext` whose `node_modules/pkg` links into it.
fn pnpm_workspace(marker: (&str, &str)) -> Project {
    let ws = Project::empty();
    ws.write(marker.0, marker.1)
        .write("node_modules/.pnpm/pkg@1.0.0/node_modules/pkg/dist/polyfill.js", "void 'polyfill';\n")
        .write(
            "ext/manifest.json",
            r#"{"manifest_version":3,"name":"Pnpm","version":"1.0",
                "content_scripts":[{"matches":["<all_urls>"],"js":["node_modules/pkg/dist/polyfill.js","content.js"]}]}"#,
        )
        .write("ext/content.js", "void 0;\n");
    std::fs::create_dir(ws.path().join("ext/node_modules")).unwrap();
    symlink("../../node_modules/.pnpm/pkg@1.0.0/node_modules/pkg", ws.path().join("ext/node_modules/pkg"))
        .unwrap();
    ws
}

#[test]
fn pnpm_node_modules_links_into_the_parent_workspace_still_build() {
    for marker in [
        ("pnpm-workspace.yaml", "packages:\n  - ext\n"),
        ("package.json", r#"{"name":"mono","private":true,"workspaces":["ext"]}"#),
    ] {
        let ws = pnpm_workspace(marker);
        let ext = ws.path().join("ext");
        ws.build_at(&ext, &[], &[]).builds();
        assert_eq!(
            tree(&ext.join("dist/chrome")),
            ["content.js", "manifest.json", "node_modules/pkg/dist/polyfill.js"],
            "{marker:?}"
        );
        assert_eq!(ws.read("ext/dist/chrome/node_modules/pkg/dist/polyfill.js"), "void 'polyfill';\n");
    }
}

#[test]
fn node_modules_links_outside_the_workspace_store_are_refused() {
    // No workspace declared: the parent's node_modules is outside the project.
    let ws = pnpm_workspace(("README.md", "not a workspace"));
    let ext = ws.path().join("ext");
    let run = ws.build_at(&ext, &[], &[]);
    assert_eq!(run.finding_codes(), ["MANIFEST_PATH_OUTSIDE"]);
    // A workspace, but the link leads elsewhere in it (not its node_modules).
    let ws = pnpm_workspace(("pnpm-workspace.yaml", "packages:\n  - ext\n"));
    ws.write("private/pkg/dist/polyfill.js", SECRET);
    let link = ws.path().join("ext/node_modules/pkg");
    std::fs::remove_file(&link).unwrap();
    symlink("../../private/pkg", &link).unwrap();
    let run = ws.build_at(&ws.path().join("ext"), &[], &[]);
    assert_eq!(run.finding_codes(), ["MANIFEST_PATH_OUTSIDE"]);
    let message = run.error().1["data"]["findings"][0]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("through the symlink `node_modules/pkg`"), "{message}");
}

#[test]
fn the_source_zip_never_follows_a_symlink_out_of_the_project() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("id_ed25519"), SECRET).unwrap();
    std::fs::create_dir(outside.path().join("dir")).unwrap();
    std::fs::write(outside.path().join("dir/notes.txt"), SECRET).unwrap();
    let p = Project::empty();
    p.write("manifest.json", r#"{"manifest_version":3,"name":"Src Zip","version":"1.0"}"#)
        .write("notes/readme.txt", "mine");
    symlink(outside.path().join("id_ed25519"), p.path().join("notes/key.txt")).unwrap();
    symlink(outside.path().join("dir"), p.path().join("linked")).unwrap();
    // A linked .gitignore is not read either (it would drop notes/ from the zip).
    std::fs::write(outside.path().join("gitignore"), "notes/\n").unwrap();
    symlink(outside.path().join("gitignore"), p.path().join(".gitignore")).unwrap();
    let run = p.build(&["--zip-source"]);
    let source_zip = run.builds()[0]["sourceZipPath"].as_str().unwrap().to_owned();
    assert_eq!(zip_names(Path::new(&source_zip)), ["manifest.json", "notes/readme.txt"]);
}
