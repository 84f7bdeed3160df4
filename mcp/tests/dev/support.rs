//! What the dev-session tests share: a project written by the test, reading the contract
//! files, evaluating in the session's tab through its control socket, and proving that no
//! process of a session is left.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use crate::common::DEADLINE;

/// One browser-launching test at a time.
pub fn browser_slot() -> MutexGuard<'static, ()> {
    static SLOT: Mutex<()> = Mutex::new(());
    SLOT.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The content script: a top-level `const` (re-injecting it unwrapped would throw
/// "Identifier 'label' has already been declared") and one `[data-extension-root]`.
pub fn content_script(text: &str) -> String {
    format!(
        "const label = {text:?};\nconst root = document.createElement(\"div\");\nroot.setAttribute(\"data-extension-root\", \"\");\nroot.textContent = label;\ndocument.body.appendChild(root);\n"
    )
}

pub fn manifest(description: &str) -> String {
    json!({
        "manifest_version": 3,
        "name": "dev session test",
        "version": "1.0.0",
        "description": description,
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["content.js"]}]
    })
    .to_string()
}

/// A project of our own (not a template): manifest + content script.
pub fn write_project(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("manifest.json"), manifest("first")).unwrap();
    std::fs::write(dir.join("content.js"), content_script(text)).unwrap();
}

/// `dist/extension-js/<browser>/` of the session that ran last in `project` (each test runs
/// a project in one browser; the newest `ready.json` names it).
pub fn contract_dir(project: &Path) -> PathBuf {
    let root = project.join("dist/extension-js");
    let newest = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let modified = e.path().join("ready.json").metadata().ok()?.modified().ok()?;
            Some((modified, e.path()))
        })
        .max_by_key(|(modified, _)| *modified);
    newest.map_or_else(|| root.join("chromium"), |(_, dir)| dir)
}

/// The browsers every dev-session test body runs in: one body, one test per browser
/// (`<module>::chromium`, `<module>::firefox`).
#[macro_export]
macro_rules! in_both_browsers {
    ($name:ident, $body:ident) => {
        mod $name {
            #[test]
            fn chromium() {
                super::$body("chromium");
            }
            #[test]
            fn firefox() {
                super::$body("firefox");
            }
        }
    };
}

/// The URL scheme of `browser`'s extension pages.
pub fn extension_scheme(browser: &str) -> &'static str {
    if browser == "firefox" { "moz-extension://" } else { "chrome-extension://" }
}

