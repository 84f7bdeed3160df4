//! Issue 19, the first hour of a new user, end to end in headless Chromium: through the
//! official Python MCP SDK with its default (stripped) environment, and through the CLI twin
//! (`webext-mcp call …`, one process per call). Create → build → dev → ready → at once the
//! page tools on the session (no wait, no retry) → edit → the change shows → fills of every
//! field kind by ref and by locator → a click that only changes text reports it → stop.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::*;

/// The page the session opens: every kind of field.
fn fields_site() -> crate::common::http::TestServer {
    let server = crate::common::http::TestServer::start();
    server.page("/fields.html", crate::common::pages::FIELDS);
    server
}

/// The browser a session picks when none is named, on this machine.
fn expected_default_browser() -> &'static str {
    let chrome = ["google-chrome", "google-chrome-stable"].iter().any(|p| which(p));
    if chrome { "chrome" } else { "chromium" }
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

#[test]
fn the_first_hour_through_the_python_sdk() {
    let _slot = browser_slot();
    let py = crate::common::python::sdk_python();
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let site = fields_site();
    let log = home.path().join("server.log");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dev/first_hour_client.py");
    let out = Command::new(&py)
        .arg(script)
        .arg(crate::common::mcp_client::bin())
        .arg(home.path())
        .arg(&work)
        .arg(site.url("/fields.html"))
        .arg(&log)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let project = work.join("first-hour");
    let line = |key: &str| {
        stdout.lines().find_map(|l| l.strip_prefix(&format!("{key} "))).map(str::to_owned).unwrap_or_default()
    };
    // Whatever happened, nothing of the session may be left.
    if let (Ok(pid), Some(browser_pid)) = (
        line("pid").split_whitespace().next().unwrap_or("").parse::<u32>(),
        line("pid").split_whitespace().nth(2),
    ) {
        let profile = PathBuf::from(line("profile"));
        assert_all_gone(&project, pid, browser_pid.parse().unwrap_or(0), &profile, Duration::from_secs(20));
    }
    assert!(
        out.status.success(),
        "{stdout}\n{}\nserver log:\n{}\nsession log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(&log).unwrap_or_default(),
        log_tail(&project)
    );
    let browser = expected_default_browser();
    assert_eq!(line("browser"), browser, "{stdout}");
    assert_eq!(PathBuf::from(line("distPath")), project.join("dist/dev").join(browser), "{stdout}");
    assert_eq!(line("readyState"), "complete", "inspect right after ready:\n{stdout}");
    assert_eq!(line("extensionRoots"), "1", "the template's root, right after ready:\n{stdout}");
    for step in ["edit seen", "fills ok", "stopped stopped"] {
        assert!(stdout.lines().any(|l| l == step), "{step}:\n{stdout}");
    }
    assert!(line("click change").contains("p#out \"hello\""), "{stdout}");
}

