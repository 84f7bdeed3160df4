//! The files a session writes under `dist/extension-js/<browser>/` for other processes to
//! read: `ready.json` (its state, compatible with Extension.js 4.1), `events.ndjson` (what
//! happened: builds, reloads, what the dev build added, browser exit) and `logs.ndjson` (the
//! extension's console and errors).
//!
//! `ready.json` is replaced atomically (written aside, renamed), so a reader never sees half
//! a file. The ndjson files are appended one whole line per write.

pub use crate::timestamp::{iso, now_iso};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `schema` and `schemaVersion` of the `ready.json` written here.
pub const SCHEMA: &str = "extension-js/ready";
pub const SCHEMA_VERSION: u32 = 1;

/// A session's life: starting → ready ↔ error → stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Starting,
    Ready,
    Error,
    Stopped,
}

impl Status {
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Ready => "ready",
            Status::Error => "error",
            Status::Stopped => "stopped",
        }
    }
}

/// One problem that put the session in `error`: a failed build or an uncaught exception of
/// the extension (file relative to the project, 1-based line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorEntry {
    /// `build` or `runtime`.
    pub source: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The error code (`BUILD_FAILED`, `SCRIPT_ERROR`, `LOAD_REFUSED`).
    pub code: String,
}

impl ErrorEntry {
    /// `file:line:column message`, the form `ready.json`'s `errors` carries.
    pub fn line_text(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => match self.column {
                Some(c) => format!("{f}:{l}:{c} {}", self.message),
                None => format!("{f}:{l} {}", self.message),
            },
            (Some(f), None) => format!("{f}: {}", self.message),
            _ => self.message.clone(),
        }
    }
}

/// An uncaught exception of the extension (or a failed re-injection) as a session error.
pub fn runtime_error(
    message: String,
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
) -> ErrorEntry {
    ErrorEntry {
        source: "runtime".into(),
        message,
        file,
        line,
        column,
        code: webext_mcp_host::protocol::ErrorCode::ScriptError.as_str().into(),
    }
}

/// `ready.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ready {
    pub schema_version: u32,
    pub schema: String,
    pub status: Status,
    /// `dev`, `start` or `preview`.
    pub command: String,
    pub browser: String,
    pub run_id: String,
    /// The session process.
    pub pid: u32,
    pub browser_pid: Option<u32>,
    /// Extension.js's dev-server port; sessions here have no server (always null). The
    /// control socket is `controlSocket`.
    pub port: Option<u16>,
    pub dist_path: PathBuf,
    pub manifest_path: PathBuf,
    pub started_at: String,
    pub compiled_at: Option<String>,
    /// `file:line:column message` per problem (Extension.js shape); details in `errorDetails`.
    pub errors: Vec<String>,
    #[serde(default)]
    pub error_details: Vec<ErrorEntry>,
    pub extension_id: Option<String>,
    pub profile_path: PathBuf,
    /// The session id (`WEBEXT_MCP_SESSION` of its browser; `browser:` of the browser tools).
    pub session_id: String,
    pub project_path: PathBuf,
    pub control_socket: PathBuf,
    /// What the project's `extension.config.*` set for this run (flags, binary, preferences)
    /// and what of it was refused, with why; absent without a config file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_config: Option<super::run_config::RunConfig>,
}

impl Ready {
    pub fn set_errors(&mut self, errors: &[ErrorEntry]) {
        self.errors = errors.iter().map(ErrorEntry::line_text).collect();
        self.error_details = errors.to_vec();
    }
}

/// The contract files of one session.
#[derive(Debug, Clone)]
pub struct Contract {
    pub dir: PathBuf,
}

impl Contract {
    pub fn ready_path(&self) -> PathBuf {
        self.dir.join("ready.json")
    }

    pub fn events_path(&self) -> PathBuf {
        self.dir.join("events.ndjson")
    }

    pub fn logs_path(&self) -> PathBuf {
        self.dir.join("logs.ndjson")
    }

    /// Replaces `ready.json` atomically.
    pub fn write_ready(&self, ready: &Ready) -> std::io::Result<()> {
        let body = serde_json::to_vec_pretty(ready).map_err(std::io::Error::other)?;
        crate::file::write_atomic(&self.ready_path(), &body)
    }

    /// Appends an event: `{"time": …, "type": …, …fields}`.
    /// Builds, loads and reloads also go into `logs.ndjson`, the one stream of the session
    /// (`logs.rs`).
    pub fn event(&self, kind: &str, fields: Value) {
        if let Some(line) = super::logs::session_line(kind, &fields) {
            append(&self.logs_path(), kind, line);
        }
        append(&self.events_path(), kind, fields);
    }

    pub fn log(&self, kind: &str, fields: Value) {
        append(&self.logs_path(), kind, fields);
    }

    /// Starts `events.ndjson` and `logs.ndjson` afresh for a new run.
    pub fn reset_streams(&self) {
        let _ = std::fs::write(self.events_path(), b"");
        let _ = std::fs::write(self.logs_path(), b"");
    }
}

fn append(path: &Path, kind: &str, fields: Value) {
    let mut line = serde_json::Map::new();
    line.insert("time".into(), Value::String(now_iso()));
    line.insert("type".into(), Value::String(kind.to_owned()));
    if let Value::Object(extra) = fields {
        line.extend(extra);
    }
    let mut text = Value::Object(line).to_string();
    text.push('\n');
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = written {
        tracing::warn!(error = %e, path = %path.display(), "cannot append to the session's event file");
    }
}

/// Reads `ready.json` from a contract dir; `None` when missing or unreadable.
pub fn read_ready(dir: &Path) -> Option<Ready> {
    let bytes = std::fs::read(dir.join("ready.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines() {
        let e = ErrorEntry {
            source: "runtime".into(),
            message: "SyntaxError: Unexpected token".into(),
            file: Some("content.js".into()),
            line: Some(3),
            column: Some(7),
            code: "SCRIPT_ERROR".into(),
        };
        assert_eq!(e.line_text(), "content.js:3:7 SyntaxError: Unexpected token");
    }

    #[test]
    fn ready_is_replaced_and_events_append() {
        let dir = tempfile::tempdir().unwrap();
        let c = Contract { dir: dir.path().to_owned() };
        c.reset_streams();
        c.event("compile", serde_json::json!({"status": "start"}));
        c.event("compile", serde_json::json!({"status": "success"}));
        let text = std::fs::read_to_string(c.events_path()).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["type"], "compile");
        assert_eq!(lines[1]["status"], "success");
        assert!(read_ready(dir.path()).is_none());
    }
}
