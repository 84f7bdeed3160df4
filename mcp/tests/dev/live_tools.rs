//! Issue 26: the extension of a running session seen and poked through MCP, one body for
//! both browsers: `extension_logs` (every context with its source and line, repeats,
//! `follow` delivering a line printed after the call started, the CLI twin),
//! `extension_storage` (set from the tool, read by the popup, seen with `take_snapshot` on
//! the tab `extension_open` gives), `extension_open` for each page the project has (and
//! the real action popup),
//! `extension_eval` (refused unless enabled, then a value from the background) and
//! `extension_reload` (a changed background's new line, content scripts run again, their
//! entries naming the tab and frame).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp_client::{Server, command};
use crate::in_both_browsers;
use crate::support::*;

fn background(version: &str) -> String {
    format!(
        "console.log(\"bg started {version}\");\nsetTimeout(() => {{ throw new Error(\"bg boom\"); }}, 0);\n"
    )
}

fn write_fixture(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = json!({
        "manifest_version": 3,
        "name": "live tools test",
        "version": "1.0.0",
        "permissions": ["storage"],
        "background": {"service_worker": "bg.js"},
        "action": {"default_popup": "popup.html"},
        "options_ui": {"page": "options.html"},
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["content.js"]}]
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("bg.js"), background("v1")).unwrap();
    std::fs::write(dir.join("content.js"), "console.log(\"cs says hello\");\n").unwrap();
    std::fs::write(
        dir.join("popup.html"),
        "<!doctype html><title>popup</title><body><p id=\"out\">waiting</p><script src=\"popup.js\"></script></body>",
    )
    .unwrap();
    std::fs::write(
        dir.join("popup.js"),
        "console.log(\"popup opened\");\nchrome.storage.local.get(\"greeting\").then((v) => {\n  document.getElementById(\"out\").textContent = \"greeting: \" + (v.greeting ?? \"none\");\n});\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("options.html"),
        "<!doctype html><title>options</title><body><p>options page</p></body>",
    )
    .unwrap();
}

/// The entries of an `extension_logs` call (asserting success).
fn entries(server: &mut Server, args: Value) -> (Vec<Value>, Value) {
    let out = ok(&server.call("extension_logs", args), "extension_logs");
    (out["entries"].as_array().cloned().unwrap_or_default(), out)
}

/// Waits until the log has an entry with `text` (and returns it).
fn wait_entry(server: &mut Server, project: &Path, args: &Value, text: &str) -> Value {
    wait_for(project, &format!("a log entry {text:?}"), || {
        entries(server, args.clone()).0.into_iter().find(|e| e["text"] == text)
    })
}

