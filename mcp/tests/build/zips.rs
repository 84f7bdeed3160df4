//! Store zips and source zips: names, places, exact entries, and the source deny list.

use super::{MARKER, Project, tree, tree_all, zip_names};

#[test]
fn store_zips_hold_exactly_the_output_and_are_named_from_the_localized_name() {
    let p = Project::fixture("popup-background");
    let run = p.build(&["--browser", "chrome,firefox", "--zip"]);
    for browser in ["chrome", "firefox"] {
        let b = run.build_for(browser);
        // Beside the folder users load, never inside it.
        let zip = p.path().join(format!("dist/popup-background-demo-1.2.0-{browser}.zip"));
        assert_eq!(b["zipPath"].as_str().unwrap(), zip.to_str().unwrap());
        let expected: Vec<String> = tree(&p.path().join("dist").join(browser));
        assert!(!expected.iter().any(|f| f.ends_with(".zip")), "a zip inside dist/{browser}: {expected:?}");
        assert_eq!(zip_names(&zip), expected, "{browser}");
        // The output folder carries the build's marker; the store zip does not.
        assert!(tree_all(&p.path().join("dist").join(browser)).contains(&MARKER.to_owned()));
        assert!(!zip_names(&zip).contains(&MARKER.to_owned()));
        // The zip is not listed among the extension's files.
        assert!(
            b["files"].as_array().unwrap().iter().all(|f| !f["path"].as_str().unwrap().ends_with(".zip"))
        );
    }
    // Same input, same bytes.
    let first = std::fs::read(p.path().join("dist/popup-background-demo-1.2.0-chrome.zip")).unwrap();
    p.build(&["--browser", "chrome", "--zip"]).builds();
    let second = std::fs::read(p.path().join("dist/popup-background-demo-1.2.0-chrome.zip")).unwrap();
    assert_eq!(first, second);
    // Nothing else is left in dist/: no empty build locks, no half-written zips.
    let mut top: Vec<String> = std::fs::read_dir(p.path().join("dist"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != MARKER)
        .collect();
    top.sort();
    assert_eq!(
        top,
        [
            "chrome",
            "firefox",
            "popup-background-demo-1.2.0-chrome.zip",
            "popup-background-demo-1.2.0-firefox.zip"
        ]
    );
}

#[test]
fn a_name_keeps_its_hyphens_in_the_zip_name() {
    let p = Project::empty();
    p.write("manifest.json", r#"{"manifest_version":3,"name":"My-Tab Saver","version":"1.0"}"#);
    let zip = p.build(&["--zip"]).build_for("chrome")["zipPath"].as_str().unwrap().to_owned();
    assert!(zip.ends_with("/dist/my-tab-saver-1.0-chrome.zip"), "{zip}");
}

#[test]
fn source_zip_excludes_every_denied_path_even_without_gitignore() {
    let p = Project::fixture("prefixed");
    p.write(".env.local", "TOKEN=x")
        .write("sub/.env", "TOKEN=y")
        .write("key.pem", "-----BEGIN-----")
        .write(".git/config", "[core]")
        .write("pkg/node_modules/x/i.js", "1")
        .write(".extension-js/cache.json", "{}")
        .write("dist/old/leftover.js", "1");
    assert!(!p.path().join(".gitignore").exists());
    let run = p.build(&["--browser", "chrome", "--zip-source"]);
    let b = run.build_for("chrome");
    let src = p.path().join("dist/prefixed-keys-fixture-0.3.1-source.zip");
    assert_eq!(b["sourceZipPath"].as_str().unwrap(), src.to_str().unwrap());
    let names = zip_names(&src);
    for denied in [
        ".env",
        ".env.local",
        "sub/.env",
        "key.pem",
        ".git/config",
        "pkg/node_modules/x/i.js",
        ".extension-js/cache.json",
        "node_modules/left-pad/index.js",
        "dist/old/leftover.js",
    ] {
        assert!(!names.iter().any(|n| n == denied), "{denied} in {names:?}");
    }
    assert!(!names.iter().any(|n| n.starts_with("dist/")), "{names:?}");
    for kept in ["manifest.json", "notes.md", "public/robots.txt", "images/notes.txt", "content/main.js"] {
        assert!(names.iter().any(|n| n == kept), "{kept} missing from {names:?}");
    }
}

#[test]
fn source_zip_honours_gitignore() {
    let p = Project::fixture("prefixed");
    p.write(".gitignore", "notes.md\nimages/\n!.env\n");
    p.build(&["--browser", "chrome", "--zip-source"]).builds();
    let names = zip_names(&p.path().join("dist/prefixed-keys-fixture-0.3.1-source.zip"));
    assert!(names.contains(&".gitignore".to_owned()));
    assert!(!names.iter().any(|n| n == "notes.md" || n.starts_with("images/")), "{names:?}");
    // A negation cannot bring a denied file back.
    assert!(!names.contains(&".env".to_owned()));
}

#[test]
fn zip_name_falls_back_to_the_folder_name() {
    let p = Project::empty();
    p.write("manifest.json", r#"{"manifest_version":3,"name":"__MSG_missing__","version":"2.0"}"#);
    let run = p.build(&["--zip"]);
    let zip = run.build_for("chrome")["zipPath"].as_str().unwrap().to_owned();
    let folder = p
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_lowercase()
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "");
    assert!(zip.ends_with(&format!("/{folder}-2.0-chrome.zip")), "{zip}");
}
