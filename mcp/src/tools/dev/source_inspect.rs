//! `extension_source_inspect`: one call that shows whether the extension injected, what it
//! rendered, and what went wrong, in a running dev (or start/preview) session.
//!
//! ```text
//! tool ── project + browser ─▶ session control socket {"op":"inspect"} ─▶ events
//!   └── dom_snapshot: helper extension in the session's browser (browser: <sessionId>),
//!       tab found by URL, `page.snapshot` — the same engine as take_snapshot
//! ```

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::methods::{Method, PageSnapshot};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::Timeout;
use crate::bridge::results::Snapshot;
use crate::session::{self, control, inspect};
use crate::tools::registry::schema::{display_as_word, word};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

/// Deadline of the session's answer (it may navigate and open pages).
const SESSION_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_ANSWER_MS);
/// `page_html` cap unless `maxBytes` says otherwise.
const HTML_MAX_BYTES: u64 = 64 * 1024;
const MIN_MAX_BYTES: u64 = 256;
const MAX_MAX_BYTES: u64 = 8 * 1024 * 1024;
const MAX_PROBES: usize = 20;

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_SOURCE_INSPECT]
}

/// What to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Include {
    /// page_html: the page's HTML after the content scripts ran, redacted and capped.
    #[serde(alias = "page_html")]
    Html,
    /// page_html_summary: counts of extension roots, shadow roots, scripts, styles, links.
    #[serde(alias = "page_html_summary")]
    Summary,
    /// page_meta: readyState, viewport, frame count.
    #[serde(alias = "page_meta")]
    Meta,
    /// dom_snapshot: the helper's snapshot of the page (take_snapshot's text tree).
    DomSnapshot,
    /// console_summary: counts and top messages of the page, content scripts and worker.
    #[serde(alias = "console_summary")]
    Console,
    /// extension_root_tree: the [data-extension-root] elements and their trees.
    #[serde(alias = "extension_root_tree")]
    Tree,
}

/// How the events come back in the text content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One JSON event per line.
    #[default]
    Ndjson,
    /// One JSON array.
    Json,
}

display_as_word!(Format, inspect::Context, inspect::ShadowDom, inspect::Redact);

/// Arguments of `extension_source_inspect`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InspectArgs {
    /// Project root with a running session.
    #[arg(value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// Default: the project's only session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub browser: Option<String>,
    /// Navigate the session's tab first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub url: Option<String>,
    /// CSS selectors: count and 3 samples each.
    #[serde(default)]
    #[arg(long, value_name = "SELECTOR")]
    pub probe: Vec<String>,
    /// Default summary, meta, console.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = word::<Include>)]
    pub include: Option<Vec<Include>>,
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<inspect::Context>, help = "page, popup, options, sidepanel, newtab, devtools or background")]
    pub context: inspect::Context,
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<inspect::ShadowDom>, help = "off, open-only or all")]
    pub shadow_dom: inspect::ShadowDom,
    /// page_html: safe (default) strips scripts, styles, secrets; strict also handlers.
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<inspect::Redact>)]
    pub redact: inspect::Redact,
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<Format>, help = "ndjson or json: how the events print")]
    pub format: Format,
    /// Cap of page_html and dom_snapshot (default 65536).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub max_bytes: Option<u64>,
}

