//! Which browsers are connected, which one this server talks to, and what it sees.
//!
//! Every tool goes through the bridge ([`crate::bridge`]), which resolves the browser and
//! makes the call.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::methods::{BrowserInfo, BrowserReport, Method};
use webext_mcp_host::protocol::tab_set_fingerprint;
use webext_mcp_host::protocol::timeouts::LIST_TIMEOUT_MS;
use webext_mcp_host::select;

use crate::bridge::Timeout;

use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![LIST_CONNECTED_BROWSERS, SELECT_BROWSER, GET_BROWSER_INFO]
}

/// Arguments of `list_connected_browsers`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only browsers matching this name, profile label or session id.
    #[serde(default)]
    pub browser: Option<String>,
}

/// Arguments of `select_browser`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectArgs {
    /// Browser name (`chrome`, `firefox`, `chromium-based`…), profile label or session id.
    pub browser: String,
}

/// Arguments of tools that act on one browser.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserArgs {
    /// Browser name, profile label or session id; default: the selected browser, else the
    /// only connected daily browser.
    #[serde(default)]
    pub browser: Option<String>,
}

const LIST_CONNECTED_BROWSERS: ToolDef = ToolDef {
    name: "list_connected_browsers",
    title: "List connected browsers",
    toolset: Toolset::Pages,
    description: "Browsers whose helper is connected: name, version, label, session, tab count, default.",
    effect: Effect::Read,
    input_schema: schema_of::<ListArgs>,
    run: |ctx, _call, args| Box::pin(list_connected_browsers(ctx, args)),
};

async fn list_connected_browsers(ctx: Ctx, args: Value) -> ToolResult {
    let ListArgs { browser } = decode(args)?;
    let state = &ctx.browser;
    let (live, searched) = state.hosts();
    let default = state.resolve(None).ok().map(|d| d.pid);
    let mut rows = Vec::new();
    let mut text = String::new();
    for d in live.iter().filter(|d| browser.as_deref().is_none_or(|b| select::matches(d, b))) {
        let info: Result<BrowserReport, _> =
            state.call_in_contained(d, BrowserInfo {}, Timeout::fixed(LIST_TIMEOUT_MS)).await;
        let mut row = select::summary(d);
        row["default"] = json!(default == Some(d.pid));
        match &info {
            Ok(info) => row["tabCount"] = json!(info.tabs.len()),
            Err(e) => {
                row["tabCount"] = Value::Null;
                row["error"] = json!(e);
            }
        }
        text.push_str(&format!(
            "{}{} {} — label {}{}, extension {}, {}\n",
            if default == Some(d.pid) { "* " } else { "  " },
            d.browser,
            d.browser_version,
            d.label,
            d.session.as_deref().map(|s| format!(", session {s}")).unwrap_or_default(),
            d.ext_version,
            info.as_ref()
                .map(|i| crate::text::counted(i.tabs.len(), "tab", "tabs"))
                .unwrap_or_else(|_| "? tabs".into()),
        ));
        rows.push(row);
    }
    if rows.is_empty() {
        text.push_str("no browser is connected (install the helper with `webext-mcp install`)\n");
    }
    // A refused dir is worth a word: it may be why the browser is missing.
    let refused: Vec<Value> = searched
        .iter()
        .filter_map(|r| r.problem.as_ref().filter(|p| p.is_unsafe()).map(|p| (r, p)))
        .map(|(r, p)| {
            text.push_str(&format!("not searched: {} (see `webext-mcp doctor`)\n", p.describe(&r.path)));
            json!({ "path": r.path, "problem": p.describe(&r.path), "fix": p.fix(&r.path) })
        })
        .collect();
    let mut structured = json!({ "browsers": rows, "selected": state.selected() });
    if !refused.is_empty() {
        structured["refusedRuntimeDirs"] = json!(refused);
    }
    Ok(ToolOutput { structured, text: Some(text.trim_end().to_owned()) })
}

const SELECT_BROWSER: ToolDef = ToolDef {
    name: "select_browser",
    title: "Select browser",
    toolset: Toolset::Pages,
    description: "Make a connected browser this server's default (name, label or session id).",
    effect: Effect::Idempotent,
    input_schema: schema_of::<SelectArgs>,
    run: |ctx, _call, args| Box::pin(select_browser(ctx, args)),
};

async fn select_browser(ctx: Ctx, args: Value) -> ToolResult {
    let SelectArgs { browser } = decode(args)?;
    let (d, key) = ctx.browser.select(&browser)?;
    let mut row = select::summary(&d);
    row["selected"] = json!(key);
    Ok(ToolOutput {
        structured: row,
        text: Some(format!("browser tools now use {} (label {})", d.browser, d.label)),
    })
}

const GET_BROWSER_INFO: ToolDef = ToolDef {
    name: "get_browser_info",
    title: "Browser info",
    toolset: Toolset::Pages,
    description: "Version, platform, visible tab count, tab-set fingerprint and capabilities of a connected browser.",
    effect: Effect::Read,
    input_schema: schema_of::<BrowserArgs>,
    run: |ctx, _call, args| Box::pin(get_browser_info(ctx, args)),
};

async fn get_browser_info(ctx: Ctx, args: Value) -> ToolResult {
    let BrowserArgs { browser } = decode(args)?;
    let (d, info) =
        ctx.browser.call(browser.as_deref(), BrowserInfo {}, Timeout::fixed(BrowserInfo::TIMEOUT_MS)).await?;
    let tabs = info.places();
    let structured = json!({
        "browser": info.browser,
        "version": info.browser_version,
        "label": d.label,
        "session": d.session,
        "extVersion": d.ext_version,
        "platform": info.platform,
        "visibleTabCount": tabs.len(),
        "tabSetFingerprint": tab_set_fingerprint(&tabs),
        "capabilities": info.capabilities,
        "debuggerSessions": info.debugger_sessions,
    });
    Ok(ToolOutput::json(structured))
}
