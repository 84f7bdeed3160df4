//! The engine input as the background hands it over (see `TABLE.md`, "Engine input").
//!
//! Conversion from JSON (`convert`) is lenient where the collector could reasonably vary (a number
//! where a string is expected, `null` for an absent option, `1`/`true` for flags, unknown
//! keys) and strict about the shape that matters: `frames` and `nodes` are arrays of objects
//! and `d` is a depth. A malformed input is an `INVALID_ARGUMENT`, never a panic.

mod convert;

/// Everything the engine needs for one snapshot.
#[derive(Debug, Default)]
pub struct Input {
    /// One table per frame; `frames[0]` is the top document.
    pub frames: Vec<FrameTable>,
    /// What to render and how.
    pub options: Options,
}

/// Rendering options.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Only interactive nodes, as a flat list.
    pub interactive_only: bool,
    /// Only nodes whose rect intersects their frame's viewport.
    pub viewport_only: bool,
    /// Render only the subtree of this ref (`e12`, `f2e7`).
    pub root: Option<String>,
    /// Depth limit of the rendered tree (root = 0).
    pub max_depth: Option<u32>,
    /// Redaction mode.
    pub redact: Redact,
    /// Collapse long runs of similar siblings (default on).
    pub collapse: bool,
    /// What to produce: the snapshot tree (default), the page's text, or the elements
    /// matching [`Options::find`] (see `reading.rs`).
    pub mode: Mode,
    /// `find` mode: the text to look for and how.
    pub find: Find,
}

/// What the engine renders from the table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Snapshot,
    Text,
    Find,
    /// `read_page`: the main content as structured text.
    Read,
}

/// A `find_by_text` query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Find {
    pub query: String,
    /// Whole (whitespace-normalized) text equal, else a substring.
    pub exact: bool,
    pub case_sensitive: bool,
    /// A `/regex/flags` query: the pattern (JavaScript `RegExp` syntax) and its flags.
    pub regex: Option<String>,
    pub flags: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            interactive_only: false,
            viewport_only: false,
            root: None,
            max_depth: None,
            redact: Redact::Safe,
            collapse: true,
            mode: Mode::Snapshot,
            find: Find::default(),
        }
    }
}

/// What the engine hides from the rendering: the redaction level (`crate::redact`).
pub use crate::redact::Level as Redact;

/// The nodes of one frame, in document order.
#[derive(Debug, Default)]
pub struct FrameTable {
    /// 0 = top document; K ≥ 1 gives refs `f<K>e<N>`.
    pub ordinal: u32,
    /// Index chain from the top window.
    pub path: Vec<u32>,
    pub url: String,
    pub title: String,
    /// `[scrollX, scrollY, innerWidth, innerHeight]`.
    pub viewport: Option<Vec<f64>>,
    pub nodes: Vec<Node>,
}

/// The `t` of text nodes.
pub const TEXT_TAG: &str = "#text";

/// One element or text node (short keys, see `TABLE.md`).
#[derive(Debug, Default)]
pub struct Node {
    /// Element id, the `N` of `e<N>`.
    pub i: Option<u64>,
    /// Depth in the walk.
    pub d: u32,
    /// Lowercase tag name or `#text`.
    pub t: String,
    /// Text of a text node.
    pub x: Option<String>,
    /// Attributes the engine needs.
    pub a: Attrs,
    /// Live properties.
    pub p: Props,
    /// Not rendered visible itself (its children are hoisted).
    pub h: bool,
    /// Viewport-relative rect `[x, y, w, h]`.
    pub r: Option<[f64; 4]>,
    /// Shadow root mode when this element hosts one.
    pub s: Option<String>,
    /// Index of this frame element in its document's `window.frames`.
    pub f: Option<u32>,
    /// The collector stopped here: the subtree is incomplete.
    pub c: bool,
    /// Context only: a scoped walk's ancestor of what it walked, without its own text or its
    /// other children (`find` never names it).
    pub k: bool,
}

impl Node {
    /// A text node.
    pub fn is_text(&self) -> bool {
        self.t == TEXT_TAG
    }

    /// Attribute value, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.a.get(name)
    }

    /// Lowercased `type` of an `<input>` (`text` when absent).
    pub fn input_type(&self) -> String {
        match self.attr("type") {
            Some(t) if !t.trim().is_empty() => t.trim().to_ascii_lowercase(),
            _ => "text".to_owned(),
        }
    }
}

/// Attributes as (lowercase name, value) pairs. Flags such as `disabled` are `""`.
#[derive(Debug, Default, Clone)]
pub struct Attrs(pub Vec<(String, String)>);

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Live DOM properties.
#[derive(Debug, Default)]
pub struct Props {
    pub value: Option<String>,
    pub checked: Option<bool>,
    pub selected: Option<bool>,
    pub indeterminate: Option<bool>,
    /// Text of the `aria-labelledby` targets.
    pub label: Option<String>,
    /// Texts of the selected options of a `<select>` (a string, or a list joined by ", ").
    pub opts: Option<String>,
}
