//! The page tools: tab management (`list_pages`, `new_page`, `navigate_page`,
//! `navigate_history`, `select_page`, `close_page`).
//!
//! How a per-tab tool names its tab (`tabId` / `pageIdx` / `expectTabSet`, else this
//! server's current page) is the bridge's ([`crate::bridge::targeting`]); so are the
//! timeouts ([`crate::bridge::timeouts`]) and the helper's result types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{
    Method, Navigation, TabsClose, TabsList, TabsNavigate, TabsNew, TabsSelect,
};

use crate::bridge::Timeout;
use crate::bridge::results::{Tab, TabList, to_value};
use crate::tools::registry::{decode_with_target, schema_with_target};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![LIST_PAGES, NEW_PAGE, NAVIGATE_PAGE, NAVIGATE_HISTORY, SELECT_PAGE, CLOSE_PAGE]
}

/// Arguments of `list_pages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPagesArgs {
    #[serde(default)]
    pub browser: Option<String>,
}

/// Arguments of `new_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewPageArgs {
    #[serde(default)]
    pub browser: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub active: bool,
    /// agent: the agent's own unfocused window (default: config pages.window, else current).
    #[serde(default)]
    pub window: Option<PageWindow>,
    /// Default 15000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Where `new_page` opens its tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PageWindow {
    Current,
    Agent,
}

/// What `navigate_page` does.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NavigationType {
    #[default]
    Url,
    Back,
    Forward,
    Reload,
}

/// Arguments of `navigate_page` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NavigateArgs {
    /// Default url.
    #[serde(default, rename = "type")]
    pub kind: Option<NavigationType>,
    #[serde(default)]
    pub url: Option<String>,
    /// Default 15000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `navigate_history` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryArgs {
    /// -1 = back one page.
    pub steps: i64,
    /// Default 15000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `select_page` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectPageArgs {
    /// URL substring matching one tab.
    #[serde(default)]
    pub url: Option<String>,
}

/// Tools that need only the tab's address.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `tabId=N [container] "title" url`: the title and URL are the page's, so this line goes
/// inside the untrusted-content block ([`tab_block`], or list_pages' own).
pub(super) fn tab_line(t: &Tab) -> String {
    format!(
        "tabId={} {}{} {}",
        t.tab_id,
        t.container.as_deref().map(|c| format!("[{c}] ")).unwrap_or_default(),
        crate::text::quoted(&t.title),
        t.url,
    )
}

/// `what tabId=N`, then the tab's line inside the untrusted-content block.
pub(super) fn tab_block(what: &str, t: &Tab) -> String {
    format!("{what} tabId={}\n{}", t.tab_id, crate::text::untrusted(&tab_line(t)))
}

/// What `list_pages` answers: the helper's list and this server's view of it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PageList<'a> {
    #[serde(flatten)]
    list: &'a TabList,
    current_tab_id: Option<i64>,
    browser: &'a str,
    label: &'a str,
}

const LIST_PAGES: ToolDef = ToolDef {
    name: "list_pages",
    title: "List pages",
    toolset: Toolset::Pages,
    description: "Open tabs: tabId, url, title, active, container; the header's tabSet is what expectTabSet takes; * marks this server's current page.",
    effect: Effect::Read,
    input_schema: schema_of::<ListPagesArgs>,
    run: |ctx, _call, args| Box::pin(list_pages(ctx, args)),
};

async fn list_pages(ctx: Ctx, args: Value) -> ToolResult {
    let ListPagesArgs { browser } = decode(args)?;
    let (d, list) =
        ctx.browser.call(browser.as_deref(), TabsList {}, Timeout::fixed(TabsList::TIMEOUT_MS)).await?;
    let current = ctx.browser.pages().get(&d);
    let mut text = format!(
        "{} {} — {}, tabSet={}\n",
        d.browser,
        d.label,
        crate::text::counted(list.tabs.len(), "tab", "tabs"),
        list.fingerprint
    );
    let mut lines = String::new();
    for (i, t) in list.tabs.iter().enumerate() {
        let mark = if current == Some(t.tab_id) { "*" } else { " " };
        let active = if t.active { " (active)" } else { "" };
        lines.push_str(&format!("{mark}[{i}] {}{active}\n", tab_line(t)));
    }
    if !lines.is_empty() {
        text.push_str(&crate::text::untrusted(&lines));
    }
    let structured =
        to_value(&PageList { list: &list, current_tab_id: current, browser: &d.browser, label: &d.label })?;
    Ok(ToolOutput { structured, text: Some(text.trim_end().to_owned()) })
}

const NEW_PAGE: ToolDef = ToolDef {
    name: "new_page",
    title: "Open a page",
    toolset: Toolset::Pages,
    description: "Open a URL in a new background tab (active: true to focus), wait for the load; it becomes the current page.",
    effect: Effect::Additive,
    input_schema: schema_of::<NewPageArgs>,
    run: |ctx, _call, args| Box::pin(new_page(ctx, args)),
};

