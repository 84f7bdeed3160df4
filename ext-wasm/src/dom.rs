//! The stitched element tree and what the engine knows about each node.
//!
//! ```text
//! frames[k].nodes (pre-order + depth) ──parent/children──▶ one arena for all frames
//!        iframe node with f = j  ◀──stitched── frame whose path = this frame's path + [j]
//! ```
//!
//! Building it runs four passes, each a pure function of the previous ones:
//! 1. arena: parents from the depth list (a depth jump attaches to the last open node;
//!    nesting deeper than [`MAX_DEPTH`] is flattened onto the deepest kept level, so the
//!    recursive passes stay within the wasm stack);
//! 2. frames: each frame table goes under the iframe element naming it; the rest are orphans;
//! 3. roles, top-down (the context: sectioning ancestors, disabled fieldsets, `aria-hidden`);
//! 4. names (see [`crate::name`]), then, bottom-up, which elements get a line of their own and
//!    which are pure text to flow into their parent's text.

use std::collections::BTreeMap;

use crate::name;
use crate::role::{self, RoleContext};
use crate::table::{FrameTable, Node};

/// Nesting depth beyond which the tree is flattened.
pub const MAX_DEPTH: usize = 256;

/// The pseudo-role of text nodes.
pub const TEXT: &str = crate::table::TEXT_TAG;

/// One node of the arena.
#[derive(Debug)]
pub struct DNode<'a> {
    pub node: &'a Node,
    /// Index into the input's `frames`.
    pub frame: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Frame table stitched under this iframe element.
    pub subframe: Option<usize>,
    /// `None`: not rendered (hidden input, `aria-hidden` subtree, unreachable frame).
    pub role: Option<&'static str>,
    /// Inside a disabled `<fieldset>`.
    pub fieldset_disabled: bool,
    /// Accessible name, whitespace-collapsed (not yet truncated or redacted).
    pub name: String,
    /// The name came from the content: the content's text is not repeated as text lines.
    pub from_content: bool,
    /// A `label`/`legend`/`figcaption`/`caption` whose text names another element.
    pub used_label: bool,
    /// Gets a line of its own.
    pub emitted: bool,
    /// Not emitted and only text below: flows into the parent's text.
    pub pure_text: bool,
    /// Emitted only because it has a name (a named `div`, say): inside a control that takes
    /// its name from content, such an element is part of that name and gets no line.
    pub named_wrapper: bool,
    /// Text directly under this line is not shown: it is the name (controls whose children are
    /// presentational, `pre`) or the value (`textarea`).
    pub quiet: bool,
}

/// The stitched tree of all frames.
#[derive(Debug)]
pub struct Dom<'a> {
    pub frames: &'a [FrameTable],
    pub nodes: Vec<DNode<'a>>,
    /// Top-level nodes of `frames[0]`.
    pub top: Vec<usize>,
    /// Top-level nodes of every frame.
    pub frame_roots: Vec<Vec<usize>>,
    /// Frames (index ≥ 1) that no iframe element claimed, in input order.
    pub orphans: Vec<usize>,
    /// `(frame, for)` → `<label for>` elements.
    labels_for: BTreeMap<(usize, &'a str), Vec<usize>>,
}

/// What a rendering reads of the tree beyond roles: the reading modes print less than a
/// snapshot, so they skip the accessible names nobody prints (about a third of the engine's
/// time on a docs page) and the line analysis only the outline uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Snapshots: every name, and which elements get a line.
    Outline,
    /// `find`: every name (a match may be a name), no line analysis.
    Names,
    /// `read`: names of links and controls only (the only names it prints).
    Controls,
    /// `text`: roles only.
    Roles,
}

