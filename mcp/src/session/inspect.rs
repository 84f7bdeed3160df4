//! `extension_source_inspect`, session side: what the extension did to a page, its console
//! and its own pages, read from the session's browser.
//!
//! ```text
//! tool ──control {"op":"inspect",…}──▶ session ── pick / open / navigate the tab (runner)
//!                                          ├── inspect.js in the page (one Runtime.evaluate)
//!                                          ├── console: the page's own (runner) + the
//!                                          │   extension's since its last (re)load (session)
//!                                          └──▶ events (page_meta, page_html_summary, …)
//! ```
//!
//! The page-side collector is `inspect.js` (read-only DOM walk: meta, counts, probes, the
//! `[data-extension-root]` trees, redacted HTML); the pure parts are beside it with their
//! tests (which file a context opens here, the console summary and byte cap in
//! `inspect/console_summary.rs`). `dom_snapshot` is not made here: the tool asks the helper
//! extension, which runs in the same browser.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::control::{InspectedTab, Inspection};
use crate::runner::{ConsoleEvent, ExtensionHandle, PageInfo, Runner, RunnerError};

mod console_summary;
mod html;
pub use console_summary::console_summary;

/// The page-side collector, a function expression `(opts, ...closedShadowRoots) => result`.
const SCRIPT: &str = include_str!("inspect.js");

/// How long a page may take to load after `url` or after opening an extension page.
const LOAD_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_PAGE_LOAD_MS);
/// Deadline of the collector itself.
const EVAL_TIMEOUT: Duration = Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_EVAL_MS);
/// Extension console events kept by a session for summaries.
pub const RECENT: usize = 500;

/// Which part of the extension to look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Context {
    /// A web page in the session's tab, with what the content scripts rendered into it.
    #[default]
    Page,
    /// The action popup (`action.default_popup`), opened as a tab.
    Popup,
    /// The options page (`options_ui.page` / `options_page`), opened as a tab.
    Options,
    /// The side panel (`side_panel.default_path`; Firefox: `sidebar_action.default_panel`),
    /// opened as a tab.
    Sidepanel,
    /// The new-tab override (`chrome_url_overrides.newtab`), opened as a tab.
    Newtab,
    /// The devtools page (`devtools_page`), opened as a tab (without the devtools APIs).
    Devtools,
    /// The service worker: its console and state, nothing evaluated in it.
    Background,
}

impl Context {
    /// The extension's own pages, which a session opens as tabs.
    pub const PAGES: [Context; 5] =
        [Context::Popup, Context::Options, Context::Sidepanel, Context::Newtab, Context::Devtools];

    pub const fn as_str(self) -> &'static str {
        match self {
            Context::Page => "page",
            Context::Popup => "popup",
            Context::Options => "options",
            Context::Sidepanel => "sidepanel",
            Context::Newtab => "newtab",
            Context::Devtools => "devtools",
            Context::Background => "background",
        }
    }

    /// The manifest key that names this context's page, for messages.
    pub const fn manifest_key(self) -> &'static str {
        match self {
            Context::Popup => "action.default_popup",
            Context::Options => "options_ui.page",
            Context::Sidepanel => "side_panel.default_path",
            Context::Newtab => "chrome_url_overrides.newtab",
            Context::Devtools => "devtools_page",
            Context::Page | Context::Background => "",
        }
    }
}

/// How far into shadow DOM the collector goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ShadowDom {
    /// Light DOM only (shadow hosts are marked, not entered).
    #[serde(rename = "off")]
    Off,
    /// Open shadow roots, recursively.
    #[default]
    #[serde(rename = "open-only")]
    OpenOnly,
    /// Open and closed shadow roots (closed ones found over CDP in Chromium, through a
    /// content script's `openOrClosedShadowRoot` in Firefox; slower on big pages).
    #[serde(rename = "all")]
    All,
}

impl ShadowDom {
    const fn as_str(self) -> &'static str {
        match self {
            ShadowDom::Off => "off",
            ShadowDom::OpenOnly => "open-only",
            ShadowDom::All => "all",
        }
    }
}