pub fn ready(project: &Path) -> Value {
    let text = std::fs::read_to_string(contract_dir(project).join("ready.json")).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

pub fn events(project: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(contract_dir(project).join("events.ndjson")).unwrap_or_default();
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Polls `f` until it returns `Some`, or panics with `what` and the session's state.
pub fn wait_for<T>(project: &Path, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(v) = f() {
            return v;
        }
        if Instant::now() >= deadline {
            panic!(
                "{what}: not within {DEADLINE:?}\nready.json: {:#}\nevents:\n{}\nsession.log tail:\n{}",
                ready(project),
                events(project).iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
                log_tail(project)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn log_tail(project: &Path) -> String {
    let text = std::fs::read_to_string(contract_dir(project).join("session.log")).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// One request on the session's control socket, presenting the token of the session's
/// ticket (`d-<tag>.json` beside the socket in the runtime dir); frames of the host's codec.
pub fn control(project: &Path, req: Value) -> Value {
    use webext_mcp_host::protocol::MAX_SOCKET_FRAME;
    use webext_mcp_host::protocol::codec::{FrameDecoder, encode_frame};
    let socket = std::path::PathBuf::from(ready(project)["controlSocket"].as_str().unwrap());
    let ticket: Value =
        serde_json::from_slice(&std::fs::read(socket.with_extension("json")).unwrap()).unwrap();
    let mut stream = UnixStream::connect(&socket).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    let token = json!({"token": ticket["token"]}).to_string();
    stream.write_all(&encode_frame(token.as_bytes(), MAX_SOCKET_FRAME).unwrap()).unwrap();
    stream.write_all(&encode_frame(req.to_string().as_bytes(), MAX_SOCKET_FRAME).unwrap()).unwrap();
    let mut decoder = FrameDecoder::new(MAX_SOCKET_FRAME);
    let mut buf = vec![0; 64 * 1024];
    loop {
        if let Some(frame) = decoder.next_frame() {
            return serde_json::from_slice(&frame.unwrap()).unwrap();
        }
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the session closed the control socket without answering");
        decoder.push(&buf[..n]);
    }
}

/// The texts of the `[data-extension-root]` elements in the session's tab whose URL contains
/// `url`, read over CDP through the session's control socket (for tests without an MCP
/// server; the dev loop reads the tab with [`snapshot`] instead).
pub fn roots(project: &Path, url: &str) -> Option<Vec<String>> {
    let answer = control(
        project,
        json!({"op": "evaluate", "url": url,
               "expression": "[...document.querySelectorAll('[data-extension-root]')].map(e => e.textContent)"}),
    );
    let list = answer.get("ok")?.as_array()?;
    Some(list.iter().map(|v| v.as_str().unwrap_or("").to_owned()).collect())
}

/// Waits until the tab shows exactly one root with `text`.
pub fn wait_root(project: &Path, url: &str, text: &str) {
    wait_for(project, &format!("one root reading {text:?} in {url}"), || {
        (roots(project, url)? == [text.to_owned()]).then_some(())
    });
}

/// The `HOME` a running process was started with (the runners give each browser a private
/// temporary one).
pub fn home_of(pid: u32) -> Option<PathBuf> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ
        .split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(b"HOME="))
        .map(|v| PathBuf::from(String::from_utf8_lossy(v).into_owned()))
}

/// Whether process `pid` is alive (not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().next()) != Some("Z"),
        Err(_) => false,
    }
}

/// (pid, ppid, pgrp, cmdline) of every process.
fn processes() -> Vec<(u32, u32, u32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let mut f = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("").split_whitespace();
        let state = f.next().unwrap_or("");
        if state == "Z" {
            continue;
        }
        let ppid = f.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        let pgrp = f.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        out.push((pid, ppid, pgrp, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
    }
    out
}

/// Processes left of a session: the session itself, anything descending from it, in its
/// browser's process group, or with the profile on its command line.
pub fn leftovers(session_pid: u32, browser_pid: u32, profile: &Path) -> Vec<String> {
    let procs = processes();
    let profile = profile.to_string_lossy().into_owned();
    let descends = |mut pid: u32| {
        for _ in 0..64 {
            if pid == session_pid {
                return true;
            }
            match procs.iter().find(|p| p.0 == pid) {
                Some(p) if p.1 != 0 && p.1 != pid => pid = p.1,
                _ => return false,
            }
        }
        false
    };
    procs
        .iter()
        .filter(|p| descends(p.0) || p.2 == browser_pid || p.3.contains(&profile))
        .map(|p| format!("{} {}", p.0, p.3.chars().take(120).collect::<String>()))
        .collect()
}

/// Waits until nothing of the session is left.
pub fn assert_all_gone(project: &Path, session_pid: u32, browser_pid: u32, profile: &Path, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let left = leftovers(session_pid, browser_pid, profile);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            panic!("still running after {within:?}: {left:#?}\nsession.log:\n{}", log_tail(project));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The ids a session reports.
pub struct Ids {
    pub pid: u32,
    pub browser_pid: u32,
    pub profile: PathBuf,
}

pub fn ids(ready: &Value) -> Ids {
    Ids {
        pid: ready["pid"].as_u64().unwrap() as u32,
        browser_pid: ready["browserPid"].as_u64().unwrap() as u32,
        profile: PathBuf::from(ready["profilePath"].as_str().unwrap()),
    }
}

/// A tool result's structured content, asserting success.
pub fn ok(result: &Value, what: &str) -> Value {
    assert_ne!(result["isError"], true, "{what} failed: {result:#}");
    result["structuredContent"].clone()
}

/// A tool result's error code, asserting failure.
pub fn err_code(result: &Value, what: &str) -> String {
    assert_eq!(result["isError"], true, "{what} should have failed: {result:#}");
    result["structuredContent"]["error"]["code"].as_str().unwrap().to_owned()
}

/// The page the tests open, served on 127.0.0.1.
pub fn pages() -> crate::common::http::TestServer {
    let server = crate::common::http::TestServer::start();
    server.page("/", "<!doctype html><title>start</title><body><p>start page</p></body>");
    server.page("/other", "<!doctype html><title>other</title><body><p>other page</p></body>");
    server
}

/// `webext-mcp <args>` with the test's home and runtime dir: (code, stdout, stderr).
pub fn cli(home: &Path, args: &[&str]) -> (i32, String, String) {
    crate::common::mcp_client::run(home, args)
}

/// The session's tab whose URL contains `url` as `take_snapshot` renders it, through the
/// helper extension in the session's browser (`browser: <sessionId>`).
pub fn snapshot(server: &mut crate::common::mcp_client::Server, session: &str, url: &str) -> Option<String> {
    let pages = server.call("list_pages", json!({ "browser": session }));
    if pages["isError"] == true {
        return None;
    }
    let tabs = pages["structuredContent"]["tabs"].as_array()?;
    let tab = tabs.iter().find(|t| t["url"].as_str().is_some_and(|u| u.contains(url)))?["tabId"].as_i64()?;
    let snap = server.call("take_snapshot", json!({ "browser": session, "tabId": tab }));
    if snap["isError"] == true {
        return None;
    }
    Some(snap["structuredContent"]["text"].as_str()?.to_owned())
}

/// Waits until `take_snapshot` of the tab shows `text` exactly once and none of `gone`
/// (the old copy was removed, not stacked).
pub fn wait_root_in_snapshot(
    server: &mut crate::common::mcp_client::Server,
    project: &Path,
    session: &str,
    url: &str,
    text: &str,
    gone: &[&str],
) {
    wait_for(project, &format!("take_snapshot of {url} showing {text:?} once"), || {
        let snap = snapshot(server, session, url)?;
        (snap.matches(text).count() == 1 && gone.iter().all(|g| !snap.contains(g))).then_some(())
    });
}

/// The ref (`e12`) on the first line of a snapshot that contains `needle`.
pub fn ref_in(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{snapshot}"));
    let start = line.find('[').map_or(0, |i| i + 1);
    line[start..].split(']').next().unwrap_or("").to_owned()
}
