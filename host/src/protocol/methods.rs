//! Every method and event of protocol v1, with its parameters, defined once. The host uses the
//! table to tell its own methods from the extension's; `extension/src/protocol.js` is
//! generated from it ([`super::js`]); the MCP tools call methods by these constants.

use serde::Serialize;

use super::timeouts::{
    ACTION_TIMEOUT_MS, LOAD_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, TAB_CALL_TIMEOUT_MS,
};

/// Who answers a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The host answers it itself; it never reaches the browser.
    Host,
    /// The host forwards it to the helper extension.
    Extension,
}

/// A parameter's default value: used by whichever end fills the parameter in (the extension
/// reads it from the generated `protocol.js`, Rust from this table), so it is stated once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DefaultValue {
    Int(i64),
    Str(&'static str),
    Bool(bool),
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultValue>,
    /// Inclusive bounds of an integer parameter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
}

impl Param {
    /// With a default value.
    pub const fn or(mut self, default: DefaultValue) -> Param {
        self.default = Some(default);
        self
    }

    /// With inclusive bounds.
    pub const fn within(mut self, min: i64, max: i64) -> Param {
        self.min = Some(min);
        self.max = Some(max);
        self
    }
}

/// The parameter `param` of method `method`, if the table has it.
pub fn param(method: &str, param: &str) -> Option<&'static Param> {
    find(method)?.params.iter().find(|p| p.name == param)
}

