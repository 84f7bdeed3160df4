//! Reading a page: the snapshot and its refs, page text, find by text.

use super::*;

pub(super) const METHODS: &[Method] = &[
    Method {
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
    Method {
        name: PAGE_CLEAR_SNAPSHOT,
        target: Target::Extension,
        doc: "Forgets the tab's cached snapshot and tables (refs stay valid: they name elements).",
        params: tab_params![],
        result: "{cleared: bool}",
    },
    Method {
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
    Method {
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
    Method {
        name: PAGE_RESOLVE_REF,
        target: Target::Extension,
        doc: "A CSS selector that finds the element a ref names (through open shadow roots: one per host).",
        params: tab_params![p("ref", "string", true, "e12 or f2e7")],
        result: "{ref, selector, shadowPath: [selector…], frame: {ordinal, frameId, url}, tag, unique: bool}",
    },
];
