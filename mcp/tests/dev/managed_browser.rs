//! `browser: "chrome-for-testing"` runs a session in the managed build: `NOT_INSTALLED`
//! naming the exact `extension_install_browser` call while the cache has none, then the
//! newest installed build once there is one (here a managed "build" whose program leaves a
//! mark and runs this machine's Chromium).

use std::time::Duration;

use serde_json::Value;
use webext_mcp::browsers::managed::{Managed, RECORD, Record};

use crate::support::*;

/// Puts a managed Chrome for Testing `version` into the home's cache, as an install would.
fn plant_managed(home: &std::path::Path, version: &str, marker: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let dir = home.join(".local/share/webext-mcp/browsers/chrome-for-testing").join(version);
    let program = dir.join("chrome-linux64/chrome");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    let script = format!("#!/bin/sh\ntouch '{}'\nexec /usr/lib/chromium/chromium \"$@\"\n", marker.display());
    std::fs::write(&program, script).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let record = Record {
        browser: Managed::ChromeForTesting,
        version: version.to_owned(),
        channel: "stable".to_owned(),
        binary: "chrome-linux64/chrome".to_owned(),
        url: "https://storage.googleapis.com/chrome-for-testing-public/x/linux64/chrome-linux64.zip"
            .to_owned(),
        sha512: None,
        verified: "planted by the test".to_owned(),
        size_bytes: 1,
        installed_at: "2026-12-01T00:00:00.000Z".to_owned(),
    };
    std::fs::write(dir.join(RECORD), serde_json::to_vec(&record).unwrap()).unwrap();
}

#[test]
fn chrome_for_testing_sessions_run_the_managed_build_or_say_how_to_install_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "managed");
    let p = project.to_str().unwrap();
    let (code, out, _) =
        cli(home.path(), &["dev", p, "--browser", "chrome-for-testing", "--detach", "--json"]);
    assert_eq!(code, 1, "{out}");
    let err: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(err["error"]["code"], "NOT_INSTALLED", "{err}");
    let hint = err["error"]["hint"].as_str().unwrap();
    assert!(hint.contains(r#"extension_install_browser with {"browser":"chrome-for-testing"}"#), "{hint}");

    let _slot = browser_slot();
    let marker = home.path().join("managed-build-ran");
    plant_managed(home.path(), "120.0.6099.0", &home.path().join("old-build-ran"));
    plant_managed(home.path(), "143.0.7499.40", &marker);
    // The project's config names a binary of its own: the managed build the call asked for
    // still wins.
    std::fs::write(
        project.join("extension.config.js"),
        "module.exports = { browser: { chrome: { chromiumBinary: '/usr/lib/chromium/chromium' } } };\n",
    )
    .unwrap();
    let (code, out, err) =
        cli(home.path(), &["dev", p, "--browser", "chrome-for-testing", "--headless", "--detach", "--json"]);
    assert_eq!(code, 0, "dev --detach: {out}\n{err}");
    let started: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(started["status"], "ready", "{started:#}");
    assert_eq!(started["browser"], "chrome", "Chrome for Testing builds and runs as the chrome target");
    assert!(marker.exists(), "the newest managed build was not the one launched");
    assert!(!home.path().join("old-build-ran").exists());
    let ids = ids(&started);
    let (code, out, err) = cli(home.path(), &["stop", p, "--json"]);
    assert_eq!(code, 0, "stop: {out}\n{err}");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
