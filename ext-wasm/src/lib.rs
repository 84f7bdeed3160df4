//! `webext-mcp-engine`: the helper extension's snapshot engine, Rust compiled to wasm.
//!
//! ```text
//! page collector (plain JS) ──table──▶ background ──▶ engine (this crate, wasm) ──▶ snapshot text
//! ```
//!
//! It runs only in the extension background, on data the collector gathered, so it is pure
//! logic and tested with plain `cargo test`. The contract with the collector is `TABLE.md`.
//!
//! ```text
//! JSON ─table─▶ Input ─dom─▶ stitched tree + roles/names ─tree─▶ outline ─collapse─▶ ─render─▶ text
//!                                                                      page(text, offset) ◀─┘
//! ```
//!
//! This file holds only the wasm exports; [`render::render`] and [`page::page`] are the Rust API.

/// A list of names that is both a `const` slice (for generated copies and tests) and a
/// `matches!` predicate (what the hot paths call: a jump on length and bytes, not a scan).
macro_rules! name_set {
    ($(#[$list_doc:meta])* $list:ident, $(#[$fn_doc:meta])* $pred:ident, [$($name:literal),* $(,)?]) => {
        $(#[$list_doc])*
        pub const $list: &[&str] = &[$($name),*];
        $(#[$fn_doc])*
        pub fn $pred(name: &str) -> bool {
            matches!(name, $($name)|*)
        }
    };
}

pub mod collapse;
pub mod dom;
pub mod error;
pub mod json;
pub mod matcher;
pub mod name;
pub mod page;
pub mod reading;
pub mod redact;
pub mod render;
pub mod role;
pub mod state;
pub mod stored;
pub mod table;
pub mod text;
pub mod textwalk;
pub mod tree;
pub mod untrusted;

use wasm_bindgen::prelude::wasm_bindgen;

pub use error::EngineError;
pub use render::{Output, render};
pub use table::Input;

/// The engine's version, checked by the extension against the version it was built with.
#[wasm_bindgen(js_name = engineVersion)]
pub fn engine_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Renders a snapshot: `input_json` is the engine input of `TABLE.md`; the result is the
/// engine output as JSON, or `{"error":{"code","message"}}`.
#[wasm_bindgen(js_name = snapshot)]
pub fn snapshot(input_json: &str) -> String {
    match snapshot_json(input_json) {
        Ok(json) => json,
        Err(e) => e.to_json(),
    }
}

/// Renders a snapshot from an input in parts (`untrusted`): `head` is written by the helper,
/// `texts` are the frames' `nodes` (and `ids`, `closed`) as their worlds sent them, each
/// parsed and checked on its own, never spliced into one document.
#[wasm_bindgen(js_name = snapshotParts)]
pub fn snapshot_parts(head: &str, texts: Vec<String>) -> String {
    match Input::parse_parts(head, &texts).and_then(|input| render(&input)) {
        Ok(out) => out.to_json(),
        Err(e) => e.to_json(),
    }
}

/// get_page_text from the frames' text walks ([`textwalk`]): `head` is written by the helper,
/// `texts` are each frame's tokens as its world sent them. Answers `{"text", "bytes", "nodes"}`
/// (`nodes`: lines), or `{"error":…}`.
#[wasm_bindgen(js_name = pageText)]
pub fn page_text(head: &str, texts: Vec<String>) -> String {
    match textwalk::page_text(head, &texts) {
        Ok((text, lines)) => {
            let mut out = String::with_capacity(text.len() + 48);
            out.push_str("{\"text\":");
            json::write_str(&mut out, &text);
            out.push_str(&format!(",\"bytes\":{},\"nodes\":{lines}}}", text.len()));
            out
        }
        Err(e) => e.to_json(),
    }
}

/// A stored value (localStorage, sessionStorage) as the helper may show it: `level` is `safe`
/// (secrets hidden, see [`stored`]), `strict` (every value hidden) or `off`. Answers
/// `{"value": "…", "redacted": bool}`.
#[wasm_bindgen(js_name = storedValue)]
pub fn stored_value(key: &str, value: &str, level: &str) -> String {
    let level = match level {
        "off" => redact::Level::Off,
        "strict" => redact::Level::Strict,
        _ => redact::Level::Safe,
    };
    let (shown, redacted) = stored::stored_value(key, value, level);
    let mut out = String::with_capacity(shown.len() + 32);
    out.push_str("{\"value\":");
    json::write_str(&mut out, &shown);
    out.push_str(if redacted { ",\"redacted\":true}" } else { ",\"redacted\":false}" });
    out
}

/// For each text (a field's value, a text node, an image's `alt`), whether the `safe` level
/// hides it or a part of it (1) or shows it as it is (0): screenshots mask those.
#[wasm_bindgen(js_name = hides)]
pub fn hides(texts: Vec<String>) -> Vec<u8> {
    texts.iter().map(|t| u8::from(redact::hides(t))).collect()
}

/// [`snapshot`] with the error kept as a value.
pub fn snapshot_json(input_json: &str) -> Result<String, EngineError> {
    let input = Input::parse(input_json)?;
    Ok(render(&input)?.to_json())
}

/// One page of a rendering: `{"chunk": "…", "nextOffset": n | null}` (byte offsets), or
/// `{"error":…}` for an offset that is not a char boundary of `text`.
#[wasm_bindgen(js_name = page)]
pub fn page(text: &str, offset: u32, max_bytes: u32) -> String {
    page_json(page::page(text, offset as usize, max_bytes as usize))
}

/// Like [`page()`], for read_page: pages end before a heading when one starts in their second
/// half ([`page::page_by_sections`]).
#[wasm_bindgen(js_name = pageBySections)]
pub fn page_by_sections(text: &str, offset: u32, max_bytes: u32) -> String {
    page_json(page::page_by_sections(text, offset as usize, max_bytes as usize))
}

fn page_json(result: Result<(&str, Option<usize>), EngineError>) -> String {
    match result {
        Ok((chunk, next)) => {
            let mut out = String::with_capacity(chunk.len() + 32);
            out.push_str("{\"chunk\":");
            json::write_str(&mut out, chunk);
            out.push_str(",\"nextOffset\":");
            match next {
                Some(n) => out.push_str(&n.to_string()),
                None => out.push_str("null"),
            }
            out.push('}');
            out
        }
        Err(e) => e.to_json(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_the_crate_version() {
        assert_eq!(engine_version(), env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn the_output_counts_its_text_in_utf8_bytes() {
        let out = snapshot(r#"{"frames":[{"nodes":[[0,1,"button"],[1,"Sauvé ✓"]]}]}"#);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let text = v["text"].as_str().unwrap();
        assert!(text.contains("Sauvé ✓"), "{text}");
        assert_eq!(v["bytes"].as_u64(), Some(text.len() as u64));
        assert!(text.len() > text.chars().count());
    }

    fn error_code(json: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["error"]["code"].as_str().unwrap_or("").to_owned()
    }

    #[test]
    fn bad_json_is_invalid_argument() {
        assert_eq!(error_code(&snapshot("{not json")), "INVALID_ARGUMENT");
        assert_eq!(error_code(&snapshot(r#"{"frames":[{"nodes":[{"d":"deep"}]}]}"#)), "INVALID_ARGUMENT");
        assert_eq!(error_code(&snapshot(r#"{"frames":[],"options":{"root":"button"}}"#)), "INVALID_ARGUMENT");
    }

    #[test]
    fn unknown_root_is_stale() {
        let json = snapshot(r#"{"frames":[{"nodes":[{"i":1,"d":0,"t":"div"}]}],"options":{"root":"e99"}}"#);
        assert_eq!(error_code(&json), "STALE");
        let json = snapshot(r#"{"frames":[{"nodes":[{"i":1,"d":0,"t":"div"}]}],"options":{"root":"f3e1"}}"#);
        assert_eq!(error_code(&json), "STALE");
    }

    #[test]
    fn snapshot_output_shape() {
        let json = snapshot(
            r##"{"frames":[{"url":"https://a.test/","title":"A","nodes":[{"i":1,"d":0,"t":"button"},{"d":1,"t":"#text","x":"Go"}]}]}"##,
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["text"], "[e1] button \"Go\"\n");
        assert_eq!(v["nodes"], 1);
        assert_eq!(v["refs"], 1);
        assert_eq!(v["collapsed"], 0);
        assert_eq!(v["title"], "A");
        assert_eq!(v["url"], "https://a.test/");
    }

    #[test]
    fn page_export() {
        let v: serde_json::Value = serde_json::from_str(&page("a\nb\n", 0, 2)).unwrap();
        assert_eq!(v["chunk"], "a\n");
        assert_eq!(v["nextOffset"], 2);
        let v: serde_json::Value = serde_json::from_str(&page("a\nb\n", 2, 10)).unwrap();
        assert_eq!(v["chunk"], "b\n");
        assert!(v["nextOffset"].is_null());
        assert_eq!(error_code(&page("é", 1, 10)), "INVALID_ARGUMENT");
        assert_eq!(error_code(&page("abc", 9, 10)), "INVALID_ARGUMENT");
    }
}
