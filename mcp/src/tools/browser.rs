//! The `browser` toolset: which browsers are connected, which one this server talks to, and
//! what it sees; plus `ping` in the `debug` toolset.
//!
//! Every tool goes through [`BrowserState::call`]: the `browser` argument, else the choice
//! made by `select_browser` (or `--browser` / config `browser` at start), else the only
//! daily browser; [`webext_mcp_host::client::Hub`] finds, connects and reconnects.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::client::Hub;
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::methods::{BROWSER_INFO, PING};
use webext_mcp_host::protocol::{ErrorBody, tab_set_fingerprint};
use webext_mcp_host::select;

use super::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

/// Deadline of the calls these tools make.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Per-host deadline when listing (a stuck browser must not stall the list).
const LIST_TIMEOUT: Duration = Duration::from_secs(3);

/// The browser side of a server's [`super::Context`].
pub struct BrowserState {
    hub: Hub,
    selected: Mutex<Option<String>>,
    pages: super::pages::CurrentPages,
}

impl BrowserState {
    /// `dirs` are the runtime dirs to search; `initial` is `--browser` / config `browser`.
    pub fn new(dirs: &[PathBuf], initial: Option<&str>) -> BrowserState {
        BrowserState {
            hub: Hub::searching(dirs.to_vec()),
            selected: Mutex::new(initial.map(str::to_owned)),
            pages: Default::default(),
        }
    }

    /// This server's current page per browser.
    pub fn pages(&self) -> &super::pages::CurrentPages {
        &self.pages
    }

    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// The default set by `select_browser` or at start.
    pub fn selected(&self) -> Option<String> {
        self.selected.lock().ok().and_then(|s| s.clone())
    }

    fn set_selected(&self, choice: String) {
        if let Ok(mut s) = self.selected.lock() {
            *s = Some(choice);
        }
    }

    /// What a tool's `browser` argument resolves against.
    pub fn choice(&self, arg: Option<&str>) -> Option<String> {
        arg.map(str::to_owned).or_else(|| self.selected())
    }

    /// The host a tool with this `browser` argument talks to.
    pub fn resolve(&self, arg: Option<&str>) -> Result<Descriptor, ErrorBody> {
        self.hub.resolve(self.choice(arg).as_deref())
    }

    /// Calls `method` in the chosen browser; what every browser tool uses.
    pub async fn call(
        &self,
        arg: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<(Descriptor, Value), ErrorBody> {
        self.call_within(arg, method, params, CALL_TIMEOUT).await
    }

    /// [`Self::call`] with the caller's deadline (loads and actions wait in the page).
    pub async fn call_within(
        &self,
        arg: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<(Descriptor, Value), ErrorBody> {
        self.hub.call(self.choice(arg).as_deref(), method, params, timeout).await
    }
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "list_connected_browsers",
            title: "List connected browsers",
            toolset: Toolset::Pages,
            description: "Browsers whose helper is connected: name, version, label, session, tab count, default.",
            effect: Effect::Read,
            input_schema: schema_of::<ListArgs>,
            run: |ctx, _call, args| Box::pin(list_connected_browsers(ctx, args)),
        },
        ToolDef {
            name: "select_browser",
            title: "Select browser",
            toolset: Toolset::Pages,
            description: "Make a connected browser this server's default (name, label or session id).",
            effect: Effect::Idempotent,
            input_schema: schema_of::<SelectArgs>,
            run: |ctx, _call, args| Box::pin(select_browser(ctx, args)),
        },
        ToolDef {
            name: "get_browser_info",
            title: "Browser info",
            toolset: Toolset::Pages,
            description: "Version, platform, visible tab count, tab-set fingerprint and capabilities of a connected browser.",
            effect: Effect::Read,
            input_schema: schema_of::<BrowserArgs>,
            run: |ctx, _call, args| Box::pin(get_browser_info(ctx, args)),
        },
        ToolDef {
            name: "ping",
            title: "Ping the browser",
            toolset: Toolset::Debug,
            description: "Round trip to the helper extension's background through the native host; reports the latency.",
            effect: Effect::Read,
            input_schema: schema_of::<PingArgs>,
            run: |ctx, _call, args| Box::pin(ping(ctx, args)),
        },
    ]
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

/// Arguments of `ping`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingArgs {
    /// Browser name, profile label or session id.
    #[serde(default)]
    pub browser: Option<String>,
    /// Text echoed back by the extension.
    #[serde(default)]
    pub payload: Option<String>,
}

