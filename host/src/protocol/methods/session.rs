//! Methods the host answers itself, and the helper's own: the handshake, event subscriptions,
//! `host.info`, `ping`, `browser.info`, `debug.digest`.

use super::*;

pub(super) const METHODS: &[Method] = &[
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
        params: &[p(
            "container",
            "string",
            false,
            "only this cookie store's tabs (a container-scoped server)",
        )],
        result: "{browser, browserVersion, extVersion, label, platform: {os, arch}, \
                 tabs: [{windowId, tabId}] (windows by ascending id, tabs by index), capabilities: [string], \
                 lastError: {message, at} | null (the browser's words for the last native-messaging failure), \
                 debuggerSessions: tabs the helper's debugger is attached to now, \
                 permissions: {permissions, origins} granted now (permissions.getAll())}",
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
