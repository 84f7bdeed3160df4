//! The whole loop through MCP: dev → wait → edit → the open tab changes (one root, seen with
//! take_snapshot through the helper in the session's browser) →
//! navigate (no stale copy) → manifest edit reloads → syntax error with file:line → fix →
//! ready → stop, and nothing is left running.

use std::time::Duration;

use serde_json::{Value, json};
use webext_mcp::lock::Lock;

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(edit_reload_reinject_error_recover_stop, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "first text");
    let site = pages();
    let start = site.url("/");

    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": start});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    assert_eq!(started["status"], "ready", "{started:#}");
    assert_eq!(started["command"], "dev");
    assert!(started["sessionId"].as_str().unwrap().starts_with("dev-"));
    let ids = ids(&started);
    assert!(ids.profile.ends_with(format!("dist/extension-js/profiles/{browser}")), "{started:#}");

    let waited = ok(&server.call("extension_wait", json!({"projectPath": project})), "extension_wait");
    assert_eq!(waited["status"], "ready");
    assert_eq!(waited["extensionId"], started["extensionId"]);

    // The dev build wrapped the content script and said so.
    let added = events(&project).into_iter().find(|e| e["type"] == "dev-build").expect("dev-build event");
    assert!(
        added["added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "wrapped" && a["file"] == "content.js"),
        "{added}"
    );
    // Issue 19: in its own folder (recorded as distPath), never where a production build goes.
    assert_eq!(started["distPath"], json!(project.join(format!("dist/dev/{browser}"))), "{started:#}");
    let built = std::fs::read_to_string(project.join(format!("dist/dev/{browser}/content.js"))).unwrap();
    assert!(built.starts_with('{'), "{built}");
    assert!(!project.join(format!("dist/{browser}")).exists(), "a dev build was written into dist/{browser}");

    let session = started["sessionId"].as_str().unwrap().to_owned();
    wait_root_in_snapshot(&mut server, &project, &session, "127.0.0.1", "first text", &[]);

    // Edit the text: the open tab shows the new text, still one root (re-injected, not
    // stacked, and no "already declared").
    std::fs::write(project.join("content.js"), content_script("second text")).unwrap();
    wait_root_in_snapshot(&mut server, &project, &session, "127.0.0.1", "second text", &["first text"]);
    assert_eq!(ready(&project)["status"], "ready", "{:#}", ready(&project));

    // Navigating gets the new copy from the reloaded extension, not a stale one.
    let other = site.url("/other");
    control(&project, json!({"op": "evaluate", "expression": format!("location.href = {other:?}")}));
    wait_root_in_snapshot(&mut server, &project, &session, "/other", "second text", &["first text"]);

    // A manifest edit reloads the extension and re-injects into the open tab.
    let before = events(&project).len();
    std::fs::write(project.join("manifest.json"), manifest("second")).unwrap();
    let reload = wait_for(&project, "a manifest reload event", || {
        events(&project)[before..].iter().find(|e| e["type"] == "reload" && e["kind"] == "manifest").cloned()
    });
    assert!(
        reload["tabs"].as_array().is_some_and(|t| t.iter().any(|t| t["action"] == "reinjected")),
        "{reload}"
    );
    wait_root_in_snapshot(&mut server, &project, &session, "/other", "second text", &["first text"]);

    // A syntax error: status error with file and line; extension_wait fails with it.
    std::fs::write(project.join("content.js"), "const label = ;\n").unwrap();
    let detail = wait_for(&project, "status error", || {
        let r = ready(&project);
        (r["status"] == "error").then(|| r["errorDetails"][0].clone())
    });
    assert_eq!(detail["file"], "content.js", "{detail}");
    assert_eq!(detail["line"], 1, "{detail}");
    assert!(detail["message"].as_str().unwrap().contains("SyntaxError"), "{detail}");
    let failed = server.call("extension_wait", json!({"projectPath": project, "timeout": 5000}));
    assert_eq!(err_code(&failed, "extension_wait in error"), "SCRIPT_ERROR");

    // The next good save recovers.
    std::fs::write(project.join("content.js"), content_script("third text")).unwrap();
    wait_for(&project, "ready again", || (ready(&project)["status"] == "ready").then_some(()));
    wait_root_in_snapshot(&mut server, &project, &session, "/other", "third text", &["second text"]);

    // The browser's private HOME (Firefox: with the native host manifest and the debugger
    // socket) goes with the session.
    let browser_home = home_of(ids.browser_pid).expect("the browser's HOME");
    if browser == "firefox" {
        let manifest = browser_home
            .join(".mozilla/native-messaging-hosts")
            .join(format!("{}.json", webext_mcp_host::protocol::NATIVE_HOST_NAME));
        assert!(manifest.is_file(), "no native host manifest at {}", manifest.display());
    }
    let stopped = ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_eq!(stopped["status"], "stopped", "{stopped:#}");
    assert_eq!(stopped["lockFree"], true);
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
    assert!(Lock::acquire(&project.join("dist"), browser, None).is_ok(), "lock still held");
    assert!(!browser_home.exists(), "the browser's temporary HOME {} is left", browser_home.display());
    let last = events(&project);
    assert!(last.iter().any(|e| e["type"] == "browser" && e["status"] == "exited"), "{last:?}");
    assert_eq!(last.last().map(|e| e["status"].clone()), Some(Value::from("stopped")));

    // Stopping again: nothing to stop.
    let again = server.call("extension_stop", json!({"projectPath": project, "browser": browser}));
    assert_eq!(err_code(&again, "second extension_stop"), "NOT_FOUND");
}
