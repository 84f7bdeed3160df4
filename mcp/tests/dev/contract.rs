//! Extension.js's content-script contract in a dev session: the default export mounts a
//! widget that is no `[data-extension-root]` (the session's own sweep does not remove it),
//! and returns its cleanup. Edit after edit the open tab shows exactly one widget with the
//! new text: the cleanup of the old copy runs before the new one mounts, in both browsers.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

fn write_project(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = json!({
        "manifest_version": 3, "name": "contract dev test", "version": "1.0.0",
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["content.js"]}]
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(
        dir.join("content.js"),
        "import { text } from './text.js';\n\nexport default function mount() {\n  const widget = document.createElement('aside');\n  widget.className = 'wx-widget';\n  widget.textContent = text;\n  document.body.appendChild(widget);\n  return () => widget.remove();\n}\n",
    )
    .unwrap();
    write_text(dir, text);
}

fn write_text(dir: &Path, text: &str) {
    std::fs::write(dir.join("text.js"), format!("export const text = {text:?};\n")).unwrap();
}

/// The widgets' texts in the session's tab.
fn widgets(project: &Path) -> Option<Vec<Value>> {
    let answer = control(
        project,
        json!({"op": "evaluate", "url": "127.0.0.1",
               "expression": "[...document.querySelectorAll('.wx-widget')].map(e => e.textContent)"}),
    );
    answer.get("ok")?.as_array().cloned()
}

fn wait_one_widget(project: &Path, text: &str) {
    wait_for(project, &format!("exactly one widget reading {text:?}"), || {
        (widgets(project)? == [json!(text)]).then_some(())
    });
}

in_both_browsers!(an_edit_leaves_exactly_one_mounted_widget, edits_remount_once);

fn edits_remount_once(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "first");
    let site = pages();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    assert_eq!(started["status"], "ready", "{started:#}");
    wait_one_widget(&project, "first");
    for text in ["second", "third"] {
        write_text(&project, text);
        wait_one_widget(&project, text);
    }
    // Settled: no late second mount.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(widgets(&project).unwrap(), [json!("third")]);
    assert_eq!(ready(&project)["status"], "ready", "{:#}", ready(&project));

    let ids = ids(&started);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
