//! Accessible names: a simplified accname computation.
//!
//! First non-empty source wins:
//! 1. `p.label` (the collector's resolved `aria-labelledby` text);
//! 2. `aria-label`;
//!    (wrappers — generic, paragraph, … — stop here: they are never named otherwise)
//! 3. labelable controls: every `<label for=id>` of the same frame, then every wrapping
//!    `<label>` ancestor, each contributing its text minus the control itself;
//! 4. `alt` (img, area, `input type=image`); the value of submit/reset/button inputs
//!    (`Submit`/`Reset` by default); the first `legend` of a fieldset, the `figcaption` of a
//!    figure, the `caption` of a table;
//! 5. content, for roles that take their name from it (button, link, heading, cell, option, …,
//!    and `pre` code blocks): the text of the descendants, where a descendant with
//!    `aria-label` contributes that label and an image its `alt`;
//! 6. `title`; 7. `placeholder` / `aria-placeholder` (text fields).
//!
//! Names are whitespace-collapsed; truncation and redaction happen at rendering.

use crate::dom::Dom;
use crate::role;
use crate::text::{collapse, is_inline_tag, push_collapsed};

/// A computed name.
#[derive(Debug, Default)]
pub struct Named {
    pub name: String,
    pub from_content: bool,
    /// Elements whose text went into the name and should not be repeated.
    pub labels: Vec<usize>,
}

impl Named {
    fn plain(name: String) -> Named {
        Named { name, ..Named::default() }
    }
}

/// The name of element `id`; `scan` bounds how many bytes of content text are read.
pub fn accessible_name(dom: &Dom<'_>, id: usize, scan: usize) -> Named {
    let dn = &dom.nodes[id];
    let node = dn.node;
    let role = dn.role.unwrap_or(role::GENERIC);
    if let Some(l) = node.p.label.as_deref().map(collapse).filter(|l| !l.is_empty()) {
        return Named::plain(l);
    }
    if let Some(l) = node.attr("aria-label").map(collapse).filter(|l| !l.is_empty()) {
        return Named::plain(l);
    }
    if (role::is_hoistable(role) && node.t != "pre")
        || matches!(node.t.as_str(), "label" | "legend" | "figcaption" | "caption")
    {
        return Named::default();
    }
    if is_labelable(&node.t) {
        let mut labels: Vec<usize> = Vec::new();
        if let Some(own_id) = node.attr("id").filter(|v| !v.is_empty()) {
            labels.extend_from_slice(dom.labels_for(dn.frame, own_id));
        }
        let mut up = dn.parent;
        while let Some(p) = up {
            if dom.nodes[p].frame != dn.frame {
                break;
            }
            if dom.nodes[p].node.t == "label" && !labels.contains(&p) {
                labels.push(p);
            }
            up = dom.nodes[p].parent;
        }
        if !labels.is_empty() {
            let mut text = String::new();
            for &l in &labels {
                let mut budget = NODE_BUDGET;
                push_collapsed(&mut text, " ");
                content_text(dom, l, Some(id), &mut text, scan, &mut budget);
            }
            let text = collapse(&text);
            if !text.is_empty() {
                return Named { name: text, from_content: false, labels };
            }
        }
    }
    match node.t.as_str() {
        "img" | "area" => {
            if let Some(alt) = node.attr("alt").map(collapse).filter(|a| !a.is_empty()) {
                return Named::plain(alt);
            }
        }
        "input" => {
            let ty = node.input_type();
            if ty == "image"
                && let Some(alt) = node.attr("alt").map(collapse).filter(|a| !a.is_empty())
            {
                return Named::plain(alt);
            }
            if matches!(ty.as_str(), "submit" | "reset" | "button") {
                let value = node.p.value.as_deref().or(node.attr("value")).map(collapse);
                match value.filter(|v| !v.is_empty()) {
                    Some(v) => return Named::plain(v),
                    None if ty == "submit" => return Named::plain("Submit".into()),
                    None if ty == "reset" => return Named::plain("Reset".into()),
                    None => {}
                }
            }
        }
        "fieldset" | "figure" | "table" => {
            let want = match node.t.as_str() {
                "fieldset" => "legend",
                "figure" => "figcaption",
                _ => "caption",
            };
            let caption = dn.children.iter().copied().find(|&c| dom.nodes[c].node.t == want);
            if let Some(c) = caption {
                let mut text = String::new();
                let mut budget = NODE_BUDGET;
                content_text(dom, c, None, &mut text, scan, &mut budget);
                let text = collapse(&text);
                if !text.is_empty() {
                    return Named { name: text, from_content: false, labels: vec![c] };
                }
            }
        }
        _ => {}
    }
    if role::names_from_content(role) || node.t == "pre" {
        let mut text = String::new();
        let mut budget = NODE_BUDGET;
        content_text(dom, id, None, &mut text, scan, &mut budget);
        let text = collapse(&text);
        if !text.is_empty() {
            return Named { name: text, from_content: true, labels: Vec::new() };
        }
    }
    if let Some(t) = node.attr("title").map(collapse).filter(|t| !t.is_empty()) {
        return Named::plain(t);
    }
    if matches!(role, "textbox" | "searchbox" | "combobox" | "spinbutton") {
        let hint = node.attr("placeholder").or(node.attr("aria-placeholder")).map(collapse);
        if let Some(h) = hint.filter(|h| !h.is_empty()) {
            return Named::plain(h);
        }
    }
    if node.t == "input" && node.input_type() == "file" {
        return Named::plain("Choose file".into());
    }
    Named::default()
}

/// Elements a `<label>` can name.
fn is_labelable(tag: &str) -> bool {
    matches!(tag, "input" | "select" | "textarea" | "button" | "meter" | "output" | "progress")
}

/// How many nodes one name may visit (bounds the cost of names on huge subtrees).
const NODE_BUDGET: usize = 2000;

/// Appends the text of `id`'s descendants (not `exclude`'s subtree) to `out`.
fn content_text(
    dom: &Dom<'_>,
    id: usize,
    exclude: Option<usize>,
    out: &mut String,
    scan: usize,
    budget: &mut usize,
) {
    let parent = &dom.nodes[id];
    for &c in &parent.children {
        if out.len() > scan || *budget == 0 {
            return;
        }
        *budget -= 1;
        let dn = &dom.nodes[c];
        if Some(c) == exclude || dn.role.is_none() || dn.frame != parent.frame {
            continue;
        }
        let node = dn.node;
        if node.is_text() {
            // Text directly inside an element that is not visible is not visible either.
            if !parent.node.h {
                out.push_str(node.x.as_deref().unwrap_or(""));
            }
            continue;
        }
        let block = !is_inline_tag(&node.t);
        if block || node.t == "br" {
            out.push(' ');
        }
        let label = node.p.label.as_deref().or(node.attr("aria-label")).filter(|l| !l.trim().is_empty());
        if let Some(l) = label {
            out.push_str(l);
        } else if matches!(node.t.as_str(), "img" | "area") {
            out.push_str(node.attr("alt").unwrap_or(""));
        } else if node.t == "input" {
            if matches!(node.input_type().as_str(), "submit" | "reset" | "button") {
                out.push_str(node.p.value.as_deref().or(node.attr("value")).unwrap_or(""));
            } else if node.input_type() == "image" {
                out.push_str(node.attr("alt").unwrap_or(""));
            }
        } else if !matches!(node.t.as_str(), "textarea" | "select") {
            content_text(dom, c, exclude, out, scan, budget);
        }
        if block {
            out.push(' ');
        }
    }
}