/// What `page_html` hides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Redact {
    /// The page as it is.
    Off,
    /// The engine's `safe` rules (the snapshot's: secret fields, card numbers, secret URL
    /// parameters, key-like values and `data-*`), script and style bodies dropped, long
    /// `data:` URIs replaced by their size.
    #[default]
    Safe,
    /// The engine's `strict` rules (also every field value, `on*` attributes, `javascript:`
    /// URLs, long attribute values), comments dropped.
    Strict,
}

impl Redact {
    pub const fn as_str(self) -> &'static str {
        match self {
            Redact::Off => "off",
            Redact::Safe => "safe",
            Redact::Strict => "strict",
        }
    }
}

/// What the tool asks a session for (the `inspect` control request).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default)]
    pub context: Context,
    #[serde(default)]
    pub probe: Vec<String>,
    #[serde(default)]
    pub html: bool,
    #[serde(default)]
    pub summary: bool,
    #[serde(default)]
    pub meta: bool,
    #[serde(default)]
    pub console: bool,
    #[serde(default)]
    pub tree: bool,
    #[serde(default)]
    pub shadow_dom: ShadowDom,
    #[serde(default)]
    pub redact: Redact,
    /// Cap of `page_html`, in bytes.
    #[serde(default)]
    pub max_bytes: u64,
}

/// An extension console event as the session received it.
#[derive(Debug, Clone)]
pub struct Logged {
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
    pub event: ConsoleEvent,
}

pub use webext_mcp_host::descriptor::now_ms;

/// Keeps the newest [`RECENT`] events.
pub fn remember(recent: &mut VecDeque<Logged>, event: &ConsoleEvent) {
    if recent.len() == RECENT {
        recent.pop_front();
    }
    recent.push_back(Logged { at_ms: now_ms(), event: event.clone() });
}

/// What the session knows that the collector needs.
pub struct Inputs<'a> {
    pub runner: &'a dyn Runner,
    pub ext: Option<&'a ExtensionHandle>,
    pub dist: &'a Path,
    pub recent: &'a VecDeque<Logged>,
    /// When the extension was last (re)loaded: older console events describe old code.
    pub loaded_at_ms: u64,
    pub session_id: &'a str,
}

