//! Tabs and containers: list, open, navigate, select, close.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
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
    MethodSpec {
        name: CONTAINERS_LIST,
        target: Target::Extension,
        doc: "Firefox containers (contextual identities) with their tab counts; UNSUPPORTED in Chromium.",
        params: &[],
        result: "{containers: [{name, color, icon, cookieStoreId, tabs}]}",
    },
    MethodSpec {
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
    MethodSpec {
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
    MethodSpec {
        name: TABS_SELECT,
        target: Target::Extension,
        doc: "Brings a tab to the front (and its window); by address or by URL substring.",
        params: tab_params![p("url", "string", false, "substring of the URL, instead of tabId/pageIdx")],
        result: "{tab}",
    },
    MethodSpec {
        name: TABS_CLOSE,
        target: Target::Extension,
        doc: "Closes a tab.",
        params: tab_params![],
        result: "{closed: tabId}",
    },
];

typed_methods!(TabsList, ContainersList, TabsNew, TabsNavigate, TabsSelect, TabsClose);

/// `tabs.list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabsList {}
method!(TabsList => TABS_LIST, TabList, TAB_CALL_TIMEOUT_MS);

/// `containers.list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContainersList {}
method!(ContainersList => CONTAINERS_LIST, ContainerList, TAB_CALL_TIMEOUT_MS);

/// `tabs.new`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabsNew {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cookie_store_id: Option<String>,
    /// `current` or `agent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(TabsNew => TABS_NEW, TabReply, LOAD_TIMEOUT_MS);

/// How `tabs.navigate` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Navigation {
    Url,
    Back,
    Forward,
    Reload,
}

/// `tabs.navigate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabsNavigate {
    #[serde(rename = "type")]
    pub kind: Navigation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(TabsNavigate => TABS_NAVIGATE, TabReply, LOAD_TIMEOUT_MS);

/// `tabs.select`: by the caller's address, or (`url`) by URL substring.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabsSelect {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// With `url` (no tab address): the tab-set fingerprint the caller saw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_tab_set: Option<String>,
}
method!(TabsSelect => TABS_SELECT, TabReply, TAB_CALL_TIMEOUT_MS);

/// `tabs.close`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabsClose {}
method!(TabsClose => TABS_CLOSE, Closed, TAB_CALL_TIMEOUT_MS);

/// A tab as the helper describes it (`describeTab`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    pub tab_id: i64,
    pub window_id: i64,
    pub index: i64,
    pub url: String,
    pub title: String,
    pub active: bool,
    pub status: String,
    /// Firefox containers: the tab's cookie store when it is not the default one.
    pub container: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `tabs.list`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabList {
    pub tabs: Vec<Tab>,
    /// The tab-set fingerprint `expectTabSet` takes.
    pub fingerprint: String,
    pub active_tab_id: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `tabs.new`, `tabs.navigate`, `tabs.select`: the tab afterwards (`loaded` and the like
/// pass through).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabReply {
    pub tab: Tab,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `tabs.close`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Closed {
    /// The closed tab's id.
    pub closed: i64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A Firefox container (contextual identity), as `containers.list` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    pub name: String,
    pub color: String,
    pub icon: String,
    pub cookie_store_id: String,
    /// Open tabs in it.
    pub tabs: u64,
}

/// `containers.list`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContainerList {
    pub containers: Vec<Container>,
}
