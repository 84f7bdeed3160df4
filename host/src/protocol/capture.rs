//! The bounds of console and network capture (issue 30), stated once: the helper reads them
//! from the generated `protocol.js` (`CAPTURE`), the docs and tests from here.

use serde_json::{Value, json};

/// Console entries kept per tab (the oldest go first; repeats of the newest only count).
pub const CONSOLE_ENTRIES: u64 = 1000;
/// About this many bytes of console text (texts, URLs, stacks) per tab.
pub const CONSOLE_BYTES: u64 = 1024 * 1024;
/// Requests kept per tab.
pub const NETWORK_ENTRIES: u64 = 1000;
/// About this many bytes of request metadata (URLs, headers, request bodies) per tab.
pub const NETWORK_BYTES: u64 = 2 * 1024 * 1024;
/// The most kept of one response body.
pub const BODY_BYTES: u64 = 1024 * 1024;
/// The most kept of one tab's response bodies together (the oldest are evicted).
pub const TAB_BODY_BYTES: u64 = 8 * 1024 * 1024;
/// The most kept of one request body.
pub const REQUEST_BODY_BYTES: u64 = 64 * 1024;

/// The `CAPTURE` object of `protocol.js`.
pub fn capture_js() -> Value {
    json!({
        "consoleEntries": CONSOLE_ENTRIES,
        "consoleBytes": CONSOLE_BYTES,
        "networkEntries": NETWORK_ENTRIES,
        "networkBytes": NETWORK_BYTES,
        "bodyBytes": BODY_BYTES,
        "tabBodyBytes": TAB_BODY_BYTES,
        "requestBodyBytes": REQUEST_BODY_BYTES,
    })
}