/// `webext-mcp call <tool> <json> --json` with the test's home: (exit code, JSON).
fn call(home: &Path, tool: &str, args: Value) -> (i32, Value) {
    let out = crate::common::mcp_client::command(home)
        .args(["call", tool, &args.to_string(), "--json"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{tool}: no JSON ({e}): {stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

fn call_ok(home: &Path, tool: &str, args: Value) -> Value {
    let (code, v) = call(home, tool, args.clone());
    assert_eq!(code, 0, "{tool} {args}: {v:#}");
    v
}

#[test]
fn the_first_hour_through_the_cli_twin_leaves_a_running_session() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let project = h.join("first-hour");
    let site = fields_site();
    let url = site.url("/fields.html");
    call_ok(
        h,
        "extension_create",
        json!({"projectPath": project, "template": "content", "install": false, "git": false}),
    );
    call_ok(h, "extension_build", json!({"projectPath": project}));

    // No `detach`: from the CLI the session must outlive the command, and the result says so.
    let ready =
        call_ok(h, "extension_dev", json!({"projectPath": project, "headless": true, "startingUrl": url}));
    assert_eq!(ready["status"], "ready", "{ready:#}");
    assert_eq!(ready["detached"], true, "{ready:#}");
    let ids = ids(&ready);
    std::thread::sleep(Duration::from_millis(500));
    assert!(alive(ids.pid), "the session died with `webext-mcp call`:\n{}", log_tail(&project));
    let sid = ready["sessionId"].as_str().unwrap().to_owned();

    // At once, each call its own process: the session's tab is the current page.
    let pages = call_ok(h, "list_pages", json!({"browser": sid}));
    assert!(pages["tabs"].as_array().unwrap().iter().any(|t| t["url"] == json!(url)), "{pages:#}");
    let snap = call_ok(h, "take_snapshot", json!({"browser": sid}));
    let text = snap["text"].as_str().unwrap().to_owned();
    assert!(text.contains("Your name"), "{text}");
    let title = call_ok(h, "evaluate_script", json!({"browser": sid, "function": "() => document.title"}));
    assert_eq!(title["json"], "\"Fields\"", "{title:#}");

    // Edit: the tab shows it.
    let script = project.join("src/content/content.js");
    let source = std::fs::read_to_string(&script).unwrap();
    std::fs::write(&script, source.replace("words on this page", "words, edited")).unwrap();
    let panel = "() => document.getElementById('webext-content-root')?.shadowRoot?.textContent.includes('words, edited') ?? false";
    wait_for(&project, "the edit in the tab", || {
        let (_, v) = call(h, "evaluate_script", json!({"browser": sid, "function": panel}));
        (v["json"] == "true").then_some(())
    });

    // Fills by ref (refs from another process's snapshot) and by locator.
    let ref_of = |needle: &str| ref_in(&text, needle);
    let read = |js: &str| {
        call_ok(h, "evaluate_script", json!({"browser": sid, "function": format!("() => {js}")}))["json"]
            .clone()
    };
    call_ok(h, "fill_by_uid", json!({"browser": sid, "uid": ref_of("\"I agree\""), "value": true}));
    call_ok(h, "fill", json!({"browser": sid, "locator": "#large", "value": true}));
    call_ok(h, "fill_by_uid", json!({"browser": sid, "uid": ref_of("\"Colour\""), "value": "Green"}));
    call_ok(h, "fill", json!({"browser": sid, "locator": "#note", "value": "cli note"}));
    call_ok(h, "fill_by_uid", json!({"browser": sid, "uid": ref_of("\"Day\""), "value": "2024-05-06"}));
    call_ok(h, "fill", json!({"browser": sid, "locator": "#vol", "value": "7"}));
    let state = [
        "tos').checked",
        "large').checked",
        "colour').value",
        "note').textContent",
        "when').value",
        "vol').value",
    ]
    .map(|p| format!("String(document.getElementById('{p})"))
    .join(", ");
    let got: Value = serde_json::from_str(read(&format!("[{state}]")).as_str().unwrap()).unwrap();
    assert_eq!(got, json!(["true", "true", "g", "cli note", "2024-05-06", "7"]));

    let clicked = call_ok(h, "click", json!({"browser": sid, "locator": "#say"}));
    let changed = clicked["changes"]["changed"].as_array().cloned().unwrap_or_default();
    assert!(changed.iter().any(|l| l.as_str().unwrap().contains("\"hello\"")), "{clicked:#}");

    let stopped = call_ok(h, "extension_stop", json!({"projectPath": project}));
    assert_eq!(stopped["status"], "stopped");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(20));

    // `detach: false` cannot work from a command that exits: refused, naming the way that can.
    let (code, v) = call(h, "extension_dev", json!({"projectPath": project, "detach": false}));
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v:#}");
    assert!(v["error"]["hint"].as_str().unwrap().contains("webext-mcp dev"), "{v:#}");
}
