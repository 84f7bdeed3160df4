//! The helper extension's permissions, defined once: for each permission, what it is for,
//! which protocol methods and MCP tools need it, and whether each engine's manifest requires
//! it, offers it as optional, or lacks it.
//!
//! ```text
//!                      ┌─▶ extension/manifest.{chrome,firefox}.json  permission keys (checked, blessed)
//! PERMISSIONS (here) ──┼─▶ extension/src/permissions.js               the status page's list (generated)
//!                      └─▶ doctor                                      what a loaded helper must hold
//! ```
//!
//! The manifests are written by hand except for their permission keys (`permissions`,
//! `optional_permissions`, `host_permissions`, `optional_host_permissions`), which must equal
//! [`manifest_keys`]; each key sits on one line. A test fails when a manifest or
//! `permissions.js` drifts from this table, and
//! `WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host permissions` rewrites both (then run
//! `scripts/build-extension`, which copies them into `extension/dist/`).
//!
//! **Adding a permission** is one entry in [`PERMISSIONS`], e.g.
//! `api("cookies", OPTIONAL, OPTIONAL, "why…", &[methods…], &[tools…]),` (or `host(…)` for a
//! match pattern), then the bless above. Prefer [`OPTIONAL`]: a required permission that
//! warns makes Chromium disable the updated helper until the user re-approves it, and the
//! status page offers a "grant" button for every optional one (`permissions.request` from
//! the click). A Firefox-only permission (`contextualIdentities`) is `ABSENT` for Chromium.
//! `doctor` then reports `HELPER_PERMISSIONS_CHANGED` for a loaded helper that lacks a new
//! required permission.

use serde::{Deserialize, Serialize};

use super::methods::{
    CONSOLE_CLEAR, CONSOLE_LIST, CONTAINERS_LIST, COOKIES_CLEAR, COOKIES_GET, COOKIES_SET, METHODS,
    NETWORK_GET, NETWORK_LIST, PAGE_ACT, PAGE_DIALOG, PAGE_EMULATE, PAGE_EVALUATE, PAGE_FILL_FORM, PAGE_FIND,
    PAGE_RESIZE, PAGE_RESOLVE_REF, PAGE_SCREENSHOT, PAGE_SNAPSHOT, PAGE_TEXT, PAGE_UPLOAD,
    PAGE_UPLOAD_CANCEL, PAGE_UPLOAD_CHUNK, PAGE_UPLOAD_OPEN, PAGE_WAIT_FOR, STORAGE_CLEAR, STORAGE_GET,
    STORAGE_SET, TABS_LIST, TABS_NAVIGATE, TABS_NEW, TABS_SELECT, Target,
};

pub use crate::browsers::Engine;
pub use derived::{
    MANIFEST_KEYS, PERMISSIONS_JS_PATH, PermissionSet, bless_manifest, manifest_drift, manifest_keys,
    manifest_lines, missing_required, permissions_js,
};

mod derived;

impl Engine {
    /// The engine's committed manifest, relative to the workspace root.
    pub const fn manifest_path(self) -> &'static str {
        match self {
            Engine::Chromium => "extension/manifest.chrome.json",
            Engine::Gecko => "extension/manifest.firefox.json",
        }
    }
}

/// How an engine's manifest declares a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Need {
    /// Granted at install (`permissions` / `host_permissions`).
    Required,
    /// Asked for at run time (`optional_permissions` / `optional_host_permissions`).
    Optional,
    /// Not declared: the engine lacks the API or the helper does without it there.
    Absent,
}

pub const REQUIRED: Need = Need::Required;
pub const OPTIONAL: Need = Need::Optional;
pub const ABSENT: Need = Need::Absent;

/// An API permission (`tabs`) or a host match pattern (`<all_urls>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Api,
    Host,
}

/// Who needs a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NeededBy {
    /// The connection itself: every method and so every browser tool.
    Everything,
    /// These protocol methods, and the MCP tools that call them.
    Only { methods: &'static [&'static str], tools: &'static [&'static str] },
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permission {
    /// The manifest's word for it.
    pub name: &'static str,
    pub kind: Kind,
    pub chromium: Need,
    pub gecko: Need,
    /// Why the helper asks for it, for users (the status page shows it).
    pub why: &'static str,
    pub needed_by: NeededBy,
}

impl Permission {
    pub const fn need(&self, engine: Engine) -> Need {
        match engine {
            Engine::Chromium => self.chromium,
            Engine::Gecko => self.gecko,
        }
    }
}

const fn every(name: &'static str, chromium: Need, gecko: Need, why: &'static str) -> Permission {
    Permission { name, kind: Kind::Api, chromium, gecko, why, needed_by: NeededBy::Everything }
}

