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
        "page.uploadOpen",
        "page.uploadChunk",
        "page.uploadCancel",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear",
        "console.list",
        "console.clear",
        "network.list",
        "network.get"
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
        "page.uploadOpen",
        "page.uploadChunk",
        "page.uploadCancel",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear",
        "console.list",
        "console.clear",
        "network.list",
        "network.get"
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
        "page.uploadOpen",
        "page.uploadChunk",
        "page.uploadCancel",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "cookies.get",
        "cookies.set",
        "cookies.clear",
        "storage.get",
        "storage.set",
        "storage.clear",
        "console.list",
        "console.clear",
        "network.list",
        "network.get"
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
        "page.waitFor",
        "console.list",
        "console.clear",
        "network.list",
        "network.get"
      ],
      "tools": [
        "list_pages",
        "new_page",
        "navigate_page",
        "navigate_history",
        "select_page",
        "wait_for",
        "list_console_messages",
        "clear_console_messages",
        "list_network_requests",
        "get_network_request"
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
        "page.uploadOpen",
        "page.uploadChunk",
        "page.uploadCancel",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "storage.get",
        "storage.set",
        "storage.clear",
        "console.list"
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
        "resize_page",
        "emulate",
        "get_storage",
        "set_storage",
        "clear_storage",
        "list_console_messages"
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
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "network.list",
        "network.get"
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
        "screenshot_by_uid",
        "resize_page",
        "emulate"
      ]
    },
    "why": "Debugger mode only (off by default): trusted input, CSP-proof evaluation, screenshots of hidden tabs and full pages, response bodies, and per-tab viewport and device emulation through chrome.debugger."
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
        "new_page",
        "list_network_requests",
        "get_network_request"
      ]
    },
    "why": "Reads, sets and clears cookies for get_cookies, set_cookies and clear_cookies (values only when the server's policy allows); in Firefox also tells each tab's container (cookieStoreId), so a container-scoped server sees only its own tabs, and opens tabs in a container."
  },
  {
    "chromium": "required",
    "gecko": "required",
    "kind": "api",
    "name": "webRequest",
    "neededBy": {
      "everything": false,
      "methods": [
        "network.list",
        "network.get"
      ],
      "tools": [
        "list_network_requests",
        "get_network_request"
      ]
    },
    "why": "Sees the requests of the tabs the agent opened or asked about (method, URL, status, headers, timings) for list_network_requests; observational only in Chromium."
  },
  {
    "chromium": "absent",
    "gecko": "required",
    "kind": "api",
    "name": "webRequestBlocking",
    "neededBy": {
      "everything": false,
      "methods": [
        "network.get"
      ],
      "tools": [
        "get_network_request"
      ]
    },
    "why": "Firefox: lets the helper attach a response filter to the requests of agent tabs, to keep their response bodies for get_network_request."
  },
  {
    "chromium": "absent",
    "gecko": "required",
    "kind": "api",
    "name": "webRequestFilterResponse",
    "neededBy": {
      "everything": false,
      "methods": [
        "network.get"
      ],
      "tools": [
        "get_network_request"
      ]
    },
    "why": "Firefox (Manifest V3): webRequest.filterResponseData, which reads response bodies as they arrive (the page still gets every byte)."
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
        "page.uploadOpen",
        "page.uploadChunk",
        "page.uploadCancel",
        "page.upload",
        "page.evaluate",
        "page.waitFor",
        "page.dialog",
        "page.screenshot",
        "page.resize",
        "page.emulate",
        "storage.get",
        "storage.set",
        "storage.clear",
        "console.list"
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
        "resize_page",
        "emulate",
        "get_storage",
        "set_storage",
        "clear_storage",
        "list_console_messages"
      ]
    },
    "why": "Lets the helper script every page and read its URL and title."
  }
]);