in_both_browsers!(logs_storage_open_eval_reload, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_fixture(&project);
    let site = pages();
    let start = site.url("/");
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": start});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    let session = started["sessionId"].as_str().unwrap().to_owned();
    let ids = ids(&started);
    let all = json!({"projectPath": project, "browser": browser, "since": "start"});

    // Every context with its source and line.
    let bg = wait_entry(&mut server, &project, &all, "bg started v1");
    assert_eq!(
        (bg["source"].as_str(), bg["file"].as_str(), bg["line"].as_u64()),
        (Some("background"), Some("bg.js"), Some(1)),
        "{bg}"
    );
    let cs = wait_entry(&mut server, &project, &all, "cs says hello");
    assert_eq!(
        (cs["source"].as_str(), cs["file"].as_str(), cs["line"].as_u64()),
        (Some("content-script"), Some("content.js"), Some(1)),
        "{cs}"
    );
    assert!(cs["context"].as_str().unwrap().starts_with("http://127.0.0.1"), "{cs}");
    let boom = wait_for(&project, "the background's uncaught error", || {
        entries(&mut server, all.clone())
            .0
            .into_iter()
            .find(|e| e["text"].as_str().is_some_and(|t| t.contains("bg boom")))
    });
    assert_eq!(
        (boom["type"].as_str(), boom["source"].as_str(), boom["line"].as_u64()),
        (Some("exception"), Some("background"), Some(2)),
        "{boom}"
    );
    let (built, _) = entries(
        &mut server,
        json!({"projectPath": project, "browser": browser, "since": "start", "context": ["session"]}),
    );
    assert!(built.iter().any(|e| e["text"].as_str().unwrap().starts_with("build succeeded")), "{built:?}");
    let (errors, _) =
        entries(&mut server, json!({"projectPath": project, "level": "error", "since": "start"}));
    assert!(errors.iter().all(|e| e["level"] == "error") && !errors.is_empty(), "{errors:?}");

    // Storage set from the tool is what the popup reads.
    let set = json!({"projectPath": project, "action": "set", "items": {"greeting": "hi from the tool"}});
    ok(&server.call("extension_storage", set), "extension_storage set");
    let got = ok(&server.call("extension_storage", json!({"projectPath": project})), "extension_storage get");
    assert_eq!(got["items"]["greeting"], "hi from the tool", "{got}");
    let opened = ok(
        &server.call("extension_open", json!({"projectPath": project, "page": "popup"})),
        "extension_open popup",
    );
    assert!(opened["url"].as_str().unwrap().starts_with(extension_scheme(browser)), "{opened}");
    let tab = opened["tabId"].as_i64().unwrap_or_else(|| panic!("no tabId: {opened}"));
    assert_eq!(opened["browser"], session.as_str());
    // The tab is the page tools' (no extension may script another's pages: its content is
    // read through the session).
    let listed = ok(&server.call("list_pages", json!({"browser": session})), "list_pages");
    assert!(
        listed["tabs"].as_array().unwrap().iter().any(|t| t["tabId"] == tab && t["url"] == opened["url"]),
        "{listed}"
    );
    wait_for(&project, "the popup showing the stored greeting", || {
        let inspect =
            json!({"projectPath": project, "context": "popup", "include": ["html"], "format": "json"});
        let out = server.call("extension_source_inspect", inspect);
        out["content"][0]["text"].as_str().filter(|t| t.contains("greeting: hi from the tool")).map(|_| ())
    });
    let popup = wait_entry(&mut server, &project, &all, "popup opened");
    assert_eq!((popup["source"].as_str(), popup["line"].as_u64()), (Some("popup"), Some(1)), "{popup}");
    let options = ok(
        &server.call("extension_open", json!({"projectPath": project, "page": "options"})),
        "extension_open options",
    );
    assert!(options["url"].as_str().unwrap().ends_with("/options.html"), "{options}");
    assert!(options["tabId"].is_i64(), "{options}");
    let none = server.call("extension_open", json!({"projectPath": project, "page": "newtab"}));
    assert_eq!(err_code(&none, "extension_open of a page the project lacks"), "NOT_FOUND");
    // The real action popup (no tab): answered once the browser shows it (the popup tab
    // closed first, so Chromium's page list has only the real popup at that URL).
    ok(&server.call("close_page", json!({"browser": session, "tabId": tab})), "close_page of the popup tab");
    let real = json!({"projectPath": project, "page": "popup", "popup": true});
    let shown = ok(&server.call("extension_open", real), "extension_open popup: true");
    assert_eq!(
        (shown["popup"].as_bool(), shown["url"].as_str()),
        (Some(true), opened["url"].as_str()),
        "{shown}"
    );
    let wrong =
        server.call("extension_open", json!({"projectPath": project, "page": "options", "popup": true}));
    assert_eq!(err_code(&wrong, "popup: true for the options page"), "INVALID_ARGUMENT");

    // follow: a line printed after the call started arrives in its result.
    let printer = {
        let project = project.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            control(
                &project,
                json!({"op": "eval", "expression": "console.log('followed line')", "allowed": true}),
            )
        })
    };
    let (followed, out) = entries(
        &mut server,
        json!({"projectPath": project, "follow": true, "timeoutMs": 15000, "contains": "followed line"}),
    );
    let printed = printer.join().unwrap();
    assert!(printed.get("ok").is_some(), "{printed}");
    assert_eq!(followed.len(), 1, "{out:#}");
    assert_eq!(followed[0]["source"], "background", "{out:#}");

    // eval: refused by default, allowed by the configuration.
    let eval = json!({"projectPath": project, "expression": "chrome.runtime.getManifest().version"});
    let refused = server.call("extension_eval", eval.clone());
    assert_eq!(err_code(&refused, "extension_eval without permission"), "PERMISSION_DENIED");
    let mut cmd = command(home.path());
    cmd.env("WEBEXT_MCP_EXTENSION_EVAL", "true").arg("serve");
    let mut allowed = Server::spawn(cmd);
    allowed.initialize();
    let value = ok(&allowed.call("extension_eval", eval), "extension_eval enabled");
    assert_eq!(value["json"], "\"1.0.0\"", "{value}");
    let function = json!({"projectPath": project, "function": "async (k) => (await chrome.storage.local.get(k))[k]", "args": ["greeting"]});
    let value = ok(&allowed.call("extension_eval", function), "extension_eval function");
    assert_eq!(value["json"], "\"hi from the tool\"", "{value}");
    drop(allowed);

    // reload: the changed background's new line, and the content script runs again.
    let (_, before) = entries(&mut server, json!({"projectPath": project}));
    let since = before["next"].as_str().unwrap().to_owned();
    std::fs::write(project.join("bg.js"), background("v2")).unwrap();
    let reloaded = ok(&server.call("extension_reload", json!({"projectPath": project})), "extension_reload");
    assert!(reloaded["backgroundMs"].is_u64(), "{reloaded}");
    let newer = json!({"projectPath": project, "since": since});
    wait_entry(&mut server, &project, &newer, "bg started v2");
    let cs = wait_entry(&mut server, &project, &newer, "cs says hello");
    // With its tab as the page tools number it, and its frame (the top document: 0).
    let listed = ok(&server.call("list_pages", json!({"browser": session})), "list_pages");
    let start_tab = listed["tabs"].as_array().unwrap().iter().find(|t| t["url"] == start.as_str());
    assert_eq!(
        (cs["tabId"].as_i64(), cs["frameId"].as_i64()),
        (start_tab.and_then(|t| t["tabId"].as_i64()), Some(0)),
        "{cs} {listed}"
    );
    assert!(events(&project).iter().any(|e| e["type"] == "reload" && e["kind"] == "requested"));

    // The CLI twin prints the same log.
    let (code, stdout, stderr) =
        cli(home.path(), &["logs", project.to_str().unwrap(), "--browser", browser, "--since", "start"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("background bg.js:1:") || stdout.contains("background bg.js:1 "), "{stdout}");

    // `logs --follow` prints a line printed after it started, then goes on until stopped.
    let mut follow = command(home.path())
        .args([
            "logs",
            project.to_str().unwrap(),
            "--browser",
            browser,
            "--follow",
            "--contains",
            "cli followed",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = follow.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = wait_for(&project, "a line from `logs --follow`", || {
        control(
            &project,
            json!({"op": "eval", "expression": "console.log('cli followed')", "allowed": true}),
        );
        rx.recv_timeout(Duration::from_secs(3)).ok()
    });
    assert!(first.contains("background") && first.ends_with("cli followed"), "{first}");
    assert!(follow.try_wait().unwrap().is_none(), "`logs --follow` ended by itself");
    follow.kill().unwrap();
    follow.wait().unwrap();

    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
