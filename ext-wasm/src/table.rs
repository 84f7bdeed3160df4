//! The engine input as the background hands it over (see `TABLE.md`, "Engine input").
//!
//! Deserialisation is lenient where the collector could reasonably vary (a number where a
//! string is expected, `null` for an absent option, `1`/`true` for flags) and strict only
//! about the overall shape: a malformed table is an `INVALID_ARGUMENT`, never a panic.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Everything the engine needs for one snapshot.
#[derive(Debug, Default, Deserialize)]
pub struct Input {
    /// One table per frame; `frames[0]` is the top document.
    #[serde(default)]
    pub frames: Vec<FrameTable>,
    /// What to render and how.
    #[serde(default)]
    pub options: Options,
}

/// Rendering options.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// Only interactive nodes, as a flat list.
    #[serde(deserialize_with = "loose_flag")]
    pub interactive_only: bool,
    /// Only nodes whose rect intersects their frame's viewport.
    #[serde(deserialize_with = "loose_flag")]
    pub viewport_only: bool,
    /// Render only the subtree of this ref (`e12`, `f2e7`).
    pub root: Option<String>,
    /// Depth limit of the rendered tree (root = 0).
    pub max_depth: Option<u32>,
    /// Redaction mode.
    #[serde(deserialize_with = "null_default")]
    pub redact: Redact,
    /// Collapse long runs of similar siblings (default on).
    #[serde(deserialize_with = "null_true")]
    pub collapse: bool,
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
        }
    }
}

/// What the engine hides from the rendering.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Redact {
    /// Secrets of form fields and anything that looks like a payment card number.
    #[default]
    Safe,
    /// Reserved; behaves as `Safe` until it is specified.
    Strict,
    /// Nothing is redacted.
    Off,
}

/// The nodes of one frame, in document order.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FrameTable {
    /// 0 = top document; K ≥ 1 gives refs `f<K>e<N>`.
    pub ordinal: u32,
    /// Index chain from the top window.
    pub path: Vec<u32>,
    #[serde(deserialize_with = "loose_string_or_empty")]
    pub url: String,
    #[serde(deserialize_with = "loose_string_or_empty")]
    pub title: String,
    /// `[scrollX, scrollY, innerWidth, innerHeight]`.
    pub viewport: Option<Vec<f64>>,
    pub nodes: Vec<Node>,
}

/// One element or text node (short keys, see `TABLE.md`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Node {
    /// Element id, the `N` of `e<N>`.
    pub i: Option<u64>,
    /// Depth in the walk.
    pub d: u32,
    /// Lowercase tag name or `#text`.
    pub t: String,
    /// Text of a text node.
    #[serde(deserialize_with = "loose_string")]
    pub x: Option<String>,
    /// Attributes the engine needs.
    pub a: Attrs,
    /// Live properties.
    pub p: Props,
    /// Not rendered visible itself (its children are hoisted).
    #[serde(deserialize_with = "loose_flag")]
    pub h: bool,
    /// Viewport-relative rect `[x, y, w, h]`.
    pub r: Option<[f64; 4]>,
    /// Shadow root mode when this element hosts one.
    #[serde(deserialize_with = "loose_string")]
    pub s: Option<String>,
    /// Index of this frame element in its document's `window.frames`.
    pub f: Option<u32>,
    /// The collector stopped here: the subtree is incomplete.
    #[serde(deserialize_with = "loose_flag")]
    pub c: bool,
}

impl Node {
    /// A text node (no element id, `#text` tag).
    pub fn is_text(&self) -> bool {
        self.t == "#text"
    }

    /// Attribute value, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.a.get(name)
    }

    /// Attribute value when present and not only whitespace.
    pub fn attr_nonempty(&self, name: &str) -> Option<&str> {
        self.a.get(name).filter(|v| !v.trim().is_empty())
    }

    /// Lowercased `type` of an `<input>` (`text` when absent).
    pub fn input_type(&self) -> String {
        match self.attr("type") {
            Some(t) if !t.trim().is_empty() => t.trim().to_ascii_lowercase(),
            _ => "text".to_owned(),
        }
    }
}

