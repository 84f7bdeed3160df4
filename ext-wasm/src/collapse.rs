//! Collapsing long runs of similar siblings.
//!
//! Among the children of one line, a run of more than [`RUN_LIMIT`] consecutive element
//! lines with the same *shape* keeps its first [`KEEP`] lines; the rest become one line
//! `… N more <roles> like these [<ref>]`. The shape is the role plus the roles of the lines
//! nested under it, two levels deep (so `listitem > link` items match each other, while
//! documentation sections with different content do not). Text lines are never collapsed and
//! break runs.
//!
//! Prose is thinned the same way: in a list of siblings with more than [`PROSE_LIMIT`] prose
//! lines (text lines, `pre` code lines, lists whose items hold only text and links, and
//! childless links next to one of those, i.e. links in running text), the first [`PROSE_KEEP`] stay and the rest go, leaving one line
//! `… N more lines of text [<ref>]` where the first one went. Headings, controls and
//! structure stay, so a long documentation page still shows its outline on the first page.
//!
//! `<ref>` expands the run with `root=<ref>`: it is the ref of the line the run sits under or,
//! for runs at the top level, of the closest element containing the whole run. Runs directly
//! under the `root` line are never collapsed (that is what expanding means); deeper runs
//! still are.

use crate::dom::Dom;
use crate::role;
use crate::tree::{Kind, Line};

/// Longest run left as is.
pub const RUN_LIMIT: usize = 12;
/// Lines kept at the start of a collapsed run.
pub const KEEP: usize = 5;
/// Most prose lines one list shows in full.
pub const PROSE_LIMIT: usize = 6;
/// Prose lines kept when a list has more.
pub const PROSE_KEEP: usize = 2;

/// Collapses runs everywhere in `lines`; with `rooted`, the children of the (single) root
/// line are left alone. Returns how many runs were collapsed.
pub fn collapse(lines: &mut Vec<Line>, dom: &Dom<'_>, rooted: bool) -> usize {
    let mut count = 0;
    walk(lines, dom, None, false, rooted, &mut count);
    count
}

fn walk(
    lines: &mut Vec<Line>,
    dom: &Dom<'_>,
    parent: Option<usize>,
    protect: bool,
    protect_children: bool,
    count: &mut usize,
) {
    for line in lines.iter_mut() {
        let id = match line.kind {
            Kind::Node(id) => Some(id),
            _ => None,
        };
        walk(&mut line.children, dom, id, protect_children, false, count);
    }
    if protect {
        return;
    }
    thin_prose(lines, dom, parent, count);
    if lines.len() <= RUN_LIMIT {
        return;
    }
    let sigs: Vec<Option<u64>> = lines.iter().map(|l| shape(l, dom)).collect();
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    let mut old = std::mem::take(lines).into_iter();
    let mut i = 0;
    while i < sigs.len() {
        let mut j = i + 1;
        if sigs[i].is_some() {
            while j < sigs.len() && sigs[j] == sigs[i] {
                j += 1;
            }
        }
        let run: Vec<Line> = old.by_ref().take(j - i).collect();
        match (j - i > RUN_LIMIT).then(|| expander(dom, parent, &run)).flatten() {
            Some(parent_ref) => {
                let role = match run[0].kind {
                    Kind::Node(id) => dom.nodes[id].role.map_or(role::GENERIC, display_role),
                    _ => role::GENERIC,
                };
                let more = run.len() - KEEP;
                out.extend(run.into_iter().take(KEEP));
                out.push(Line {
                    kind: Kind::More { count: more, role, parent: parent_ref },
                    children: Vec::new(),
                });
                *count += 1;
            }
            None => out.extend(run),
        }
        i = j;
    }
    *lines = out;
}

fn is_prose_anchor(line: &Line, dom: &Dom<'_>) -> bool {
    match line.kind {
        Kind::Text(_) => true,
        Kind::Node(id) => dom.nodes[id].node.t == "pre" || is_bullet_prose(line, dom),
        _ => false,
    }
}

/// A list whose items hold only text and links: bullet points of running text.
fn is_bullet_prose(line: &Line, dom: &Dom<'_>) -> bool {
    let Kind::Node(id) = line.kind else { return false };
    dom.nodes[id].role == Some("list")
        && !line.children.is_empty()
        && line.children.iter().all(|item| {
            matches!(item.kind, Kind::Node(i) if dom.nodes[i].role == Some("listitem"))
                && item.children.iter().any(|c| matches!(c.kind, Kind::Text(_)))
                && item.children.iter().all(|c| match c.kind {
                    Kind::Text(_) => true,
                    Kind::Node(i) => dom.nodes[i].role == Some("link") && c.children.is_empty(),
                    _ => false,
                })
        })
}

