//! `install --home H`, then a real browser that reads what install wrote — Chromium with its
//! user-data-dir at `H/.config/chromium`, Firefox with `HOME=H` — loads the unpacked helper,
//! connects, and `doctor` lists it as connected with nothing wrong.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use webext_mcp::browsers::Engine;
use webext_mcp::paths::Env;

use crate::common::DEADLINE;
use crate::common::browser::options;

const BIN: &str = env!("CARGO_BIN_EXE_webext-mcp");

/// `webext-mcp --home H <args> --json` with `runtime` as the runtime dir.
async fn cli(home: &Path, runtime: &Path, args: &[&str]) -> (i32, Value) {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("--home").arg(home).args(args).arg("--json");
    cmd.env("HOME", home).env("WEBEXT_MCP_RUNTIME_DIR", runtime).kill_on_drop(true);
    for var in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "WEBEXT_MCP_CONFIG"] {
        cmd.env_remove(var);
    }
    let out = tokio::time::timeout(DEADLINE, cmd.output()).await.expect("webext-mcp hung").unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!("{args:?} printed no JSON ({e}): {text}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

/// How the test alters the unpacked helper before the browser loads it.
#[derive(Clone, Copy, PartialEq)]
enum Altered {
    No,
    /// Another version in its manifest.
    Version(&'static str),
    /// Its manifest without this (API) permission.
    Without(&'static str),
}

async fn installed_helper_connects(family: Engine, id: &str, altered: Altered) {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::Builder::new().prefix("wxm-install-").tempdir().unwrap();
    let runtime = tempfile::Builder::new().prefix("wxm-rt-").tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let h = home.path();

    let (code, report) = cli(h, runtime.path(), &["install", "--browser", id]).await;
    assert_eq!(code, 0, "{report}");
    let helper = h.join(".local/share/webext-mcp/helper").join(family.name());
    assert!(helper.join("manifest.json").is_file(), "{report}");
    if altered != Altered::No {
        let path = helper.join("manifest.json");
        let mut m: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        match altered {
            // An older helper left loaded in the browser: the silent failure doctor must name.
            Altered::Version(v) => m["version"] = Value::from(v),
            // A helper loaded before this version's table added a permission.
            Altered::Without(p) => m["permissions"].as_array_mut().unwrap().retain(|q| q != p),
            Altered::No => {}
        }
        std::fs::write(&path, m.to_string()).unwrap();
    }

    let session = format!("install-{}-{id}", std::process::id());
    let mut opts = options(&[&helper], runtime.path(), &session);
    opts.env.push(("HOME".into(), h.display().to_string()));
    if family == Engine::Chromium {
        // The default user-data-dir of Chromium under this home: where install wrote.
        opts.profile_dir = Some(h.join(".config/chromium"));
    }
    let runner = webext_mcp::runner::launch(family, opts, &Env::capture(), None)
        .await
        .unwrap_or_else(|e| panic!("cannot launch {}: {e}", family.name()));

    let deadline = Instant::now() + DEADLINE;
    let doctor = loop {
        let (code, doctor) = cli(h, runtime.path(), &["doctor", "--browser", id]).await;
        // Exit 1 exactly when the report lists a problem.
        assert_eq!(code, if doctor["ok"] == true { 0 } else { 1 }, "{doctor}");
        if doctor["browsers"][0]["connected"] == true {
            break doctor;
        }
        assert!(Instant::now() < deadline, "{id} never connected; last doctor report: {doctor:#}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let codes: Vec<(&str, &str)> = doctor["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["code"].as_str().unwrap(), p["scope"].as_str().unwrap()))
        .collect();
    let host_scope = format!("host:{}", doctor["hosts"][0]["label"].as_str().unwrap_or_default());
    match altered {
        Altered::Version(v) => {
            let codes: Vec<&str> = codes.iter().map(|c| c.0).collect();
            assert_eq!(codes, ["HELPER_OUTDATED", "EXTENSION_VERSION_SKEW"], "{doctor:#}");
            assert_eq!(doctor["hosts"][0]["extVersion"], v);
            assert_eq!(doctor["hosts"][0]["compatible"], false);
            drop(runner);
            return;
        }
        Altered::Without(p) => {
            // Both what is on disk and what the browser granted lack it.
            let scope = format!("helper:{}", family.name());
            let changed = "HELPER_PERMISSIONS_CHANGED";
            assert_eq!(codes, [(changed, scope.as_str()), (changed, host_scope.as_str())], "{doctor:#}");
            let granted = &doctor["hosts"][0]["permissions"]["permissions"];
            assert!(!granted.as_array().unwrap().iter().any(|q| q == p), "{doctor:#}");
            assert_eq!(doctor["hosts"][0]["compatible"], false);
            drop(runner);
            return;
        }
        Altered::No => {}
    }
    assert_eq!(doctor["ok"], true, "{doctor:#}");
    let b = &doctor["browsers"][0];
    assert_eq!(b["id"], id);
    assert_eq!(b["problems"], serde_json::json!([]));
    let host = &doctor["hosts"][0];
    assert_eq!(host["browser"], family.name());
    assert_eq!(host["reachable"], true, "{doctor:#}");
    assert_eq!(host["compatible"], true, "{doctor:#}");
    assert_eq!(host["extVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(host["session"], session.as_str());
    assert_eq!(host["helperLastError"], Value::Null, "a fresh helper has no error: {doctor:#}");

    // Kill the host: the helper reconnects by itself, and doctor then shows the failure in the
    // browser's own words as the helper's last error.
    let old_pid = host["pid"].as_u64().unwrap();
    unsafe { libc::kill(old_pid as i32, libc::SIGKILL) };
    let deadline = Instant::now() + DEADLINE;
    let last = loop {
        let (_, doctor) = cli(h, runtime.path(), &["doctor", "--browser", id]).await;
        let hosts = doctor["hosts"].as_array().cloned().unwrap_or_default();
        if let Some(new) = hosts.iter().find(|d| d["pid"].as_u64() != Some(old_pid) && d["reachable"] == true)
        {
            break new["helperLastError"].clone();
        }
        assert!(Instant::now() < deadline, "{id}: no new host after the kill; last report: {doctor:#}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let message =
        last["message"].as_str().unwrap_or_else(|| panic!("no last error after a host kill: {last}"));
    assert!(!message.is_empty());
    if family == Engine::Chromium {
        assert!(message.contains("exited"), "{last}");
        assert!(last["meaning"]["fix"].is_string(), "doctor explains it: {last}");
    }
    drop(runner);
}

#[tokio::test]
async fn chromium_loads_the_installed_helper_and_doctor_sees_it_connected() {
    installed_helper_connects(Engine::Chromium, "chromium", Altered::No).await;
}

#[tokio::test]
async fn firefox_reads_the_installed_manifest_and_doctor_sees_it_connected() {
    installed_helper_connects(Engine::Gecko, "firefox", Altered::No).await;
}

#[tokio::test]
async fn an_older_helper_in_the_browser_is_reported_as_version_skew() {
    installed_helper_connects(Engine::Chromium, "chromium", Altered::Version("0.0.9")).await;
}

/// Chromium loads an unpacked helper that lacks a permission of this version's table (here
/// `debugger`, which the helper does without): doctor names it twice, on disk and granted.
#[tokio::test]
async fn a_helper_without_a_required_permission_is_reported_as_permissions_changed() {
    installed_helper_connects(Engine::Chromium, "chromium", Altered::Without("debugger")).await;
}

/// A Firefox helper from before issue 30 (no response filter) loads and connects; doctor says
/// it must be reinstalled for network bodies (the permission table's upgrade path).
#[tokio::test]
async fn a_firefox_helper_without_the_response_filter_is_reported_as_permissions_changed() {
    installed_helper_connects(Engine::Gecko, "firefox", Altered::Without("webRequestFilterResponse")).await;
}