const fn api(
    name: &'static str,
    chromium: Need,
    gecko: Need,
    why: &'static str,
    methods: &'static [&'static str],
    tools: &'static [&'static str],
) -> Permission {
    Permission { name, kind: Kind::Api, chromium, gecko, why, needed_by: NeededBy::Only { methods, tools } }
}

const fn host(
    name: &'static str,
    chromium: Need,
    gecko: Need,
    why: &'static str,
    methods: &'static [&'static str],
    tools: &'static [&'static str],
) -> Permission {
    Permission { name, kind: Kind::Host, chromium, gecko, why, needed_by: NeededBy::Only { methods, tools } }
}

/// Methods that run code in a page (`scripting.executeScript`).
const SCRIPTED: &[&str] = &[
    TABS_NAVIGATE,
    PAGE_SNAPSHOT,
    PAGE_TEXT,
    PAGE_FIND,
    PAGE_RESOLVE_REF,
    PAGE_ACT,
    PAGE_FILL_FORM,
    PAGE_UPLOAD_OPEN,
    PAGE_UPLOAD_CHUNK,
    PAGE_UPLOAD_CANCEL,
    PAGE_UPLOAD,
    PAGE_EVALUATE,
    PAGE_WAIT_FOR,
    PAGE_DIALOG,
    PAGE_SCREENSHOT,
    PAGE_RESIZE,
    PAGE_EMULATE,
    STORAGE_GET,
    STORAGE_SET,
    STORAGE_CLEAR,
    CONSOLE_LIST,
];

/// Tools that call [`SCRIPTED`] methods.
const SCRIPTED_TOOLS: &[&str] = &[
    "navigate_history",
    "take_snapshot",
    "get_page_text",
    "read_page",
    "find_by_text",
    "resolve_uid_to_selector",
    "click_by_uid",
    "hover_by_uid",
    "fill_by_uid",
    "fill_form_by_uid",
    "drag_by_uid_to_uid",
    "upload_file_by_uid",
    "upload_file",
    "click",
    "hover",
    "fill",
    "type",
    "drag",
    "select_option",
    "press_key",
    "scroll",
    "evaluate_script",
    "wait_for",
    "extension_source_inspect",
    "accept_dialog",
    "dismiss_dialog",
    "screenshot_page",
    "screenshot_by_uid",
    "resize_page",
    "emulate",
    "get_storage",
    "set_storage",
    "clear_storage",
    "list_console_messages",
];

/// Methods whose answers carry tab URLs and titles, or that find a tab by its URL.
const TAB_URLS: &[&str] = &[
    TABS_LIST,
    TABS_NEW,
    TABS_NAVIGATE,
    TABS_SELECT,
    PAGE_WAIT_FOR,
    CONSOLE_LIST,
    CONSOLE_CLEAR,
    NETWORK_LIST,
    NETWORK_GET,
];

/// Tools that call [`TAB_URLS`] methods.
const TAB_URL_TOOLS: &[&str] = &[
    "list_pages",
    "new_page",
    "navigate_page",
    "navigate_history",
    "select_page",
    "wait_for",
    "list_console_messages",
    "clear_console_messages",
    "list_network_requests",
    "get_network_request",
];

/// Tools that use or honour Firefox containers.
const CONTAINER_TOOLS: &[&str] =
    &["list_containers", "new_page_in_container", "set_default_container", "list_pages", "new_page"];

/// Tools that use debugger mode when it is on (trusted input, CSP-proof evaluation).
const DEBUGGER_TOOLS: &[&str] = &[
    "click_by_uid",
    "hover_by_uid",
    "fill_by_uid",
    "fill_form_by_uid",
    "click",
    "hover",
    "type",
    "press_key",
    "evaluate_script",
    "screenshot_page",
    "screenshot_by_uid",
    "resize_page",
    "emulate",
];

/// Tools of the `cookies` permission: the cookie tools, and (Firefox) the container tools.
const COOKIE_AND_CONTAINER_TOOLS: &[&str] = &[
    "get_cookies",
    "set_cookies",
    "clear_cookies",
    "list_containers",
    "new_page_in_container",
    "set_default_container",
    "list_pages",
    "new_page",
    "list_network_requests",
    "get_network_request",
];

/// Methods and tools that read the requests webRequest reports (`extension/src/netlog.js`).
const NETWORK: &[&str] = &[NETWORK_LIST, NETWORK_GET];
const NETWORK_TOOLS: &[&str] = &["list_network_requests", "get_network_request"];