/// Runs one inspection; answers `{sessionId, tab, events}` (no `dom_snapshot`).
pub async fn inspect(inputs: Inputs<'_>, req: Request) -> Result<Inspection, ErrorBody> {
    let runner = inputs.runner;
    if req.context == Context::Background {
        return background(&inputs, &req).await;
    }
    let (page, opened) = match req.context {
        Context::Page => (page_tab(runner).await?, false),
        other => extension_tab(&inputs, other).await?,
    };
    if let Some(url) = &req.url {
        // The new document, not the old one still answering: its navigation started after
        // this moment (a fragment change keeps the document).
        let same_document = page.url.split('#').next() == url.split('#').next() && url.contains('#');
        let since = now_ms().saturating_sub(5);
        runner.navigate_page(&page.target_id, url).await.map_err(ErrorBody::from)?;
        let condition = if same_document {
            "document.readyState === 'complete'".to_owned()
        } else {
            format!("document.readyState === 'complete' && performance.timeOrigin >= {since}")
        };
        wait_until(runner, &page.target_id, &condition, "the page to load").await?;
    }
    let opts = json!({
        "meta": req.meta,
        "summary": req.summary,
        "html": req.html,
        "tree": req.tree,
        "probe": req.probe,
        "shadowDom": req.shadow_dom.as_str(),
        "redact": req.redact.as_str(),
        "maxBytes": req.max_bytes,
    });
    let got =
        collect(runner, &page.target_id, &opts, req.shadow_dom == ShadowDom::All).await.map_err(|e| {
            ErrorBody::new(ErrorCode::ScriptError, format!("cannot read the page: {e}"))
                .with_hint("the page may be navigating or blocked by a dialog; retry")
        })?;
    let mut got = got;
    let level = html::level(req.redact);
    for key in ["probes", "roots"] {
        html::redact_described(&mut got[key], level);
    }
    let scrub = |s: &str| html::redact_described_text(s, level);
    let base = Envelope {
        url: scrub(got["url"].as_str().unwrap_or(&page.url)),
        title: scrub(got["title"].as_str().ok_or_else(|| {
            ErrorBody::internal("the page reader's answer lacks `title`; rebuild webext-mcp")
        })?),
        frame_id: page.target_id.clone(),
        context: req.context,
    };
    let mut events = Vec::new();
    if req.meta {
        let mut meta = got["meta"].clone();
        meta["opened"] = json!(opened);
        events.push(base.event("page_meta", meta));
    }
    if req.summary {
        events.push(base.event("page_html_summary", got["summary"].clone()));
    }
    for probe in got["probes"].as_array().into_iter().flatten() {
        events.push(base.event("selector_probe", probe.clone()));
    }
    if req.tree {
        events.push(base.event(
            "extension_root_tree",
            json!({"generation": got["generation"], "roots": got["roots"], "truncated": got["treeTruncated"]}),
        ));
    }
    if req.console {
        let page_events = runner.page_console(&page.target_id).await;
        let ext = extension_events(&inputs);
        events.push(base.event(
            "console_summary",
            console_summary(&page_events, &ext, inputs.ext.map(|e| e.base_url.as_str())),
        ));
    }
    if req.html {
        let tokens = got["html"]["tokens"].as_array().map(Vec::as_slice).unwrap_or_default();
        let rendered = html::render(tokens, level);
        let cap = usize::try_from(req.max_bytes).unwrap_or(usize::MAX);
        let (kept, cut) = webext_mcp_engine::text::truncate_bytes(&rendered.html, cap);
        let truncated = cut || got["html"]["truncated"].as_bool().unwrap_or(false);
        events.push(base.event(
            "page_html",
            json!({"html": kept, "bytes": kept.len(), "truncated": truncated, "redact": req.redact.as_str(),
                   "strippedBodies": rendered.stripped}),
        ));
    }
    Ok(Inspection {
        session_id: inputs.session_id.to_owned(),
        tab: Some(InspectedTab { target_id: page.target_id, url: base.url, title: base.title, opened }),
        events,
    })
}

