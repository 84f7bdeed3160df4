//! `webext-mcp-engine`: the helper extension's snapshot engine, Rust compiled to wasm.
//!
//! ```text
//! page collector (plain JS) ──table──▶ background ──▶ engine (this crate, wasm) ──▶ snapshot text
//! ```
//!
//! It runs only in the extension background, on data the collector gathered, so it is pure
//! logic and tested with plain `cargo test`.

use wasm_bindgen::prelude::wasm_bindgen;

/// The engine's version, checked by the extension against the version it was built with.
#[wasm_bindgen(js_name = engineVersion)]
pub fn engine_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_the_crate_version() {
        assert_eq!(super::engine_version(), env!("CARGO_PKG_VERSION"));
    }
}
