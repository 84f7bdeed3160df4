//! The snapshot text: one line per node, two spaces of indent per level.
//!
//! ```text
//! [e1] heading "Struct Vec" level=1
//! [e5] navigation "Main"
//!   [e6] link "Home" -> /index.html
//!   … 380 more links like these [e5]
//! [e13] textbox "Email" value="a@b.c" required
//! [e14] textbox "Password" value=<redacted>
//! text "Some paragraph text, truncated at 120 chars…"
//! [e30] iframe "Title" [f1]
//!   [f1e3] link "In a frame" -> https://other.test/
//! [e40] generic [shadow closed]
//! frame [f2] -> https://orphan.test/
//! ```
//!
//! Element line: `[ref] role "name" states -> href [fK] [shadow closed] [incomplete] …`, each
//! part only when it applies: `-> href` on links (the attribute as written, not resolved, so
//! every browser gives the same text), `[fK]` on a frame element whose frame table was
//! stitched under it, a final ` …` when `maxDepth` cut the line's children.
//!
//! A control named by its content whose own lines include a heading shows no name: the
//! heading line carries it (`<summary><h3>…</h3></summary>`, card links around a heading).
//!
//! Lengths (in chars) by default: names 100, text lines 120, values 100, URLs 120, `pre` code
//! blocks 80 (their whitespace is collapsed by the collector, so a block shows as its start).
//! With `root`, the agent is reading one part closely: limits become large (1000/4000).
//! Cut strings end in `…`. `"` and `\` inside quotes are escaped; there are never newlines.

use crate::collapse::{self, display_role};
use crate::dom::{Dom, Scope};
use crate::error::EngineError;
use crate::json;
use crate::reading;
use crate::redact;
use crate::role;
use crate::state;
use crate::table::{Input, Mode, Redact};
use crate::text::{push_escaped, truncate};
use crate::tree::{self, Kind, Line};

/// The engine output (see `TABLE.md`, "Engine output").
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub text: String,
    /// Lines emitted.
    pub nodes: usize,
    /// Refs emitted.
    pub refs: usize,
    /// Runs collapsed.
    pub collapsed: usize,
    pub title: String,
    pub url: String,
    /// `find` mode: the matches (the text lists them too).
    pub hits: Option<Vec<reading::Hit>>,
    /// `read` mode without a root: the rule that chose the main content
    /// ([`reading::main_root_from`]).
    pub root_from: Option<&'static str>,
}

impl Output {
    /// The output as the JSON object of `TABLE.md`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + self.title.len() + self.url.len() + 96);
        out.push_str("{\"text\":");
        json::write_str(&mut out, &self.text);
        let bytes = self.text.len();
        for (key, n) in
            [("bytes", bytes), ("nodes", self.nodes), ("refs", self.refs), ("collapsed", self.collapsed)]
        {
            out.push_str(",\"");
            out.push_str(key);
            out.push_str("\":");
            out.push_str(&n.to_string());
        }
        out.push_str(",\"title\":");
        json::write_str(&mut out, &self.title);
        out.push_str(",\"url\":");
        json::write_str(&mut out, &self.url);
        if let Some(hits) = &self.hits {
            out.push_str(",\"hits\":[");
            for (k, h) in hits.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str("{\"ref\":");
                json::write_str(&mut out, &h.r#ref);
                for (key, v) in [("role", h.role), ("field", h.field)] {
                    out.push_str(",\"");
                    out.push_str(key);
                    out.push_str("\":");
                    json::write_str(&mut out, v);
                }
                for (key, v) in [("name", &h.name), ("context", &h.context)] {
                    out.push_str(",\"");
                    out.push_str(key);
                    out.push_str("\":");
                    json::write_str(&mut out, v);
                }
                out.push_str(if h.in_viewport { ",\"inViewport\":true}" } else { ",\"inViewport\":false}" });
            }
            out.push(']');
        }
        if let Some(from) = self.root_from {
            out.push_str(",\"rootFrom\":");
            json::write_str(&mut out, from);
        }
        out.push('}');
        out
    }
}

/// Length limits of one rendering.
#[derive(Debug, Clone, Copy)]
struct Limits {
    name: usize,
    text: usize,
    value: usize,
    url: usize,
    code: usize,
    /// Bytes of content text a name reads.
    scan: usize,
}

