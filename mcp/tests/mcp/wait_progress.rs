//! A long `extension_wait` as a client not written here (the official Python MCP SDK, with the
//! 60 s request timeout clients default to) sees it: progress notifications about the
//! session's status while it waits, and a wait asked for longer than the client allows
//! (65000 ms) answers `TIMEOUT` with the last status before the client gives up, where it
//! used to die with the client's `-32001`.

use std::process::Command;

#[test]
fn extension_wait_reports_progress_and_a_too_long_wait_answers_in_time() {
    let py = crate::python::sdk_python();
    let home = tempfile::tempdir().unwrap();
    // A project nobody runs a session for: the wait runs to its end.
    let project = home.path().join("ext");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("manifest.json"), r#"{"manifest_version": 3, "name": "w", "version": "1"}"#)
        .unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/wait_client.py");
    let out = Command::new(&py)
        .arg(script)
        .arg(crate::client::bin())
        .arg(home.path())
        .arg(&project)
        .env("WEBEXT_MCP_RUNTIME_DIR", home.path().join("run"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "wait client failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("wait: answered TIMEOUT") && stdout.contains("asked for 65000 ms"),
        "the wait did not answer with its status in time:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("last status: no ready.json yet"), "{stdout}");
    let progress: usize = stdout
        .lines()
        .find_map(|l| l.strip_prefix("progress "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    // About one a second for 50 s; far fewer means the waits went silent.
    assert!(progress >= 20, "{progress} progress notifications:\n{stdout}");
    assert!(stdout.contains("progress increasing True"), "{stdout}");
    // The default browser of sessions is the first installed Chromium-family one (chromium
    // here), so the status names that browser. (Any status line: on a loaded machine the last
    // second may carry the server's generic heartbeat instead.)
    assert!(
        stdout.lines().any(|l| l.starts_with("status progress: ") && l.contains(" session not started yet")),
        "{stdout}"
    );
}
