//! What the dev-session tools say while they wait and when a wait ends first: the session's
//! status from its contract files (`ready.json`, the last line of `events.ndjson`), so a
//! client sees a first build run instead of silence, and a wait that ends before the session
//! is ready answers with where it is.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::session::contract;

/// How much of the end of `events.ndjson` is read for its last event.
const TAIL_BYTES: u64 = 4096;

/// One progress line: `chrome session starting: 10:30:00 compile start`.
pub(super) fn session_status(dir: &Path, browser: &str) -> String {
    let status = contract::read_ready(dir).map_or("not started yet (no ready.json)", |r| r.status.as_str());
    match last_event(&dir.join("events.ndjson")) {
        Some(event) => format!("{browser} session {status}: {event}"),
        None => format!("{browser} session {status}"),
    }
}

/// The last whole event of `events.ndjson`, as a line for people.
fn last_event(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES))).ok()?;
    let mut bytes = Vec::new();
    f.take(TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let v =
        text.lines().rev().find_map(|l| serde_json::from_str::<Value>(l).ok().filter(Value::is_object))?;
    Some(event_text(&v).trim().to_owned())
}

/// The `TIMEOUT` of a wait that ended before the session was ready: its last status, with
/// `ready.json` in `data`.
pub(super) fn not_ready(browser: &str, waited_ms: u64, ready: &Value) -> ErrorBody {
    let status = ready["status"].as_str().unwrap_or("no ready.json yet");
    ErrorBody::new(
        ErrorCode::Timeout,
        format!("the {browser} session was not ready within {waited_ms} ms (last status: {status})"),
    )
    .with_hint("call extension_wait to wait on, or read dist/extension-js/<browser>/events.ndjson to see what it is doing")
    .with_data(json!({ "ready": ready }))
}

/// One event of `events.ndjson` as a line for people:
/// `10:30:00 reload content-script content.js (212 ms)` (progress here, the foreground CLI).
pub fn event_text(v: &Value) -> String {
    let time = v["time"].as_str().and_then(|t| t.get(11..19)).unwrap_or("");
    let kind = v["type"].as_str().unwrap_or("?");
    let what = v["status"].as_str().or_else(|| v["kind"].as_str()).unwrap_or("");
    let files: Vec<&str> = v["files"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let mut line = format!("{time} {kind} {what}");
    if !files.is_empty() {
        line.push(' ');
        line.push_str(&files.join(", "));
    }
    if let Some(ms) = v["durationMs"].as_u64() {
        line.push_str(&format!(" ({ms} ms)"));
    }
    if let Some(e) = v.get("error") {
        line.push_str(&format!(
            " {}",
            e["file"].as_str().map_or(String::new(), |f| format!("{f}:{} ", e["line"]))
        ));
        line.push_str(e["message"].as_str().unwrap_or(""));
    }
    if let Some(errors) = v["errors"].as_array() {
        for e in errors {
            line.push_str(&format!("\n    {}", e["message"].as_str().unwrap_or("")));
        }
    }
    if let Some(m) = v["message"].as_str().or_else(|| v["reason"].as_str()) {
        line.push_str(&format!(" — {m}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_names_the_state_and_the_last_event() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(session_status(dir.path(), "chrome"), "chrome session not started yet (no ready.json)");
        let c = contract::Contract { dir: dir.path().to_path_buf() };
        c.event("compile", json!({"status": "start"}));
        let line = session_status(dir.path(), "chrome");
        assert!(
            line.starts_with("chrome session not started yet") && line.ends_with("compile start"),
            "{line}"
        );
        // A half-written last line is skipped for the whole one before it.
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("events.ndjson"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"type\":\"comp"))
            .unwrap();
        assert!(session_status(dir.path(), "chrome").ends_with("compile start"));
        let e = not_ready("chrome", 45_000, &json!({"status": "starting"}));
        assert_eq!(e.code, ErrorCode::Timeout);
        assert!(e.message.contains("45000 ms (last status: starting)"), "{}", e.message);
    }
}
