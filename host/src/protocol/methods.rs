//! Every method and event of protocol v1, with its parameters, defined once. The host uses the
//! table to tell its own methods from the extension's; `extension/src/protocol.js` is
//! generated from it ([`super::js`]); the MCP tools call methods by these constants.

use serde::Serialize;

/// Who answers a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The host answers it itself; it never reaches the browser.
    Host,
    /// The host forwards it to the helper extension.
    Extension,
}

/// One parameter, JSON-schema style.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Param {
    pub name: &'static str,
    /// JSON type: `string`, `integer`, `number`, `boolean`, `array`, `object`.
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub required: bool,
    pub doc: &'static str,
}

/// One method.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Method {
    pub name: &'static str,
    pub target: Target,
    pub doc: &'static str,
    pub params: &'static [Param],
    /// The shape of a successful result, in words.
    pub result: &'static str,
}

/// One event the extension emits.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EventSpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [Param],
}

pub const CLIENT_HELLO: &str = "client.hello";
pub const SUBSCRIBE: &str = "subscribe";
pub const UNSUBSCRIBE: &str = "unsubscribe";
pub const HOST_INFO: &str = "host.info";
pub const PING: &str = "ping";
pub const BROWSER_INFO: &str = "browser.info";
pub const DEBUG_DIGEST: &str = "debug.digest";

/// The extension's first event.
pub const EVENT_HELLO: &str = "hello";

const fn p(name: &'static str, ty: &'static str, required: bool, doc: &'static str) -> Param {
    Param { name, ty, required, doc }
}

/// Every method, host-answered first.
pub const METHODS: &[Method] = &[
    Method {
        name: CLIENT_HELLO,
        target: Target::Host,
        doc: "First request of every client; a protocol mismatch answers VERSION_SKEW and closes.",
        params: &[
            p("protocol", "integer", true, "protocol version the client speaks"),
            p("name", "string", false, "free text for the host log"),
        ],
        result: "{protocol, host: descriptor, hello: the extension's hello}",
    },
    Method {
        name: SUBSCRIBE,
        target: Target::Host,
        doc: "Receive these extension events on this connection (`*` = all).",
        params: &[p("events", "array", true, "event names")],
        result: "{events: every name now subscribed}",
    },
    Method {
        name: UNSUBSCRIBE,
        target: Target::Host,
        doc: "Stop receiving these events.",
        params: &[p("events", "array", true, "event names")],
        result: "{events: every name still subscribed}",
    },
    Method {
        name: HOST_INFO,
        target: Target::Host,
        doc: "The host's descriptor and the extension's hello.",
        params: &[],
        result: "{descriptor, hello, clients, pending}",
    },
    Method {
        name: PING,
        target: Target::Extension,
        doc: "Round trip to the extension background.",
        params: &[p("payload", "string", false, "echoed back as `payload`")],
        result: "{pong: true, payload?, time: ms since epoch}",
    },
    Method {
        name: BROWSER_INFO,
        target: Target::Extension,
        doc: "What the extension sees: browser, platform, visible tabs, capabilities.",
        params: &[],
        result: "{browser, browserVersion, extVersion, label, platform: {os, arch}, \
                 tabs: [{windowId, tabId}] (windows by ascending id, tabs by index), capabilities: [string], \
                 lastError: {message, at} | null (the browser's words for the last native-messaging failure)}",
    },
    Method {
        name: DEBUG_DIGEST,
        target: Target::Extension,
        doc: "Diagnostic: what arrived in the extension, to check framing and chunk reassembly.",
        params: &[p("payload", "string", true, "any text; hashed as UTF-8")],
        result: "{length: UTF-16 units, bytes: UTF-8 bytes, sha256: hex of the UTF-8 bytes, \
                 chunked: bool, chunks: number of chunk frames (0 when whole), frameBytes: request body size}",
    },
];

/// Every event.
pub const EVENTS: &[EventSpec] = &[EventSpec {
    name: EVENT_HELLO,
    doc: "The extension's first frame after connectNative.",
    params: &[
        p("extVersion", "string", true, "helper extension version"),
        p("browser", "string", true, "browser name, e.g. chromium, chrome, edge, brave, firefox, zen"),
        p("browserVersion", "string", true, "browser version"),
        p("label", "string", true, "profile label (default `<browser>-<6 hex>`)"),
        p("capabilities", "array", true, "feature names, e.g. tabs, scripting, debugger"),
    ],
}];

/// The method named `name`, if it exists.
pub fn find(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_params_typed() {
        let mut seen = std::collections::HashSet::new();
        for m in METHODS {
            assert!(seen.insert(m.name), "duplicate {}", m.name);
            for p in m.params {
                assert!(["string", "integer", "number", "boolean", "array", "object"].contains(&p.ty));
            }
        }
        assert_eq!(find(PING).map(|m| m.target), Some(Target::Extension));
        assert_eq!(find(CLIENT_HELLO).map(|m| m.target), Some(Target::Host));
        assert!(find("nope").is_none());
    }
}
