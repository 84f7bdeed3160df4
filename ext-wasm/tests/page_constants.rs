//! The page scripts of the helper (`extension/src/page/*.js`) are classic scripts injected
//! into pages: they cannot import the generated `protocol.js`, so the engine's lists they
//! need are generated into them here, between `@generated` marker lines, and this test
//! fails when a copy drifts. `WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-engine --test
//! page_constants` rewrites them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use webext_mcp_engine::reading::BLOCK_TAGS;
use webext_mcp_engine::role::{
    INTERACTIVE_ROLES, NAMED_FROM_CONTENT, RoleContext, implicit_role, is_hoistable, names_from_content,
};
use webext_mcp_engine::table::{Attrs, Node};
use webext_mcp_engine::text::INLINE_TAGS;

/// Inline tags whose element, without attributes, has no role of its own: the collector
/// leaves such wrappers out of its table (the engine would hoist their content anyway).
fn bare_inline() -> Vec<&'static str> {
    INLINE_TAGS
        .iter()
        .copied()
        .filter(|tag| {
            let node = Node { t: (*tag).to_owned(), ..Node::default() };
            // Void elements carry no content to hoist (`br` is a line break the engine keeps);
            // `a` is a link or not by its `href`, so every anchor stays in the table.
            !matches!(*tag, "br" | "wbr" | "a") && is_hoistable(implicit_role(&node, RoleContext::default()))
        })
        .collect()
}

/// The elements of HTML (and the frame elements).
#[rustfmt::skip]
const HTML_TAGS: &[&str] = &[
    "a", "abbr", "address", "area", "article", "aside", "audio", "b", "bdi", "bdo", "blockquote", "body", "br",
    "button", "canvas", "caption", "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del", "details",
    "dfn", "dialog", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure", "footer", "form", "frame",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "i", "iframe", "img", "input", "ins",
    "kbd", "label", "legend", "li", "main", "map", "mark", "math", "menu", "meter", "nav", "object", "ol", "optgroup",
    "option", "output", "p", "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "search",
    "section", "select", "slot", "small", "source", "span", "strong", "sub", "summary", "sup", "svg", "table",
    "tbody", "td", "textarea", "tfoot", "th", "thead", "time", "tr", "track", "u", "ul", "var", "video", "wbr",
];

/// Tags whose element may be named by its content: its implicit role (a link's, with its
/// `href`) takes the name from content, or it is a `pre` (code blocks are named so) or named
/// by a caption, legend or figcaption child (name.rs).
fn named_tags() -> Vec<&'static str> {
    HTML_TAGS
        .iter()
        .copied()
        .filter(|tag| {
            let node = Node {
                t: (*tag).to_owned(),
                a: Attrs(vec![("href".into(), String::new())]),
                ..Node::default()
            };
            names_from_content(implicit_role(&node, RoleContext::default()))
                || matches!(*tag, "pre" | "fieldset" | "figure" | "table")
        })
        .collect()
}

fn set_literal(name: &str, items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    format!("  const {name} = new Set([{}]);", quoted.join(", "))
}

/// Replaces the line after each `@generated <key>` marker with `line`.
fn regenerate(text: &str, key: &str, line: &str) -> String {
    let marker = format!("@generated {key}");
    let mut out = Vec::new();
    let mut lines = text.lines();
    let mut found = false;
    while let Some(l) = lines.next() {
        out.push(l.to_owned());
        if l.contains(&marker) {
            found = true;
            lines.next();
            out.push(line.to_owned());
        }
    }
    assert!(found, "no `{marker}` line");
    let mut joined = out.join("\n");
    joined.push('\n');
    joined
}

fn check(file: &str, key: &str, line: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let have = std::fs::read_to_string(&path).unwrap();
    let want = regenerate(&have, key, line);
    if std::env::var_os("WEBEXT_MCP_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        have == want,
        "{file}: the `{key}` list drifted from the engine; regenerate it with \
         `WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-engine --test page_constants` (then scripts/build-extension)"
    );
}

#[test]
fn the_collector_skips_exactly_the_engines_bare_inline_tags() {
    check("extension/src/page/collector.js", "bare-inline", &set_literal("BARE_INLINE", &bare_inline()));
}

#[test]
fn the_find_scope_knows_exactly_what_the_engine_names_by_content() {
    check("extension/src/page/collector.js", "named-tags", &set_literal("NAMED_TAGS", &named_tags()));
    check("extension/src/page/collector.js", "named-roles", &set_literal("NAMED_ROLES", NAMED_FROM_CONTENT));
}

#[test]
fn the_text_walk_breaks_lines_at_exactly_the_engines_block_tags() {
    check("extension/src/page/collector.js", "block-tags", &set_literal("BLOCK_TAGS", BLOCK_TAGS));
}

#[test]
fn the_agent_knows_exactly_the_engines_interactive_roles() {
    check(
        "extension/src/page/identity.js",
        "interactive-roles",
        &set_literal("INTERACTIVE_ROLES", INTERACTIVE_ROLES),
    );
}

fn array_literal(name: &str, items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    format!("const {name} = [{}];", quoted.join(", "))
}

/// Screenshots mask the fields the engine treats as secrets (extension/src/mask.js).
#[test]
fn the_screenshot_mask_knows_exactly_the_engines_secret_fields() {
    use webext_mcp_engine::redact::{FIELD_HINTS, SECRET_AUTOCOMPLETE, TEXTAREA_HINTS};
    check("extension/src/mask.js", "field-hints", &array_literal("FIELD_HINTS", &FIELD_HINTS));
    check("extension/src/mask.js", "textarea-hints", &array_literal("TEXTAREA_HINTS", &TEXTAREA_HINTS));
    check(
        "extension/src/mask.js",
        "secret-autocomplete",
        &array_literal("SECRET_AUTOCOMPLETE", &SECRET_AUTOCOMPLETE),
    );
}
