//! Reading a page: the snapshot and its refs, page text, find by text.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
        name: PAGE_SNAPSHOT,
        target: Target::Extension,
        doc: "Snapshot of a tab's DOM as a text tree with refs (collector + engine); pages with `cursor`.",
        params: tab_params![
            p(
                "cursor",
                "string",
                false,
                "`<snapshotId>:<offset>` from a previous page; STALE once superseded"
            ),
            p("maxBytes", "integer", false, "page size").or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("interactiveOnly", "boolean", false, "only interactive elements, flat"),
            p("viewportOnly", "boolean", false, "only what intersects the viewport"),
            p("root", "string", false, "ref whose subtree to render (expands collapsed runs)"),
            p("maxDepth", "integer", false, "depth limit below the root"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
            p("diff", "boolean", false, "only what changed since this client's previous snapshot of the tab"),
        ],
        result: "{snapshotId, diff?: {full: true, why} | {full: false, since, added, removed, changed}, tab, text: this page, offset, nextCursor: string | null, totalBytes,                  nodes, refs, collapsed, frames, timings: {prepMs, collectMs, walkMs, mapMs, jsonMs, transferMs,                  engineMs, pageMs, helperMs, walkers: [\"main\" | \"isolated\" per frame]}}",
    },
    MethodSpec {
        name: PAGE_CLEAR_SNAPSHOT,
        target: Target::Extension,
        doc: "Forgets the tab's cached snapshot and tables (refs stay valid: they name elements).",
        params: tab_params![],
        result: "{cleared: bool}",
    },
    MethodSpec {
        name: PAGE_TEXT,
        target: Target::Extension,
        doc: "The tab's visible text in reading order, one line per block (frames included, hidden text left out, redacted); pages with `cursor`.",
        params: tab_params![
            p("cursor", "string", false, "`<textId>:<offset>` from a previous page; STALE once superseded"),
            p("maxBytes", "integer", false, "page size").or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("root", "string", false, "ref whose subtree to read"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
            p(
                "main",
                "boolean",
                false,
                "read_page: the main content as structured text (headings, lists, tables, code, links with refs)"
            ),
        ],
        result: "{snapshotId: t<N> (m<N> with main), tab, text: this page, offset, nextCursor: string | null, totalBytes: null while only the start of a long page was read, pageChanged?: true when the page changed since the previous page, nodes: lines, frames}",
    },
    MethodSpec {
        name: PAGE_FIND,
        target: Target::Extension,
        doc: "Elements whose text, accessible name, placeholder, alt, title or aria-label match `query`; one line each with its ref.",
        params: tab_params![
            p(
                "query",
                "string",
                true,
                "text to find (whitespace-normalized), or `/pattern/flags` (JavaScript RegExp)"
            ),
            p("exact", "boolean", false, "whole text equal (whitespace-normalized), not a substring"),
            p("caseSensitive", "boolean", false, "match case"),
            p("limit", "integer", false, "most hits per page").or(DefaultValue::Int(50)),
            p("cursor", "string", false, "`<findId>:<offset>` from a previous page"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
        ],
        result: "{snapshotId: q<N>, tab, text: one line per hit, offset, nextCursor: string | null, totalBytes, hits: [{ref, role, name, field, context, inViewport}], total}",
    },
    MethodSpec {
        name: PAGE_RESOLVE_REF,
        target: Target::Extension,
        doc: "A CSS selector that finds the element a ref names (through open shadow roots: one per host).",
        params: tab_params![p("ref", "string", true, "e12 or f2e7")],
        result: "{ref, selector, shadowPath: [selector…], frame: {ordinal, frameId, url}, tag, unique: bool}",
    },
];

typed_methods!(PageSnapshot, PageClearSnapshot, PageText, PageFind, PageResolveRef);

/// `page.snapshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSnapshot {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interactive_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viewport_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
    /// `safe`, `strict` or `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<bool>,
}
method!(PageSnapshot => PAGE_SNAPSHOT, Snapshot, SNAPSHOT_TIMEOUT_MS);

/// `page.clearSnapshot`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageClearSnapshot {}
method!(PageClearSnapshot => PAGE_CLEAR_SNAPSHOT, Cleared, SNAPSHOT_TIMEOUT_MS);

/// `page.text`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageText {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<String>,
    /// The main content as structured text (`read_page`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub main: Option<bool>,
}
method!(PageText => PAGE_TEXT, Snapshot, SNAPSHOT_TIMEOUT_MS);

/// `page.find`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFind {
    pub query: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_sensitive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<String>,
}
method!(PageFind => PAGE_FIND, Snapshot, SNAPSHOT_TIMEOUT_MS);

/// `page.resolveRef`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageResolveRef {
    #[serde(rename = "ref")]
    pub reference: String,
}
method!(PageResolveRef => PAGE_RESOLVE_REF, Resolved, SNAPSHOT_TIMEOUT_MS);

/// `page.snapshot`, `page.text`, `page.find`: one page of a snapshot's text (figures, timings pass through).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub snapshot_id: String,
    pub tab: Tab,
    pub text: String,
    /// Byte offset of `text` in the whole snapshot.
    pub offset: u64,
    pub next_cursor: Option<String>,
    /// The whole text's size; null while only its start was read (get_page_text and
    /// read_page read a long page's first page alone, the next cursor reads the rest).
    pub total_bytes: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.clearSnapshot`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cleared {
    /// Whether there was a snapshot to forget.
    pub cleared: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.resolveRef`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    #[serde(rename = "ref")]
    pub reference: String,
    pub selector: String,
    #[serde(flatten)]
    pub extra: Extra,
}
