//! The one place where domain errors become the stable codes of DESIGN.md "Errors", and
//! where a tool result becomes an MCP `CallToolResult`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::build::BuildError;
use crate::config::ConfigError;
use crate::helper::HelperError;
use crate::runner::RunnerError;
use crate::runner::cdp::CdpError;
use crate::tools::ToolResult;

/// A tool's outcome as MCP sees it. Failures are results with `isError: true`, the error
/// object in `structuredContent.error` and the text `CODE: message — hint`.
pub fn to_call_result(result: ToolResult) -> CallToolResult {
    match result {
        Ok(out) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(out.text())]);
            r.structured_content = Some(out.structured);
            r
        }
        Err(err) => {
            let mut r = CallToolResult::error(vec![ContentBlock::text(err.line())]);
            r.structured_content = Some(json!({ "error": err }));
            r
        }
    }
}

impl From<ConfigError> for ErrorBody {
    fn from(e: ConfigError) -> Self {
        let hint = match &e {
            ConfigError::Read { .. } => "check the file's permissions, or point WEBEXT_MCP_CONFIG elsewhere",
            _ => "fix the value, or run `webext-mcp config` to see every key and its source",
        };
        ErrorBody::new(ErrorCode::InvalidArgument, e.to_string()).with_hint(hint)
    }
}

impl From<RunnerError> for ErrorBody {
    fn from(e: RunnerError) -> Self {
        let (code, hint) = match &e {
            RunnerError::NotInstalled { .. } | RunnerError::BinaryMissing { .. } => (
                ErrorCode::NotInstalled,
                "install the browser (e.g. `apt-get install chromium` or `apt-get install firefox-esr`), or set its binary with the `binary` argument, WEBEXT_MCP_<FAMILY>_BINARY or browsers.<family>.binary",
            ),
            RunnerError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                (ErrorCode::NotInstalled, "check the browser binary path")
            }
            RunnerError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
                (ErrorCode::PermissionDenied, "make the browser binary executable for this user")
            }
            RunnerError::Spawn { .. } | RunnerError::Io { .. } => {
                (ErrorCode::Internal, "check free disk space and permissions of the temporary directory")
            }
            RunnerError::BadExtension { .. } => {
                (ErrorCode::InvalidArgument, "build the extension first and pass its output directory")
            }
            RunnerError::LoadRefused { .. } => (
                ErrorCode::LoadRefused,
                "run `validate` on the extension and fix the manifest errors it reports",
            ),
            RunnerError::StartTimeout { .. } => (
                ErrorCode::Timeout,
                "the browser may be overloaded or stuck on a dialog; retry, or run it headless",
            ),
            RunnerError::Exited { .. } => (
                ErrorCode::NotConnected,
                "the last output lines above usually say why; check the binary runs at all",
            ),
            RunnerError::BackgroundTimeout { .. } => (
                ErrorCode::Timeout,
                "look at the extension's errors: a throw or a top-level `await` in a module service worker stops it from starting",
            ),
            RunnerError::NoBackground { .. } => (
                ErrorCode::NotFound,
                "declare `background.service_worker` (Chromium) or `background.scripts` (Firefox)",
            ),
            RunnerError::Unsupported { .. } => {
                (ErrorCode::Unsupported, "restart the browser with the extension listed")
            }
            RunnerError::Cdp(CdpError::Closed) => {
                (ErrorCode::NotConnected, "the browser has exited; start it again")
            }
            RunnerError::Cdp(CdpError::Timeout { .. }) => {
                (ErrorCode::Timeout, "the target may have gone away; look it up again and retry")
            }
            RunnerError::Cdp(CdpError::Protocol { .. }) => {
                (ErrorCode::Internal, "a DevTools command failed unexpectedly; report it with the message")
            }
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<HelperError> for ErrorBody {
    fn from(e: HelperError) -> Self {
        let (code, hint) = match &e {
            HelperError::NotEmbedded { .. } => (
                ErrorCode::NotInstalled,
                "install a webext-mcp release build, or build it from a checkout as the message says",
            ),
            HelperError::Io { .. } => {
                (ErrorCode::Internal, "check free disk space and the permissions of the target directory")
            }
        };
        ErrorBody::new(code, e.to_string()).with_hint(hint)
    }
}

impl From<BuildError> for ErrorBody {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::NotFound { message, hint } => {
                ErrorBody::new(ErrorCode::NotFound, message).with_hint(hint)
            }
            BuildError::InvalidArgument { message, hint } => {
                ErrorBody::new(ErrorCode::InvalidArgument, message).with_hint(hint)
            }
            BuildError::Busy { browser, lock, holder } => {
                let who = holder.as_ref().map_or_else(|| "another process".to_owned(), |h| h.to_string());
                ErrorBody::new(ErrorCode::Busy, format!("the {browser} build is locked by {who}"))
                    .with_hint("wait for that build or dev session to finish (or stop the session), then build again")
                    .with_data(json!({ "browser": browser, "lock": lock, "holder": holder }))
            }
            BuildError::Failed { message, hint, findings, output_tail } => {
                let mut data = json!({ "findings": findings });
                if !output_tail.is_empty() {
                    data["outputTail"] = json!(output_tail);
                }
                ErrorBody::new(ErrorCode::BuildFailed, message).with_hint(hint).with_data(data)
            }
            BuildError::NotInstalled { message, hint, findings } => {
                ErrorBody::new(ErrorCode::NotInstalled, message)
                    .with_hint(hint)
                    .with_data(json!({ "findings": findings }))
            }
            BuildError::Timeout { message, output_tail } => ErrorBody::new(ErrorCode::Timeout, message)
                .with_hint("the toolchain may be waiting for input or stuck; run it by hand to see")
                .with_data(json!({ "outputTail": output_tail })),
            BuildError::Io { context, source } => {
                ErrorBody::new(ErrorCode::BuildFailed, format!("{context}: {source}"))
                    .with_hint("check free disk space and permissions of the project and its output folder")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolOutput;

    #[test]
    fn failure_maps_to_is_error_with_structured_error_and_line() {
        let err = ErrorBody::new(ErrorCode::Stale, "tab set changed").with_hint("call list_pages");
        let r = to_call_result(Err(err));
        assert_eq!(r.is_error, Some(true));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["structuredContent"]["error"]["code"], "STALE");
        assert_eq!(v["content"][0]["text"], "STALE: tab set changed — call list_pages");
    }

    #[test]
    fn success_carries_structured_content_and_text() {
        let r = to_call_result(Ok(ToolOutput::json(json!({"a": 1}))));
        assert_eq!(r.is_error, Some(false));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["structuredContent"]["a"], 1);
        assert_eq!(v["content"][0]["text"], r#"{"a":1}"#);
    }
}
