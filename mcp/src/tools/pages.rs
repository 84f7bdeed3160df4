//! The page tools: tab management (`list_pages`, `new_page`, `navigate_page`,
//! `navigate_history`, `select_page`, `close_page`) and [`TabTarget`], how every per-tab tool
//! names its tab.
//!
//! A tool names a tab by `tabId` (preferred) or `pageIdx`, optionally guarded by
//! `expectTabSet`; the extension resolves them in the same call that acts, so a changed tab
//! set gives `STALE` with nothing done and a vanished tab is `NOT_FOUND`, never another tab.
//! With neither, the tool uses this server's current page in that browser: the last tab it
//! opened or selected (never silently the user's active tab).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::methods::{TABS_CLOSE, TABS_LIST, TABS_NAVIGATE, TABS_NEW, TABS_SELECT};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

/// Load wait of the navigation tools unless `timeoutMs` says otherwise.
const DEFAULT_LOAD_TIMEOUT_MS: u64 = 15_000;
/// Deadline of select_page and close_page (no load to wait for).
const SELECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Extra time the call gets beyond the page's own deadline.
const CALL_GRACE: Duration = Duration::from_secs(5);

/// How a per-tab tool names its tab; flattened into every per-tab tool's arguments.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabTarget {
    // No doc comments on purpose: these four fields are in the schema of every per-tab tool,
    // so they are explained once, in the server's instructions, not in every tools/list entry.
    #[serde(default)]
    pub browser: Option<String>,
    #[serde(default)]
    pub tab_id: Option<i64>,
    #[serde(default)]
    pub page_idx: Option<i64>,
    #[serde(default)]
    pub expect_tab_set: Option<String>,
}

const TARGET_KEYS: [&str; 4] = ["browser", "tabId", "pageIdx", "expectTabSet"];

/// Splits a per-tab tool's arguments into its [`TabTarget`] and the tool's own arguments.
pub fn decode_with_target<T: serde::de::DeserializeOwned>(args: Value) -> Result<(TabTarget, T), ErrorBody> {
    let mut own = match args {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        _ => {
            return Err(ErrorBody::invalid_argument("arguments must be a JSON object")
                .with_hint("pass named arguments, e.g. {}"));
        }
    };
    let mut target = Map::new();
    for key in TARGET_KEYS {
        if let Some(v) = own.remove(key) {
            target.insert(key.to_owned(), v);
        }
    }
    let target: TabTarget = decode(Value::Object(target))?;
    if target.tab_id.is_some() && target.page_idx.is_some() {
        return Err(
            ErrorBody::invalid_argument("give `tabId` or `pageIdx`, not both").with_hint("prefer `tabId`")
        );
    }
    Ok((target, decode(Value::Object(own))?))
}

/// The input schema of a per-tab tool: its own arguments plus [`TabTarget`]'s.
pub fn schema_with_target<T: JsonSchema>() -> Map<String, Value> {
    let mut schema = schema_of::<T>();
    let target = schema_of::<TabTarget>();
    if let (Some(Value::Object(props)), Some(Value::Object(extra))) =
        (schema.get_mut("properties"), target.get("properties"))
    {
        for (k, v) in extra {
            props.insert(k.clone(), v.clone());
        }
    }
    schema
}

/// This server's current page per browser (keyed by session, else profile label).
#[derive(Default)]
pub struct CurrentPages(Mutex<HashMap<String, i64>>);

fn browser_key(d: &Descriptor) -> String {
    d.session.clone().unwrap_or_else(|| d.label.clone())
}

impl CurrentPages {
    pub fn get(&self, d: &Descriptor) -> Option<i64> {
        self.0.lock().ok().and_then(|m| m.get(&browser_key(d)).copied())
    }

    pub fn set(&self, d: &Descriptor, tab: i64) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(browser_key(d), tab);
        }
    }

    fn forget(&self, d: &Descriptor, tab: i64) {
        if let Ok(mut m) = self.0.lock()
            && m.get(&browser_key(d)) == Some(&tab)
        {
            m.remove(&browser_key(d));
        }
    }
}

