//! The outline: which lines the snapshot has and how they nest.
//!
//! Walking the stitched tree ([`crate::dom`]) in document order:
//! - an element with a line of its own (`emitted`) becomes a [`Line`] with its children;
//! - any other element is *hoisted*: its children join the parent's list, so wrapper `div`s
//!   and unnamed paragraphs cost nothing;
//! - text becomes `text` lines: consecutive text nodes and inline pure-text elements (`span`,
//!   `code`, `b`, …) merge into one line; a block pure-text element (`p`, `div` with only
//!   text) is a line of its own;
//! - text is dropped directly inside controls whose children are presentational (the roles
//!   that take their name from content: button, link, heading, option, cell, …; the text is
//!   their name, or hidden behind an `aria-label`), inside `pre` (shown as the code line's
//!   name), inside a `<textarea>` (it is the value), inside a label that names a control, and
//!   directly inside an element that is not visible (`h`). Inside such controls a wrapper
//!   named by `aria-label` gets no line either: its label is part of the control's name.
//!
//! Filters: `root` builds the one line of that element (emitted even when it would be
//! hoisted); `viewportOnly` keeps nodes whose rect meets their frame's viewport and the nodes
//! leading to them; `interactiveOnly` is a flat list of the interactive elements.

use crate::dom::Dom;
use crate::role;
use crate::text::{collapse, is_inline_tag};

/// One line of the snapshot and the lines nested under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub kind: Kind,
    pub children: Vec<Line>,
}

/// What a line shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An element (arena index).
    Node(usize),
    /// A run of text, whitespace-collapsed.
    Text(String),
    /// Header of a frame no iframe element claimed (frame index).
    Frame(usize),
    /// A collapsed run: how many lines, their role, the ref that expands them.
    More { count: usize, role: &'static str, parent: String },
}

impl Line {
    fn leaf(kind: Kind) -> Line {
        Line { kind, children: Vec::new() }
    }
}

/// The outline of the whole page, or of `root`'s subtree.
pub fn outline(dom: &Dom<'_>, root: Option<usize>, keep: Option<&[bool]>) -> Vec<Line> {
    let b = Builder { dom, keep };
    if let Some(root) = root {
        return vec![b.line(root)];
    }
    let mut out = Vec::new();
    let mut buf = String::new();
    b.list(&dom.top, false, false, &mut out, &mut buf);
    flush(&mut buf, &mut out);
    for &fi in &dom.orphans {
        let mut children = Vec::new();
        b.list(&dom.frame_roots[fi], false, false, &mut children, &mut buf);
        flush(&mut buf, &mut children);
        out.push(Line { kind: Kind::Frame(fi), children });
    }
    out
}

/// The interactive elements of the page (or of `root`'s subtree), flat, in document order.
pub fn interactive(dom: &Dom<'_>, root: Option<usize>, keep: Option<&[bool]>) -> Vec<Line> {
    let b = Builder { dom, keep };
    let mut out = Vec::new();
    match root {
        Some(root) => b.interactive(&[root], &mut out),
        None => {
            b.interactive(&dom.top, &mut out);
            for &fi in &dom.orphans {
                b.interactive(&dom.frame_roots[fi], &mut out);
            }
        }
    }
    out
}

/// Per node: kept by `viewportOnly`. A node with a rect is in when the rect meets its frame's
/// viewport `[0, 0, innerWidth, innerHeight]` (and, inside a frame, when the frame element
/// itself is in); a node without one inherits from its parent; any node with a kept
/// descendant is kept so the path to it stays visible.
pub fn viewport_keep(dom: &Dom<'_>) -> Vec<bool> {
    let mut keep = vec![false; dom.nodes.len()];
    let mut roots: Vec<usize> = dom.top.clone();
    for &fi in &dom.orphans {
        roots.extend_from_slice(&dom.frame_roots[fi]);
    }
    for r in roots {
        mark(dom, r, false, true, &mut keep);
    }
    keep
}

