//! Methods the host answers itself, and the helper's own: the handshake, event subscriptions,
//! `host.info`, `ping`, `browser.info`, `debug.digest`.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
        name: CLIENT_HELLO,
        target: Target::Host,
        doc: "First request of every client; a protocol mismatch answers VERSION_SKEW and closes.",
        params: &[
            p("protocol", "integer", true, "protocol version the client speaks"),
            p("name", "string", false, "free text for the host log"),
        ],
        result: "{protocol, host: descriptor, hello: the extension's hello}",
    },
    MethodSpec {
        name: SUBSCRIBE,
        target: Target::Host,
        doc: "Receive these extension events on this connection (`*` = all).",
        params: &[p("events", "array", true, "event names")],
        result: "{events: every name now subscribed}",
    },
    MethodSpec {
        name: UNSUBSCRIBE,
        target: Target::Host,
        doc: "Stop receiving these events.",
        params: &[p("events", "array", true, "event names")],
        result: "{events: every name still subscribed}",
    },
    MethodSpec {
        name: HOST_INFO,
        target: Target::Host,
        doc: "The host's descriptor and the extension's hello.",
        params: &[],
        result: "{descriptor, hello, clients, pending}",
    },
    MethodSpec {
        name: PING,
        target: Target::Extension,
        doc: "Round trip to the extension background.",
        params: &[p("payload", "string", false, "echoed back as `payload`")],
        result: "{pong: true, payload?, time: ms since epoch}",
    },
    MethodSpec {
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
    MethodSpec {
        name: DEBUG_DIGEST,
        target: Target::Extension,
        doc: "Diagnostic: what arrived in the extension, to check framing and chunk reassembly.",
        params: &[p("payload", "string", true, "any text; hashed as UTF-8")],
        result: "{length: UTF-16 units, bytes: UTF-8 bytes, sha256: hex of the UTF-8 bytes, \
                 chunked: bool, chunks: number of chunk frames (0 when whole), frameBytes: request body size}",
    },
];

typed_methods!(Ping, BrowserInfo, DebugDigest);

/// `ping`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ping {
    /// Echoed back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
}
method!(Ping => PING, Pong, TAB_CALL_TIMEOUT_MS);

/// `browser.info` (the caller adds `container` for a container-scoped server).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BrowserInfo {}
method!(BrowserInfo => BROWSER_INFO, BrowserReport, TAB_CALL_TIMEOUT_MS);

/// `debug.digest`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DebugDigest {
    pub payload: String,
}
method!(DebugDigest => DEBUG_DIGEST, Digest, TAB_CALL_TIMEOUT_MS);

/// `debug.digest`'s answer: what arrived, measured in the extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// UTF-16 code units.
    pub length: u64,
    /// UTF-8 bytes.
    pub bytes: u64,
    pub sha256: String,
    pub chunked: bool,
    pub chunks: u64,
    pub frame_bytes: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A visible tab's place, for the tab-set fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabPlace {
    pub window_id: i64,
    pub tab_id: i64,
}

/// `browser.info`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserReport {
    pub browser: String,
    pub browser_version: String,
    /// `{os, arch}`.
    pub platform: Value,
    pub tabs: Vec<TabPlace>,
    pub capabilities: Vec<String>,
    /// Tabs the helper's debugger is attached to right now; 0 when absent (as before the
    /// typed result: helpers and scripted peers without debugger mode leave it out).
    #[serde(default)]
    pub debugger_sessions: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

impl BrowserReport {
    /// The visible tabs as `(windowId, tabId)`, in the helper's order.
    pub fn places(&self) -> Vec<(i64, i64)> {
        self.tabs.iter().map(|t| (t.window_id, t.tab_id)).collect()
    }
}

/// `ping`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pong {
    pub pong: bool,
    /// The text sent, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// The helper's clock, ms since the epoch.
    pub time: u64,
    #[serde(flatten)]
    pub extra: Extra,
}
