//! An extension page change reloads the open extension pages (the popup opened as a tab by
//! `extension_source_inspect`), without reloading the extension: the content script in the
//! web page is left alone.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

fn popup(text: &str) -> String {
    format!("<!doctype html><title>popup</title><body><h1>{text}</h1></body>")
}

in_both_browsers!(popup_change_reloads_the_open_popup, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "page test");
    let mut manifest: Value = serde_json::from_str(&manifest("with popup")).unwrap();
    manifest["action"] = json!({"default_popup": "popup.html"});
    std::fs::write(project.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(project.join("popup.html"), popup("first popup")).unwrap();
    let site = pages();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    let ids = ids(&started);
    wait_root(&project, "127.0.0.1", "page test");

    let h1 = |server: &mut Server| {
        let out = server.call(
            "extension_source_inspect",
            json!({"projectPath": project, "browser": browser, "context": "popup", "probe": ["h1"]}),
        );
        let out = ok(&out, "inspect the popup");
        let events = out["events"].as_array().unwrap().clone();
        let probe = events.iter().find(|e| e["type"] == "selector_probe").cloned().unwrap_or(Value::Null);
        (probe["samples"][0]["text"].as_str().unwrap_or("").to_owned(), out["tab"]["url"].clone())
    };
    let (text, url) = h1(&mut server);
    assert_eq!(text, "first popup");
    assert!(url.as_str().unwrap().starts_with(extension_scheme(browser)), "{url}");

    let before = events(&project).len();
    std::fs::write(project.join("popup.html"), popup("second popup")).unwrap();
    let reload = wait_for(&project, "a page reload event", || {
        events(&project)[before..].iter().find(|e| e["type"] == "reload").cloned()
    });
    assert_eq!(reload["kind"], "page", "{reload}");
    assert!(
        reload["pages"]
            .as_array()
            .is_some_and(|p| p.iter().any(|u| u.as_str().unwrap().ends_with("/popup.html"))),
        "{reload}"
    );
    wait_for(&project, "the popup tab showing the new page", || {
        (h1(&mut server).0 == "second popup").then_some(())
    });
    // Only the page was reloaded: the web page still has its one root from the first load.
    assert_eq!(roots(&project, "127.0.0.1").unwrap(), ["page test"]);
    assert_eq!(ready(&project)["status"], "ready", "{:#}", ready(&project));

    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
