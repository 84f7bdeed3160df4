//! What a tool returns: [`ToolOutput`] (structured value, text form, an optional image) and
//! the text every result that met a page dialog gets under it.

use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;

/// What a successful tool returns: the structured value and, when the tool has a better
/// human form than JSON, its text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub structured: Value,
    pub text: Option<String>,
}

impl ToolOutput {
    pub fn json(structured: Value) -> Self {
        ToolOutput { structured, text: None }
    }

    /// Whether the output is a report that found problems (`"ok": false` at its top:
    /// `doctor`, `server_info`; `"valid": false`: `extension_manifest_validate`); the CLI
    /// twin then exits non-zero.
    pub fn reports_problems(&self) -> bool {
        self.structured.get("ok") == Some(&Value::Bool(false))
            || self.structured.get("valid") == Some(&Value::Bool(false))
    }

    /// A result that carries an image: MCP shows it as an image content block after the text
    /// (the structured value keeps everything but the data); the CLI twin's `--json` keeps it
    /// under [`IMAGE_FIELD`] as `{mimeType, data}`.
    pub fn with_image(mut structured: Value, text: String, mime_type: &str, data: String) -> Self {
        if let Value::Object(map) = &mut structured {
            map.insert(IMAGE_FIELD.to_owned(), serde_json::json!({ "mimeType": mime_type, "data": data }));
        }
        ToolOutput { structured, text: Some(text) }
    }

    /// Takes the image [`with_image`](Self::with_image) put in: `(mimeType, base64 data)`.
    pub fn take_image(&mut self) -> Option<(String, String)> {
        let Value::Object(map) = &mut self.structured else { return None };
        let image = map.get(IMAGE_FIELD)?;
        let mime = image.get("mimeType")?.as_str()?.to_owned();
        let data = image.get("data")?.as_str()?.to_owned();
        map.remove(IMAGE_FIELD);
        Some((mime, data))
    }

    /// The text content block: the tool's own text, or compact JSON.
    pub fn text(&self) -> String {
        match &self.text {
            Some(t) => t.clone(),
            None => self.structured.to_string(),
        }
    }
}

/// Where [`ToolOutput::with_image`] keeps an image in the structured value.
pub const IMAGE_FIELD: &str = "imageContent";

pub type ToolResult = Result<ToolOutput, ErrorBody>;
pub type ToolFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ToolResult> + Send>>;

/// The lines a result that met dialogs gets under its text (the page wrote the messages).
pub fn dialog_lines(structured: &Value) -> Option<String> {
    let list = structured.get("dialogs")?.as_array().filter(|l| !l.is_empty())?;
    let mut text = String::from("dialogs met (messages are page content):");
    for d in list {
        let kind = d["type"].as_str().unwrap_or("dialog");
        let answered = d["answered"].as_str().unwrap_or("?");
        text.push_str(&format!("\n  {kind} {} → {answered}", d["message"]));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn dialog_lines_list_each_dialog_and_nothing_without_any() {
        assert_eq!(dialog_lines(&json!({"x": 1})), None);
        assert_eq!(dialog_lines(&json!({"dialogs": []})), None);
        let text = dialog_lines(&json!({"dialogs": [
            {"type": "confirm", "message": "Delete it?", "answered": "dismissed"},
            {"type": "prompt", "message": "Name", "answered": "accepted"},
        ]}))
        .unwrap();
        assert!(text.contains("confirm \"Delete it?\" → dismissed"), "{text}");
        assert!(text.contains("prompt \"Name\" → accepted"), "{text}");
    }
}