/// Calls a per-tab `method` with the tab `target` names (or the current page) merged into
/// `params`; `timeout` is the call's deadline.
pub async fn call_tab(
    ctx: &Ctx,
    target: &TabTarget,
    method: &str,
    mut params: Value,
    timeout: Duration,
) -> Result<(Descriptor, Value), ErrorBody> {
    let state = &ctx.browser;
    let d = state.resolve(target.browser.as_deref())?;
    if let Value::Object(p) = &mut params {
        match (target.tab_id, target.page_idx) {
            (Some(t), _) => {
                p.insert("tabId".into(), json!(t));
            }
            (None, Some(i)) => {
                p.insert("pageIdx".into(), json!(i));
            }
            (None, None) => match state.pages().get(&d) {
                Some(t) => {
                    p.insert("tabId".into(), json!(t));
                }
                None => {
                    return Err(ErrorBody::new(
                        ErrorCode::NotFound,
                        format!("this server has no current page in {} yet", d.browser),
                    )
                    .with_hint("pass `tabId` from list_pages, or open a tab with new_page"));
                }
            },
        }
        if let Some(fp) = &target.expect_tab_set {
            p.insert("expectTabSet".into(), json!(fp));
        }
    }
    let client = state.hub().client(&d).await?;
    let value = client.call(method, params, timeout).await?;
    Ok((d, value))
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "list_pages",
            title: "List pages",
            toolset: Toolset::Pages,
            description: "Open tabs: tabId, url, title, active, container; the header's tabSet is what expectTabSet takes; * marks this server's current page.",
            effect: Effect::Read,
            input_schema: schema_of::<ListPagesArgs>,
            run: |ctx, _call, args| Box::pin(list_pages(ctx, args)),
        },
        ToolDef {
            name: "new_page",
            title: "Open a page",
            toolset: Toolset::Pages,
            description: "Open a URL in a new background tab (active: true to focus), wait for the load; it becomes the current page.",
            effect: Effect::Additive,
            input_schema: schema_of::<NewPageArgs>,
            run: |ctx, _call, args| Box::pin(new_page(ctx, args)),
        },
        ToolDef {
            name: "navigate_page",
            title: "Navigate a page",
            toolset: Toolset::Pages,
            description: "Load a URL, or go back/forward/reload (type), and wait for the load.",
            effect: Effect::Idempotent,
            input_schema: schema_with_target::<NavigateArgs>,
            run: |ctx, _call, args| Box::pin(navigate_page(ctx, args)),
        },
        ToolDef {
            name: "navigate_history",
            title: "Move in a page's history",
            toolset: Toolset::Pages,
            description: "Move `steps` entries in a tab's history (negative: back).",
            effect: Effect::Additive,
            input_schema: schema_with_target::<HistoryArgs>,
            run: |ctx, _call, args| Box::pin(navigate_history(ctx, args)),
        },
        ToolDef {
            name: "select_page",
            title: "Select a page",
            toolset: Toolset::Pages,
            description: "Focus a tab (by tabId, pageIdx or URL substring); it becomes the current page.",
            effect: Effect::Idempotent,
            input_schema: schema_with_target::<SelectPageArgs>,
            run: |ctx, _call, args| Box::pin(select_page(ctx, args)),
        },
        ToolDef {
            name: "close_page",
            title: "Close a page",
            toolset: Toolset::Pages,
            description: "Close a tab.",
            effect: Effect::Destructive,
            input_schema: schema_with_target::<NoArgs>,
            run: |ctx, _call, args| Box::pin(close_page(ctx, args)),
        },
    ]
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
    /// Default 15000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
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

fn tab_id(v: &Value) -> Option<i64> {
    v.get("tab").and_then(|t| t.get("tabId")).and_then(Value::as_i64)
}

fn tab_line(t: &Value) -> String {
    format!(
        "tabId={} {}\"{}\" {}",
        t["tabId"],
        t["container"].as_str().map(|c| format!("[{c}] ")).unwrap_or_default(),
        t["title"].as_str().unwrap_or(""),
        t["url"].as_str().unwrap_or(""),
    )
}

fn call_timeout(timeout_ms: Option<u64>) -> (u64, Duration) {
    let ms = timeout_ms.unwrap_or(DEFAULT_LOAD_TIMEOUT_MS).clamp(1, 300_000);
    (ms, Duration::from_millis(ms) + CALL_GRACE)
}

async fn list_pages(ctx: Ctx, args: Value) -> ToolResult {
    let ListPagesArgs { browser } = decode(args)?;
    let (d, mut out) = ctx.browser.call(browser.as_deref(), TABS_LIST, json!({})).await?;
    let current = ctx.browser.pages().get(&d);
    let tabs = out["tabs"].as_array().cloned().unwrap_or_default();
    let mut text = format!(
        "{} {} — {} tabs, tabSet={}\n",
        d.browser,
        d.label,
        tabs.len(),
        out["fingerprint"].as_str().unwrap_or("?")
    );
    for (i, t) in tabs.iter().enumerate() {
        let mark = if Some(t["tabId"].as_i64()) == Some(current) && current.is_some() { "*" } else { " " };
        let active = if t["active"] == true { " (active)" } else { "" };
        text.push_str(&format!("{mark}[{i}] {}{active}\n", tab_line(t)));
    }
    out["currentTabId"] = json!(current);
    out["browser"] = json!(d.browser);
    out["label"] = json!(d.label);
    Ok(ToolOutput { structured: out, text: Some(text.trim_end().to_owned()) })
}

