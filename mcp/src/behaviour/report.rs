//! The report's types, and the one reading of what the page-side probe answered: typed, with
//! every string and list capped again here (the probe caps too, but it runs where a page can
//! reach it in Firefox).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use webext_mcp_engine::text::truncate_bytes;

/// Roots listed per surface at most.
pub const MAX_ROOTS: usize = 20;
/// Characters of text kept per root, and of a console message.
pub const MAX_TEXT: usize = 300;
/// Console messages kept per report.
pub const MAX_MESSAGES: usize = 50;
/// Root signatures kept from a page without the extension (its own roots, not credited).
pub const MAX_SIGNATURES: usize = 5000;
/// Bytes of a style value.
const MAX_VALUE: usize = 200;
/// Host elements and properties kept.
const MAX_HOST: usize = 32;

/// What one build did in one browser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// `chromium` or `firefox`.
    pub browser: String,
    /// The folder loaded.
    pub dist: String,
    /// Whether the browser accepted the extension; `load_error` says why not.
    pub loaded: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_error: Option<String>,
    /// Content scripts on the test page, then each extension page opened as a tab, by name.
    pub surfaces: Vec<Surface>,
    pub background: Background,
    /// Console errors and uncaught exceptions from every world, sorted.
    pub errors: Vec<Message>,
    /// Errors left out once [`MAX_MESSAGES`] were kept.
    #[serde(default)]
    pub errors_dropped: usize,
}

/// One place the extension renders: `content` (the test page) or an extension page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    /// `content`, `popup`, `options`, `sidepanel`, `newtab` or `devtools`.
    pub name: String,
    /// The page, relative to the extension (extension pages) or `/` (the test page).
    pub path: String,
    /// Whether the page loaded and was read; `error` says why not.
    pub read: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `[data-extension-root]` elements the extension added (content: the ones the page had
    /// without the extension are not counted).
    pub root_count: usize,
    pub roots: Vec<Root>,
    /// Extension pages: the mount node (`#root`, `#app`, else `body`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount: Option<Root>,
    /// Content: the host page's computed styles that differ from the page without the
    /// extension, as `selector property: before → after`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_changes: Vec<String>,
    /// Content: roots the page itself had without the extension (not credited to it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub page_roots: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A mounted root: an `[data-extension-root]` element, or an extension page's mount node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// The `data-extension-root` value, or the mount node's tag and id.
    pub name: String,
    pub tag: String,
    /// Its own shadow root: `open`, `closed`, or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<String>,
    /// Whether the root itself sits inside a shadow tree.
    pub in_shadow: bool,
    /// Element children of its shadow root (else of itself).
    pub children: usize,
    /// Its text, shadow trees included, whitespace folded, capped.
    pub text: String,
    /// The first rendered element inside it and its computed style (fixed properties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_element: Option<String>,
    #[serde(default)]
    pub style: BTreeMap<String, String>,
    /// Style sheets inside its shadow root (extension pages: the document's).
    pub sheets: Sheets,
}

/// Style sheets of a shadow root or document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sheets {
    pub count: usize,
    /// Characters of their rules' text.
    pub chars: usize,
    /// Sheets whose rules could not be read (another origin).
    pub unreadable: usize,
}

/// The background worker or page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Background {
    /// What the manifest declares: `service_worker`, `scripts`, `page`, or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    /// It started and (service workers) is running when the pages have been read.
    pub alive: bool,
}

/// A console error or uncaught exception.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// `page` (the test page's own scripts), `content` (content scripts), `extension_page`
    /// or `background`.
    pub world: String,
    /// `exception` or `console`.
    pub kind: String,
    pub text: String,
    /// `file:line` inside the extension, when the browser says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// What the probe answered for one page, read once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probed {
    pub settled: bool,
    /// Roots not in the `skip` list the probe was given.
    pub root_count: usize,
    /// Roots left out because the `skip` list named them.
    pub skipped: usize,
    /// Every root's signature, for the next read's `skip`.
    pub signatures: Vec<String>,
    pub roots: Vec<Root>,
    pub mount: Option<Root>,
    pub host: BTreeMap<String, BTreeMap<String, String>>,
}

