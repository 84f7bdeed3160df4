//! A session started through MCP belongs to that server: killing the server stops the
//! session, its browser and its host.

use std::time::Duration;

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(session_stops_when_its_server_is_killed, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "owned");
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": browser, "headless": true});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    let ids = ids(&started);
    assert!(alive(ids.pid) && alive(ids.browser_pid));
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
    assert_eq!(ready(&project)["status"], "stopped");
}
