//! `webext-mcp dev --detach` returns once ready and leaves the session running;
//! `webext-mcp stop` ends it. In the foreground, `webext-mcp dev` follows the session it
//! started through the tool until Ctrl-C stops it.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(dev_detach_then_stop_from_the_cli, detach_then_stop);

fn detach_then_stop(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "cli");
    let p = project.to_str().unwrap();
    let (code, out, err) =
        cli(home.path(), &["dev", p, "--browser", browser, "--headless", "--detach", "--json"]);
    assert_eq!(code, 0, "dev --detach: {out}\n{err}");
    let started: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(started["status"], "ready", "{started:#}");
    let ids = ids(&started);
    // The CLI has exited; the session lives on.
    std::thread::sleep(Duration::from_millis(500));
    assert!(alive(ids.pid), "detached session died with the CLI:\n{}", log_tail(&project));

    let (code, out, err) = cli(home.path(), &["wait", p, "--json"]);
    assert_eq!(code, 0, "wait: {out}\n{err}");
    let (code, out, err) = cli(home.path(), &["stop", p, "--json"]);
    assert_eq!(code, 0, "stop: {out}\n{err}");
    let stopped: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(stopped["status"], "stopped");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
    let (code, _, err) = cli(home.path(), &["stop", p]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("NOT_FOUND"), "{err}");
}

#[test]
fn foreground_dev_prints_ready_and_ctrl_c_stops_the_session() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "foreground");
    let mut child = crate::common::mcp_client::command(home.path())
        .args(["dev", project.to_str().unwrap(), "--browser", "chromium", "--headless", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("a first line").unwrap();
    let ready: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first}"));
    assert_eq!(ready["status"], "ready", "{ready:#}");
    assert_eq!(ready["command"], "dev");
    let ids = ids(&ready);
    std::thread::sleep(Duration::from_millis(300));
    assert!(alive(ids.pid), "the session died under its foreground CLI:\n{}", log_tail(&project));

    // Ctrl-C: the CLI closes the owner pipe, the session stops, the CLI exits 0.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "the CLI did not exit after Ctrl-C");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(0));
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
    assert_eq!(crate::support::ready(&project)["status"], "stopped");
}
