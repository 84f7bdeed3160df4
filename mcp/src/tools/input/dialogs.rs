//! `accept_dialog` and `dismiss_dialog` (the Zen spec's names; DESIGN's `handle_dialog`).
//!
//! Tabs the agent opened or navigated carry a hook that answers `alert`/`confirm`/`prompt`
//! at once (dismiss, unless armed), so a dialog never stops them; these tools arm the next
//! answer. A tab that a native dialog already blocks is `BLOCKED`: only the user can answer
//! it (Chromium's debugger refuses a dialog it did not see open). Every page tool's result lists the dialogs
//! it met (`dialogs: [{type, message, answered}]`, see `extension/src/dialogs.js`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use webext_mcp_host::protocol::methods::{Method, PageDialog};

use crate::bridge::Timeout;
use crate::bridge::results::to_value;
use crate::tools::registry::{decode_with_target, schema_with_target};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![ACCEPT_DIALOG, DISMISS_DIALOG]
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

const ACCEPT_DIALOG: ToolDef = ToolDef {
    name: "accept_dialog",
    title: "Accept the next dialog",
    toolset: Toolset::Input,
    description: "Answer the tab's next alert/confirm/prompt with OK (promptText for a prompt); agent tabs answer dialogs themselves (dismiss by default), so arm this before the action that opens one. A tab a native dialog already blocks is BLOCKED (only the user can answer it).",
    effect: Effect::Additive,
    input_schema: schema_with_target::<AcceptArgs>,
    run: |ctx, _call, args| Box::pin(accept_dialog(ctx, args)),
};

async fn accept_dialog(ctx: Ctx, args: Value) -> ToolResult {
    let (t, a) = decode_with_target::<AcceptArgs>(args)?;
    answer(ctx, t, PageDialog { accept: true, prompt_text: a.prompt_text }).await
}

const DISMISS_DIALOG: ToolDef = ToolDef {
    name: "dismiss_dialog",
    title: "Dismiss the next dialog",
    toolset: Toolset::Input,
    description: "Answer the tab's next alert/confirm/prompt with Cancel (the default answer of agent tabs, stated explicitly); a blocked tab as for accept_dialog.",
    effect: Effect::Additive,
    input_schema: schema_with_target::<DismissArgs>,
    run: |ctx, _call, args| Box::pin(dismiss_dialog(ctx, args)),
};

async fn dismiss_dialog(ctx: Ctx, args: Value) -> ToolResult {
    let (t, DismissArgs {}) = decode_with_target::<DismissArgs>(args)?;
    answer(ctx, t, PageDialog { accept: false, prompt_text: None }).await
}

async fn answer(ctx: Ctx, target: crate::bridge::TabTarget, params: PageDialog) -> ToolResult {
    let timeout = Timeout::fixed(PageDialog::TIMEOUT_MS);
    let (_, out) = ctx.browser.call_tab(&target, params, timeout).await?;
    let action = &out.armed.action;
    let text = format!("tabId={}: the next dialog will be answered: {action}", out.tab.tab_id);
    Ok(ToolOutput { text: Some(text), structured: to_value(&out)? })
}
