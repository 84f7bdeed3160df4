//! The error-code table. A code names one kind of failure forever: codes are added, never
//! reused for another meaning, because agents and scripts branch on them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every failure the product reports carries exactly one of these codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// An argument is missing, of the wrong type, or out of range.
    InvalidArgument,
    /// The named thing (tab, browser, file, template, session) does not exist.
    NotFound,
    /// A ref, cursor or tab-set fingerprint refers to a state that has changed.
    Stale,
    /// The operation did not complete within its deadline.
    Timeout,
    /// No browser or helper extension is connected, or it went away mid-call.
    NotConnected,
    /// The browser, platform or target does not support the operation.
    Unsupported,
    /// The browser, the page or the configuration forbids the operation.
    PermissionDenied,
    /// Script in the page failed or its result could not be returned.
    ScriptError,
    /// A payload exceeds a size limit of the transport.
    PayloadTooLarge,
    /// The two ends speak different protocol versions.
    VersionSkew,
    /// The target already exists and the call would overwrite it.
    AlreadyExists,
    /// Another process or session holds the resource.
    Busy,
    /// A network request failed.
    Network,
    /// Data failed an integrity check (checksum, signature, shape).
    Integrity,
    /// Building the extension failed.
    BuildFailed,
    /// The browser refused to load the extension.
    LoadRefused,
    /// A needed program (browser, Node, package manager) is not installed.
    NotInstalled,
    /// The tab is blocked by a native dialog.
    Blocked,
    /// The tab's renderer (content process) crashed; the page is gone until it is reloaded.
    TabCrashed,
    /// A bug in webext-mcp: report it.
    Internal,
    /// Building or installing would run the project's own code (a package manager, a
    /// `build` script, a bundler config, its Node.js) and the user has not allowed it.
    ProjectScriptsNotAllowed,
}

impl ErrorCode {
    /// Every code, in table order.
    pub const ALL: [ErrorCode; 21] = [
        ErrorCode::InvalidArgument,
        ErrorCode::NotFound,
        ErrorCode::Stale,
        ErrorCode::Timeout,
        ErrorCode::NotConnected,
        ErrorCode::Unsupported,
        ErrorCode::PermissionDenied,
        ErrorCode::ScriptError,
        ErrorCode::PayloadTooLarge,
        ErrorCode::VersionSkew,
        ErrorCode::AlreadyExists,
        ErrorCode::Busy,
        ErrorCode::Network,
        ErrorCode::Integrity,
        ErrorCode::BuildFailed,
        ErrorCode::LoadRefused,
        ErrorCode::NotInstalled,
        ErrorCode::Blocked,
        ErrorCode::TabCrashed,
        ErrorCode::Internal,
        ErrorCode::ProjectScriptsNotAllowed,
    ];

    /// The stable wire spelling, e.g. `INVALID_ARGUMENT`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Stale => "STALE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::NotConnected => "NOT_CONNECTED",
            ErrorCode::Unsupported => "UNSUPPORTED",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ScriptError => "SCRIPT_ERROR",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::VersionSkew => "VERSION_SKEW",
            ErrorCode::AlreadyExists => "ALREADY_EXISTS",
            ErrorCode::Busy => "BUSY",
            ErrorCode::Network => "NETWORK",
            ErrorCode::Integrity => "INTEGRITY",
            ErrorCode::BuildFailed => "BUILD_FAILED",
            ErrorCode::LoadRefused => "LOAD_REFUSED",
            ErrorCode::NotInstalled => "NOT_INSTALLED",
            ErrorCode::Blocked => "BLOCKED",
            ErrorCode::TabCrashed => "TAB_CRASHED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::ProjectScriptsNotAllowed => "PROJECT_SCRIPTS_NOT_ALLOWED",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error object carried on the wire (`{"code","message","hint","data"}`), in MCP tool
/// results (`structuredContent.error`) and printed by the CLI with `--json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{}", self.line())]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody { code, message: message.into(), hint: None, data: None }
    }

    /// What the caller can do next.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Machine-readable details (candidates, limits, paths). Never page content or secrets.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
            .with_hint("this is a bug in webext-mcp; please report it with the log file")
    }

    /// The one-line text form: `CODE: message — hint`.
    pub fn line(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}: {} — {}", self.code, self.message, hint),
            None => format!("{}: {}", self.code, self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_spelling_matches_serde_for_every_code() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, Value::String(code.as_str().to_owned()));
            let back: ErrorCode = serde_json::from_value(json).unwrap();
            assert_eq!(back, code);
        }
    }

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {code}");
        }
        assert_eq!(seen.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn line_form_has_code_message_and_hint() {
        let e = ErrorBody::new(ErrorCode::NotFound, "no tab 7").with_hint("call list_pages");
        assert_eq!(e.line(), "NOT_FOUND: no tab 7 — call list_pages");
        assert_eq!(ErrorBody::invalid_argument("x").line(), "INVALID_ARGUMENT: x");
    }

    #[test]
    fn body_round_trips_and_omits_empty_fields() {
        let e = ErrorBody::new(ErrorCode::Busy, "locked");
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, r#"{"code":"BUSY","message":"locked"}"#);
        let back: ErrorBody = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
    }
}