fn tab_count(info: &Value) -> Option<usize> {
    info.get("tabs").and_then(Value::as_array).map(Vec::len)
}

fn tab_pairs(info: &Value) -> Vec<(i64, i64)> {
    info.get("tabs")
        .and_then(Value::as_array)
        .map(|tabs| {
            tabs.iter()
                .filter_map(|t| Some((t.get("windowId")?.as_i64()?, t.get("tabId")?.as_i64()?)))
                .collect()
        })
        .unwrap_or_default()
}

async fn list_connected_browsers(ctx: Ctx, args: Value) -> ToolResult {
    let ListArgs { browser } = decode(args)?;
    let state = &ctx.browser;
    let (live, searched) = state.hub().search();
    let default = state.resolve(None).ok().map(|d| d.pid);
    let mut rows = Vec::new();
    let mut text = String::new();
    for d in live.iter().filter(|d| browser.as_deref().is_none_or(|b| select::matches(d, b))) {
        let info = match state.hub().client(d).await {
            Ok(c) => c.call(BROWSER_INFO, json!({}), LIST_TIMEOUT).await,
            Err(e) => Err(e),
        };
        let mut row = select::summary(d);
        row["default"] = json!(default == Some(d.pid));
        match &info {
            Ok(info) => row["tabCount"] = json!(tab_count(info)),
            Err(e) => {
                row["tabCount"] = Value::Null;
                row["error"] = json!(e);
            }
        }
        text.push_str(&format!(
            "{}{} {} — label {}{}, extension {}, {} tabs\n",
            if default == Some(d.pid) { "* " } else { "  " },
            d.browser,
            d.browser_version,
            d.label,
            d.session.as_deref().map(|s| format!(", session {s}")).unwrap_or_default(),
            d.ext_version,
            info.as_ref().ok().and_then(tab_count).map(|n| n.to_string()).unwrap_or_else(|| "?".into()),
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

async fn select_browser(ctx: Ctx, args: Value) -> ToolResult {
    let SelectArgs { browser } = decode(args)?;
    let d = ctx.browser.hub().resolve(Some(&browser))?;
    // Remember something that survives a browser restart: the session, else the label.
    let key = d.session.clone().unwrap_or_else(|| d.label.clone());
    ctx.browser.set_selected(key.clone());
    let mut row = select::summary(&d);
    row["selected"] = json!(key);
    Ok(ToolOutput {
        structured: row,
        text: Some(format!("browser tools now use {} (label {})", d.browser, d.label)),
    })
}

async fn get_browser_info(ctx: Ctx, args: Value) -> ToolResult {
    let BrowserArgs { browser } = decode(args)?;
    let (d, info) = ctx.browser.call(browser.as_deref(), BROWSER_INFO, json!({})).await?;
    let tabs = tab_pairs(&info);
    let structured = json!({
        "browser": info.get("browser").cloned().unwrap_or_else(|| json!(d.browser)),
        "version": info.get("browserVersion").cloned().unwrap_or_else(|| json!(d.browser_version)),
        "label": d.label,
        "session": d.session,
        "extVersion": d.ext_version,
        "platform": info.get("platform").cloned().unwrap_or(Value::Null),
        "visibleTabCount": tabs.len(),
        "tabSetFingerprint": tab_set_fingerprint(&tabs),
        "capabilities": info.get("capabilities").cloned().unwrap_or_else(|| json!(d.capabilities)),
        "debuggerSessions": info.get("debuggerSessions").cloned().unwrap_or(json!(0)),
    });
    Ok(ToolOutput::json(structured))
}

async fn ping(ctx: Ctx, args: Value) -> ToolResult {
    let PingArgs { browser, payload } = decode(args)?;
    let params = match payload {
        Some(p) => json!({ "payload": p }),
        None => json!({}),
    };
    let started = Instant::now();
    let (d, reply) = ctx.browser.call(browser.as_deref(), PING, params).await?;
    let rtt = started.elapsed();
    Ok(ToolOutput::json(json!({
        "browser": d.browser,
        "label": d.label,
        "rttMs": (rtt.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
        "reply": reply,
    })))
}