fn mark(dom: &Dom<'_>, id: usize, inherited: bool, gate: bool, keep: &mut [bool]) -> bool {
    let dn = &dom.nodes[id];
    let own = match dn.node.r {
        Some(r) => gate && meets_viewport(r, dom.frames[dn.frame].viewport.as_deref()),
        None => inherited,
    };
    let mut kept = own;
    for &c in &dn.children {
        let kept_child = if dom.nodes[c].frame == dn.frame {
            mark(dom, c, own, gate, keep)
        } else {
            let inner_gate = if dn.node.r.is_some() { own } else { gate };
            mark(dom, c, false, inner_gate, keep)
        };
        kept |= kept_child;
    }
    keep[id] = kept;
    kept
}

fn meets_viewport(r: [f64; 4], viewport: Option<&[f64]>) -> bool {
    let Some(&[_, _, w, h]) = viewport else { return true };
    let [x, y, rw, rh] = r;
    x < w && y < h && x + rw.max(1.0) > 0.0 && y + rh.max(1.0) > 0.0
}

struct Builder<'d, 'a> {
    dom: &'d Dom<'a>,
    keep: Option<&'d [bool]>,
}

impl Builder<'_, '_> {
    fn kept(&self, id: usize) -> bool {
        self.keep.is_none_or(|k| k[id])
    }

    /// The line of element `id` with everything under it.
    fn line(&self, id: usize) -> Line {
        let dn = &self.dom.nodes[id];
        let mut children = Vec::new();
        let mut buf = String::new();
        self.list(&dn.children, dn.node.h, dn.quiet, &mut children, &mut buf);
        flush(&mut buf, &mut children);
        Line { kind: Kind::Node(id), children }
    }

    /// Lines for the nodes `ids` (siblings): text accumulates in `buf` across inline
    /// boundaries and is flushed at block boundaries and before every element line.
    fn list(&self, ids: &[usize], parent_hidden: bool, quiet: bool, out: &mut Vec<Line>, buf: &mut String) {
        for &c in ids {
            let cn = &self.dom.nodes[c];
            if cn.role.is_none() || !self.kept(c) {
                continue;
            }
            let node = cn.node;
            if node.is_text() {
                if !parent_hidden && !quiet {
                    buf.push_str(node.x.as_deref().unwrap_or(""));
                }
                continue;
            }
            let inline = is_inline_tag(&node.t);
            if cn.emitted && !(quiet && cn.named_wrapper) {
                flush(buf, out);
                out.push(self.line(c));
                continue;
            }
            if !inline {
                flush(buf, out);
            }
            if cn.pure_text {
                if !quiet {
                    self.flatten(c, buf);
                }
            } else {
                self.list(&cn.children, node.h, quiet || cn.used_label, out, buf);
            }
            if !inline {
                flush(buf, out);
            }
        }
    }

    /// Appends the text of a pure-text element.
    fn flatten(&self, id: usize, buf: &mut String) {
        let dn = &self.dom.nodes[id];
        if dn.node.t == "br" {
            buf.push(' ');
            return;
        }
        for &c in &dn.children {
            let cn = &self.dom.nodes[c];
            if cn.role.is_none() {
                continue;
            }
            if cn.node.is_text() {
                buf.push_str(cn.node.x.as_deref().unwrap_or(""));
            } else {
                let block = !is_inline_tag(&cn.node.t);
                if block {
                    buf.push(' ');
                }
                self.flatten(c, buf);
                if block {
                    buf.push(' ');
                }
            }
        }
    }

    fn interactive(&self, ids: &[usize], out: &mut Vec<Line>) {
        for &c in ids {
            let cn = &self.dom.nodes[c];
            let Some(r) = cn.role else { continue };
            if !self.kept(c) || cn.node.is_text() {
                continue;
            }
            let node = cn.node;
            let wanted = role::is_interactive_role(r)
                || role::in_tab_order(node)
                || role::is_editable(node)
                || role::is_draggable(node);
            if wanted && !node.h {
                out.push(Line::leaf(Kind::Node(c)));
            }
            self.interactive(&cn.children, out);
        }
    }
}

/// Turns the accumulated text into a `text` line (nothing when it is only whitespace).
fn flush(buf: &mut String, out: &mut Vec<Line>) {
    if buf.is_empty() {
        return;
    }
    let text = collapse(buf);
    buf.clear();
    if !text.is_empty() {
        out.push(Line::leaf(Kind::Text(text)));
    }
}
