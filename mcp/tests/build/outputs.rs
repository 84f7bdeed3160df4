//! Per-browser output: the right files, the right manifest, nothing else.

use serde_json::Value;

use super::{Project, tree};

fn manifest(p: &Project, browser: &str) -> Value {
    serde_json::from_str(&p.read(&format!("dist/{browser}/manifest.json"))).unwrap()
}

#[test]
fn popup_and_background_build_for_chromium_and_gecko() {
    let p = Project::fixture("popup-background");
    let run = p.build(&["--browser", "chrome,firefox"]);
    assert_eq!(run.builds().len(), 2);
    let expected = [
        "_locales/en/messages.json",
        "background.js",
        "icons/icon128.png",
        "icons/icon16.png",
        "icons/icon48.png",
        "manifest.json",
        "popup/popup.css",
        "popup/popup.html",
        "popup/popup.js",
    ];
    for browser in ["chrome", "firefox"] {
        assert_eq!(tree(&p.path().join("dist").join(browser)), expected, "{browser}");
        let b = run.build_for(browser);
        assert_eq!(b["pipeline"], "native");
        assert_eq!(b["files"].as_array().unwrap().len(), expected.len());
        assert!(b["durationMs"].is_u64());
        assert!(b.get("zipPath").is_none());
        let sum: u64 = b["files"].as_array().unwrap().iter().map(|f| f["bytes"].as_u64().unwrap()).sum();
        assert_eq!(b["bytes"].as_u64(), Some(sum));
    }
    let chrome = manifest(&p, "chrome");
    assert_eq!(chrome["background"], serde_json::json!({"service_worker": "background.js"}));
    assert_eq!(chrome["minimum_chrome_version"], "120");
    assert!(chrome.get("browser_specific_settings").is_none());
    let firefox = manifest(&p, "firefox");
    assert_eq!(firefox["background"], serde_json::json!({"scripts": ["background.js"]}));
    assert_eq!(firefox["browser_specific_settings"]["gecko"]["id"], "popup-background@webext-mcp.test");
    assert!(firefox.get("minimum_chrome_version").is_none());
    // Placeholders stay for the browser to resolve.
    assert_eq!(firefox["name"], "__MSG_extName__");
    // Sources are copied byte for byte.
    assert_eq!(p.read("dist/chrome/popup/popup.js"), p.read("popup/popup.js"));
}

#[test]
fn public_folder_globs_and_exclusions() {
    let p = Project::fixture("prefixed");
    let run = p.build(&["--browser", "chrome,firefox,edge,brave"]);
    assert_eq!(run.builds().len(), 4);
    let common = [
        "content/main.js",
        "content/style.css",
        "icon.png",
        "images/a.png",
        "images/b.png",
        "manifest.json",
        "options.css",
        "options.html",
        "options.js",
        "robots.txt",
    ];
    let with = |extra: &str| {
        let mut v: Vec<String> = common.iter().map(|s| (*s).to_owned()).collect();
        v.push(extra.to_owned());
        v.sort();
        v
    };
    assert_eq!(tree(&p.path().join("dist/chrome")), with("sw.js"));
    assert_eq!(tree(&p.path().join("dist/edge")), with("sw.js"));
    assert_eq!(tree(&p.path().join("dist/brave")), with("sw.js"));
    assert_eq!(tree(&p.path().join("dist/firefox")), with("bg-firefox.js"));

    assert_eq!(manifest(&p, "brave")["description"], "Only Brave sees this");
    assert_eq!(manifest(&p, "chrome")["description"], "Everyone else sees this");
    assert_eq!(manifest(&p, "chrome")["permissions"], serde_json::json!(["storage", "sidePanel", "tabs"]));
    // `chrome:` is a Chromium family prefix: Edge takes it too (Extension.js does the same).
    assert_eq!(manifest(&p, "edge")["permissions"], serde_json::json!(["storage", "sidePanel", "tabs"]));
    assert_eq!(manifest(&p, "firefox")["permissions"], serde_json::json!(["storage"]));
    assert_eq!(manifest(&p, "edge")["content_scripts"][0]["all_frames"], true);
    assert_eq!(manifest(&p, "firefox")["content_scripts"][0]["run_at"], "document_start");
    assert!(manifest(&p, "chrome")["content_scripts"][0].get("run_at").is_none());
}

#[test]
fn several_chromium_background_scripts_are_joined_by_a_generated_worker() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Joined","version":"1.0","background":{"scripts":["a.js","lib/b.js"]}}"#,
    )
    .write("a.js", "self.a = 1;\n")
    .write("lib/b.js", "self.b = 2;\n");
    let run = p.build(&["--browser", "chrome,firefox"]);
    let chrome = manifest(&p, "chrome");
    assert_eq!(chrome["background"]["service_worker"], "webext-mcp-background.js");
    assert!(chrome["background"].get("scripts").is_none());
    let worker = p.read("dist/chrome/webext-mcp-background.js");
    assert!(worker.contains(r#"importScripts("/a.js", "/lib/b.js")"#), "{worker}");
    let warnings = run.build_for("chrome")["warnings"].as_array().unwrap().clone();
    assert_eq!(warnings[0]["code"], "MANIFEST_BACKGROUND_SCRIPTS_JOINED");
    assert_eq!(manifest(&p, "firefox")["background"]["scripts"], serde_json::json!(["a.js", "lib/b.js"]));
}

#[test]
fn src_manifest_is_preferred_and_its_folder_is_the_root() {
    let p = Project::empty();
    p.write("src/manifest.json", r#"{"manifest_version":3,"name":"Src","version":"1.0","content_scripts":[{"matches":["<all_urls>"],"js":["c.js"]}]}"#)
        .write("src/c.js", "void 0;\n")
        .write("manifest.json", "not used {");
    p.build(&[]).builds();
    assert_eq!(tree(&p.path().join("dist/chrome")), ["c.js", "manifest.json"]);
}

#[test]
fn special_folders_pages_and_scripts_are_built_too() {
    let p = Project::empty();
    p.write("src/manifest.json", r#"{"manifest_version":3,"name":"Special","version":"1.0"}"#)
        .write(
            "pages/welcome.html",
            r#"<!doctype html><link rel="stylesheet" href="welcome.css"><script src="welcome.js"></script>"#,
        )
        .write("pages/welcome.css", "body{}")
        .write("pages/welcome.js", "void 0;")
        .write("scripts/inject.js", "void 1;")
        .write("scripts/notes.txt", "not a script");
    p.build(&[]).builds();
    assert_eq!(
        tree(&p.path().join("dist/chrome")),
        ["manifest.json", "pages/welcome.css", "pages/welcome.html", "pages/welcome.js", "scripts/inject.js"]
    );
}