async fn new_page(ctx: Ctx, args: Value) -> ToolResult {
    let NewPageArgs { browser, url, active, window, timeout_ms } = decode(args)?;
    let timeout = Timeout::from_arg(timeout_ms, TabsNew::TIMEOUT_MS)?;
    let window = match window {
        Some(PageWindow::Agent) => "agent",
        Some(PageWindow::Current) => "current",
        // The configured default, unless the call asks for the user's front (active).
        None if !active && ctx.config.text("pages.window") == Some("agent") => "agent",
        None => "current",
    };
    let params = TabsNew {
        url,
        active: Some(active),
        window: Some(window.to_owned()),
        timeout_ms: Some(timeout.ms()),
        ..TabsNew::default()
    };
    let (d, out) = ctx.browser.call(browser.as_deref(), params, timeout).await?;
    ctx.browser.pages().set(&d, out.tab.tab_id);
    let text = tab_block("opened (current page)", &out.tab);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const NAVIGATE_PAGE: ToolDef = ToolDef {
    name: "navigate_page",
    title: "Navigate a page",
    toolset: Toolset::Pages,
    description: "Load a URL, or go back/forward/reload (type), and wait for the load.",
    effect: Effect::Idempotent,
    input_schema: schema_with_target::<NavigateArgs>,
    run: |ctx, _call, args| Box::pin(navigate_page(ctx, args)),
};

async fn navigate_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, NavigateArgs { kind, url, timeout_ms }) = decode_with_target(args)?;
    let kind = match (kind, &url) {
        (Some(k), _) => k,
        (None, Some(_)) => NavigationType::Url,
        (None, None) => {
            return Err(ErrorBody::invalid_argument("give `url`, or `type`: back, forward or reload"));
        }
    };
    let (kind_name, wire) = match kind {
        NavigationType::Url => ("url", Navigation::Url),
        NavigationType::Back => ("back", Navigation::Back),
        NavigationType::Forward => ("forward", Navigation::Forward),
        NavigationType::Reload => ("reload", Navigation::Reload),
    };
    if matches!(kind, NavigationType::Url) && url.is_none() {
        return Err(ErrorBody::invalid_argument("type `url` needs `url`"));
    }
    let timeout = Timeout::from_arg(timeout_ms, TabsNavigate::TIMEOUT_MS)?;
    let params = TabsNavigate { kind: wire, url, steps: None, timeout_ms: Some(timeout.ms()) };
    let (_, out) = ctx.browser.call_tab(&target, params, timeout).await?;
    let text = tab_block(&format!("{kind_name}: now"), &out.tab);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const NAVIGATE_HISTORY: ToolDef = ToolDef {
    name: "navigate_history",
    title: "Move in a page's history",
    toolset: Toolset::Pages,
    description: "Move `steps` entries in a tab's history (negative: back).",
    effect: Effect::Additive,
    input_schema: schema_with_target::<HistoryArgs>,
    run: |ctx, _call, args| Box::pin(navigate_history(ctx, args)),
};

async fn navigate_history(ctx: Ctx, args: Value) -> ToolResult {
    let (target, HistoryArgs { steps, timeout_ms }) = decode_with_target(args)?;
    if steps == 0 {
        return Err(ErrorBody::invalid_argument("`steps` must not be 0")
            .with_hint("negative goes back, positive forward"));
    }
    let timeout = Timeout::from_arg(timeout_ms, TabsNavigate::TIMEOUT_MS)?;
    let kind = if steps < 0 { Navigation::Back } else { Navigation::Forward };
    let params =
        TabsNavigate { kind, url: None, steps: Some(steps.unsigned_abs()), timeout_ms: Some(timeout.ms()) };
    let (_, out) = ctx.browser.call_tab(&target, params, timeout).await?;
    let text = tab_block(&format!("moved {steps} in history: now"), &out.tab);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const SELECT_PAGE: ToolDef = ToolDef {
    name: "select_page",
    title: "Select a page",
    toolset: Toolset::Pages,
    description: "Focus a tab (by tabId, pageIdx or URL substring); it becomes the current page.",
    effect: Effect::Idempotent,
    input_schema: schema_with_target::<SelectPageArgs>,
    run: |ctx, _call, args| Box::pin(select_page(ctx, args)),
};

async fn select_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, SelectPageArgs { url }) = decode_with_target(args)?;
    let timeout = Timeout::fixed(TabsSelect::TIMEOUT_MS);
    let (d, out) = if let Some(url) = url {
        if target.tab_id.is_some() || target.page_idx.is_some() {
            return Err(ErrorBody::invalid_argument("give `url` or `tabId`/`pageIdx`, not both"));
        }
        let params = TabsSelect { url: Some(url), expect_tab_set: target.expect_tab_set.clone() };
        ctx.browser.call(target.browser.as_deref(), params, timeout).await?
    } else {
        ctx.browser.call_tab(&target, TabsSelect::default(), timeout).await?
    };
    ctx.browser.pages().set(&d, out.tab.tab_id);
    let text = tab_block("selected (current page)", &out.tab);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const CLOSE_PAGE: ToolDef = ToolDef {
    name: "close_page",
    title: "Close a page",
    toolset: Toolset::Pages,
    description: "Close a tab.",
    effect: Effect::Destructive,
    input_schema: schema_with_target::<NoArgs>,
    run: |ctx, _call, args| Box::pin(close_page(ctx, args)),
};

async fn close_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, NoArgs {}) = decode_with_target(args)?;
    let (d, out) = ctx.browser.call_tab(&target, TabsClose {}, Timeout::fixed(TabsClose::TIMEOUT_MS)).await?;
    ctx.browser.pages().forget(&d, out.closed);
    let text = format!("closed tab {}", out.closed);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_tab_schemas_carry_the_target() {
        let schema = schema_with_target::<NavigateArgs>();
        let props = schema["properties"].as_object().unwrap();
        for key in ["tabId", "pageIdx", "expectTabSet", "browser", "url", "type", "timeoutMs"] {
            assert!(props.contains_key(key), "{key} missing: {props:?}");
        }
    }
}