/// Attributes as (name, value) pairs. Flags such as `disabled` come as `""` or `true`.
#[derive(Debug, Default, Clone)]
pub struct Attrs(pub Vec<(String, String)>);

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

impl<'de> Deserialize<'de> for Attrs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Option::<serde_json::Map<String, Value>>::deserialize(d)?.unwrap_or_default();
        let mut out = Vec::with_capacity(map.len());
        for (k, v) in map {
            let v = match v {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(true) => String::new(),
                _ => continue,
            };
            out.push((k.to_ascii_lowercase(), v));
        }
        Ok(Attrs(out))
    }
}

/// Live DOM properties.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Props {
    #[serde(deserialize_with = "loose_string")]
    pub value: Option<String>,
    #[serde(deserialize_with = "loose_bool")]
    pub checked: Option<bool>,
    #[serde(deserialize_with = "loose_bool")]
    pub selected: Option<bool>,
    #[serde(deserialize_with = "loose_bool")]
    pub indeterminate: Option<bool>,
    /// Text of the `aria-labelledby` targets.
    #[serde(deserialize_with = "loose_string")]
    pub label: Option<String>,
    /// Texts of the selected options of a `<select>` (a string, or a list joined by ", ").
    #[serde(deserialize_with = "loose_string")]
    pub opts: Option<String>,
}

fn value_to_string(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) => {
            let parts: Vec<String> = items.into_iter().filter_map(value_to_string).collect();
            Some(parts.join(", "))
        }
        _ => None,
    }
}

fn loose_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(value_to_string(Value::deserialize(d)?))
}

fn loose_string_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(value_to_string(Value::deserialize(d)?).unwrap_or_default())
}

fn loose_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Bool(b) => Some(b),
        Value::Number(n) => Some(n.as_f64().is_some_and(|f| f != 0.0)),
        Value::String(s) => Some(s == "true"),
        _ => None,
    })
}

fn loose_flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(loose_bool(d)?.unwrap_or(false))
}

fn null_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn null_true<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_when_absent_or_null() {
        let input: Input = serde_json::from_str(r#"{"frames":[]}"#).unwrap();
        assert!(input.options.collapse);
        assert_eq!(input.options.redact, Redact::Safe);
        let input: Input = serde_json::from_str(
            r#"{"frames":[],"options":{"collapse":null,"redact":null,"root":null,"maxDepth":null}}"#,
        )
        .unwrap();
        assert!(input.options.collapse);
        assert_eq!(input.options.redact, Redact::Safe);
        assert_eq!(input.options.root, None);
        let input: Input = serde_json::from_str(
            r#"{"options":{"interactiveOnly":true,"viewportOnly":1,"root":"f1e2","maxDepth":3,"redact":"off","collapse":false}}"#,
        )
        .unwrap();
        let o = input.options;
        assert!(o.interactive_only && o.viewport_only && !o.collapse);
        assert_eq!(o.root.as_deref(), Some("f1e2"));
        assert_eq!(o.max_depth, Some(3));
        assert_eq!(o.redact, Redact::Off);
    }

    #[test]
    fn node_fields_are_lenient() {
        let n: Node = serde_json::from_str(
            r#"{"i":3,"d":1,"t":"input","a":{"type":"checkbox","disabled":true,"tabindex":0,"Hidden":false},
                "p":{"checked":1,"value":5,"opts":["a","b"]},"h":1,"c":true,"r":[1,2,3.5,4]}"#,
        )
        .unwrap();
        assert_eq!(n.i, Some(3));
        assert_eq!(n.attr("disabled"), Some(""));
        assert_eq!(n.attr("tabindex"), Some("0"));
        assert_eq!(n.attr("hidden"), None);
        assert_eq!(n.p.checked, Some(true));
        assert_eq!(n.p.value.as_deref(), Some("5"));
        assert_eq!(n.p.opts.as_deref(), Some("a, b"));
        assert!(n.h && n.c);
        assert_eq!(n.input_type(), "checkbox");
    }

    #[test]
    fn bad_shape_is_an_error() {
        assert!(serde_json::from_str::<Input>(r#"{"frames":[{"nodes":[{"d":"x"}]}]}"#).is_err());
        assert!(serde_json::from_str::<Input>("[1,2").is_err());
    }
}