/// Checks the arguments and turns them into the session's request.
fn request_of(args: &InspectArgs) -> Result<(inspect::Request, bool), ErrorBody> {
    let include =
        args.include.clone().unwrap_or_else(|| vec![Include::Summary, Include::Meta, Include::Console]);
    let max_bytes = args.max_bytes.unwrap_or(HTML_MAX_BYTES);
    if !(MIN_MAX_BYTES..=MAX_MAX_BYTES).contains(&max_bytes) {
        return Err(ErrorBody::invalid_argument(format!(
            "`maxBytes` must be between {MIN_MAX_BYTES} and {MAX_MAX_BYTES}"
        ))
        .with_hint("the default is 65536"));
    }
    if args.probe.len() > MAX_PROBES {
        return Err(ErrorBody::invalid_argument(format!("at most {MAX_PROBES} `probe` selectors"))
            .with_hint("probe fewer selectors per call"));
    }
    if args.probe.iter().any(|p| p.trim().is_empty()) {
        return Err(ErrorBody::invalid_argument("a `probe` selector is empty")
            .with_hint("pass CSS selectors such as \"[data-extension-root]\""));
    }
    let url = args.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
    if let Some(u) = url {
        if args.context != inspect::Context::Page {
            return Err(ErrorBody::invalid_argument("`url` only applies to context page")
                .with_hint("drop `url` to inspect the extension's own page"));
        }
        let scheme_ok =
            ["http://", "https://", "file://", "about:", "data:"].iter().any(|s| u.starts_with(s));
        if !scheme_ok {
            return Err(ErrorBody::invalid_argument(format!("`url` {u:?} is not an absolute URL"))
                .with_hint("pass a full URL such as https://example.com/"));
        }
    }
    let has = |i: Include| include.contains(&i);
    let req = inspect::Request {
        url: url.map(str::to_owned),
        context: args.context,
        probe: args.probe.clone(),
        html: has(Include::Html),
        summary: has(Include::Summary),
        meta: has(Include::Meta),
        console: has(Include::Console),
        tree: has(Include::Tree),
        shadow_dom: args.shadow_dom,
        redact: args.redact,
        max_bytes,
    };
    Ok((req, has(Include::DomSnapshot)))
}

const EXTENSION_SOURCE_INSPECT: ToolDef = ToolDef {
    name: "extension_source_inspect",
    title: "Inspect the running extension",
    toolset: Toolset::Dev,
    description: "Look inside a running session's page: did the content script inject, what did it render, what failed. Events (NDJSON, or JSON with format: json): page_meta, page_html_summary, console_summary, selector_probe (per probe), extension_root_tree, page_html (redacted, capped), dom_snapshot. context: popup, options, … or background instead of the page.",
    effect: Effect::Additive,
    input_schema: schema_of::<InspectArgs>,
    run: |ctx, _call, args| Box::pin(extension_source_inspect(ctx, args)),
};

async fn extension_source_inspect(ctx: Ctx, args: Value) -> ToolResult {
    let args: InspectArgs = decode(args)?;
    let (req, want_snapshot) = request_of(&args)?;
    let project = super::sessions::project_of(&args.project_path)?;
    let out_dir = project.join("dist");
    let browser = super::sessions::session_browser(&ctx, &out_dir, args.browser.as_deref())?;
    let context = req.context;
    let max_bytes = req.max_bytes;
    let redact = req.redact;
    let found = control::locate(&ctx.paths.runtime_search, &project, &browser);
    let answer = match found {
        Ok(socket) => control::request(&socket, &control::Call::inspect(req), SESSION_TIMEOUT).await,
        Err(e) => Err(e),
    };
    let answer = answer
        .map_err(|e| {
            if e.code == ErrorCode::NotConnected {
                ErrorBody::not_found(format!("no {browser} session is running for {}", project.display()))
                    .with_hint(format!(
                        "start one with extension_dev {{\"projectPath\": \"{}\", \"browser\": \"chromium\"}} (CLI: webext-mcp dev {} --browser chromium --detach)",
                        project.display(),
                        project.display()
                    ))
            } else {
                e
            }
        })?;
    let mut answer = answer;
    if want_snapshot {
        let event = dom_snapshot(&ctx, &answer, context, max_bytes, redact).await;
        answer.events.push(event);
    }
    let text = match args.format {
        Format::Ndjson => answer.events.iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
        Format::Json => Value::Array(answer.events.clone()).to_string(),
    };
    let mut answer = serde_json::to_value(answer).map_err(|e| ErrorBody::internal(e.to_string()))?;
    answer["format"] = json!(match args.format {
        Format::Ndjson => "ndjson",
        Format::Json => "json",
    });
    Ok(ToolOutput { structured: answer, text: Some(text) })
}

