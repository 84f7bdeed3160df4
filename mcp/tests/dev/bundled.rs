//! Issue 22: a dev session on a project the native bundler builds — a content script whose
//! text comes from a module two imports deep. Editing that module (not the entry) rebuilds
//! the bundle and the open tab shows the new text, once, edit after edit; an error thrown in
//! such a module is named by its file and line (the dev build's source map), in both
//! browsers.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

/// content.js → lib/view.js → lib/deep/text.js; the entry is an ES module, so only a
/// bundle can run it as a content script.
fn write_bundled(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir.join("lib/deep")).unwrap();
    // With a plain script beside the bundle (copied as it is), the session maps changed files
    // to outputs, and a changed file no output came from would be ignored.
    let manifest = json!({
        "manifest_version": 3, "name": "bundled dev test", "version": "1.0.0",
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["plain.js", "content.js"]}]
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("plain.js"), "document.documentElement.dataset.plain = 'yes';\n").unwrap();
    std::fs::write(dir.join("content.js"), "import { show } from './lib/view.js';\nshow();\n").unwrap();
    std::fs::write(
        dir.join("lib/view.js"),
        "import { text } from './deep/text.js';\nexport function show() {\n  const root = document.createElement('div');\n  root.setAttribute('data-extension-root', '');\n  root.textContent = text;\n  document.body.appendChild(root);\n}\n",
    )
    .unwrap();
    write_text(dir, text);
}

fn write_text(dir: &Path, text: &str) {
    std::fs::write(dir.join("lib/deep/text.js"), format!("export const text = {text:?};\n")).unwrap();
}

#[test]
fn editing_a_module_two_imports_deep_updates_the_open_tab() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_bundled(&project, "deep one");
    let site = pages();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": "chromium", "headless": true, "startingUrl": site.url("/")});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    assert_eq!(started["status"], "ready", "{started:#}");
    let built = std::fs::read_to_string(project.join("dist/dev/chromium/content.js")).unwrap();
    assert!(built.contains("// lib/deep/text.js") && !built.contains("import {"), "{built}");
    wait_root(&project, "127.0.0.1", "deep one");

    write_text(&project, "deep two");
    wait_root(&project, "127.0.0.1", "deep two");
    // Again, now that the session knows which files each output came from: the module is one
    // of the content script's (a file no output came from would be ignored).
    write_text(&project, "deep three");
    wait_root(&project, "127.0.0.1", "deep three");
    assert_eq!(ready(&project)["status"], "ready", "{:#}", ready(&project));

    let ids = ids(&started);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}

in_both_browsers!(an_error_in_a_bundled_module_names_its_file_and_line, error_names_the_module);

/// content.js → lib/deep/boom.js, which throws on its line 4 when the content script runs.
/// Without the dev source map the session names `content.js` at the bundle's line.
fn error_names_the_module(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    std::fs::create_dir_all(project.join("lib/deep")).unwrap();
    let manifest = json!({
        "manifest_version": 3, "name": "bundled error test", "version": "1.0.0",
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["content.js"]}]
    });
    std::fs::write(project.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(
        project.join("content.js"),
        "import { boom } from './lib/deep/boom.js';\nboom('in the tab');\n",
    )
    .unwrap();
    std::fs::write(
        project.join("lib/deep/boom.js"),
        "// Thrown on line 4.\nexport function boom(why) {\n  document.documentElement.dataset.boom = why;\n  throw new Error('deep boom ' + why);\n}\n",
    )
    .unwrap();
    let site = pages();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let started = server.call("extension_dev", args);
    let map = project.join(format!("dist/dev/{browser}/content.js.map"));
    assert!(map.is_file(), "no {}: {started:#}", map.display());
    let detail = wait_for(&project, "the module's error in ready.json", || {
        ready(&project)["errorDetails"]
            .as_array()?
            .iter()
            .find(|e| e["message"].as_str().is_some_and(|m| m.contains("deep boom")))
            .cloned()
    });
    assert_eq!(detail["file"], "lib/deep/boom.js", "{detail}");
    assert_eq!(detail["line"], 4, "{detail}");
    // Where the browser says: at `throw` (Chromium) or at `new Error` (Firefox).
    assert!(matches!(detail["column"].as_u64(), Some(3 | 9)), "{detail}");

    let ids = ids(&ready(&project));
    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