/// Which lines of `lines` are prose (see the module docs).
fn prose_flags(lines: &[Line], dom: &Dom<'_>) -> Vec<bool> {
    let anchors: Vec<bool> = lines.iter().map(|l| is_prose_anchor(l, dom)).collect();
    lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            anchors[k]
                || match l.kind {
                    Kind::Node(id) => {
                        dom.nodes[id].role == Some("link")
                            && l.children.is_empty()
                            && ((k > 0 && anchors[k - 1]) || anchors.get(k + 1).copied().unwrap_or(false))
                    }
                    _ => false,
                }
        })
        .collect()
}

fn thin_prose(lines: &mut Vec<Line>, dom: &Dom<'_>, parent: Option<usize>, count: &mut usize) {
    let flags = prose_flags(lines, dom);
    let total = flags.iter().filter(|&&f| f).count();
    if total <= PROSE_LIMIT {
        return;
    }
    let ids: Vec<Line> = lines.iter().filter(|l| matches!(l.kind, Kind::Node(_))).cloned().collect();
    let Some(parent_ref) = expander(dom, parent, if ids.is_empty() { lines } else { &ids }) else { return };
    let mut seen = 0;
    let mut marker_placed = false;
    let old = std::mem::take(lines);
    for (line, prose) in old.into_iter().zip(flags) {
        if !prose {
            lines.push(line);
            continue;
        }
        seen += 1;
        if seen <= PROSE_KEEP {
            lines.push(line);
        } else if !marker_placed {
            marker_placed = true;
            lines.push(Line {
                kind: Kind::More { count: total - PROSE_KEEP, role: PROSE, parent: parent_ref.clone() },
                children: Vec::new(),
            });
        }
    }
    *count += 1;
}

/// The `role` of a prose marker.
pub const PROSE: &str = "#prose";

/// The role as rendered (presentational roles show as `generic`).
pub fn display_role(role: &'static str) -> &'static str {
    match role {
        "none" | "presentation" => role::GENERIC,
        r => r,
    }
}

/// The ref that expands a run: the parent line's, else the closest common ancestor's.
fn expander(dom: &Dom<'_>, parent: Option<usize>, run: &[Line]) -> Option<String> {
    if let Some(r) = parent.and_then(|p| dom.ref_of(p)) {
        return Some(r);
    }
    let ids: Vec<usize> = run
        .iter()
        .filter_map(|l| match l.kind {
            Kind::Node(id) => Some(id),
            _ => None,
        })
        .collect();
    let (&first, &last) = (ids.first()?, ids.last()?);
    let mut chain = Vec::new();
    let mut up = dom.nodes[first].parent;
    while let Some(p) = up {
        chain.push(p);
        up = dom.nodes[p].parent;
    }
    let mut up = dom.nodes[last].parent;
    while let Some(p) = up {
        if chain.contains(&p) {
            return dom.ref_of(p);
        }
        up = dom.nodes[p].parent;
    }
    None
}

/// The shape of an element line (`None` for text and other lines, which never collapse).
fn shape(line: &Line, dom: &Dom<'_>) -> Option<u64> {
    let Kind::Node(_) = line.kind else { return None };
    let mut h = Fnv::default();
    let mut budget = 48;
    shape_into(line, dom, 0, &mut h, &mut budget);
    Some(h.0)
}

fn shape_into(line: &Line, dom: &Dom<'_>, depth: usize, h: &mut Fnv, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    match &line.kind {
        Kind::Node(id) => h.write(dom.nodes[*id].role.unwrap_or(role::GENERIC).as_bytes()),
        Kind::Text(_) => h.write(b"#text"),
        Kind::Frame(_) => h.write(b"#frame"),
        Kind::More { .. } => h.write(b"#more"),
    }
    if depth < 2 && !line.children.is_empty() {
        h.write(b"(");
        for c in &line.children {
            shape_into(c, dom, depth + 1, h, budget);
            h.write(b",");
        }
        h.write(b")");
    }
}

/// FNV-1a: deterministic on every platform, unlike `std`'s randomly keyed hasher.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
