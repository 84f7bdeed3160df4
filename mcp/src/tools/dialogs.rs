//! `accept_dialog` and `dismiss_dialog` (the Zen spec's names; DESIGN's `handle_dialog`).
//!
//! Tabs the agent opened or navigated carry a hook that answers `alert`/`confirm`/`prompt`
//! at once (dismiss, unless armed), so a dialog never stops them; these tools arm the next
//! answer. A tab that a native dialog already blocks is `BLOCKED`: only the user can answer
//! it (Chromium's debugger refuses a dialog it did not see open). Every page tool's result lists the dialogs
//! it met (`dialogs: [{type, message, answered}]`, see `extension/src/dialogs.js`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::methods::PAGE_DIALOG;
use webext_mcp_host::protocol::timeouts::TAB_CALL_TIMEOUT_MS;

use super::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};
use crate::bridge::results::{DialogReply, to_value};
use crate::bridge::{Timeout, decode_with_target, schema_with_target};

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "accept_dialog",
            title: "Accept the next dialog",
            toolset: Toolset::Input,
            description: "Answer the tab's next alert/confirm/prompt with OK (promptText for a prompt); agent tabs answer dialogs themselves (dismiss by default), so arm this before the action that opens one. A tab a native dialog already blocks is BLOCKED (only the user can answer it).",
            effect: Effect::Additive,
            input_schema: schema_with_target::<AcceptArgs>,
            run: |ctx, _call, args| Box::pin(accept_dialog(ctx, args)),
        },
        ToolDef {
            name: "dismiss_dialog",
            title: "Dismiss the next dialog",
            toolset: Toolset::Input,
            description: "Answer the tab's next alert/confirm/prompt with Cancel (the default answer of agent tabs, stated explicitly); a blocked tab as for accept_dialog.",
            effect: Effect::Additive,
            input_schema: schema_with_target::<DismissArgs>,
            run: |ctx, _call, args| Box::pin(dismiss_dialog(ctx, args)),
        },
    ]
}

/// Arguments of `accept_dialog` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptArgs {
    /// The answer to a prompt() (default: the prompt's own default value).
    #[serde(default)]
    pub prompt_text: Option<String>,
}

/// Arguments of `dismiss_dialog` (only the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DismissArgs {}

async fn accept_dialog(ctx: Ctx, args: Value) -> ToolResult {
    let (t, a) = decode_with_target::<AcceptArgs>(args)?;
    answer(ctx, t, json!({ "accept": true, "promptText": a.prompt_text })).await
}

async fn dismiss_dialog(ctx: Ctx, args: Value) -> ToolResult {
    let (t, DismissArgs {}) = decode_with_target::<DismissArgs>(args)?;
    answer(ctx, t, json!({ "accept": false })).await
}

async fn answer(ctx: Ctx, target: crate::bridge::TabTarget, params: Value) -> ToolResult {
    let timeout = Timeout::fixed(TAB_CALL_TIMEOUT_MS);
    let (_, out): (_, DialogReply) = ctx.browser.call_tab(&target, PAGE_DIALOG, params, timeout).await?;
    let action = out.armed["action"].as_str().unwrap_or("dismiss");
    let text = format!("tabId={}: the next dialog will be answered: {action}", out.tab.tab_id);
    Ok(ToolOutput { text: Some(text), structured: to_value(&out)? })
}

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
