//! `get_page_text`, `read_page` and `find_by_text`: reading a page without a snapshot tree (the engine's
//! `reading.rs` does the work in the helper; the same tables, refs and redaction as
//! `take_snapshot`). Both answer between the page-content boundary lines.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{Method, PageFind, PageText};

use crate::bridge::TabTarget;
use crate::bridge::Timeout;
use crate::bridge::results::{Snapshot, to_value};
use crate::tools::registry::{Paging, decode_with, decode_with_target, schema_with, schema_with_target};
use crate::tools::snapshot::take_snapshot::Redact;
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![GET_PAGE_TEXT, READ_PAGE, FIND_BY_TEXT]
}

/// Arguments of `get_page_text` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextArgs {
    /// A ref: only its subtree.
    #[serde(default)]
    pub root: Option<String>,
    #[serde(default)]
    pub redact: Redact,
    /// Default 30000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Arguments of `find_by_text` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindArgs {
    /// The text to find (whitespace-normalized; case-insensitive, Unicode case rules, unless
    /// caseSensitive), or `/pattern/flags`: a JavaScript regular expression.
    #[serde(default)]
    pub query: Option<String>,
    /// Whole text equal, not a substring.
    #[serde(default)]
    pub exact: bool,
    #[serde(default)]
    pub case_sensitive: bool,
    /// Most hits per page (default 50).
    #[serde(default)]
    pub limit: Option<u32>,
    /// nextCursor of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub redact: Redact,
    /// Default 30000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

const GET_PAGE_TEXT: ToolDef = ToolDef {
    name: "get_page_text",
    title: "Read a page's text",
    toolset: Toolset::Snapshot,
    description: "The page's visible text in reading order, one line per block (frames included; hidden text, field values and secrets left out). Paged: pass nextCursor. Cheaper than take_snapshot when you only need to read.",
    effect: Effect::Read,
    input_schema: schema_with::<(TabTarget, Paging), TextArgs>,
    run: |ctx, _call, args| Box::pin(get_page_text(ctx, args)),
};

async fn get_page_text(ctx: Ctx, args: Value) -> ToolResult {
    page_text(ctx, args, false).await
}

const READ_PAGE: ToolDef = ToolDef {
    name: "read_page",
    title: "Read a page's main content",
    toolset: Toolset::Snapshot,
    description: "The page's main content (its <main>, else its only <article>, else the page without navigation, header, footer and sidebars) as compact text: # headings, paragraphs, - lists, | table rows, ``` code, links as [text](url)[ref], controls as [ref] role \"name\". Paged: pass nextCursor.",
    effect: Effect::Read,
    input_schema: schema_with::<(TabTarget, Paging), TextArgs>,
    run: |ctx, _call, args| Box::pin(read_page(ctx, args)),
};

async fn read_page(ctx: Ctx, args: Value) -> ToolResult {
    page_text(ctx, args, true).await
}

/// `page.text`: the visible text, or (`main`) the main content as structured text.
async fn page_text(ctx: Ctx, args: Value, main: bool) -> ToolResult {
    let ((target, p), a) = decode_with::<(TabTarget, Paging), TextArgs>(args)?;
    if p.max_bytes.is_some_and(|n| n < 256) {
        return Err(ErrorBody::invalid_argument("`maxBytes` must be at least 256"));
    }
    let params = PageText {
        cursor: p.cursor,
        max_bytes: p.max_bytes,
        root: a.root,
        redact: Some(a.redact.as_str().to_owned()),
        main: Some(main),
    };
    let (_, out) =
        ctx.browser.call_tab(&target, params, Timeout::from_arg(a.timeout_ms, PageText::TIMEOUT_MS)?).await?;
    let body = crate::text::with_page_line(&out.text, &out.tab.title, &out.tab.url);
    let text = format!("{}{body}", header(if main { "main content" } else { "text" }, &out));
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text.trim_end().to_owned()) })
}

const FIND_BY_TEXT: ToolDef = ToolDef {
    name: "find_by_text",
    title: "Find elements by text",
    toolset: Toolset::Snapshot,
    description: "Elements whose text, name, placeholder, alt, title or aria-label contain `query` (or equal it with exact; `/regex/flags` for a JavaScript RegExp), one line each with the ref the action tools take. No snapshot needed.",
    effect: Effect::Read,
    input_schema: schema_with_target::<FindArgs>,
    run: |ctx, _call, args| Box::pin(find_by_text(ctx, args)),
};

async fn find_by_text(ctx: Ctx, args: Value) -> ToolResult {
    let (target, a) = decode_with_target::<FindArgs>(args)?;
    let query = a.query.unwrap_or_default();
    if a.cursor.is_none() && query.trim().is_empty() {
        return Err(ErrorBody::invalid_argument("`query` is required")
            .with_hint("pass the text to find, e.g. {\"query\": \"Sign in\"}"));
    }
    if a.limit == Some(0) {
        return Err(ErrorBody::invalid_argument("`limit` must be at least 1"));
    }
    let params = PageFind {
        query,
        exact: Some(a.exact),
        case_sensitive: Some(a.case_sensitive),
        limit: a.limit.map(u64::from),
        cursor: a.cursor,
        redact: Some(a.redact.as_str().to_owned()),
    };
    let (_, out) =
        ctx.browser.call_tab(&target, params, Timeout::from_arg(a.timeout_ms, PageFind::TIMEOUT_MS)?).await?;
    let total = out.extra.get("total").and_then(Value::as_u64).unwrap_or(0);
    let mut text = header(&format!("{total} matches"), &out);
    if total == 0 {
        text.push_str("no element matches; try a shorter query, or take_snapshot to see what is there\n");
    }
    text.push_str(&crate::text::with_page_line(&out.text, &out.tab.title, &out.tab.url));
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text.trim_end().to_owned()) })
}

/// `<what> of tabId=N` and where the page is, as take_snapshot says it (the title and URL
/// go inside the page-content block).
fn header(what: &str, out: &Snapshot) -> String {
    let mut line = format!("{what} {} of tabId={}", out.snapshot_id, out.tab.tab_id);
    match &out.next_cursor {
        Some(next) => line.push_str(&format!(" — more with cursor={next}\n")),
        None => line.push('\n'),
    }
    line
}
