//! Reading without a snapshot tree: the page's visible text ([`text`]) and the elements whose
//! text matches a query ([`find`]), from the same checked tables and the same roles, names and
//! redaction as the snapshot (so a ref found here is the ref a snapshot shows).
//!
//! Text: every rendered text node in document order (frames stitched where their iframe
//! stands), one line per block — a block element, a `<br>`, a table cell or list item starts
//! a new line — whitespace collapsed, empty lines dropped. What the snapshot leaves out is
//! left out here too: nodes with no role (`aria-hidden`, hidden inputs) and the invisible
//! text the collector never sends.
//!
//! Find: an element matches when its accessible name, its own text (the text nodes directly
//! under it), or its `placeholder`, `alt`, `title` or `aria-label` matches; the deepest such
//! element wins over its ancestors, which would only repeat the same text.

use crate::collapse::display_role;
use crate::dom::{Dom, TEXT};
use crate::matcher::{Matcher, normalize};
use crate::redact;
use crate::table::{Find, Redact};
use crate::text::truncate;

name_set!(
    /// Elements that start a line of their own (the collector's text walk has a copy,
    /// tests/page_constants.rs).
    BLOCK_TAGS,
    /// Whether an element of this tag starts a line of its own.
    is_block,
    ["address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "td", "th", "tr", "ul", "option", "legend", "body", "iframe", "frame"]
);

/// Appends a line of page text. The page's content sits between boundary lines starting with
/// `---` (extension/src/snapshot.js): a page line starting so is quoted with a backslash, so
/// the page cannot end its block early.
fn push_line(out: &mut String, line: &str) {
    if line.starts_with("---") {
        out.push('\\');
    }
    out.push_str(line);
    out.push('\n');
}

/// The visible text of the page (or of the subtree `root`), one line per block.
pub fn text(dom: &Dom<'_>, root: Option<usize>, level: Redact) -> String {
    let mut out = Lines::new(level);
    let starts: Vec<usize> = match root {
        Some(r) => vec![r],
        None => dom
            .top
            .iter()
            .copied()
            .chain(dom.orphans.iter().flat_map(|&f| dom.frame_roots[f].iter().copied()))
            .collect(),
    };
    for s in starts {
        walk(dom, s, &mut out);
    }
    out.finish()
}

/// Text joined into lines: words of the pieces pushed, one space apart, each line redacted.
pub(crate) struct Lines {
    out: String,
    line: String,
    level: Redact,
}

impl Lines {
    pub(crate) fn new(level: Redact) -> Lines {
        Lines { out: String::new(), line: String::new(), level }
    }

    pub(crate) fn push_text(&mut self, t: &str) {
        for word in t.split_whitespace() {
            if !self.line.is_empty() {
                self.line.push(' ');
            }
            self.line.push_str(word);
        }
    }

    pub(crate) fn break_line(&mut self) {
        if self.line.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.line);
        let shown = if self.level == Redact::Off { line.into() } else { redact::scrub(&line) };
        push_line(&mut self.out, &shown);
    }

    pub(crate) fn finish(mut self) -> String {
        self.break_line();
        self.out
    }
}

fn walk(dom: &Dom<'_>, id: usize, out: &mut Lines) {
    let n = &dom.nodes[id];
    let Some(role) = n.role else { return };
    if role == TEXT {
        if let Some(x) = &n.node.x {
            out.push_text(x);
        }
        return;
    }
    let block = is_block(&n.node.t);
    if block {
        out.break_line();
    }
    // Field values are the user's, not the page's text (and the snapshot shows them, redacted).
    // (An iframe's children are its frame's top nodes, stitched in by `Dom::build`.)
    if !matches!(n.node.t.as_str(), "input" | "textarea" | "select" | "script" | "style" | "template") {
        for &c in &n.children {
            walk(dom, c, out);
        }
    }
    if block {
        out.break_line();
    }
}

/// One element `find` matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub r#ref: String,
    pub role: &'static str,
    /// Its accessible name (redacted, cut at 100 chars).
    pub name: String,
    /// What matched: `name`, `text`, `placeholder`, `alt`, `title` or `aria-label`.
    pub field: &'static str,
    /// The matched text with a little around it (redacted, cut at 120 chars).
    pub context: String,
    /// Its box intersects its frame's viewport.
    pub in_viewport: bool,
}