const DEFAULT_LIMITS: Limits = Limits { name: 100, text: 120, value: 100, url: 120, code: 80, scan: 600 };
const ROOT_LIMITS: Limits = Limits { name: 1000, text: 4000, value: 1000, url: 1000, code: 4000, scan: 4000 };

/// Renders the snapshot described by `input`.
pub fn render(input: &Input) -> Result<Output, EngineError> {
    let opts = &input.options;
    let target = opts.root.as_deref().map(parse_ref).transpose()?;
    let limits = if target.is_some() { ROOT_LIMITS } else { DEFAULT_LIMITS };
    let scope = match opts.mode {
        Mode::Snapshot => Scope::Outline,
        Mode::Find => Scope::Names,
        Mode::Read => Scope::Controls,
        Mode::Text => Scope::Roles,
    };
    let dom = Dom::build_for(&input.frames, limits.scan, scope);
    let root = match target {
        Some((ordinal, i)) => Some(dom.find(ordinal, i).ok_or(EngineError::Stale)?),
        None => None,
    };
    let top = input.frames.first();
    let (title, url) =
        (top.map(|f| f.title.clone()).unwrap_or_default(), top.map(|f| f.url.clone()).unwrap_or_default());
    match opts.mode {
        Mode::Snapshot => {}
        Mode::Text | Mode::Read => {
            let (text, root_from) = if opts.mode == Mode::Text {
                (reading::text(&dom, root, opts.redact), None)
            } else {
                let (main, from) = reading::main_root_from(&dom);
                let from = root.is_none().then_some(from);
                (reading::read(&dom, root.or(main), opts.redact), from)
            };
            let nodes = text.lines().count();
            return Ok(Output { text, nodes, refs: 0, collapsed: 0, title, url, hits: None, root_from });
        }
        Mode::Find => {
            let hits = reading::find(&dom, &opts.find, opts.redact);
            let mut text = String::new();
            for h in &hits {
                text.push('[');
                text.push_str(&h.r#ref);
                text.push_str("] ");
                text.push_str(h.role);
                if !h.name.is_empty() {
                    text.push(' ');
                    text.push('"');
                    push_escaped(&mut text, &h.name);
                    text.push('"');
                }
                if h.field != "name" {
                    text.push_str(" — ");
                    text.push_str(h.field);
                    text.push_str(": \"");
                    push_escaped(&mut text, &h.context);
                    text.push('"');
                }
                if !h.in_viewport {
                    text.push_str(" [offscreen]");
                }
                text.push('\n');
            }
            let (nodes, refs) = (hits.len(), hits.len());
            return Ok(Output {
                text,
                nodes,
                refs,
                collapsed: 0,
                title,
                url,
                hits: Some(hits),
                root_from: None,
            });
        }
    }
    let keep = opts.viewport_only.then(|| tree::viewport_keep(&dom));
    let mut lines = if opts.interactive_only {
        tree::interactive(&dom, root, keep.as_deref())
    } else {
        tree::outline(&dom, root, keep.as_deref())
    };
    let collapsed = if opts.collapse && !opts.interactive_only {
        collapse::collapse(&mut lines, &dom, root.is_some())
    } else {
        0
    };
    let mut w = Writer {
        dom: &dom,
        limits,
        redact: opts.redact,
        max_depth: opts.max_depth.map(|d| d as usize),
        out: String::new(),
        nodes: 0,
        refs: 0,
    };
    for line in &lines {
        w.line(line, 0);
    }
    Ok(Output {
        text: w.out,
        nodes: w.nodes,
        refs: w.refs,
        collapsed,
        title,
        url,
        hits: None,
        root_from: None,
    })
}

/// `e12` → (0, 12); `f2e7` → (2, 7).
pub fn parse_ref(r: &str) -> Result<(u32, u64), EngineError> {
    let bad =
        || EngineError::InvalidArgument("root must be a ref from a snapshot, such as e12 or f2e7".into());
    let r = r.trim();
    let (frame, element) = match r.strip_prefix('f') {
        Some(rest) => {
            let (k, e) = rest.split_once('e').ok_or_else(bad)?;
            (digits(k).ok_or_else(bad)?, e)
        }
        None => (0, r.strip_prefix('e').ok_or_else(bad)?),
    };
    let i = digits(element).ok_or_else(bad)?;
    Ok((u32::try_from(frame).map_err(|_| bad())?, i))
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

struct Writer<'d, 'a> {
    dom: &'d Dom<'a>,
    limits: Limits,
    redact: Redact,
    max_depth: Option<usize>,
    out: String,
    nodes: usize,
    refs: usize,
}

impl Writer<'_, '_> {
    fn line(&mut self, line: &Line, depth: usize) {
        let cut = !line.children.is_empty() && self.max_depth.is_some_and(|m| depth >= m);
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        match &line.kind {
            Kind::Node(id) => {
                // A disclosure (`<summary><h3>…</h3></summary>`) or a card link wrapping a
                // heading would repeat the heading's text: the heading line says it.
                let heading_below = line.children.iter().any(|c| match c.kind {
                    Kind::Node(k) => self.dom.nodes[k].role == Some("heading"),
                    _ => false,
                });
                self.element(*id, heading_below && self.dom.nodes[*id].from_content)
            }
            Kind::Text(text) => {
                self.out.push_str("text ");
                self.quoted(text, self.limits.text);
            }
            Kind::Frame(fi) => {
                let frame = &self.dom.frames[*fi];
                self.out.push_str("frame [f");
                self.out.push_str(&frame.ordinal.to_string());
                self.out.push(']');
                if !frame.url.is_empty() {
                    self.out.push_str(" -> ");
                    self.unquoted(&frame.url, self.limits.url);
                }
            }
            Kind::More { count, role, parent } => {
                self.out.push_str("… ");
                self.out.push_str(&count.to_string());
                if *role == collapse::PROSE {
                    self.out.push_str(" more lines of text [");
                } else {
                    self.out.push_str(" more ");
                    self.out.push_str(&role::plural(role));
                    self.out.push_str(" like these [");
                }
                self.out.push_str(parent);
                self.out.push(']');
            }
        }
        if cut {
            self.out.push_str(" …");
        }
        self.out.push('\n');
        self.nodes += 1;
        if !cut {
            for child in &line.children {
                self.line(child, depth + 1);
            }
        }
    }

    fn element(&mut self, id: usize, hide_name: bool) {
        let dom = self.dom;
        let dn = &dom.nodes[id];
        let node = dn.node;
        if let Some(i) = node.i {
            let ordinal = dom.frames[dn.frame].ordinal;
            self.out.push('[');
            if ordinal != 0 {
                self.out.push('f');
                self.out.push_str(&ordinal.to_string());
            }
            self.out.push('e');
            self.out.push_str(&i.to_string());
            self.out.push_str("] ");
            self.refs += 1;
        }
        let role = display_role(dn.role.unwrap_or(role::GENERIC));
        self.out.push_str(role);
        if !dn.name.is_empty() && !hide_name {
            self.out.push(' ');
            let limit = if node.t == "pre" { self.limits.code } else { self.limits.name };
            self.quoted(&dn.name, limit);
        }
        state::write_states(&mut self.out, dom, id, self.redact, self.limits.value);
        if role == "link"
            && let Some(href) = node.attr("href")
        {
            self.out.push_str(" -> ");
            let href = redact::attr_value("href", href, self.redact).unwrap_or_default();
            self.unquoted(&href, self.limits.url);
        }
        if let Some(fi) = dn.subframe {
            self.out.push_str(" [f");
            self.out.push_str(&dom.frames[fi].ordinal.to_string());
            self.out.push(']');
        }
        if node.s.as_deref() == Some("closed") {
            self.out.push_str(" [shadow closed]");
        }
        if node.c {
            self.out.push_str(" [incomplete]");
        }
    }

    fn scrubbed<'s>(&self, s: &'s str) -> std::borrow::Cow<'s, str> {
        if self.redact == Redact::Off { s.into() } else { redact::scrub(s) }
    }

    fn quoted(&mut self, s: &str, limit: usize) {
        let s = self.scrubbed(s);
        self.out.push('"');
        push_escaped(&mut self.out, &truncate(&s, limit));
        self.out.push('"');
    }

    fn unquoted(&mut self, s: &str, limit: usize) {
        let s = crate::text::collapse(&self.scrubbed(s));
        push_escaped(&mut self.out, &truncate(&s, limit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_parse() {
        assert_eq!(parse_ref("e12").unwrap(), (0, 12));
        assert_eq!(parse_ref(" f2e7 ").unwrap(), (2, 7));
        for bad in ["", "e", "12", "f2", "fxe1", "e1x", "f-1e2", "g1"] {
            assert!(matches!(parse_ref(bad), Err(EngineError::InvalidArgument(_))), "{bad}");
        }
    }
}
