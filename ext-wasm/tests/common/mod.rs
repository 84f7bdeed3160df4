//! Tables from a compact description, one node per line, two spaces of indent per depth:
//!
//! ```text
//! nav aria-label=Main
//!   a href=/x
//!     "Home"
//!   input#7 type=checkbox p.checked !r=0,0,10,10
//! ```
//!
//! `"…"` is a text node. Otherwise `tag` or `tag#N` (element id N; without it ids count up from
//! 1 in document order), then `name=value`, `name="quoted value"` or a bare `name` (empty value)
//! attributes; `p.value=…`, `p.label=…`, `p.opts=…`, `p.checked`, `p.checked=false`,
//! `p.selected`, `p.indeterminate` are properties; `!h`, `!c`, `!k`, `!s=closed`, `!f=0`,
//! `!r=x,y,w,h` are the other node keys.
#![allow(dead_code, clippy::unwrap_used)]

use webext_mcp_engine::table::{Attrs, FrameTable, Input, Node, Options};
use webext_mcp_engine::{Output, render};

pub fn nodes(desc: &str) -> Vec<Node> {
    let mut out = Vec::new();
    let mut next_id = 1;
    for line in desc.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let d = (indent / 2) as u32;
        let toks = tokens(line.trim());
        let mut n = Node { d, ..Node::default() };
        let head = &toks[0];
        if let Some(text) = head.strip_prefix('\u{0}') {
            n.t = "#text".into();
            n.x = Some(text.to_owned());
            out.push(n);
            continue;
        }
        match head.split_once('#') {
            Some((tag, id)) => {
                n.t = tag.into();
                n.i = Some(id.parse().unwrap());
            }
            None => {
                n.t = head.clone();
                n.i = Some(next_id);
            }
        }
        next_id += 1;
        let mut attrs = Vec::new();
        for tok in &toks[1..] {
            let (k, v) = match tok.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.trim_start_matches('\u{0}').to_owned())),
                None => (tok.clone(), None),
            };
            match k.as_str() {
                "p.value" => n.p.value = v,
                "p.label" => n.p.label = v,
                "p.opts" => n.p.opts = v,
                "p.checked" => n.p.checked = Some(v.as_deref() != Some("false")),
                "p.selected" => n.p.selected = Some(v.as_deref() != Some("false")),
                "p.indeterminate" => n.p.indeterminate = Some(true),
                "!h" => n.h = true,
                "!c" => n.c = true,
                "!k" => n.k = true,
                "!s" => n.s = v,
                "!f" => n.f = v.map(|f| f.parse().unwrap()),
                "!r" => {
                    let r: Vec<f64> = v.unwrap().split(',').map(|x| x.parse().unwrap()).collect();
                    n.r = Some([r[0], r[1], r[2], r[3]]);
                }
                _ => attrs.push((k, v.unwrap_or_default())),
            }
        }
        n.a = Attrs(attrs);
        out.push(n);
    }
    out
}

/// Splits on spaces; a `"…"` token (or value) is kept whole, marked with a leading NUL.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '"' => {
                cur.push('\u{0}');
                while let Some(q) = chars.next() {
                    match q {
                        '\\' => cur.push(chars.next().unwrap()),
                        '"' => break,
                        q => cur.push(q),
                    }
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

pub fn frame(ordinal: u32, path: &[u32], url: &str, desc: &str) -> FrameTable {
    FrameTable {
        ordinal,
        path: path.to_vec(),
        url: url.into(),
        title: format!("frame {ordinal}"),
        viewport: Some(vec![0.0, 0.0, 800.0, 600.0]),
        nodes: nodes(desc),
    }
}

pub fn run(frames: Vec<FrameTable>, options: Options) -> Output {
    render(&Input { frames, options }).unwrap()
}

/// The text of the top document `desc` with default options.
pub fn snap(desc: &str) -> String {
    snap_with(desc, Options::default())
}

pub fn snap_with(desc: &str, options: Options) -> String {
    run(vec![frame(0, &[], "https://top.test/", desc)], options).text
}

/// Lines of the default rendering, trailing newline dropped.
pub fn lines(desc: &str) -> Vec<String> {
    snap(desc).lines().map(str::to_owned).collect()
}