/// The integer default of `param` of `method` (a table entry every caller relies on: a
/// missing one is a bug the tests catch, answered here with 0).
pub fn int_default(method: &str, param: &str) -> i64 {
    match self::param(method, param).and_then(|p| p.default) {
        Some(DefaultValue::Int(n)) => n,
        _ => 0,
    }
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
pub const TABS_LIST: &str = "tabs.list";
pub const TABS_NEW: &str = "tabs.new";
pub const TABS_NAVIGATE: &str = "tabs.navigate";
pub const TABS_SELECT: &str = "tabs.select";
pub const TABS_CLOSE: &str = "tabs.close";
pub const PAGE_SNAPSHOT: &str = "page.snapshot";
pub const PAGE_CLEAR_SNAPSHOT: &str = "page.clearSnapshot";
pub const PAGE_RESOLVE_REF: &str = "page.resolveRef";
pub const PAGE_TEXT: &str = "page.text";
pub const PAGE_FIND: &str = "page.find";
pub const PAGE_ACT: &str = "page.act";
pub const PAGE_FILL_FORM: &str = "page.fillForm";
pub const PAGE_UPLOAD_OPEN: &str = "page.uploadOpen";
pub const PAGE_UPLOAD_CHUNK: &str = "page.uploadChunk";
pub const PAGE_UPLOAD_CANCEL: &str = "page.uploadCancel";
pub const PAGE_UPLOAD: &str = "page.upload";
pub const CONTAINERS_LIST: &str = "containers.list";
pub const PAGE_EVALUATE: &str = "page.evaluate";
pub const PAGE_WAIT_FOR: &str = "page.waitFor";
pub const PAGE_DIALOG: &str = "page.dialog";
pub const PAGE_SCREENSHOT: &str = "page.screenshot";
pub const PAGE_RESIZE: &str = "page.resize";
pub const PAGE_EMULATE: &str = "page.emulate";
pub const COOKIES_GET: &str = "cookies.get";
pub const COOKIES_SET: &str = "cookies.set";
pub const COOKIES_CLEAR: &str = "cookies.clear";
pub const STORAGE_GET: &str = "storage.get";
pub const STORAGE_SET: &str = "storage.set";
pub const STORAGE_CLEAR: &str = "storage.clear";
pub const CONSOLE_LIST: &str = "console.list";
pub const CONSOLE_CLEAR: &str = "console.clear";
pub const NETWORK_LIST: &str = "network.list";
pub const NETWORK_GET: &str = "network.get";

/// The extension's first event.
pub const EVENT_HELLO: &str = "hello";
/// A tab's console or network log has new entries, or the tab closed (ids and seqs only).
pub const EVENT_OBSERVE_CHANGED: &str = "observe.changed";

const fn p(name: &'static str, ty: &'static str, required: bool, doc: &'static str) -> Param {
    Param { name, ty, required, doc, default: None, min: None, max: None }
}

/// Page size of paged text results (snapshots, evaluate).
pub const DEFAULT_MAX_BYTES: i64 = 16_384;

/// A `timeoutMs` parameter with its default, within the one timeout policy's range.
const fn timeout_ms(doc: &'static str, default: u64) -> Param {
    p("timeoutMs", "integer", false, doc)
        .or(DefaultValue::Int(default as i64))
        .within(MIN_TIMEOUT_MS as i64, MAX_TIMEOUT_MS as i64)
}

/// How every per-tab method names its tab: at most one of `tabId` / `pageIdx`, optionally
/// guarded by `expectTabSet`. The extension resolves them in the same call that acts, so a
/// tab set that changed in between gives `STALE` and nothing is done.
macro_rules! tab_params {
    ($($extra:expr),* $(,)?) => {
        &[
            p("tabId", "integer", false, "the tab (preferred)"),
            p("pageIdx", "integer", false, "position in the visible tab list of `tabs.list`"),
            p("expectTabSet", "string", false, "tab-set fingerprint the caller saw; STALE when it changed"),
            p("container", "string", false, "a container-scoped server's cookie store: other tabs are NOT_FOUND"),
            $($extra),*
        ]
    };
}

/// Screenshot budget: the default byte size, the hard cap, and the default long side (what
/// vision models read well).
pub const SCREENSHOT_MAX_BYTES: i64 = 204_800;
pub const SCREENSHOT_HARD_MAX_BYTES: i64 = 1_048_576;
pub const SCREENSHOT_MAX_WIDTH: i64 = 1568;

/// Bounds of a viewport side `page.resize` takes, CSS px.
pub const VIEWPORT_MIN: i64 = 100;
pub const VIEWPORT_MAX: i64 = 7680;

/// Page size of cookie and storage listings.
pub const LISTING_MAX_BYTES: i64 = 16_384;

/// Cookie filters shared by `cookies.get` and `cookies.clear` (the `cookies.getAll` details).
macro_rules! cookie_filters {
    ($($extra:expr),* $(,)?) => {
        &[
            p("url", "string", false, "cookies the browser would send to this URL"),
            p("domain", "string", false, "cookies of this domain and its subdomains"),
            p("name", "string", false, "only cookies of this name"),
            p("storeId", "string", false, "cookie store (Firefox container `firefox-container-N`, private store)"),
            p("partitionKey", "object", false, "CHIPS partition `{topLevelSite}`; `{}` = every partition"),
            $($extra),*
        ]
    };
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
    Method {
        name: TABS_LIST,
        target: Target::Extension,
        doc: "The tabs visible to the extension, in fingerprint order.",
        params: &[p(
            "container",
            "string",
            false,
            "only this cookie store's tabs (a container-scoped server)",
        )],
        result: "{tabs: [{tabId, windowId, index, url, title, active, status, container}], fingerprint, activeTabId}",
    },
    Method {
        name: CONTAINERS_LIST,
        target: Target::Extension,
        doc: "Firefox containers (contextual identities) with their tab counts; UNSUPPORTED in Chromium.",
        params: &[],
        result: "{containers: [{name, color, icon, cookieStoreId, tabs}]}",
    },
    Method {
        name: TABS_NEW,
        target: Target::Extension,
        doc: "Opens a tab, in the background unless `active`; waits for its load.",
        params: &[
            p("url", "string", false, "the page to open").or(DefaultValue::Str("about:blank")),
            p("active", "boolean", false, "bring it to the front").or(DefaultValue::Bool(false)),
            p("cookieStoreId", "string", false, "Firefox: open it in this container (UNSUPPORTED elsewhere)"),
            p("window", "string", false, "current | agent (the agent's own unfocused window)")
                .or(DefaultValue::Str("current")),
            timeout_ms("load wait", LOAD_TIMEOUT_MS),
        ],
        result: "{tab, loaded: bool}",
    },
    Method {
        name: TABS_NAVIGATE,
        target: Target::Extension,
        doc: "Loads a URL, goes back/forward or reloads, then waits for the load.",
        params: tab_params![
            p("type", "string", true, "url | back | forward | reload"),
            p("url", "string", false, "with type url"),
            p("steps", "integer", false, "history entries to move with back/forward")
                .or(DefaultValue::Int(1)),
            timeout_ms("load wait", LOAD_TIMEOUT_MS),
        ],
        result: "{tab, loaded: bool, moved: bool}",
    },
    Method {
        name: TABS_SELECT,
        target: Target::Extension,
        doc: "Brings a tab to the front (and its window); by address or by URL substring.",
        params: tab_params![p("url", "string", false, "substring of the URL, instead of tabId/pageIdx")],
        result: "{tab}",
    },
    Method {
        name: TABS_CLOSE,
        target: Target::Extension,
        doc: "Closes a tab.",
        params: tab_params![],
        result: "{closed: tabId}",
    },
    Method {
        name: PAGE_SNAPSHOT,
        target: Target::Extension,
        doc: "Snapshot of a tab's DOM as a text tree with refs (collector + engine); pages with `cursor`.",
        params: tab_params![
            p(
                "cursor",
                "string",
                false,
                "`<snapshotId>:<offset>` from a previous page; STALE once superseded"
            ),
            p("maxBytes", "integer", false, "page size").or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("interactiveOnly", "boolean", false, "only interactive elements, flat"),
            p("viewportOnly", "boolean", false, "only what intersects the viewport"),
            p("root", "string", false, "ref whose subtree to render (expands collapsed runs)"),
            p("maxDepth", "integer", false, "depth limit below the root"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
            p("diff", "boolean", false, "only what changed since this client's previous snapshot of the tab"),
        ],
        result: "{snapshotId, diff?: {full: true, why} | {full: false, since, added, removed, changed}, tab, text: this page, offset, nextCursor: string | null, totalBytes,                  nodes, refs, collapsed, frames, timings: {prepMs, collectMs, walkMs, mapMs, jsonMs, transferMs,                  engineMs, pageMs, helperMs, walkers: [\"main\" | \"isolated\" per frame]}}",
    },
    Method {
        name: PAGE_CLEAR_SNAPSHOT,
        target: Target::Extension,
        doc: "Forgets the tab's cached snapshot and tables (refs stay valid: they name elements).",
        params: tab_params![],
        result: "{cleared: bool}",
    },
    Method {
        name: PAGE_TEXT,
        target: Target::Extension,
        doc: "The tab's visible text in reading order, one line per block (frames included, hidden text left out, redacted); pages with `cursor`.",
        params: tab_params![
            p("cursor", "string", false, "`<textId>:<offset>` from a previous page; STALE once superseded"),
            p("maxBytes", "integer", false, "page size").or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("root", "string", false, "ref whose subtree to read"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
            p(
                "main",
                "boolean",
                false,
                "read_page: the main content as structured text (headings, lists, tables, code, links with refs)"
            ),
        ],
        result: "{snapshotId: t<N> (m<N> with main), tab, text: this page, offset, nextCursor: string | null, totalBytes: null while only the start of a long page was read, pageChanged?: true when the page changed since the previous page, nodes: lines, frames}",
    },
    Method {
        name: PAGE_FIND,
        target: Target::Extension,
        doc: "Elements whose text, accessible name, placeholder, alt, title or aria-label match `query`; one line each with its ref.",
        params: tab_params![
            p(
                "query",
                "string",
                true,
                "text to find (whitespace-normalized), or `/pattern/flags` (JavaScript RegExp)"
            ),
            p("exact", "boolean", false, "whole text equal (whitespace-normalized), not a substring"),
            p("caseSensitive", "boolean", false, "match case"),
            p("limit", "integer", false, "most hits per page").or(DefaultValue::Int(50)),
            p("cursor", "string", false, "`<findId>:<offset>` from a previous page"),
            p("redact", "string", false, "safe | strict | off").or(DefaultValue::Str("safe")),
        ],
        result: "{snapshotId: q<N>, tab, text: one line per hit, offset, nextCursor: string | null, totalBytes, hits: [{ref, role, name, field, context, inViewport}], total}",
    },
    Method {
        name: PAGE_RESOLVE_REF,
        target: Target::Extension,
        doc: "A CSS selector that finds the element a ref names (through open shadow roots: one per host).",
        params: tab_params![p("ref", "string", true, "e12 or f2e7")],
        result: "{ref, selector, shadowPath: [selector…], frame: {ordinal, frameId, url}, tag, unique: bool}",
    },
    Method {
        name: PAGE_ACT,
        target: Target::Extension,
        doc: "One action with auto-wait (attached, visible, enabled, stable box, hit test), then settle.",
        params: tab_params![
            p("action", "string", true, "click | hover | fill | type | select | press | scroll | drag"),
            p(
                "locator",
                "string",
                false,
                "a ref (e12, f2e7), text=…, role=button[name=\"…\"] or a CSS selector"
            ),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p("to", "string", false, "drag: the drop target's locator"),
            p("toNth", "integer", false, "drag: which match of `to`"),
            p("value", "string|boolean", false, "fill: the value (text; checkboxes and radios: true/false)"),
            p("text", "string", false, "type: the text, key by key"),
            p("values", "array", false, "select: option values or labels"),
            p("key", "string", false, "press: a key name (Enter, Tab, Escape, a, …)"),
            p("shift", "boolean", false, "press: with Shift (Shift+Tab)"),
            p("dx", "integer", false, "scroll without locator: pixels right"),
            p("dy", "integer", false, "scroll without locator: pixels down"),
            timeout_ms("auto-wait and navigation deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{action, ref, element, input: synthetic | trusted, waitedMs, settledMs, navigated, tab, \
                 changes: {added: [snapshot lines], removed: [refs], truncated} | null}",
    },
    Method {
        name: PAGE_FILL_FORM,
        target: Target::Extension,
        doc: "Fills several fields by ref (each auto-waited), then settles once.",
        params: tab_params![
            p("fields", "array", true, "[{ref, value}]"),
            timeout_ms("deadline for the whole form", ACTION_TIMEOUT_MS),
        ],
        result: "{action: fill_form, filled: [{ref, element}], input, settledMs, navigated, tab, changes}",
    },
    Method {
        name: PAGE_UPLOAD_OPEN,
        target: Target::Extension,
        doc: "Opens a staged upload: resolves the element (auto-waited, a ref re-checked) and binds the upload to it, so the pieces that follow go straight to its frame.",
        params: tab_params![
            p("upload", "string", true, "the upload's id (8–64 of A-Z a-z 0-9 _ -), chosen by the caller"),
            p("locator", "string", true, "a ref (e12, f2e7), text=… or a CSS selector"),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p("files", "array", true, "[{name, type, size, lastModified}] in staging order"),
            p("drop", "boolean", false, "drop the files on the element instead of setting an input's files"),
            timeout_ms("auto-wait deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{upload, element, accept, warnings, staging: page | helper}",
    },
    Method {
        name: PAGE_UPLOAD_CHUNK,
        target: Target::Extension,
        doc: "One piece of a file of an open upload: decoded in the element's frame (or kept in the background for a Firefox drop); pieces may arrive in any order and stay under the message cap; an upload expires 60 s after its last piece.",
        params: tab_params![
            p("upload", "string", true, "the id page.uploadOpen opened"),
            p("file", "integer", true, "which file of the upload (0-based)"),
            p("index", "integer", true, "which piece of that file (0-based)"),
            p(
                "data",
                "string",
                true,
                "the piece, base64 (every piece but a file's last is a multiple of 3 bytes)"
            ),
        ],
        result: "{upload, file, index, stagedBytes}",
    },
    Method {
        name: PAGE_UPLOAD_CANCEL,
        target: Target::Extension,
        doc: "Drops an open upload and every piece staged for it (in the background and in the page).",
        params: tab_params![p("upload", "string", true, "the id page.uploadOpen opened")],
        result: "{upload, cancelled}",
    },
    Method {
        name: PAGE_UPLOAD,
        target: Target::Extension,
        doc: "Sets the files of an open upload on its <input type=file> (input and change events), or drops them on its element (dragenter, dragover, drop), then settles.",
        params: tab_params![
            p("locator", "string", true, "a ref (e12, f2e7), text=…, role=…[name=\"…\"] or a CSS selector"),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p(
                "upload",
                "string",
                false,
                "the id page.uploadOpen opened (required without `paths`); the locator must name the element it was opened for"
            ),
            p("files", "array", true, "[{name, type, size, lastModified}] in staging order"),
            p(
                "paths",
                "array",
                false,
                "Chromium debugger mode, an <input type=file> of the top document: the admitted real paths, \
                 set by DOM.setFileInputFiles (nothing staged); UNSUPPORTED with data.stage = true when that cannot be used"
            ),
            p("drop", "boolean", false, "drop the files on the element instead of setting an input's files"),
            timeout_ms("auto-wait and navigation deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{action: upload, ref, element, files: [{name, size, type}] as the page sees them, accept, warnings, input, waitedMs, settledMs, navigated, tab, changes}",
    },
    Method {
        name: PAGE_EVALUATE,
        target: Target::Extension,
        doc: "Runs a function in the page's main world with JSON arguments; JSON result, paged.",
        params: tab_params![
            p("function", "string", false, "function expression or expression (required without cursor)"),
            p("args", "array", false, "JSON arguments"),
            p("maxBytes", "integer", false, "page size of the JSON text")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("cursor", "string", false, "`<resultId>:<offset>` for the next page"),
        ],
        result: "{tab, resultId, json: this page of the JSON text, offset, nextCursor, totalBytes}",
    },
    Method {
        name: PAGE_WAIT_FOR,
        target: Target::Extension,
        doc: "Waits until text, a selector or a ref appears (or is gone), or the URL matches.",
        params: tab_params![
            p("text", "string", false, "visible text to wait for"),
            p("selector", "string", false, "CSS selector"),
            p("ref", "string", false, "a ref from take_snapshot"),
            p("url", "string", false, "URL substring, or a pattern with *"),
            p("state", "string", false, "visible | gone").or(DefaultValue::Str("visible")),
            timeout_ms("how long to wait", ACTION_TIMEOUT_MS),
        ],
        result: "{met: true, waitedMs, element?, ref?}",
    },
    Method {
        name: PAGE_DIALOG,
        target: Target::Extension,
        doc: "accept_dialog / dismiss_dialog: arms the answer to the tab's next dialog (its hook answers \
              at once); a tab a native dialog blocks is BLOCKED.",
        params: tab_params![
            p("accept", "boolean", true, "true: OK (accept); false: Cancel (dismiss)"),
            p("promptText", "string", false, "prompt(): the text to answer with when accepting"),
        ],
        result: "{tab, armed: {action, promptText?}, dialogs: [{type, message, answered}]}",
    },
    Method {
        name: PAGE_SCREENSHOT,
        target: Target::Extension,
        doc: "An image of the tab (viewport, full page, clip or one element), background tabs included, \
              without activating the tab or focusing its window; fitted to the budget.",
        params: tab_params![
            p("format", "string", false, "png | jpeg | auto (as captured when it fits, else JPEG)")
                .or(DefaultValue::Str("auto")),
            p("quality", "integer", false, "JPEG quality").within(1, 100),
            p("maxWidth", "integer", false, "longest side in pixels")
                .or(DefaultValue::Int(SCREENSHOT_MAX_WIDTH))
                .within(16, 8192),
            p("maxBytes", "integer", false, "image size budget")
                .or(DefaultValue::Int(SCREENSHOT_MAX_BYTES))
                .within(1024, SCREENSHOT_HARD_MAX_BYTES),
            p("fullPage", "boolean", false, "the whole page, not only the viewport"),
            p("clip", "object", false, "{x, y, width, height} in CSS pixels of the page"),
            p("ref", "string", false, "an element (a ref from take_snapshot) instead of the viewport"),
            p("padding", "integer", false, "with ref: CSS pixels around the element")
                .or(DefaultValue::Int(8))
                .within(0, 200),
            p("redact", "string", false, "safe (mask password and secret fields) | off")
                .or(DefaultValue::Str("safe")),
            timeout_ms("capture deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: captureTab | visibleTab | debugger, format, width, height, bytes, scaled, masked, \
                 element?, truncated?, data: base64, timings: {captureMs, encodeMs, helperMs}}",
    },
    Method {
        name: PAGE_RESIZE,
        target: Target::Extension,
        doc: "Sets the tab's viewport (innerWidth × innerHeight) by sizing its window, or per tab through \
              the debugger (Chromium, debugger mode); a window holding the user's other tabs only with `force`.",
        params: tab_params![
            p("width", "integer", true, "viewport width in CSS px").within(VIEWPORT_MIN, VIEWPORT_MAX),
            p("height", "integer", true, "viewport height in CSS px").within(VIEWPORT_MIN, VIEWPORT_MAX),
            p("force", "boolean", false, "size the tab's window even when it holds tabs of the user's"),
            timeout_ms("deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: window | debugger, width, height (what the page reports now), asked: {width, height}, \
                 exact: bool, window?: {windowId, width, height, agent: bool, otherTabs: tabs sharing the new size}, moved?: bool}",
    },
    Method {
        name: PAGE_EMULATE,
        target: Target::Extension,
        doc: "Per-tab emulation through the debugger (Chromium, debugger mode): device scale factor, mobile, \
              user agent, colour scheme, reduced motion; held until reset. UNSUPPORTED naming what is missing otherwise.",
        params: tab_params![
            p("deviceScaleFactor", "number", false, "devicePixelRatio the page sees (0.5–4)"),
            p("mobile", "boolean", false, "mobile viewport (meta viewport honoured) and touch events"),
            p("userAgent", "string", false, "navigator.userAgent and the User-Agent header"),
            p("colorScheme", "string", false, "light | dark (prefers-color-scheme)"),
            p("reducedMotion", "string", false, "reduce | no-preference (prefers-reduced-motion)"),
            p(
                "reset",
                "boolean",
                false,
                "clear every emulation of the tab (and its debugger-made size) first"
            ),
            timeout_ms("deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: debugger | none, emulation: {…what is in effect}, \
                 page: {innerWidth, innerHeight, devicePixelRatio, userAgent, dark, reducedMotion, touch}}",
    },
    Method {
        name: COOKIES_GET,
        target: Target::Extension,
        doc: "Cookies matching the filters: names, attributes and sizes; values only with includeValues.",
        params: cookie_filters![
            p("includeValues", "boolean", false, "with values (the server decides whether it may ask)"),
            p("maxBytes", "integer", false, "page size of the listing")
                .or(DefaultValue::Int(LISTING_MAX_BYTES)),
            p("cursor", "string", false, "nextCursor of the previous page"),
        ],
        result: "{cookies: [{name, domain, path, secure, httpOnly, sameSite, session, expirationDate?, hostOnly, \
                 storeId, partitionKey?, size, value?}], total, offset, nextCursor}",
    },
    Method {
        name: COOKIES_SET,
        target: Target::Extension,
        doc: "Sets cookies (`cookies.set` details each: url or domain, name, value, path, secure, httpOnly, \
              sameSite, expirationDate, storeId, partitionKey).",
        params: &[p("cookies", "array", true, "[{url?, domain?, name, value, …}]")],
        result: "{set: [{name, domain, path, storeId, size}]}",
    },
    Method {
        name: COOKIES_CLEAR,
        target: Target::Extension,
        doc: "Removes the cookies matching the filters (at least one filter); dryRun only counts them.",
        params: cookie_filters![p("dryRun", "boolean", false, "count, remove nothing")],
        result: "{matched, removed, cookies: [{name, domain, path, storeId}]}",
    },
    Method {
        name: STORAGE_GET,
        target: Target::Extension,
        doc: "The tab's origin's localStorage / sessionStorage (keys, sizes, values with secrets redacted \
              unless includeValues) and its IndexedDB databases with object-store counts; paged.",
        params: tab_params![
            p("area", "string", false, "local | session | all").or(DefaultValue::Str("all")),
            p("prefix", "string", false, "only keys starting with this"),
            p(
                "includeValues",
                "boolean",
                false,
                "secret-looking values too (the server decides whether it may ask)"
            ),
            p("indexedDb", "boolean", false, "list IndexedDB databases").or(DefaultValue::Bool(true)),
            p("maxBytes", "integer", false, "page size of the listing")
                .or(DefaultValue::Int(LISTING_MAX_BYTES)),
            p("cursor", "string", false, "nextCursor of the previous page"),
        ],
        result: "{tab, origin, entries: [{area, key, size, value, redacted}], total, offset, nextCursor, \
                 indexedDb: [{name, version, stores: [{name, count}]}] | null}",
    },
    Method {
        name: STORAGE_SET,
        target: Target::Extension,
        doc: "Sets keys of the tab's localStorage or sessionStorage.",
        params: tab_params![
            p("area", "string", false, "local | session").or(DefaultValue::Str("local")),
            p("items", "object", true, "{key: string value}"),
        ],
        result: "{tab, origin, area, set: [key]}",
    },
    Method {
        name: STORAGE_CLEAR,
        target: Target::Extension,
        doc: "Removes keys (or every key) of the tab's localStorage and/or sessionStorage; dryRun only counts.",
        params: tab_params![
            p("area", "string", false, "local | session | all").or(DefaultValue::Str("all")),
            p("keys", "array", false, "only these keys (default: all)"),
            p("dryRun", "boolean", false, "count, remove nothing"),
        ],
        result: "{tab, origin, removed: [{area, key}], dryRun}",
    },
    Method {
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
    Method {
        name: CONSOLE_CLEAR,
        target: Target::Extension,
        doc: "Forgets the tab's captured console entries (capture goes on; seq numbers are not reused).",
        params: tab_params![],
        result: "{tab, cleared: number of entries}",
    },
    Method {
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
    Method {
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

/// Every event.
pub const EVENTS: &[EventSpec] = &[
    EventSpec {
        name: EVENT_HELLO,
        doc: "The extension's first frame after connectNative.",
        params: &[
            p("extVersion", "string", true, "helper extension version"),
            p("browser", "string", true, "browser name, e.g. chromium, chrome, edge, brave, firefox, zen"),
            p("browserVersion", "string", true, "browser version"),
            p("label", "string", true, "profile label (default `<browser>-<6 hex>`)"),
            p("capabilities", "array", true, "feature names, e.g. tabs, scripting, debugger"),
            p(
                "permissions",
                "object",
                false,
                "{permissions, origins}: what permissions.getAll() says the helper holds (doctor compares it with the permission table)",
            ),
        ],
    },
    EventSpec {
        name: EVENT_OBSERVE_CHANGED,
        doc: "A tab's console or network log has new entries (at most 4 events a second per tab), or the tab closed. Never an entry: read them with console.list / network.list.",
        params: &[
            p("tabId", "integer", true, "the tab"),
            p("console", "integer", false, "newest seq of its console log (lastSeq of console.list)"),
            p("network", "integer", false, "newest seq of its network log (lastSeq of network.list)"),
            p("closed", "boolean", false, "true: the tab closed"),
        ],
    },
];

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
                assert!(
                    ["string", "integer", "number", "boolean", "array", "object", "string|boolean"]
                        .contains(&p.ty)
                );
            }
        }
        assert_eq!(find(PING).map(|m| m.target), Some(Target::Extension));
        assert_eq!(find(CLIENT_HELLO).map(|m| m.target), Some(Target::Host));
        assert!(find("nope").is_none());
    }
}
