//! Golden install into a home with all nine browsers, idempotence, dry run, empty home, and
//! uninstall leaving the home byte-identical.

use serde_json::{Value, json};
use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, HELPER_GECKO_ID};

use crate::{BIN, HOST, Home, NINE, problems};

fn expected_manifest(family: &str) -> Value {
    let mut m = json!({
        "name": "dev.webext_mcp.bridge",
        "description": "webext-mcp bridge: lets the webext-mcp helper extension reach local MCP servers",
        "path": std::fs::canonicalize(BIN).unwrap(),
        "type": "stdio",
    });
    if family == "chromium" {
        m["allowed_origins"] = json!([format!("chrome-extension://{HELPER_CHROMIUM_ID}/")]);
    } else {
        m["allowed_extensions"] = json!([HELPER_GECKO_ID]);
    }
    m
}

#[test]
fn install_writes_the_expected_files_for_all_nine_browsers_and_doctor_is_green() {
    let home = Home::with_nine();
    let before = home.files();
    let (code, report) = home.json(&["install"]);
    assert_eq!(code, 0, "{report}");
    let ids: Vec<&str> =
        report["browsers"].as_array().unwrap().iter().map(|b| b["id"].as_str().unwrap()).collect();
    assert_eq!(ids, NINE.map(|(id, _)| id));
    // Exactly: one manifest per location (Firefox and Zen share ~/.mozilla), the helper for
    // both families, the xpi, the record.
    let manifests = [
        (".config/google-chrome/NativeMessagingHosts", "chromium"),
        (".config/chromium/NativeMessagingHosts", "chromium"),
        (".config/microsoft-edge/NativeMessagingHosts", "chromium"),
        (".config/BraveSoftware/Brave-Browser/NativeMessagingHosts", "chromium"),
        (".config/vivaldi/NativeMessagingHosts", "chromium"),
        (".mozilla/native-messaging-hosts", "firefox"),
        (".librewolf/native-messaging-hosts", "firefox"),
        (".floorp/native-messaging-hosts", "firefox"),
    ];
    let mut expected: Vec<String> = before.clone();
    for (dir, family) in manifests {
        let path = home.path().join(dir).join(HOST);
        let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(written, expected_manifest(family), "{dir}");
        expected.push(format!("{dir}/{HOST}"));
    }
    for family in ["chromium", "firefox"] {
        for (rel, bytes) in webext_mcp::helper::files(family_of(family)) {
            let p = format!(".local/share/webext-mcp/helper/{family}/{rel}");
            assert_eq!(std::fs::read(home.path().join(&p)).unwrap(), bytes, "{p}");
            expected.push(p);
        }
    }
    expected.push(format!(".local/share/webext-mcp/helper/{HELPER_GECKO_ID}.xpi"));
    expected.push(".local/share/webext-mcp/install.json".to_owned());
    expected.sort();
    let mut files = home.files();
    files.sort();
    assert_eq!(files, expected);

    let (code, doctor) = home.json(&["doctor"]);
    assert_eq!(code, 0);
    assert_eq!(doctor["ok"], true, "{doctor:#}");
    assert_eq!(doctor["browsers"].as_array().unwrap().len(), 9);
    for b in doctor["browsers"].as_array().unwrap() {
        assert_eq!(b["problems"], json!([]), "{b}");
        assert_eq!(b["manifest"]["binary"]["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(b["connected"], false);
    }
    assert_eq!(doctor["helper"]["chromium"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(problems(&doctor).is_empty());
}

fn family_of(name: &str) -> webext_mcp::browsers::Engine {
    match name {
        "chromium" => webext_mcp::browsers::Engine::Chromium,
        _ => webext_mcp::browsers::Engine::Gecko,
    }
}

#[test]
fn install_twice_changes_nothing_and_uninstall_restores_the_home_byte_for_byte() {
    let home = Home::with_nine();
    // A manifest of someone else's at one location: install replaces it, uninstall puts it back.
    let foreign = home.path().join(".config/vivaldi/NativeMessagingHosts");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join(HOST), "{\"name\": \"hand-written\"}\n").unwrap();
    let before = home.snapshot();

    assert_eq!(home.run(&["install"]).0, 0);
    let first = home.snapshot();
    let (code, again) = home.json(&["install"]);
    assert_eq!(code, 0);
    for w in again["writes"].as_array().unwrap() {
        if w["kind"] != "record" {
            assert_eq!(w["action"], "unchanged", "{w}");
        }
    }
    assert_eq!(home.snapshot(), first, "a second install must write the same bytes");

    let (code, out) = home.json(&["uninstall"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out["restored"], json!([foreign.join(HOST)]));
    assert_eq!(home.snapshot(), before, "uninstall must leave the home as it was");

    let (code, out, _) = home.run(&["uninstall"]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing to uninstall"), "{out}");
}

#[test]
fn dry_run_lists_the_writes_and_writes_nothing() {
    let home = Home::with_nine();
    let before = home.snapshot();
    let (code, report) = home.json(&["install", "--dry-run"]);
    assert_eq!(code, 0);
    assert_eq!(report["dryRun"], true);
    let writes = report["writes"].as_array().unwrap();
    assert!(writes.iter().all(|w| w["action"] == "create"), "{writes:?}");
    assert_eq!(writes.iter().filter(|w| w["kind"] == "manifest").count(), 8);
    assert_eq!(writes.iter().filter(|w| w["kind"] == "xpi").count(), 1);
    let (_, text, _) = home.run(&["install", "--dry-run"]);
    assert!(text.contains("would write manifest") && text.contains("dry run: nothing was written"), "{text}");
    assert_eq!(home.snapshot(), before);
    // Uninstall's dry run after a real install removes nothing either.
    home.run(&["install"]);
    // Another program's host manifest in a folder install created.
    std::fs::write(home.path().join(".mozilla/native-messaging-hosts/other.json"), "{}").unwrap();
    let installed = home.snapshot();
    let (_, r) = home.json(&["uninstall", "--dry-run"]);
    assert_eq!(r["dryRun"], true);
    assert!(!r["removed"].as_array().unwrap().is_empty());
    assert_eq!(home.snapshot(), installed);
    // The dry run's directory counts are the real run's, and the kept one is named with
    // what it still holds.
    let (_, text, _) = home.run(&["uninstall", "--dry-run"]);
    let (code, real) = home.json(&["uninstall"]);
    assert_eq!(code, 0, "{real:#}");
    assert_eq!(real["removedDirs"], r["removedDirs"], "dry {r:#}\nreal {real:#}");
    assert_eq!(real["keptDirs"], r["keptDirs"], "dry {r:#}\nreal {real:#}");
    let kept = real["keptDirs"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0]["path"].as_str().unwrap().ends_with(".mozilla/native-messaging-hosts"), "{kept:?}");
    assert_eq!(kept[0]["reason"], "still holds other.json");
    let n = r["removedDirs"].as_array().unwrap().len();
    assert!(text.contains(&format!("would remove {n} directories install had created")), "{text}");
    for k in kept {
        assert!(text.contains(&format!("would keep {}", k["path"].as_str().unwrap())), "{text}");
    }
}

#[test]
fn json_output_has_browsers_steps_writes_and_skips() {
    let home = Home::empty();
    std::fs::create_dir_all(home.path().join(".config/chromium")).unwrap();
    let (code, r) = home.json(&["install", "--browser", "chromium,firefox"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["os"], "linux");
    assert_eq!(r["binary"], json!(std::fs::canonicalize(BIN).unwrap()));
    let b = &r["browsers"];
    assert_eq!(b[0]["id"], "chromium");
    assert_eq!(b[0]["detected"], true);
    assert_eq!(b[1]["id"], "firefox");
    assert_eq!(b[1]["detected"], false, "forced by --browser");
    let steps: Vec<&str> =
        b[0]["nextSteps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert!(steps[0].contains("chrome://extensions"));
    let helper = b[0]["helper"].as_str().unwrap();
    assert!(steps.iter().any(|s| s.contains("Load unpacked") && s.contains(helper)), "{steps:?}");
    assert!(b[1]["nextSteps"][0].as_str().unwrap().contains("signed"));
    assert!(b[1]["helper"].as_str().unwrap().ends_with(".xpi"));
    for key in ["configDir", "manifest", "family", "name"] {
        assert!(b[0].get(key).is_some(), "{key}");
    }
    let skipped: Vec<&str> =
        r["skipped"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert!(skipped.contains(&"chrome") && !skipped.contains(&"chromium"));
    assert_eq!(r["record"], json!(home.data().join("install.json")));
}

#[test]
fn an_empty_home_installs_nothing_and_says_so() {
    let home = Home::empty();
    let (code, out, _) = home.run(&["install"]);
    assert_eq!(code, 0);
    assert!(out.contains("no browser detected, nothing installed"), "{out}");
    assert!(out.contains("--browser"), "{out}");
    assert!(home.snapshot().is_empty());
    let (_, r) = home.json(&["install"]);
    assert_eq!(r["browsers"], json!([]));
    assert_eq!(r["record"], Value::Null);
}

#[test]
fn an_unknown_browser_is_an_invalid_argument() {
    let home = Home::empty();
    let (code, r) = home.json(&["install", "--browser", "netscape"]);
    assert_eq!(code, 1);
    assert_eq!(r["error"]["code"], "INVALID_ARGUMENT");
    assert!(r["error"]["message"].as_str().unwrap().contains("netscape"));
    assert!(home.snapshot().is_empty());
}

#[test]
fn a_failed_install_leaves_nothing_behind() {
    let home = Home::empty();
    std::fs::create_dir_all(home.path().join(".config/chromium")).unwrap();
    // Firefox's manifest directory is a file: its write fails after Chromium's succeeded.
    std::fs::create_dir_all(home.path().join(".mozilla")).unwrap();
    std::fs::write(home.path().join(".mozilla/native-messaging-hosts"), "in the way").unwrap();
    let before = home.snapshot();
    let (code, r) = home.json(&["install"]);
    assert_eq!(code, 1, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("native-messaging-hosts"), "{r}");
    assert!(r["error"]["hint"].as_str().unwrap().contains("nothing was left half-written"), "{r}");
    assert_eq!(home.snapshot(), before, "a failed install must undo what it wrote");
}
