//! A failed build never leaves a half-written `dist/<browser>/`: the previous output stays
//! byte for byte, and no staging folder is left behind.

use super::{Project, tree};

#[test]
fn failing_build_leaves_the_old_output_intact() {
    let p = Project::fixture("popup-background");
    p.build(&["--browser", "chrome"]).builds();
    let before = tree(&p.path().join("dist/chrome"));
    let manifest_before = p.read("dist/chrome/manifest.json");

    // Break the project: the popup now references a script that does not exist.
    p.write("popup/popup.html", r#"<!doctype html><script src="gone.js"></script>"#);
    let run = p.build(&["--browser", "chrome"]);
    let (code, _) = run.error();
    assert_eq!(code, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_MISSING_FILE"]);

    assert_eq!(tree(&p.path().join("dist/chrome")), before);
    assert_eq!(p.read("dist/chrome/manifest.json"), manifest_before);
    let leftovers: Vec<String> = std::fs::read_dir(p.path().join("dist"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("staging") || n.contains("-old-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn rebuild_replaces_stale_files() {
    let p = Project::fixture("popup-background");
    p.build(&["--browser", "chrome"]).builds();
    std::fs::write(p.path().join("dist/chrome/stale.txt"), "from an older build").unwrap();
    p.build(&["--browser", "chrome"]).builds();
    assert!(!p.path().join("dist/chrome/stale.txt").exists());
    assert!(p.path().join("dist/chrome/manifest.json").is_file());
}
