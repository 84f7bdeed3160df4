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
use crate::redact;
use crate::table::{Find, Redact};
use crate::text::truncate;

/// Elements that start a line of their own.
fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "br"
            | "caption"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "td"
            | "th"
            | "tr"
            | "ul"
            | "option"
            | "legend"
            | "body"
            | "iframe"
            | "frame"
    )
}

/// The visible text of the page (or of the subtree `root`), one line per block.
pub fn text(dom: &Dom<'_>, root: Option<usize>, level: Redact) -> String {
    let mut out = Lines { out: String::new(), line: String::new(), level };
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

struct Lines {
    out: String,
    line: String,
    level: Redact,
}

impl Lines {
    fn push_text(&mut self, t: &str) {
        for word in t.split_whitespace() {
            if !self.line.is_empty() {
                self.line.push(' ');
            }
            self.line.push_str(word);
        }
    }

    fn break_line(&mut self) {
        if self.line.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.line);
        let shown = if self.level == Redact::Off { line.into() } else { redact::scrub(&line) };
        self.out.push_str(&shown);
        self.out.push('\n');
    }

    fn finish(mut self) -> String {
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
    let needle = normalize(&q.query);
    if needle.is_empty() {
        return Vec::new();
    }
    // ASCII case folding only: Unicode's tables would add a fifth to the engine's wasm.
    let needle = if q.case_sensitive { needle } else { needle.to_ascii_lowercase() };
    let matches = |hay: &str| {
        let hay = normalize(hay);
        let hay = if q.case_sensitive { hay } else { hay.to_ascii_lowercase() };
        if q.exact { hay == needle } else { hay.contains(&needle) }
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
        if role == TEXT || n.node.i.is_none() {
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

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