/// Runs the collector in the tab. With `shadowDom: all` the runner first hands it the
/// page's closed shadow roots, which the page's own scripts cannot reach (Chromium; other
/// families, and pages without closed roots, get the plain evaluation).
async fn collect(runner: &dyn Runner, target: &str, opts: &Value, all: bool) -> Result<Value, String> {
    if all {
        match runner.call_with_closed_shadow_roots(target, SCRIPT.trim_end(), opts, EVAL_TIMEOUT).await {
            Ok(Some(v)) => return Ok(v),
            Ok(None) | Err(RunnerError::Unsupported { .. }) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    let expression = format!("({})({opts})", SCRIPT.trim_end());
    runner.evaluate_in_page(target, &expression, EVAL_TIMEOUT).await.map_err(|e| e.to_string())
}

/// The fields every event carries.
struct Envelope {
    url: String,
    title: String,
    frame_id: String,
    context: Context,
}

impl Envelope {
    fn event(&self, kind: &str, payload: Value) -> Value {
        let mut ev = json!({
            "type": kind,
            "url": self.url,
            "title": self.title,
            "frameId": self.frame_id,
            "context": self.context.as_str(),
            "timestamp": super::contract::now_iso(),
        });
        if let (Value::Object(ev), Value::Object(p)) = (&mut ev, payload) {
            for (k, v) in p {
                ev.entry(k).or_insert(v);
            }
        }
        ev
    }
}

/// The extension's console events since its last (re)load.
fn extension_events(inputs: &Inputs<'_>) -> Vec<ConsoleEvent> {
    inputs.recent.iter().filter(|l| l.at_ms >= inputs.loaded_at_ms).map(|l| l.event.clone()).collect()
}

/// The tab a `page` inspection reads: the first web page, else the first tab.
async fn page_tab(runner: &dyn Runner) -> Result<PageInfo, ErrorBody> {
    let pages = runner.pages().await.map_err(ErrorBody::from)?;
    let web = pages.iter().find(|p| p.url.starts_with("http://") || p.url.starts_with("https://"));
    let own_pages = ["chrome-extension://", "moz-extension://", "devtools://"];
    let any = pages.iter().find(|p| !own_pages.iter().any(|s| p.url.starts_with(s)));
    web.or(any).cloned().ok_or_else(|| {
        ErrorBody::not_found("the session's browser has no tab with a web page")
            .with_hint("pass `url` to open one, or restart the session with a startingUrl")
            .with_data(json!({ "pages": pages }))
    })
}

/// The page a context names in the built manifest, relative to the extension root.
pub fn page_path(manifest: &Value, context: Context) -> Option<String> {
    let s = |v: &Value| v.as_str().filter(|s| !s.trim().is_empty()).map(str::to_owned);
    let path = match context {
        Context::Popup => s(&manifest["action"]["default_popup"])
            .or_else(|| s(&manifest["browser_action"]["default_popup"]))
            .or_else(|| s(&manifest["page_action"]["default_popup"])),
        Context::Options => s(&manifest["options_ui"]["page"]).or_else(|| s(&manifest["options_page"])),
        // Firefox's sidebar is `sidebar_action` (Chromium's side panel is not).
        Context::Sidepanel => s(&manifest["side_panel"]["default_path"])
            .or_else(|| s(&manifest["sidebar_action"]["default_panel"])),
        Context::Newtab => s(&manifest["chrome_url_overrides"]["newtab"]),
        Context::Devtools => s(&manifest["devtools_page"]),
        Context::Page | Context::Background => None,
    }?;
    Some(path.trim_start_matches("./").trim_start_matches('/').to_owned())
}

/// Finds the tab showing the context's page, or opens one, and waits until it is the
/// extension's page and loaded. Returns it and whether it was opened now.
pub async fn extension_tab(inputs: &Inputs<'_>, context: Context) -> Result<(PageInfo, bool), ErrorBody> {
    let ext = loaded(inputs)?;
    let manifest: Value = std::fs::read(inputs.dist.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let rel = page_path(&manifest, context).ok_or_else(|| {
        ErrorBody::not_found(format!("the extension has no {} page", context.as_str())).with_hint(format!(
            "declare it in manifest.json ({}), or inspect another context",
            context.manifest_key()
        ))
    })?;
    let url = format!("{}{rel}", ext.base_url);
    let runner = inputs.runner;
    let pages = runner.pages().await.map_err(ErrorBody::from)?;
    let same = |p: &PageInfo| p.url.split(['?', '#']).next() == Some(url.as_str());
    if let Some(p) = pages.iter().find(|p| same(p)) {
        return Ok((p.clone(), false));
    }
    let page = runner.open_page(&url).await.map_err(|e| match e {
        RunnerError::Unsupported { .. } => ErrorBody::from(e),
        e => ErrorBody::internal(format!("cannot open {url}: {e}")),
    })?;
    // A new tab answers from its blank document first, which already says `complete`.
    let condition = format!(
        "location.href.startsWith({}) && document.readyState === 'complete'",
        Value::String(ext.base_url.clone())
    );
    wait_until(runner, &page.target_id, &condition, "the extension page to load").await?;
    Ok((page, true))
}

fn loaded<'a>(inputs: &Inputs<'a>) -> Result<&'a ExtensionHandle, ErrorBody> {
    inputs.ext.ok_or_else(|| {
        ErrorBody::not_found("the extension is not loaded in the session (its first build failed)")
            .with_hint("fix the build errors extension_wait lists and save; the session loads it by itself")
    })
}

/// Polls `condition` in the tab until it is true; evaluation errors (a document being
/// replaced) count as not yet.
async fn wait_until(runner: &dyn Runner, target: &str, condition: &str, what: &str) -> Result<(), ErrorBody> {
    let deadline = std::time::Instant::now() + LOAD_TIMEOUT;
    loop {
        if let Ok(Value::Bool(true)) =
            runner.evaluate_in_page(target, condition, Duration::from_secs(2)).await
        {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(ErrorBody::new(
                ErrorCode::Timeout,
                format!("waited {} s for {what}", LOAD_TIMEOUT.as_secs()),
            )
            .with_hint("the page may be slow or failing to load; inspect again, or check the URL"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `context: background`: the worker's state from the browser's target list and the
/// console; nothing is evaluated in the worker.
async fn background(inputs: &Inputs<'_>, req: &Request) -> Result<Inspection, ErrorBody> {
    let ext = loaded(inputs)?;
    let manifest: Value = std::fs::read(inputs.dist.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let declared = manifest["background"]["service_worker"].as_str().map(|p| format!("{}{p}", ext.base_url));
    // Firefox runs background scripts in a page of its own instead of a worker.
    let scripts: Vec<String> = manifest["background"]["scripts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|p| format!("{}{}", ext.base_url, p.trim_start_matches("./").trim_start_matches('/')))
        .collect();
    // A family that cannot list workers shows none (Firefox: its background is a page).
    let found = match inputs.runner.service_workers(&ext.base_url).await {
        Ok(found) => found,
        Err(RunnerError::Unsupported { .. }) => Vec::new(),
        Err(e) => return Err(ErrorBody::internal(e.to_string())),
    };
    // The worker's target is the frame; with no worker running there is none to name.
    let frame_id = found.first().map(|w| w.target_id.clone()).unwrap_or_default();
    let workers: Vec<Value> =
        found.into_iter().map(|w| json!({"url": w.url, "targetId": w.target_id})).collect();
    let url = declared.clone().or_else(|| scripts.first().cloned()).unwrap_or_else(|| ext.base_url.clone());
    let base = Envelope { url, title: String::new(), frame_id, context: Context::Background };
    let mut events = Vec::new();
    if req.meta || req.summary {
        events.push(base.event(
            "page_meta",
            json!({
                "extensionId": ext.id,
                "serviceWorker": declared,
                "backgroundScripts": scripts,
                "running": !workers.is_empty() || (declared.is_none() && ext.background_started()),
                "workers": workers,
                "startedOnce": ext.background_started(),
                "manifestVersion": manifest["manifest_version"],
                "permissions": manifest["permissions"],
            }),
        ));
    }
    if req.console {
        let ext_events = extension_events(inputs);
        events.push(base.event("console_summary", console_summary(&[], &ext_events, Some(&ext.base_url))));
    }
    Ok(Inspection { session_id: inputs.session_id.to_owned(), tab: None, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_map_to_manifest_pages() {
        let m = json!({
            "action": {"default_popup": "./popup.html"},
            "options_page": "opts.html",
            "side_panel": {"default_path": "/panel/index.html"},
            "chrome_url_overrides": {"newtab": "tab.html"},
            "devtools_page": "devtools.html",
        });
        assert_eq!(page_path(&m, Context::Popup).as_deref(), Some("popup.html"));
        assert_eq!(page_path(&m, Context::Options).as_deref(), Some("opts.html"));
        assert_eq!(page_path(&m, Context::Sidepanel).as_deref(), Some("panel/index.html"));
        assert_eq!(page_path(&m, Context::Newtab).as_deref(), Some("tab.html"));
        assert_eq!(page_path(&m, Context::Devtools).as_deref(), Some("devtools.html"));
        let m2 = json!({"options_ui": {"page": "o.html"}, "options_page": "old.html", "action": {}});
        assert_eq!(page_path(&m2, Context::Options).as_deref(), Some("o.html"));
        assert_eq!(page_path(&m2, Context::Popup), None);
        let gecko = json!({"sidebar_action": {"default_panel": "sidebar.html"}});
        assert_eq!(page_path(&gecko, Context::Sidepanel).as_deref(), Some("sidebar.html"));
    }

    #[test]
    fn requests_round_trip_through_the_control_protocol() {
        let req = Request {
            url: Some("http://x/".into()),
            probe: vec!["a".into()],
            html: true,
            ..Default::default()
        };
        let line = serde_json::to_value(super::super::control::Request::Inspect(req)).unwrap();
        assert_eq!(line["op"], "inspect");
        assert_eq!(line["shadowDom"], "open-only");
        let back: super::super::control::Request = serde_json::from_value(line).unwrap();
        assert!(matches!(back, super::super::control::Request::Inspect(r) if r.html && r.probe == ["a"]));
    }
}
