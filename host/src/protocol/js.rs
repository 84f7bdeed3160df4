//! Generates `extension/src/protocol.js`, the helper extension's copy of the protocol
//! constants, from this module, so the two ends cannot drift. A test compares the committed
//! file with [`protocol_js`]; `WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host` rewrites it.

use serde_json::{Map, Value, json};

use super::methods::{EVENTS, METHODS, Param};
use super::{
    CHUNK_DEADLINE_MS, ErrorCode, FINGERPRINT_LEN, FINGERPRINT_SEPARATOR, HELPER_CHROMIUM_ID,
    HELPER_GECKO_ID, MAX_FROM_BROWSER, MAX_SOCKET_FRAME, MAX_TO_BROWSER, MAX_UNFINISHED_CHUNKS,
    NATIVE_HOST_NAME, PROTOCOL_VERSION,
};

/// Path of the generated file, relative to the workspace root.
pub const PROTOCOL_JS_PATH: &str = "extension/src/protocol.js";

fn params_schema(params: &[Param]) -> Value {
    let mut props = Map::new();
    for p in params {
        let mut spec = json!({ "type": p.ty, "required": p.required, "doc": p.doc });
        for (key, value) in [
            ("default", p.default.map(|d| json!(d))),
            ("min", p.min.map(Value::from)),
            ("max", p.max.map(Value::from)),
        ] {
            if let Some(v) = value {
                spec[key] = v;
            }
        }
        props.insert(p.name.to_owned(), spec);
    }
    Value::Object(props)
}

/// `page.resolveRef` → `PAGE_RESOLVE_REF`.
fn constant_key(name: &str) -> String {
    let mut key = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            key.push('_');
        }
        key.push(if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' });
    }
    key
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// The full text of `extension/src/protocol.js`.
pub fn protocol_js() -> String {
    let codes: Map<String, Value> =
        ErrorCode::ALL.iter().map(|c| (c.as_str().to_owned(), Value::from(c.as_str()))).collect();
    let method_names: Map<String, Value> =
        METHODS.iter().map(|m| (constant_key(m.name), Value::from(m.name))).collect();
    let method_specs: Map<String, Value> = METHODS
        .iter()
        .map(|m| {
            let spec = json!({ "target": m.target, "doc": m.doc, "params": params_schema(m.params), "result": m.result });
            (m.name.to_owned(), spec)
        })
        .collect();
    let event_names: Map<String, Value> =
        EVENTS.iter().map(|e| (constant_key(e.name), Value::from(e.name))).collect();
    let event_specs: Map<String, Value> = EVENTS
        .iter()
        .map(|e| (e.name.to_owned(), json!({ "doc": e.doc, "params": params_schema(e.params) })))
        .collect();
    let limits = json!({
        "hostToBrowserFrame": MAX_TO_BROWSER,
        "browserToHostFrame": MAX_FROM_BROWSER,
        "socketFrame": MAX_SOCKET_FRAME,
        "unfinishedChunks": MAX_UNFINISHED_CHUNKS,
        "chunkDeadlineMs": CHUNK_DEADLINE_MS,
        "defaultCallTimeoutMs": crate::router::DEFAULT_TIMEOUT.as_millis() as u64,
        "maxCallTimeoutMs": crate::router::MAX_TIMEOUT.as_millis() as u64,
        "callMarginMs": super::timeouts::CALL_MARGIN_MS,
    });
    let chunk = json!({
        "key": "chunk",
        "fields": ["id", "seq", "last"],
        "dataKey": "data",
        "example": { "v": PROTOCOL_VERSION, "chunk": { "id": "c1:7", "seq": 0, "last": false }, "data": "…" },
        "doc": "Concatenate `data` of seq 0, 1, … until `last`; the result is the JSON text of one frame.",
    });
    let fingerprint = json!({
        "length": FINGERPRINT_LEN,
        "separator": FINGERPRINT_SEPARATOR,
        "doc": "first 12 hex of sha256 over `${windowId}:${tabId}` joined with ',' (windows by ascending id, tabs by index)",
    });
    let mut out = String::new();
    out.push_str("// Generated from host/src/protocol (webext-mcp-host); do not edit by hand.\n");
    out.push_str("// Regenerate: WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host protocol_js\n\n");
    out.push_str(&format!("export const PROTOCOL_VERSION = {PROTOCOL_VERSION};\n"));
    out.push_str(&format!("export const NATIVE_HOST_NAME = {};\n", Value::from(NATIVE_HOST_NAME)));
    out.push_str(&format!("export const HELPER_GECKO_ID = {};\n", Value::from(HELPER_GECKO_ID)));
    out.push_str(&format!("export const HELPER_CHROMIUM_ID = {};\n\n", Value::from(HELPER_CHROMIUM_ID)));
    for (name, value) in [
        ("LIMITS", limits),
        ("ERROR_CODES", Value::Object(codes)),
        ("METHODS", Value::Object(method_names)),
        ("METHOD_SPECS", Value::Object(method_specs)),
        ("EVENTS", Value::Object(event_names)),
        ("EVENT_SPECS", Value::Object(event_specs)),
        ("CHUNK", chunk),
        ("FINGERPRINT", fingerprint),
        ("CAPTURE", super::capture::capture_js()),
    ] {
        out.push_str(&format!("export const {name} = Object.freeze({});\n\n", pretty(&value)));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The helper's modules take defaults and limits from `protocol.js`; a `DEFAULT_…` or
    /// `MAX_…` constant set to a number literal is a copy that would drift.
    #[test]
    fn the_helper_restates_no_default_or_limit() {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extension/src");
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "js") || path.ends_with("protocol.js") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                let t = line.trim_start();
                let restated = t.starts_with("const ") || t.starts_with("export const ");
                let name = t.trim_start_matches("export ").trim_start_matches("const ");
                let number = name
                    .split_once('=')
                    .is_some_and(|(_, v)| v.trim().trim_end_matches(';').parse::<f64>().is_ok());
                if restated && (name.starts_with("DEFAULT_") || name.starts_with("MAX_")) && number {
                    panic!(
                        "{}: `{}` restates a protocol default or limit; read it from protocol.js",
                        path.display(),
                        t
                    );
                }
            }
        }
    }

    #[test]
    fn protocol_js_is_fresh() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(PROTOCOL_JS_PATH);
        let want = protocol_js();
        if std::env::var_os("WEBEXT_MCP_BLESS").is_some_and(|v| v == "1") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale; regenerate it with `WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host protocol_js`",
            path.display()
        );
    }

    #[test]
    fn constant_keys_split_camel_case() {
        assert_eq!(constant_key("page.resolveRef"), "PAGE_RESOLVE_REF");
        assert_eq!(constant_key("client.hello"), "CLIENT_HELLO");
    }

    #[test]
    fn generated_text_names_every_code_and_method() {
        let js = protocol_js();
        for c in ErrorCode::ALL {
            assert!(js.contains(c.as_str()));
        }
        for m in METHODS {
            assert!(js.contains(&format!("\"{}\"", m.name)));
        }
        assert!(js.contains("\"hostToBrowserFrame\": 1048576"));
    }
}