/// Elements matching `q`, in document order, deepest first among nested matches.
pub fn find(dom: &Dom<'_>, q: &Find, level: Redact) -> Vec<Hit> {
    let Some(matcher) = Matcher::new(q) else { return Vec::new() };
    // The query runs on the text as the agent would be shown it: a pattern tried against the
    // raw text would confirm, hit by hit, a secret every snapshot line shows as `<redacted>`.
    let matches = |hay: &str| match level {
        Redact::Off => matcher.matches(hay),
        _ => matcher.matches(&redact::scrub(hay)),
    };
    let viewport = crate::tree::viewport_keep(dom);
    // Whether a node or anything below it matched.
    let mut hit_below = vec![false; dom.nodes.len()];
    let mut hits = Vec::new();
    // Post-order: children before their parent, so an ancestor repeating a child's text is
    // skipped once the child matched.
    let mut order = Vec::with_capacity(dom.nodes.len());
    let starts: Vec<usize> = dom
        .top
        .iter()
        .copied()
        .chain(dom.orphans.iter().flat_map(|&f| dom.frame_roots[f].iter().copied()))
        .collect();
    for s in starts {
        post_order(dom, s, &mut order);
    }
    for id in order {
        let n = &dom.nodes[id];
        let below = n.children.iter().any(|&c| hit_below[c]);
        hit_below[id] = below;
        let Some(role) = n.role else { continue };
        if role == TEXT || n.node.i.is_none() || n.node.k {
            continue;
        }
        let own_text: String = n
            .children
            .iter()
            .filter(|&&c| dom.nodes[c].role == Some(TEXT))
            .filter_map(|&c| dom.nodes[c].node.x.as_deref())
            .collect::<Vec<_>>()
            .join(" ");
        let mut found: Option<(&'static str, String)> = None;
        for (field, value) in [
            ("placeholder", n.node.attr("placeholder").unwrap_or_default()),
            ("alt", n.node.attr("alt").unwrap_or_default()),
            ("aria-label", n.node.attr("aria-label").unwrap_or_default()),
            ("title", n.node.attr("title").unwrap_or_default()),
        ] {
            if !value.is_empty() && matches(value) {
                found = Some((field, value.to_owned()));
                break;
            }
        }
        if found.is_none() && !own_text.trim().is_empty() && matches(&own_text) {
            found = Some(("text", own_text.clone()));
        }
        // A name that repeats text already matched below is that text's, not this element's.
        if found.is_none() && !below && !n.name.is_empty() && matches(&n.name) {
            found = Some(("name", n.name.clone()));
        }
        let Some((field, value)) = found else { continue };
        hit_below[id] = true;
        let Some(r) = dom.ref_of(id) else { continue };
        let shown = |s: &str, limit: usize| {
            let s = normalize(s);
            let s = if level == Redact::Off { s } else { redact::scrub(&s).into_owned() };
            truncate(&s, limit).into_owned()
        };
        hits.push(Hit {
            r#ref: r,
            role: display_role(role),
            name: shown(&n.name, 100),
            field,
            context: shown(&value, 120),
            in_viewport: viewport.get(id).copied().unwrap_or(false),
        });
    }
    hits
}

fn post_order(dom: &Dom<'_>, id: usize, out: &mut Vec<usize>) {
    for &c in &dom.nodes[id].children {
        post_order(dom, c, out);
    }
    out.push(id);
}

/// A line holding a list or heading marker and nothing else (an empty item or heading).
fn only_marker(t: &str) -> bool {
    t.is_empty()
        || t == "-"
        || t.bytes().all(|b| b == b'#')
        || t.strip_suffix('.').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Landmarks that are the page's frame around its content, not the content.
fn is_boilerplate(role: &str) -> bool {
    matches!(
        role,
        "navigation" | "banner" | "contentinfo" | "complementary" | "search" | "dialog" | "alertdialog"
    )
}

/// The main content's root (the `read_page` rule): the first element with role `main`, else
/// the only `article`, else `None` (the whole page, boilerplate landmarks dropped).
pub fn main_root(dom: &Dom<'_>) -> Option<usize> {
    main_root_from(dom).0
}

/// [`main_root`] and which rule chose it: `main`, `article` or `page` (none: the whole page).
/// A scoped walk of the one element that could be `main` holds for the whole page only when
/// that element is the root by the first rule (extension/src/reading.js).
pub fn main_root_from(dom: &Dom<'_>) -> (Option<usize>, &'static str) {
    let by_role = |want: &'static str| {
        (0..dom.nodes.len()).filter(move |&i| dom.nodes[i].role == Some(want) && dom.nodes[i].frame == 0)
    };
    if let Some(m) = by_role("main").next() {
        return (Some(m), "main");
    }
    let mut articles = by_role("article");
    match (articles.next(), articles.next()) {
        (Some(a), None) => (Some(a), "article"),
        _ => (None, "page"),
    }
}

/// `read_page`: the main content as compact structured text — `#` headings, paragraphs,
/// `-`/`1.` list items, `|` table rows, fenced code blocks, links as `[text](url)[ref]`,
/// controls as `[ref] role "name"` lines — redacted, boilerplate landmarks dropped.
pub fn read(dom: &Dom<'_>, root: Option<usize>, level: Redact) -> String {
    let mut r =
        Reader { dom, level, out: String::new(), line: String::new(), lists: Vec::new(), in_heading: false };
    match root.or_else(|| main_root(dom)) {
        Some(id) => r.node(id, true),
        None => {
            for id in dom.top.clone() {
                r.node(id, false);
            }
        }
    }
    r.flush();
    r.out
}

struct Reader<'d, 'a> {
    dom: &'d Dom<'a>,
    level: Redact,
    out: String,
    /// The line being built (inline content).
    line: String,
    /// Open lists: ordered?, items so far.
    lists: Vec<(bool, usize)>,
    /// Inside an `h1`–`h6`.
    in_heading: bool,
}

impl Reader<'_, '_> {
    fn scrub(&self, s: &str) -> String {
        if self.level == Redact::Off { s.to_owned() } else { redact::scrub(s).into_owned() }
    }

    fn word(&mut self, s: &str) {
        for w in s.split_whitespace() {
            if !self.line.is_empty() && !self.line.ends_with(' ') && !self.line.ends_with('\n') {
                self.line.push(' ');
            }
            self.line.push_str(w);
        }
    }

    fn flush(&mut self) {
        let line = std::mem::take(&mut self.line);
        // Leading spaces are a nested list item's indent.
        let line = line.trim_end();
        if !only_marker(line.trim_start()) {
            let shown = self.scrub(line);
            push_line(&mut self.out, &shown);
        }
    }

    /// Starts a block line with `prefix` (after the current line is written).
    fn start(&mut self, prefix: &str) {
        self.flush();
        self.line.push_str(prefix);
    }

    fn text_of(&self, id: usize) -> String {
        let mut t = Lines { out: String::new(), line: String::new(), level: Redact::Off };
        walk(self.dom, id, &mut t);
        t.finish().split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn node(&mut self, id: usize, inside_main: bool) {
        let dom = self.dom;
        let n = &dom.nodes[id];
        let Some(role) = n.role else { return };
        if role == TEXT {
            if let Some(x) = &n.node.x {
                self.word(x);
            }
            return;
        }
        if !inside_main && is_boilerplate(role) {
            return;
        }
        let tag = n.node.t.as_str();
        let reference = dom.ref_of(id);
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = usize::from(tag.as_bytes()[1] - b'0');
                self.start(&format!("{} ", "#".repeat(level)));
                self.in_heading = true;
                self.children(id, inside_main);
                self.in_heading = false;
                self.flush();
                return;
            }
            "pre" => {
                self.flush();
                let code = self.text_of(id);
                let code = truncate(&self.scrub(&code), 4000).into_owned();
                self.out.push_str("```\n");
                push_line(&mut self.out, &code);
                self.out.push_str("```\n");
                return;
            }
            "ul" | "ol" | "menu" => {
                self.flush();
                self.lists.push((tag == "ol", 0));
                self.children(id, inside_main);
                self.flush();
                self.lists.pop();
                return;
            }
            "li" => {
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some((true, k)) => {
                        *k += 1;
                        format!("{k}. ")
                    }
                    _ => "- ".to_owned(),
                };
                self.start(&format!("{}{marker}", "  ".repeat(depth)));
                self.children(id, inside_main);
                self.flush();
                return;
            }
            "tr" => {
                self.flush();
                let cells: Vec<String> = n
                    .children
                    .iter()
                    .filter(|&&c| {
                        dom.nodes[c].role.is_some() && matches!(dom.nodes[c].node.t.as_str(), "td" | "th")
                    })
                    .map(|&c| self.text_of(c))
                    .collect();
                if !cells.is_empty() {
                    self.line.push_str(&format!("| {} |", cells.join(" | ")));
                    self.flush();
                }
                return;
            }
            "img" => {
                if let Some(alt) = n.node.attr("alt").filter(|a| !a.trim().is_empty()) {
                    self.word(&format!("![{}]", alt.trim()));
                }
                return;
            }
            // A heading's own anchor (`<h2 id=x><a href="#x">Title</a>` in mdBook, `§` links
            // in rustdoc): its text is the heading's, the link is noise.
            "a" if self.in_heading && n.node.attr("href").is_some_and(|h| h.starts_with('#')) => {
                let text = self.text_of(id);
                // The glyphs anchors show alone are dropped (`§`, `¶`, `#`, 🔗, ⚓).
                if !matches!(text.as_str(), "" | "§" | "¶" | "#" | "🔗" | "⚓") {
                    self.word(&text);
                }
                return;
            }
            "a" if n.node.attr("href").is_some() => {
                let text = self.text_of(id);
                let href = n.node.attr("href").unwrap_or_default();
                let href = redact::attr_value("href", href, self.level).unwrap_or_default();
                let label = if text.is_empty() { n.name.clone() } else { text };
                let r = reference.map(|r| format!("[{r}]")).unwrap_or_default();
                self.word(&format!("[{}]({}){r}", label.trim(), truncate(&href, 200)));
                return;
            }
            _ => {}
        }
        if crate::role::is_interactive_role(role) {
            self.flush();
            if let Some(r) = reference {
                let name = truncate(&self.scrub(&n.name), 100).into_owned();
                self.line.push_str(&format!("[{r}] {} \"{name}\"", display_role(role)));
            }
            self.flush();
            return;
        }
        let block = is_block(tag);
        if block {
            self.flush();
        }
        self.children(id, inside_main);
        if block {
            self.flush();
        }
    }

    fn children(&mut self, id: usize, inside_main: bool) {
        for &c in &self.dom.nodes[id].children {
            self.node(c, inside_main);
        }
    }
}