/// Every permission of the helper, in manifest order; one line each (hence no rustfmt).
///
/// `debugger` (DESIGN "What extension APIs can and cannot do"): Chromium cannot make it
/// optional, so it is required there and attached only while debugger mode (a setting on the
/// status page, off by default) is on; Firefox has no debugger API.
#[rustfmt::skip]
pub const PERMISSIONS: &[Permission] = &[
    every("nativeMessaging", REQUIRED, REQUIRED, "Connects to the webext-mcp native host; every request and reply travels over this port."),
    every("storage", REQUIRED, REQUIRED, "Keeps the profile label and debugger mode (storage.local) and each tab's ref counters across background restarts (storage.session)."),
    every("alarms", REQUIRED, REQUIRED, "Wakes the background periodically to reconnect when the host went away while it slept."),
    api("tabs", REQUIRED, REQUIRED, "Reports tabs with their URLs and titles and finds a tab by URL.", TAB_URLS, TAB_URL_TOOLS),
    api("scripting", REQUIRED, REQUIRED, "Runs the snapshot collector, actions and evaluate_script in the page.", SCRIPTED, SCRIPTED_TOOLS),
    api("webNavigation", REQUIRED, REQUIRED, "Sees each new document of the tabs the agent opened or navigated, to install the dialog hook before the page's scripts run.", &[TABS_NEW, TABS_NAVIGATE, PAGE_DIALOG], &["new_page", "navigate_page", "navigate_history", "accept_dialog", "dismiss_dialog"]),
    api("contextualIdentities", ABSENT, REQUIRED, "Firefox containers: lists them for list_containers and opens tabs in them. Installing an extension with it turns Firefox's container feature on for the profile.", &[CONTAINERS_LIST, TABS_NEW], CONTAINER_TOOLS),
    api("debugger", REQUIRED, ABSENT, "Debugger mode only (off by default): trusted input, CSP-proof evaluation, screenshots of hidden tabs and full pages, response bodies, and per-tab viewport and device emulation through chrome.debugger.", &[PAGE_ACT, PAGE_FILL_FORM, PAGE_EVALUATE, PAGE_SCREENSHOT, PAGE_RESIZE, PAGE_EMULATE, NETWORK_LIST, NETWORK_GET], DEBUGGER_TOOLS),
    api("cookies", REQUIRED, REQUIRED, "Reads, sets and clears cookies for get_cookies, set_cookies and clear_cookies (values only when the server's policy allows); in Firefox also tells each tab's container (cookieStoreId), so a container-scoped server sees only its own tabs, and opens tabs in a container.", &[COOKIES_GET, COOKIES_SET, COOKIES_CLEAR, CONTAINERS_LIST, TABS_LIST, TABS_NEW], COOKIE_AND_CONTAINER_TOOLS),
    api("webRequest", REQUIRED, REQUIRED, "Sees the requests of the tabs the agent opened or asked about (method, URL, status, headers, timings) for list_network_requests; observational only in Chromium.", NETWORK, NETWORK_TOOLS),
    api("webRequestBlocking", ABSENT, REQUIRED, "Firefox: lets the helper attach a response filter to the requests of agent tabs, to keep their response bodies for get_network_request.", &[NETWORK_GET], &["get_network_request"]),
    api("webRequestFilterResponse", ABSENT, REQUIRED, "Firefox (Manifest V3): webRequest.filterResponseData, which reads response bodies as they arrive (the page still gets every byte).", &[NETWORK_GET], &["get_network_request"]),
    host("<all_urls>", REQUIRED, REQUIRED, "Lets the helper script every page and read its URL and title.", SCRIPTED, SCRIPTED_TOOLS),
];

/// The permission named `name` (an API permission or a host pattern).
pub fn find(name: &str) -> Option<&'static Permission> {
    PERMISSIONS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DESIGN "What extension APIs can and cannot do": Chromium cannot make `debugger`
    /// optional; Firefox has no debugger API.
    #[test]
    fn debugger_is_required_in_chromium_and_absent_in_gecko() {
        let d = find("debugger").unwrap();
        assert_eq!((d.chromium, d.gecko), (Need::Required, Need::Absent));
    }

    #[test]
    fn every_row_says_why_and_names_real_methods() {
        let mut seen = std::collections::HashSet::new();
        for p in PERMISSIONS {
            assert!(seen.insert(p.name), "duplicate {}", p.name);
            assert!(p.why.len() > 10, "{}: say why", p.name);
            assert!(p.chromium != Need::Absent || p.gecko != Need::Absent, "{}: in no manifest", p.name);
            assert_eq!(p.kind == Kind::Host, p.name.contains('<') || p.name.contains("://"), "{}", p.name);
            if let NeededBy::Only { methods, tools } = p.needed_by {
                assert!(!methods.is_empty() && !tools.is_empty(), "{}: who needs it?", p.name);
                for m in methods {
                    assert_eq!(
                        super::super::methods::find(m).map(|m| m.target),
                        Some(Target::Extension),
                        "{m}"
                    );
                }
            }
        }
    }
}
