//! The action tools' arguments: what each tool accepts, and (derived from these types)
//! the input schema tools/list shows.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use webext_mcp_host::protocol::methods;

use crate::tools::registry::ArgGroup;

/// What an action reports besides its own result: with `diff`, the snapshot's changes too.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Diff {
    /// Also the snapshot changes (take_snapshot diff).
    #[serde(default)]
    pub diff: bool,
}

impl ArgGroup for Diff {
    const KEYS: &'static [&'static str] = &["diff"];
}

/// Arguments of the by-ref tools that take only the ref.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UidArgs {
    /// A ref (e12).
    pub uid: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FillUidArgs {
    pub uid: String,
    pub value: FieldValue,
}

/// A field value: text (also for selects, dates, ranges), or a boolean for checkboxes and radios.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldValue {
    Text(String),
    Flag(bool),
    Number(f64),
}

impl FieldValue {
    /// The value as the page agent takes it: a boolean stays a boolean, so the page can
    /// refuse `true` for a text box instead of typing "true" (numbers are sent as text).
    pub(super) fn wire(&self) -> methods::FieldValue {
        match self {
            FieldValue::Text(s) => methods::FieldValue::Text(s.clone()),
            FieldValue::Flag(b) => methods::FieldValue::Checked(*b),
            FieldValue::Number(n) => methods::FieldValue::Text(n.to_string()),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormField {
    pub uid: String,
    pub value: FieldValue,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FillFormArgs {
    /// [{uid, value}], in order.
    pub fields: Vec<FormField>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DragUidArgs {
    pub from_uid: String,
    pub to_uid: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocatorArgs {
    pub locator: String,
    /// 0-based match index.
    #[serde(default)]
    pub nth: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FillArgs {
    pub locator: String,
    pub value: FieldValue,
    #[serde(default)]
    pub nth: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TypeArgs {
    pub locator: String,
    pub text: String,
    #[serde(default)]
    pub nth: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DragArgs {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectArgs {
    pub locator: String,
    pub values: Vec<String>,
    #[serde(default)]
    pub nth: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PressArgs {
    /// Enter, Tab, Shift+Tab, Escape, Backspace, ArrowDown, a character…
    pub key: String,
    /// Default: the focused element.
    #[serde(default)]
    pub locator: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScrollArgs {
    #[serde(default)]
    pub locator: Option<String>,
    #[serde(default)]
    pub dx: Option<i64>,
    #[serde(default)]
    pub dy: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvaluateArgs {
    /// e.g. `() => document.title`.
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub args: Vec<Value>,
    #[serde(default)]
    pub max_bytes: Option<u64>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// Default 30000: how long the page may take (a tab a native dialog blocks is BLOCKED by then).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// What wait_for waits for.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitState {
    #[default]
    Visible,
    Gone,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitArgs {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub selector: Option<String>,
    #[serde(default)]
    pub uid: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub state: WaitState,
}