/// Reads the probe's answer; anything missing or of the wrong type reads as absent, and
/// every string is capped, so a page cannot grow or break the report.
pub fn read_probe(v: &Value) -> Probed {
    let roots: Vec<Root> =
        v["roots"].as_array().into_iter().flatten().take(MAX_ROOTS).filter_map(read_root).collect();
    let mut host = BTreeMap::new();
    if let Some(map) = v["host"].as_object() {
        for (sel, props) in map.iter().take(MAX_HOST) {
            host.insert(clip(sel, MAX_VALUE), string_map(props));
        }
    }
    Probed {
        settled: v["settled"].as_bool().unwrap_or(false),
        root_count: v["rootCount"].as_u64().map_or(roots.len(), |n| n as usize),
        skipped: v["skipped"].as_u64().unwrap_or(0) as usize,
        signatures: v["signatures"]
            .as_array()
            .into_iter()
            .flatten()
            .take(MAX_SIGNATURES)
            .filter_map(Value::as_str)
            .map(|s| clip(s, MAX_VALUE))
            .collect(),
        mount: read_root(&v["mount"]),
        roots,
        host,
    }
}

fn read_root(v: &Value) -> Option<Root> {
    let obj = v.as_object()?;
    let text = |k: &str, n: usize| obj.get(k).and_then(Value::as_str).map(|s| clip(s, n));
    let count = |k: &str| obj.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
    let sheets = &v["sheets"];
    Some(Root {
        name: text("name", 80).unwrap_or_default(),
        tag: text("tag", 40).unwrap_or_default(),
        shadow: text("shadow", 10).filter(|m| m == "open" || m == "closed"),
        in_shadow: obj.get("inShadow").and_then(Value::as_bool).unwrap_or(false),
        children: count("children"),
        text: text("text", MAX_TEXT).unwrap_or_default(),
        first_element: text("firstElement", 40),
        style: string_map(&v["style"]),
        sheets: Sheets {
            count: sheets["count"].as_u64().unwrap_or(0) as usize,
            chars: sheets["chars"].as_u64().unwrap_or(0) as usize,
            unreadable: sheets["unreadable"].as_u64().unwrap_or(0) as usize,
        },
    })
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .take(MAX_HOST)
        .filter_map(|(k, v)| Some((clip(k, 60), style_value(k, v.as_str()?))))
        .collect()
}

/// A computed value as the report keeps it. Firefox gives `font-family` back quoted as the
/// author wrote it (Chromium normalises), so quotes are dropped: `"Segoe UI"` and `Segoe UI`
/// are the same font for the browser.
fn style_value(property: &str, value: &str) -> String {
    let value = clip(value, MAX_VALUE);
    if property == "font-family" { value.replace(['"', '\''], "") } else { value }
}

/// At most `n` bytes of `s`, cut on a character boundary.
pub fn clip(s: &str, n: usize) -> String {
    truncate_bytes(s, n).0.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn probe_answers_are_capped_and_junk_reads_as_absent() {
        let huge = "x".repeat(1_000_000);
        let roots: Vec<Value> =
            (0..1000).map(|i| json!({"name": format!("r{i}"), "tag": "div", "text": huge})).collect();
        let v = json!({
            "settled": true, "rootCount": 1000, "roots": roots,
            "mount": "not an object",
            "host": {"body": {"color": huge, "margin": 5}},
        });
        let p = read_probe(&v);
        assert_eq!(p.roots.len(), MAX_ROOTS);
        assert!(p.roots.iter().all(|r| r.text.len() == MAX_TEXT));
        assert_eq!(p.root_count, 1000);
        assert_eq!(p.mount, None);
        assert_eq!(p.host["body"].len(), 1, "a number is not a style value");
        assert_eq!(p.host["body"]["color"].len(), MAX_VALUE);
        assert_eq!(read_probe(&json!(null)), Probed::default());
    }

    #[test]
    fn font_families_compare_without_their_quotes() {
        let r = read_root(
            &json!({"style": {"font-family": "\"Segoe UI\", 'Noto Sans', serif", "color": "\"x\""}}),
        );
        let style = r.unwrap().style;
        assert_eq!(style["font-family"], "Segoe UI, Noto Sans, serif");
        assert_eq!(style["color"], "\"x\"");
    }

    #[test]
    fn shadow_modes_other_than_open_or_closed_are_dropped() {
        let r = read_root(&json!({"name": "w", "shadow": "forged", "sheets": {"count": 2, "chars": 10}}))
            .unwrap();
        assert_eq!(r.shadow, None);
        assert_eq!(r.sheets, Sheets { count: 2, chars: 10, unreadable: 0 });
    }
}
