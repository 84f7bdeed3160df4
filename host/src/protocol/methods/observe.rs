//! Console and network logs.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
        name: CONSOLE_LIST,
        target: Target::Extension,
        doc: "The tab's captured console messages, uncaught errors, rejections, CSP violations and \
              failed loads, oldest first; starts capturing in a tab the helper had not seen yet.",
        params: tab_params![
            p("level", "string", false, "least severe level shown: debug | log | info | warn | error"),
            p("since", "integer", false, "only entries after this seq (`lastSeq` of an earlier answer)"),
            p("contains", "string", false, "only entries whose text contains this"),
            p("maxBytes", "integer", false, "page size (JSON of the entries)")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES))
                .within(256, 1_048_576),
            p("cursor", "string", false, "`nextCursor` of the previous page"),
            p(
                "viaDebugger",
                "boolean",
                false,
                "Chromium with debugger mode: true takes the tab's console from CDP from now on (Runtime, Log; the debugging bar shows), false goes back to the hook",
            ),
        ],
        result: "{tab, via: hook | debugger | off, debugger?: {on: false, why}, capturedSince: ms | null, entries: [{seq, level, source, text, url?, line?, \
                 column?, stack?, time, count, doc, frameId}], documents: [{doc, url, frameId, current}], \
                 total: matching entries, dropped: older entries dropped by the bounds, lastSeq, nextCursor}",
    },
    MethodSpec {
        name: CONSOLE_CLEAR,
        target: Target::Extension,
        doc: "Forgets the tab's captured console entries (capture goes on; seq numbers are not reused).",
        params: tab_params![],
        result: "{tab, cleared: number of entries}",
    },
    MethodSpec {
        name: NETWORK_LIST,
        target: Target::Extension,
        doc: "The tab's requests seen through webRequest, oldest first (method, URL, status, type, \
              timings, sizes, cache, failure); starts capturing in a tab the helper had not seen yet.",
        params: tab_params![
            p("url", "string", false, "URL substring, or a pattern with *"),
            p(
                "type",
                "string",
                false,
                "resource type: document, script, stylesheet, image, font, fetch (XHR and fetch), media, websocket, other"
            ),
            p("status", "string", false, "200, 4xx, 5xx, ok (2xx/3xx), failed (no response)"),
            p("since", "integer", false, "only entries after this seq (`lastSeq` of an earlier answer)"),
            p("maxBytes", "integer", false, "page size (JSON of the entries)")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES))
                .within(256, 1_048_576),
            p("cursor", "string", false, "`nextCursor` of the previous page"),
            p(
                "captureBodies",
                "boolean",
                false,
                "Chromium with debugger mode: keep response bodies of the tab's next loads (true) or stop (false)"
            ),
        ],
        result: "{tab, capturedSince, bodies: {captured: bool, via?, why?}, entries: [{seq, id, method, url, type, status?, \
                 statusText?, fromCache, failed, error?, initiator?, frameId, doc, timings, sizes, body}], total, \
                 dropped, lastSeq, nextCursor}",
    },
    MethodSpec {
        name: NETWORK_GET,
        target: Target::Extension,
        doc: "One request of the tab in full: headers both ways, request body, response body when captured.",
        params: tab_params![
            p("id", "string", true, "the request's `id` from network.list"),
            p("maxBytes", "integer", false, "most bytes of each body returned")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES))
                .within(0, 1_048_576),
        ],
        result: "{tab, request: the list entry plus requestHeaders, responseHeaders: [{name, value}], \
                 requestBody?: {text | formData, bytes, truncated}, responseBody: {available, text?, base64?, bytes, \
                 truncated, why?}}",
    },
];

typed_methods!(ConsoleList, ConsoleClear, NetworkList, NetworkGet);

/// `console.list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleList {
    /// The least severe level shown: debug, log, info, warn or error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_debugger: Option<bool>,
}
method!(ConsoleList => CONSOLE_LIST, ConsoleEntries, TAB_CALL_TIMEOUT_MS);

