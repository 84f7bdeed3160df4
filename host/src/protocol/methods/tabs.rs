//! Tabs and containers: list, open, navigate, select, close.

use super::*;

pub(super) const METHODS: &[Method] = &[
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
];