/// The `dom_snapshot` event: the helper's snapshot of the inspected tab, or the reason there
/// is none (as the event's `error`, so the other events still arrive).
async fn dom_snapshot(
    ctx: &Ctx,
    answer: &control::Inspection,
    context: inspect::Context,
    max_bytes: u64,
    redact: inspect::Redact,
) -> Value {
    let tab = answer.tab.as_ref();
    let url = tab.map_or("", |t| t.url.as_str()).to_owned();
    let mut event = json!({
        "type": "dom_snapshot",
        "url": url,
        "title": tab.map(|t| &t.title),
        "frameId": tab.map(|t| &t.target_id),
        "context": context.as_str(),
        "timestamp": session::contract::now_iso(),
    });
    let session_id = answer.session_id.clone();
    let result = snapshot_of(ctx, &session_id, &url, context, max_bytes, redact).await;
    match result {
        Ok(out) => {
            event["tabId"] = json!(out.tab.tab_id);
            event["snapshotId"] = json!(out.snapshot_id);
            event["text"] = json!(out.text);
            event["totalBytes"] = json!(out.total_bytes);
            event["truncated"] = json!(out.next_cursor.is_some());
            event["nextCursor"] = json!(out.next_cursor);
        }
        Err(e) => event["error"] = json!(e),
    }
    event
}

async fn snapshot_of(
    ctx: &Ctx,
    session_id: &str,
    url: &str,
    context: inspect::Context,
    max_bytes: u64,
    redact: inspect::Redact,
) -> Result<Snapshot, ErrorBody> {
    if context != inspect::Context::Page {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            format!(
                "dom_snapshot reads web pages; the {} context is the extension's own page",
                context.as_str()
            ),
        )
        .with_hint("use extension_root_tree, selector_probe or page_html there"));
    }
    let (d, tab_id) = super::act::helper_tab_id(ctx, session_id, url).await?;
    let params = PageSnapshot {
        max_bytes: Some(max_bytes),
        redact: Some(redact.as_str().to_owned()),
        ..PageSnapshot::default()
    };
    ctx.browser.call_at(&d, tab_id, params, Timeout::fixed(PageSnapshot::TIMEOUT_MS)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Result<(inspect::Request, bool), ErrorBody> {
        let mut v = v;
        v["projectPath"] = json!("/p");
        request_of(&decode::<InspectArgs>(v)?)
    }

    #[test]
    fn defaults_are_summary_meta_console() {
        let (r, snap) = args(json!({})).unwrap();
        assert!(r.summary && r.meta && r.console && !r.html && !r.tree && !snap);
        assert_eq!(r.max_bytes, HTML_MAX_BYTES);
        assert_eq!(r.context, inspect::Context::Page);
        assert_eq!(r.shadow_dom, inspect::ShadowDom::OpenOnly);
        assert_eq!(r.redact, inspect::Redact::Safe);
    }

    #[test]
    fn include_takes_short_names_and_event_names() {
        let (r, snap) = args(json!({"include": ["page_html", "tree", "dom_snapshot"]})).unwrap();
        assert!(r.html && r.tree && snap && !r.summary);
        let (r, _) = args(json!({"include": ["extension_root_tree", "console_summary"]})).unwrap();
        assert!(r.tree && r.console);
    }

    #[test]
    fn bad_inputs_are_invalid_argument_with_a_hint() {
        for bad in [
            json!({"include": ["nope"]}),
            json!({"maxBytes": 10}),
            json!({"probe": [" "]}),
            json!({"url": "example.com"}),
            json!({"url": "https://example.com", "context": "popup"}),
            json!({"context": "sidebar"}),
            json!({"shadowDom": "closed"}),
            json!({"redact": "everything"}),
            json!({"format": "xml"}),
        ] {
            let e = args(bad.clone()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{bad}");
            assert!(e.hint.is_some(), "{bad}");
        }
    }
}
