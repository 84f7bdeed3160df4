// Generated from host/src/protocol/permissions.rs (webext-mcp-host); do not edit by hand.
// Regenerate: WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host permissions

// Every permission of the helper: `chromium` / `gecko` is how that engine's manifest
// declares it (required | optional | absent); `kind` is api or host (a match pattern).
export const PERMISSIONS = Object.freeze([
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "nativeMessaging",
    "neededBy": {
      "everything": true,
      "methods": [
        "ping",
        "browser.info",
        "debug.digest",
        "tabs.list",
        "containers.list",
        "tabs.new",
        "tabs.navigate",
        "tabs.select",
        "tabs.close",
        "page.snapshot",
        "page.clearSnapshot",
        "page.text",
        "page.find",
        "page.resolveRef",
        "page.act",
        "page.fillForm",
        "page.uploadChunk",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear"
      ],
      "tools": []
    },
    "why": "Connects to the webext-mcp native host; every request and reply travels over this port."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "storage",
    "neededBy": {
      "everything": true,
      "methods": [
        "ping",
        "browser.info",
        "debug.digest",
        "tabs.list",
        "containers.list",
        "tabs.new",
        "tabs.navigate",
        "tabs.select",
        "tabs.close",
        "page.snapshot",
        "page.clearSnapshot",
        "page.text",
        "page.find",
        "page.resolveRef",
        "page.act",
        "page.fillForm",
        "page.uploadChunk",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear"
      ],
      "tools": []
    },
    "why": "Keeps the profile label and debugger mode (storage.local) and each tab's ref counters across background restarts (storage.session)."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "alarms",
    "neededBy": {
      "everything": true,
      "methods": [
        "ping",
        "browser.info",
        "debug.digest",
        "tabs.list",
        "containers.list",
        "tabs.new",
        "tabs.navigate",
        "tabs.select",
        "tabs.close",
        "page.snapshot",
        "page.clearSnapshot",
        "page.text",
        "page.find",
        "page.resolveRef",
        "page.act",
        "page.fillForm",
        "page.uploadChunk",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear"
      ],
      "tools": []
    },
    "why": "Wakes the background periodically to reconnect when the host went away while it slept."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "tabs",
    "neededBy": {
      "everything": false,
      "methods": [
        "tabs.list",
        "tabs.new",
        "tabs.navigate",
        "tabs.select",
        "page.waitFor"
      ],
      "tools": [
        "list_pages",
        "new_page",
        "navigate_page",
        "navigate_history",
        "select_page",
        "wait_for"
      ]
    },
    "why": "Reports tabs with their URLs and titles and finds a tab by URL."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "scripting",
    "neededBy": {
      "everything": false,
      "methods": [
        "tabs.navigate",
        "page.snapshot",
        "page.text",
        "page.find",
        "page.resolveRef",
        "page.act",
        "page.fillForm",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "storage.get",
        "storage.set",
        "storage.clear"
      ],
      "tools": [
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
        "get_storage",
        "set_storage",
        "clear_storage"
      ]
    },
    "why": "Runs the snapshot collector, actions and evaluate_script in the page."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "webNavigation",
    "neededBy": {
      "everything": false,
      "methods": [
        "tabs.new",
        "tabs.navigate",
        "page.dialog"
      ],
      "tools": [
        "new_page",
        "navigate_page",
        "navigate_history",
        "accept_dialog",
        "dismiss_dialog"
      ]
    },
    "why": "Sees each new document of the tabs the agent opened or navigated, to install the dialog hook before the page's scripts run."
  },
  {
    "chromium": "absent",
    "gecko": "required",
    "kind": "api",
    "name": "contextualIdentities",
    "neededBy": {
      "everything": false,
      "methods": [
        "containers.list",
        "tabs.new"
      ],
      "tools": [
        "list_containers",
        "new_page_in_container",
        "set_default_container",
        "list_pages",
        "new_page"
      ]
    },
    "why": "Firefox containers: lists them for list_containers and opens tabs in them. Installing an extension with it turns Firefox's container feature on for the profile."
  },
  {
    "chromium": "required",
    "gecko": "absent",
    "kind": "api",
    "name": "debugger",
    "neededBy": {
      "everything": false,
      "methods": [
        "page.act",
        "page.fillForm",
        "page.evaluate",
        "page.screenshot"
      ],
      "tools": [
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
        "screenshot_by_uid"
      ]
    },
    "why": "Debugger mode only (off by default): trusted input and CSP-proof evaluation through chrome.debugger; screenshots of hidden tabs and full pages."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "cookies",
    "neededBy": {
      "everything": false,
      "methods": [
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "containers.list",
        "tabs.list",
        "tabs.new"
      ],
      "tools": [
        "get_cookies",
        "set_cookies",
        "clear_cookies",
        "list_containers",
        "new_page_in_container",
        "set_default_container",
        "list_pages",
        "new_page"
      ]
    },
    "why": "Reads, sets and clears cookies for get_cookies, set_cookies and clear_cookies (values only when the server's policy allows); in Firefox also tells each tab's container (cookieStoreId), so a container-scoped server sees only its own tabs, and opens tabs in a container."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "host",
    "name": "<all_urls>",
    "neededBy": {
      "everything": false,
      "methods": [
        "tabs.navigate",
        "page.snapshot",
        "page.text",
        "page.find",
        "page.resolveRef",
        "page.act",
        "page.fillForm",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "storage.get",
        "storage.set",
        "storage.clear"
      ],
      "tools": [
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
        "get_storage",
        "set_storage",
        "clear_storage"
      ]
    },
    "why": "Lets the helper script every page and read its URL and title."
  }
]);