async fn new_page(ctx: Ctx, args: Value) -> ToolResult {
    let NewPageArgs { browser, url, active, timeout_ms } = decode(args)?;
    let (ms, timeout) = call_timeout(timeout_ms);
    let params = json!({ "url": url, "active": active, "timeoutMs": ms });
    let (d, out) = ctx.browser.call_within(browser.as_deref(), TABS_NEW, params, timeout).await?;
    if let Some(id) = tab_id(&out) {
        ctx.browser.pages().set(&d, id);
    }
    let text = format!("opened {} (current page)", tab_line(&out["tab"]));
    Ok(ToolOutput { structured: out, text: Some(text) })
}

async fn navigate_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, NavigateArgs { kind, url, timeout_ms }) = decode_with_target(args)?;
    let kind = match (kind, &url) {
        (Some(k), _) => k,
        (None, Some(_)) => NavigationType::Url,
        (None, None) => {
            return Err(ErrorBody::invalid_argument("give `url`, or `type`: back, forward or reload"));
        }
    };
    let kind_name = match kind {
        NavigationType::Url => "url",
        NavigationType::Back => "back",
        NavigationType::Forward => "forward",
        NavigationType::Reload => "reload",
    };
    if matches!(kind, NavigationType::Url) && url.is_none() {
        return Err(ErrorBody::invalid_argument("type `url` needs `url`"));
    }
    let (ms, timeout) = call_timeout(timeout_ms);
    let params = json!({ "type": kind_name, "url": url, "timeoutMs": ms });
    let (_, out) = call_tab(&ctx, &target, TABS_NAVIGATE, params, timeout).await?;
    let text = format!("{kind_name}: now {}", tab_line(&out["tab"]));
    Ok(ToolOutput { structured: out, text: Some(text) })
}

async fn navigate_history(ctx: Ctx, args: Value) -> ToolResult {
    let (target, HistoryArgs { steps, timeout_ms }) = decode_with_target(args)?;
    if steps == 0 {
        return Err(ErrorBody::invalid_argument("`steps` must not be 0")
            .with_hint("negative goes back, positive forward"));
    }
    let (ms, timeout) = call_timeout(timeout_ms);
    let kind = if steps < 0 { "back" } else { "forward" };
    let params = json!({ "type": kind, "steps": steps.unsigned_abs(), "timeoutMs": ms });
    let (_, out) = call_tab(&ctx, &target, TABS_NAVIGATE, params, timeout).await?;
    let text = format!("moved {steps} in history: now {}", tab_line(&out["tab"]));
    Ok(ToolOutput { structured: out, text: Some(text) })
}

async fn select_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, SelectPageArgs { url }) = decode_with_target(args)?;
    let (d, out) = if let Some(url) = url {
        if target.tab_id.is_some() || target.page_idx.is_some() {
            return Err(ErrorBody::invalid_argument("give `url` or `tabId`/`pageIdx`, not both"));
        }
        let params = json!({ "url": url, "expectTabSet": target.expect_tab_set });
        ctx.browser.call_within(target.browser.as_deref(), TABS_SELECT, params, SELECT_TIMEOUT).await?
    } else {
        call_tab(&ctx, &target, TABS_SELECT, json!({}), SELECT_TIMEOUT).await?
    };
    if let Some(id) = tab_id(&out) {
        ctx.browser.pages().set(&d, id);
    }
    let text = format!("selected {} (current page)", tab_line(&out["tab"]));
    Ok(ToolOutput { structured: out, text: Some(text) })
}

async fn close_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, NoArgs {}) = decode_with_target(args)?;
    let (d, out) = call_tab(&ctx, &target, TABS_CLOSE, json!({}), SELECT_TIMEOUT).await?;
    if let Some(id) = out.get("closed").and_then(Value::as_i64) {
        ctx.browser.pages().forget(&d, id);
    }
    let text = format!("closed tab {}", out["closed"]);
    Ok(ToolOutput { structured: out, text: Some(text) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_fields_split_from_the_tools_own() {
        let (t, own): (TabTarget, NavigateArgs) =
            decode_with_target(json!({"tabId": 7, "url": "http://x/", "browser": "firefox"})).unwrap();
        assert_eq!(t.tab_id, Some(7));
        assert_eq!(t.browser.as_deref(), Some("firefox"));
        assert_eq!(own.url.as_deref(), Some("http://x/"));
        let err = decode_with_target::<NavigateArgs>(json!({"tabId": 1, "pageIdx": 0})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let err = decode_with_target::<NavigateArgs>(json!({"tabId": "7"})).unwrap_err();
        assert!(err.message.contains("tabId"), "{}", err.message);
        let err = decode_with_target::<NavigateArgs>(json!({"tabid": 7})).unwrap_err();
        assert!(err.message.contains("tabid"), "{}", err.message);
    }

    #[test]
    fn per_tab_schemas_carry_the_target() {
        let schema = schema_with_target::<NavigateArgs>();
        let props = schema["properties"].as_object().unwrap();
        for key in ["tabId", "pageIdx", "expectTabSet", "browser", "url", "type", "timeoutMs"] {
            assert!(props.contains_key(key), "{key} missing: {props:?}");
        }
    }
}