/// `console.clear`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConsoleClear {}
method!(ConsoleClear => CONSOLE_CLEAR, ConsoleCleared, TAB_CALL_TIMEOUT_MS);

/// `network.list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkList {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// 200, 4xx, 5xx, ok or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_bodies: Option<bool>,
}
method!(NetworkList => NETWORK_LIST, NetworkEntries, TAB_CALL_TIMEOUT_MS);

/// `network.get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkGet {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}
method!(NetworkGet => NETWORK_GET, Got, TAB_CALL_TIMEOUT_MS);

/// One captured message, as the helper keeps it (`consolelog.js`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    pub seq: u64,
    pub level: String,
    /// console | exception | rejection | csp | network.
    pub source: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directive: Option<String>,
    /// Milliseconds since the epoch (the page's clock).
    pub time: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_time: Option<f64>,
    /// How many times it came in a row.
    pub count: u64,
    /// The document it came from (see `documents`).
    pub doc: u64,
    pub frame_id: i64,
}

/// A document entries came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleDocument {
    pub doc: u64,
    pub url: String,
    pub frame_id: i64,
    /// The frame's newest document (false: the tab navigated away from it).
    pub current: bool,
    /// Hooked after it started: what it said before is not captured.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub late: bool,
}

/// `console.list`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntries {
    pub tab: Tab,
    /// `hook`: the page-side hook; `debugger`: Chromium's CDP (`viaDebugger: true`); `off`.
    pub via: String,
    /// Present when `viaDebugger: true` could not start, saying why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debugger: Option<DebuggerRefusal>,
    pub captured_since: Option<f64>,
    pub entries: Vec<ConsoleEntry>,
    pub documents: Vec<ConsoleDocument>,
    /// Entries matching the filters after `since`/`cursor` (this page and the next ones).
    pub total: u64,
    /// Older entries dropped by the tab's bounds.
    pub dropped: u64,
    pub last_seq: u64,
    pub next_cursor: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Why the debugger console did not start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebuggerRefusal {
    pub on: bool,
    pub why: String,
}

/// `console.clear`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleCleared {
    pub tab: Tab,
    pub cleared: u64,
}

/// When each stage happened (webRequest `timeStamp`s, ms since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub start: f64,
    /// Request headers sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<f64>,
    /// Response headers received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<f64>,
    /// First response byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<f64>,
    /// Completed, failed or redirected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<f64>,
}

impl Timings {
    pub fn duration_ms(&self) -> Option<f64> {
        self.end.map(|e| (e - self.start).max(0.0))
    }
}

/// One request in a list (`netlog.js` `summary`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub seq: u64,
    pub id: String,
    pub method: String,
    pub url: String,
    /// webRequest's resource type (main_frame, xmlhttprequest, image, …).
    #[serde(rename = "type")]
    pub resource_type: String,
    pub frame_id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    pub failed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub from_cache: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_url: Option<String>,
    pub timings: Timings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Value>,
    /// `{state: none | receiving | complete | error | evicted, bytes?}`.
    pub body: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `network.list`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEntries {
    pub tab: Tab,
    pub captured_since: Option<f64>,
    /// Whether this browser keeps response bodies here, and why not.
    pub bodies: Bodies,
    pub entries: Vec<Request>,
    pub total: u64,
    pub dropped: u64,
    pub last_seq: u64,
    pub next_cursor: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A header, as sent or received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub name: String,
    pub value: String,
}

/// One request in full (`network.get`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Detail {
    #[serde(flatten)]
    pub request: Request,
    pub request_headers: Vec<Header>,
    pub response_headers: Vec<Header>,
    /// `{formData: {name: [values]}, bytes}` or `{text, bytes, truncated}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Value>,
    /// `{available, text?, bytes?, truncated?, mimeType?, why?}`.
    pub response_body: Value,
}

/// `network.get`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Got {
    pub tab: Tab,
    pub request: Detail,
}

/// Whether response bodies are kept for the tab (`network.list`'s `bodies`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bodies {
    pub captured: bool,
    /// How they are kept (`debugger`, `filterResponseData`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Why they are not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
