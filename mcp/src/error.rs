//! The one place where domain errors become the stable codes of DESIGN.md "Errors", and
//! where a tool result becomes an MCP `CallToolResult`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::config::ConfigError;
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
