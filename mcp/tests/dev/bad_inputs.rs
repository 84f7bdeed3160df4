//! Bad inputs get stable codes: no manifest, browser not installed, profile in use, the
//! browser refusing the extension, a compile error (the session stays up in `error`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::*;

fn call(home: &std::path::Path, tool: &str, args: Value, env: &[(&str, &str)]) -> (i32, Value) {
    let mut cmd = crate::common::mcp_client::command(home);
    cmd.args(["call", tool, &args.to_string(), "--json"]).stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{tool}: no JSON ({e}): {stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("(no error)")
}

#[test]
fn no_manifest_not_installed_load_refused() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (c, v) =
        call(home.path(), "extension_dev", json!({"projectPath": empty, "browser": "chromium"}), &[]);
    assert_eq!((c, code(&v)), (1, "NOT_FOUND"), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("manifest.json"), "{v}");

    let project = home.path().join("proj");
    write_project(&project, "x");
    let (c, v) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": project, "browser": "chromium"}),
        &[("WEBEXT_MCP_CHROMIUM_BINARY", "/nonexistent/chromium")],
    );
    assert_eq!((c, code(&v)), (1, "NOT_INSTALLED"), "{v}");
    // Issue 25: Firefox sessions exist; a missing Gecko-family browser is NOT_INSTALLED.
    let (c, v) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": project, "browser": "firefox"}),
        &[("WEBEXT_MCP_FIREFOX_BINARY", "/nonexistent/firefox")],
    );
    assert_eq!((c, code(&v)), (1, "NOT_INSTALLED"), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("WEBEXT_MCP_FIREFOX_BINARY"), "{v}");
    if !std::path::Path::new("/usr/bin/librewolf").exists() {
        let (c, v) =
            call(home.path(), "extension_dev", json!({"projectPath": project, "browser": "librewolf"}), &[]);
        assert_eq!((c, code(&v)), (1, "NOT_INSTALLED"), "{v}");
        assert!(v["error"]["hint"].as_str().unwrap().contains("WEBEXT_MCP_FIREFOX_BINARY"), "{v}");
    }
    if !std::path::Path::new("/usr/bin/google-chrome").exists() {
        let (c, v) =
            call(home.path(), "extension_dev", json!({"projectPath": project, "browser": "chrome"}), &[]);
        assert_eq!((c, code(&v)), (1, "NOT_INSTALLED"), "{v}");
        assert!(v["error"]["hint"].as_str().unwrap().contains("chromium"), "{v}");
    }

    // Chromium refuses file names starting with "_"; the build does not.
    let _slot = browser_slot();
    let refused = home.path().join("refused");
    std::fs::create_dir_all(&refused).unwrap();
    std::fs::write(
        refused.join("manifest.json"),
        json!({"manifest_version": 3, "name": "r", "version": "1",
               "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["_reserved.js"]}]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(refused.join("_reserved.js"), "1;\n").unwrap();
    let (c, v) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": refused, "browser": "chromium", "headless": true}),
        &[],
    );
    assert_eq!((c, code(&v)), (1, "LOAD_REFUSED"), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("reserved"), "{v}");
    // It cleaned up after itself: the lock is free again.
    assert!(webext_mcp::lock::Lock::acquire(&refused.join("dist"), "chromium", None).is_ok());
}

#[test]
fn compile_error_keeps_the_session_and_profile_in_use_is_busy() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let broken = home.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("manifest.json"),
        "{ \"manifest_version\": 3,\n  \"name\": \"b\"\n  \"version\": \"1\" }",
    )
    .unwrap();
    let (c, v) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": broken, "browser": "chromium", "headless": true, "detach": true}),
        &[],
    );
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["status"], "error", "{v:#}");
    let detail = &v["errorDetails"][0];
    assert_eq!(detail["code"], "BUILD_FAILED", "{v:#}");
    assert_eq!(detail["line"], 3, "{v:#}");
    let (c, w) = call(home.path(), "extension_wait", json!({"projectPath": broken, "timeout": 2000}), &[]);
    assert_eq!((c, code(&w)), (1, "BUILD_FAILED"), "{w}");
    // One timeout policy: a wait beyond what an MCP client waits is cut to 50 s, and a
    // session whose status is known answers at once anyway; zero is refused, naming the range.
    let (c, w) = call(home.path(), "extension_wait", json!({"projectPath": broken, "timeoutMs": 60000}), &[]);
    assert_eq!((c, code(&w)), (1, "BUILD_FAILED"), "{w}");
    let (c, w) = call(home.path(), "extension_wait", json!({"projectPath": broken, "timeoutMs": 0}), &[]);
    assert_eq!((c, code(&w)), (1, "INVALID_ARGUMENT"), "{w}");
    assert!(w.to_string().contains("between 1 and 50000"), "{w}");
    let (c, w) = call(home.path(), "extension_wait", json!({"projectPath": broken, "timeoutMs": 2000}), &[]);
    assert_eq!((c, code(&w)), (1, "BUILD_FAILED"), "{w}");

    // The same project again: BUSY, naming the session.
    let (c, b) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": broken, "browser": "chromium", "headless": true}),
        &[],
    );
    assert_eq!((c, code(&b)), (1, "BUSY"), "{b}");

    // Another project on the profile that session holds: BUSY.
    let other = home.path().join("other");
    write_project(&other, "x");
    let profile = v["profilePath"].as_str().unwrap();
    let (c, b) = call(
        home.path(),
        "extension_dev",
        json!({"projectPath": other, "browser": "chromium", "headless": true, "profile": profile}),
        &[],
    );
    assert_eq!((c, code(&b)), (1, "BUSY"), "{b}");
    assert!(b["error"]["message"].as_str().unwrap().contains("profile"), "{b}");

    // Fixing the manifest loads the extension and recovers `ready`.
    std::fs::write(
        broken.join("manifest.json"),
        "{ \"manifest_version\": 3, \"name\": \"b\", \"version\": \"1\" }",
    )
    .unwrap();
    wait_for(&broken, "ready after the fix", || (ready(&broken)["status"] == "ready").then_some(()));
    assert!(ready(&broken)["extensionId"].is_string());

    let ids = ids(&v);
    let (c, s) = call(home.path(), "extension_stop", json!({"projectPath": broken}), &[]);
    assert_eq!(c, 0, "{s}");
    assert_all_gone(&broken, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