impl<'a> Dom<'a> {
    /// Builds and analyses the tree; `scan` bounds how much content text a name reads.
    pub fn build(frames: &'a [FrameTable], scan: usize) -> Dom<'a> {
        Dom::build_for(frames, scan, Scope::Outline)
    }

    /// [`Dom::build`], analysing only what `scope` needs.
    pub fn build_for(frames: &'a [FrameTable], scan: usize, scope: Scope) -> Dom<'a> {
        let mut dom = Dom {
            frames,
            nodes: Vec::new(),
            top: Vec::new(),
            frame_roots: Vec::new(),
            orphans: Vec::new(),
            labels_for: BTreeMap::new(),
        };
        dom.link_frames_nodes();
        dom.stitch();
        for root in dom.top.clone() {
            dom.assign_roles(root, Ctx::default());
        }
        for fi in dom.orphans.clone() {
            for root in dom.frame_roots[fi].clone() {
                dom.assign_roles(root, Ctx::default());
            }
        }
        match scope {
            Scope::Roles => return dom,
            Scope::Controls => dom.assign_names(scan, role::is_interactive_role),
            Scope::Names | Scope::Outline => dom.assign_names(scan, |_| true),
        }
        if scope != Scope::Outline {
            return dom;
        }
        for root in dom.top.clone() {
            dom.classify(root);
        }
        for fi in dom.orphans.clone() {
            for root in dom.frame_roots[fi].clone() {
                dom.classify(root);
            }
        }
        dom
    }

    fn link_frames_nodes(&mut self) {
        let total = self.frames.iter().map(|f| f.nodes.len()).sum();
        self.nodes.reserve(total);
        for (fi, frame) in self.frames.iter().enumerate() {
            let mut roots = Vec::new();
            let mut stack: Vec<(u32, usize)> = Vec::new();
            for node in &frame.nodes {
                let id = self.nodes.len();
                while stack.last().is_some_and(|&(d, _)| d >= node.d) {
                    stack.pop();
                }
                let parent = stack.last().map(|&(_, p)| p);
                self.nodes.push(DNode {
                    node,
                    frame: fi,
                    parent,
                    children: Vec::new(),
                    subframe: None,
                    role: None,
                    fieldset_disabled: false,
                    name: String::new(),
                    from_content: false,
                    used_label: false,
                    emitted: false,
                    pure_text: false,
                    named_wrapper: false,
                    quiet: false,
                });
                match parent {
                    Some(p) => self.nodes[p].children.push(id),
                    None => roots.push(id),
                }
                if stack.len() < MAX_DEPTH {
                    stack.push((node.d, id));
                }
                if node.t == "label"
                    && let Some(target) = node.attr("for").filter(|f| !f.is_empty())
                {
                    self.labels_for.entry((fi, target)).or_default().push(id);
                }
            }
            self.frame_roots.push(roots);
        }
        if let Some(top) = self.frame_roots.first() {
            self.top = top.clone();
        }
    }

    fn stitch(&mut self) {
        let mut by_path: BTreeMap<&[u32], usize> = BTreeMap::new();
        for (fi, frame) in self.frames.iter().enumerate().skip(1) {
            by_path.entry(frame.path.as_slice()).or_insert(fi);
        }
        let mut claimed = vec![false; self.frames.len()];
        for id in 0..self.nodes.len() {
            let Some(k) = self.nodes[id].node.f else { continue };
            let fi = self.nodes[id].frame;
            let mut path = self.frames[fi].path.clone();
            path.push(k);
            let Some(&child) = by_path.get(path.as_slice()) else { continue };
            if child == fi || claimed[child] {
                continue;
            }
            claimed[child] = true;
            self.nodes[id].subframe = Some(child);
            for &r in &self.frame_roots[child] {
                self.nodes[r].parent = Some(id);
            }
            let roots = self.frame_roots[child].clone();
            self.nodes[id].children.extend(roots);
        }
        self.orphans = (1..self.frames.len()).filter(|&fi| !claimed[fi]).collect();
    }

    fn assign_roles(&mut self, id: usize, ctx: Ctx) {
        let node = self.nodes[id].node;
        let mut child_ctx = ctx;
        let role = if ctx.skip {
            None
        } else if node.is_text() {
            Some(TEXT)
        } else if node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            None
        } else {
            role::role_of(node, RoleContext { in_sectioning: ctx.in_sectioning })
        };
        child_ctx.skip = role.is_none();
        if matches!(node.t.as_str(), "article" | "aside" | "main" | "nav" | "section") {
            child_ctx.in_sectioning = true;
        }
        if node.t == "fieldset" && node.attr("disabled").is_some() {
            child_ctx.fieldset_disabled = true;
        }
        self.nodes[id].role = role;
        self.nodes[id].fieldset_disabled = ctx.fieldset_disabled;
        let frame = self.nodes[id].frame;
        for k in 0..self.nodes[id].children.len() {
            let c = self.nodes[id].children[k];
            // A frame's document starts a fresh context.
            let cctx = if self.nodes[c].frame == frame {
                child_ctx
            } else {
                Ctx { skip: child_ctx.skip, ..Ctx::default() }
            };
            self.assign_roles(c, cctx);
        }
    }

    /// Names of the elements whose role `wanted` accepts.
    fn assign_names(&mut self, scan: usize, wanted: impl Fn(&str) -> bool) {
        let mut named = Vec::new();
        for id in 0..self.nodes.len() {
            let n = &self.nodes[id];
            let Some(role) = n.role else { continue };
            if n.node.is_text() || !wanted(role) {
                continue;
            }
            let result = name::accessible_name(self, id, scan);
            named.push((id, result));
        }
        for (id, result) in named {
            for l in result.labels {
                self.nodes[l].used_label = true;
            }
            let n = &mut self.nodes[id];
            n.from_content = result.from_content;
            n.name = result.name;
            if n.name.is_empty() && matches!(n.role, Some("form" | "region")) {
                n.role = Some(role::GENERIC);
            }
        }
    }

    /// Bottom-up: `emitted` and `pure_text`. Returns whether `id` is text or pure text.
    fn classify(&mut self, id: usize) -> bool {
        let mut all_text = true;
        for k in 0..self.nodes[id].children.len() {
            let c = self.nodes[id].children[k];
            let text_like = self.classify(c);
            if !text_like && self.nodes[c].role.is_some() {
                all_text = false;
            }
        }
        let n = &self.nodes[id];
        let Some(role) = n.role else { return false };
        if role == TEXT {
            return true;
        }
        let node = n.node;
        // A caption or legend that names its container is said by the container's line.
        let wrapper = (role::is_hoistable(role) && node.t != "pre") || n.used_label;
        let emitted =
            !node.h && (!wrapper || !n.name.is_empty() || is_interesting(node) || n.subframe.is_some());
        let pure = !node.h && !emitted && !n.used_label && all_text;
        let named_wrapper = wrapper && !is_interesting(node) && n.subframe.is_none();
        let quiet = role::names_from_content(role) || node.t == "pre" || node.t == "textarea";
        let n = &mut self.nodes[id];
        n.emitted = emitted;
        n.pure_text = pure;
        n.named_wrapper = named_wrapper;
        n.quiet = quiet;
        pure
    }

    /// The ref of an element (`e12`, `f2e7`), when it has an id.
    pub fn ref_of(&self, id: usize) -> Option<String> {
        let n = &self.nodes[id];
        let i = n.node.i?;
        let ordinal = self.frames[n.frame].ordinal;
        Some(if ordinal == 0 { format!("e{i}") } else { format!("f{ordinal}e{i}") })
    }

    /// The arena index of element `e<i>` of the frame with this ordinal.
    pub fn find(&self, ordinal: u32, i: u64) -> Option<usize> {
        let fi = self.frames.iter().position(|f| f.ordinal == ordinal)?;
        let offset: usize = self.frames[..fi].iter().map(|f| f.nodes.len()).sum();
        let k = self.frames[fi].nodes.iter().position(|n| n.i == Some(i) && !n.is_text())?;
        Some(offset + k)
    }

    /// `<label for=…>` elements of this frame naming `target_id`.
    pub fn labels_for(&self, frame: usize, target_id: &'a str) -> &[usize] {
        self.labels_for.get(&(frame, target_id)).map_or(&[], Vec::as_slice)
    }
}

/// Worth a line even without a role or a name.
fn is_interesting(node: &Node) -> bool {
    role::in_tab_order(node)
        || role::is_editable(node)
        || role::is_draggable(node)
        || node.c
        || node.s.as_deref() == Some("closed")
        || node.attr("aria-expanded").is_some()
}

#[derive(Debug, Default, Clone, Copy)]
struct Ctx {
    skip: bool,
    in_sectioning: bool,
    fieldset_disabled: bool,
}
