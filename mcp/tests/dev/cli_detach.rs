//! `webext-mcp dev --detach` returns once ready and leaves the session running;
//! `webext-mcp stop` ends it.

use std::time::Duration;

use serde_json::Value;

use crate::support::*;

#[test]
fn dev_detach_then_stop_from_the_cli() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "cli");
    let p = project.to_str().unwrap();
    let (code, out, err) =
        cli(home.path(), &["dev", p, "--browser", "chromium", "--headless", "--detach", "--json"]);
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
