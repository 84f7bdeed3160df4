//! Each broken state doctor must name, with its stable code and a fix.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::{HOST, Home, problems};

fn installed() -> Home {
    let home = Home::empty();
    std::fs::create_dir_all(home.path().join(".config/chromium")).unwrap();
    std::fs::create_dir_all(home.path().join(".mozilla")).unwrap();
    let (code, out, err) = home.run(&["install"]);
    assert_eq!(code, 0, "{out}{err}");
    home
}

fn chromium_manifest(home: &Home) -> PathBuf {
    home.path().join(".config/chromium/NativeMessagingHosts").join(HOST)
}

fn edit(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, v.to_string()).unwrap();
}

/// Doctor's report must hold exactly one problem, `code`, scoped to `scope`, with a fix that
/// mentions `fix_mentions`.
fn assert_finds(home: &Home, scope: &str, code: &str, fix_mentions: &str) {
    let (exit, report) = home.json(&["doctor"]);
    // A report that lists a problem exits non-zero.
    assert_eq!(exit, 1, "{report:#}");
    assert_eq!(report["ok"], false, "{report:#}");
    let found = problems(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    let (c, s, fix) = &found[0];
    assert_eq!((c.as_str(), s.as_str()), (code, scope), "{found:?}");
    assert!(fix.contains(fix_mentions), "{code}: fix {fix:?} should mention {fix_mentions:?}");
    // The human form carries the code and the fix too.
    let (exit, text, _) = home.run(&["doctor"]);
    assert_eq!(exit, 1, "{text}");
    assert!(text.contains(code) && text.contains("fix:") && !text.contains("no problems found"), "{text}");
}

#[test]
fn missing_manifest() {
    let home = installed();
    std::fs::remove_file(chromium_manifest(&home)).unwrap();
    assert_finds(&home, "chromium", "HOST_MANIFEST_MISSING", "webext-mcp install --browser chromium");
}

#[test]
fn invalid_json() {
    let home = installed();
    std::fs::write(chromium_manifest(&home), "{\"name\": ").unwrap();
    assert_finds(&home, "chromium", "HOST_MANIFEST_INVALID_JSON", "install --browser chromium");
}

#[test]
fn wrong_name() {
    let home = installed();
    edit(&chromium_manifest(&home), |m| m["name"] = json!("dev.webext_mcp.other"));
    assert_finds(&home, "chromium", "HOST_MANIFEST_WRONG_NAME", "install --browser chromium");
}

#[test]
fn wrong_allowed_origin() {
    let home = installed();
    edit(&chromium_manifest(&home), |m| {
        m["allowed_origins"] = json!(["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"])
    });
    assert_finds(&home, "chromium", "HOST_ID_NOT_ALLOWED", "install --browser chromium");
}

#[test]
fn wrong_gecko_id() {
    let home = installed();
    let path = home.path().join(".mozilla/native-messaging-hosts").join(HOST);
    edit(&path, |m| m["allowed_extensions"] = json!(["someone@else"]));
    assert_finds(&home, "firefox", "HOST_ID_NOT_ALLOWED", "install --browser firefox");
}

#[test]
fn missing_binary() {
    let home = installed();
    let gone = home.path().join("old/webext-mcp");
    edit(&chromium_manifest(&home), |m| m["path"] = json!(gone));
    assert_finds(&home, "chromium", "HOST_BINARY_MISSING", "install --browser chromium");
}

#[test]
fn path_not_executable() {
    use std::os::unix::fs::PermissionsExt;
    let home = installed();
    let plain = home.path().join("webext-mcp");
    std::fs::write(&plain, "not a program").unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    edit(&chromium_manifest(&home), |m| m["path"] = json!(plain));
    assert_finds(&home, "chromium", "HOST_BINARY_NOT_EXECUTABLE", "chmod +x");
}

#[test]
fn version_skew_of_the_registered_binary() {
    use std::os::unix::fs::PermissionsExt;
    let home = installed();
    let old = home.path().join("webext-mcp-old");
    std::fs::write(&old, "#!/bin/sh\necho 'webext-mcp 0.0.9'\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    edit(&chromium_manifest(&home), |m| m["path"] = json!(old));
    assert_finds(&home, "chromium", "HOST_VERSION_SKEW", "install --browser chromium");
    let (_, report) = home.json(&["doctor"]);
    let chromium = &report["browsers"][0];
    assert_eq!(chromium["manifest"]["binary"]["version"], "0.0.9");
}

#[test]
fn manifest_in_the_xdg_path_firefox_does_not_read() {
    let home = installed();
    let right = home.path().join(".mozilla/native-messaging-hosts").join(HOST);
    let wrong_dir = home.path().join(".config/mozilla/native-messaging-hosts");
    std::fs::create_dir_all(&wrong_dir).unwrap();
    std::fs::rename(&right, wrong_dir.join(HOST)).unwrap();
    let (_, report) = home.json(&["doctor"]);
    let codes: Vec<String> = problems(&report).into_iter().map(|p| p.0).collect();
    assert_eq!(codes, ["HOST_MANIFEST_MISSING", "HOST_MANIFEST_WRONG_PLACE"], "{report:#}");
    let fix = report["problems"][1]["fix"].as_str().unwrap();
    assert!(fix.contains(".config/mozilla") && fix.contains("install --browser firefox"), "{fix}");
}

#[test]
fn helper_missing_or_outdated() {
    let home = installed();
    let manifest = home.data().join("helper/chromium/manifest.json");
    edit(&manifest, |m| m["version"] = json!("0.0.1"));
    assert_finds(&home, "helper:chromium", "HELPER_OUTDATED", "webext-mcp install");
    std::fs::remove_file(&manifest).unwrap();
    assert_finds(&home, "helper:chromium", "HELPER_NOT_UNPACKED", "webext-mcp install");
}

/// An unpacked helper of this version whose manifest lacks a permission of this version's
/// table (an older copy, or one edited by hand): the browser would load it without the
/// permission, so the user must reinstall and reload (Chromium: and re-approve).
#[test]
fn helper_manifest_lacks_a_required_permission() {
    let home = installed();
    let chromium = home.data().join("helper/chromium/manifest.json");
    edit(&chromium, |m| m["permissions"].as_array_mut().unwrap().retain(|p| p != "debugger"));
    assert_finds(&home, "helper:chromium", "HELPER_PERMISSIONS_CHANGED", "chrome://extensions");
    let (_, report) = home.json(&["doctor"]);
    let message = report["problems"][0]["message"].as_str().unwrap();
    assert!(message.contains("debugger"), "{message}");
    assert!(report["problems"][0]["fix"].as_str().unwrap().contains("webext-mcp install"));
    let (code, out, err) = home.run(&["install"]);
    assert_eq!(code, 0, "{out}{err}");

    let firefox = home.data().join("helper/firefox/manifest.json");
    edit(&firefox, |m| {
        m.as_object_mut().unwrap().remove("host_permissions");
    });
    assert_finds(&home, "helper:firefox", "HELPER_PERMISSIONS_CHANGED", "about:addons");
}

#[test]
fn the_browsers_error_messages_are_explained() {
    let home = installed();
    let cases = [
        ("Specified native messaging host not found.", "HOST_MANIFEST_MISSING"),
        ("Access to the specified native messaging host is forbidden.", "HOST_ID_NOT_ALLOWED"),
        ("File at path /x/webext-mcp does not exist, or is not executable", "HOST_BINARY_MISSING"),
    ];
    for (message, code) in cases {
        let (exit, r) = home.json(&["doctor", "--browser-error", message]);
        // The explained message is listed as a problem, so doctor exits non-zero.
        assert_eq!(exit, 1);
        assert_eq!(r["browserError"]["code"], code, "{message}");
        assert_eq!(problems(&r)[0].1, "browserError");
    }
}
