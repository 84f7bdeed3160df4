//! Firefox containers: `list_containers`, `set_default_container`, `new_page_in_container`.
//! A server started with `--container NAME` opens its tabs there; with config
//! `scope = "container"` it sees and acts only on that container's tabs (see
//! [`crate::bridge::containers`]). Chromium has none: the helper answers `UNSUPPORTED`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::methods::{Method, TabsNew};
use webext_mcp_host::protocol::timeouts::TAB_CALL_TIMEOUT_MS;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::Timeout;
use crate::bridge::containers::resolve;
use crate::bridge::results::to_value;
use crate::tools::registry::{Wait, decode_with, schema_with};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![LIST_CONTAINERS, SET_DEFAULT_CONTAINER, NEW_PAGE_IN_CONTAINER]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BrowserArg {
    /// Browser (name, profile label or session id); default: the selected one.
    #[serde(default)]
    pub browser: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerArgs {
    /// A container's name or cookieStoreId.
    pub container: String,
    #[serde(default)]
    pub browser: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewInContainerArgs {
    /// A container's name or cookieStoreId.
    pub container: String,
    /// Default about:blank.
    #[serde(default)]
    pub url: Option<String>,
    /// Bring it to the front (default: a background tab).
    #[serde(default)]
    pub active: bool,
    #[serde(default)]
    pub browser: Option<String>,
}

fn call_timeout() -> Timeout {
    Timeout::fixed(TAB_CALL_TIMEOUT_MS)
}

const LIST_CONTAINERS: ToolDef = ToolDef {
    name: "list_containers",
    title: "List containers",
    toolset: Toolset::Pages,
    description: "Firefox containers: name, colour, icon, cookieStoreId, open tabs; which one this server opens tabs in.",
    effect: Effect::Read,
    input_schema: schema_of::<BrowserArg>,
    run: |ctx, _call, args| Box::pin(list_containers(ctx, args)),
};

async fn list_containers(ctx: Ctx, args: Value) -> ToolResult {
    let BrowserArg { browser } = decode(args)?;
    let d = ctx.browser.resolve_waiting(browser.as_deref(), call_timeout()).await?;
    let list = ctx.browser.container_list(&d, call_timeout()).await?;
    let default = match ctx.browser.containers().default_for(&d) {
        Some(store) => Some(store),
        None => match ctx.browser.containers().configured() {
            Some(name) => Some(resolve(&list, name)?.cookie_store_id.clone()),
            None => None,
        },
    };
    let mut text = format!("{} {} — {} containers\n", d.browser, d.label, list.len());
    for c in &list {
        let mark = if default.as_deref() == Some(c.cookie_store_id.as_str()) { "*" } else { " " };
        text.push_str(&format!(
            "{mark}{} ({}, {} {}) — {} tabs\n",
            c.name, c.cookie_store_id, c.color, c.icon, c.tabs
        ));
    }
    if ctx.browser.containers().scoped() {
        text.push_str(
            "this server is scoped to its container (*): other containers' tabs are invisible to it\n",
        );
    }
    let structured = json!({
        "containers": to_value(&list)?, "default": default, "scoped": ctx.browser.containers().scoped(),
    });
    Ok(ToolOutput { structured, text: Some(text.trim_end().to_owned()) })
}

const SET_DEFAULT_CONTAINER: ToolDef = ToolDef {
    name: "set_default_container",
    title: "Set the default container",
    toolset: Toolset::Pages,
    description: "The Firefox container (name or cookieStoreId) this server's new tabs open in.",
    effect: Effect::Idempotent,
    input_schema: schema_of::<ContainerArgs>,
    run: |ctx, _call, args| Box::pin(set_default_container(ctx, args)),
};

async fn set_default_container(ctx: Ctx, args: Value) -> ToolResult {
    let ContainerArgs { container, browser } = decode(args)?;
    let d = ctx.browser.resolve_waiting(browser.as_deref(), call_timeout()).await?;
    let list = ctx.browser.container_list(&d, call_timeout()).await?;
    let c = resolve(&list, &container)?;
    if ctx.browser.containers().scoped()
        && let Some(name) = ctx.browser.containers().configured()
        && resolve(&list, name)?.cookie_store_id != c.cookie_store_id
    {
        return Err(ErrorBody::new(
            ErrorCode::PermissionDenied,
            "this server is scoped to its own container",
        )
        .with_hint("start another server with --container NAME for that container"));
    }
    ctx.browser.containers().set_default(&d, &c.cookie_store_id);
    let text = format!("new tabs of this server open in {} ({})", c.name, c.cookie_store_id);
    Ok(ToolOutput { structured: json!({ "default": c.cookie_store_id, "name": c.name }), text: Some(text) })
}

const NEW_PAGE_IN_CONTAINER: ToolDef = ToolDef {
    name: "new_page_in_container",
    title: "Open a page in a container",
    toolset: Toolset::Pages,
    description: "Open a tab in a Firefox container (background unless active) and make it the current page.",
    effect: Effect::Additive,
    input_schema: schema_with::<Wait, NewInContainerArgs>,
    run: |ctx, _call, args| Box::pin(new_page_in_container(ctx, args)),
};

async fn new_page_in_container(ctx: Ctx, args: Value) -> ToolResult {
    let (w, a): (Wait, NewInContainerArgs) = decode_with(args)?;
    let timeout = Timeout::from_arg(w.timeout_ms, TabsNew::TIMEOUT_MS)?;
    let d = ctx.browser.resolve_waiting(a.browser.as_deref(), timeout).await?;
    let list = ctx.browser.container_list(&d, call_timeout()).await?;
    let c = resolve(&list, &a.container)?;
    let params = TabsNew {
        url: a.url,
        active: Some(a.active),
        cookie_store_id: Some(c.cookie_store_id.clone()),
        window: None,
        timeout_ms: Some(timeout.ms()),
    };
    let (d, out) = ctx.browser.call(a.browser.as_deref(), params, timeout).await?;
    ctx.browser.pages().set(&d, out.tab.tab_id);
    let text = super::tabs::tab_block(&format!("opened in {} (current page)", c.name), &out.tab);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}
