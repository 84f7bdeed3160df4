// Generated from host/src/protocol (webext-mcp-host); do not edit by hand.
// Regenerate: WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host protocol_js

export const PROTOCOL_VERSION = 1;
export const NATIVE_HOST_NAME = "dev.webext_mcp.bridge";
export const HELPER_GECKO_ID = "helper@webext-mcp.dev";
export const HELPER_CHROMIUM_ID = "dkcbnncejeekhnnfjnepngcdiipdcakc";

export const LIMITS = Object.freeze({
  "browserToHostFrame": 67108864,
  "callMarginMs": 2000,
  "chunkDeadlineMs": 30000,
  "defaultCallTimeoutMs": 30000,
  "hostToBrowserFrame": 1048576,
  "maxCallTimeoutMs": 600000,
  "socketFrame": 67108864,
  "unfinishedChunks": 64
});

export const ERROR_CODES = Object.freeze({
  "ALREADY_EXISTS": "ALREADY_EXISTS",
  "BLOCKED": "BLOCKED",
  "BUILD_FAILED": "BUILD_FAILED",
  "BUSY": "BUSY",
  "INTEGRITY": "INTEGRITY",
  "INTERNAL": "INTERNAL",
  "INVALID_ARGUMENT": "INVALID_ARGUMENT",
  "LOAD_REFUSED": "LOAD_REFUSED",
  "NETWORK": "NETWORK",
  "NOT_CONNECTED": "NOT_CONNECTED",
  "NOT_FOUND": "NOT_FOUND",
  "NOT_INSTALLED": "NOT_INSTALLED",
  "PAYLOAD_TOO_LARGE": "PAYLOAD_TOO_LARGE",
  "PERMISSION_DENIED": "PERMISSION_DENIED",
  "PROJECT_SCRIPTS_NOT_ALLOWED": "PROJECT_SCRIPTS_NOT_ALLOWED",
  "SCRIPT_ERROR": "SCRIPT_ERROR",
  "STALE": "STALE",
  "TAB_CRASHED": "TAB_CRASHED",
  "TIMEOUT": "TIMEOUT",
  "UNSUPPORTED": "UNSUPPORTED",
  "VERSION_SKEW": "VERSION_SKEW"
});

export const METHODS = Object.freeze({
  "BROWSER_INFO": "browser.info",
  "CLIENT_HELLO": "client.hello",
  "CONSOLE_CLEAR": "console.clear",
  "CONSOLE_LIST": "console.list",
  "CONTAINERS_LIST": "containers.list",
  "COOKIES_CLEAR": "cookies.clear",
  "COOKIES_GET": "cookies.get",
  "COOKIES_SET": "cookies.set",
  "DEBUG_DIGEST": "debug.digest",
  "HOST_INFO": "host.info",
  "NETWORK_GET": "network.get",
  "NETWORK_LIST": "network.list",
  "PAGE_ACT": "page.act",
  "PAGE_CLEAR_SNAPSHOT": "page.clearSnapshot",
  "PAGE_DIALOG": "page.dialog",
  "PAGE_EMULATE": "page.emulate",
  "PAGE_EVALUATE": "page.evaluate",
  "PAGE_FILL_FORM": "page.fillForm",
  "PAGE_FIND": "page.find",
  "PAGE_RESIZE": "page.resize",
  "PAGE_RESOLVE_REF": "page.resolveRef",
  "PAGE_SCREENSHOT": "page.screenshot",
  "PAGE_SNAPSHOT": "page.snapshot",
  "PAGE_TEXT": "page.text",
  "PAGE_UPLOAD": "page.upload",
  "PAGE_UPLOAD_CANCEL": "page.uploadCancel",
  "PAGE_UPLOAD_CHUNK": "page.uploadChunk",
  "PAGE_UPLOAD_OPEN": "page.uploadOpen",
  "PAGE_WAIT_FOR": "page.waitFor",
  "PING": "ping",
  "STORAGE_CLEAR": "storage.clear",
  "STORAGE_GET": "storage.get",
  "STORAGE_SET": "storage.set",
  "SUBSCRIBE": "subscribe",
  "TABS_CLOSE": "tabs.close",
  "TABS_LIST": "tabs.list",
  "TABS_NAVIGATE": "tabs.navigate",
  "TABS_NEW": "tabs.new",
  "TABS_SELECT": "tabs.select",
  "UNSUBSCRIBE": "unsubscribe"
});

export const METHOD_SPECS = Object.freeze({
  "browser.info": {
    "doc": "What the extension sees: browser, platform, visible tabs, capabilities.",
    "params": {
      "container": {
        "doc": "only this cookie store's tabs (a container-scoped server)",
        "required": false,
        "type": "string"
      }
    },
    "result": "{browser, browserVersion, extVersion, label, platform: {os, arch}, tabs: [{windowId, tabId}] (windows by ascending id, tabs by index), capabilities: [string], lastError: {message, at} | null (the browser's words for the last native-messaging failure), debuggerSessions: tabs the helper's debugger is attached to now, permissions: {permissions, origins} granted now (permissions.getAll())}",
    "target": "extension"
  },
  "client.hello": {
    "doc": "First request of every client; a protocol mismatch answers VERSION_SKEW and closes.",
    "params": {
      "name": {
        "doc": "free text for the host log",
        "required": false,
        "type": "string"
      },
      "protocol": {
        "doc": "protocol version the client speaks",
        "required": true,
        "type": "integer"
      }
    },
    "result": "{protocol, host: descriptor, hello: the extension's hello}",
    "target": "host"
  },
  "console.clear": {
    "doc": "Forgets the tab's captured console entries (capture goes on; seq numbers are not reused).",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, cleared: number of entries}",
    "target": "extension"
  },
  "console.list": {
    "doc": "The tab's captured console messages, uncaught errors, rejections, CSP violations and failed loads, oldest first; starts capturing in a tab the helper had not seen yet.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "contains": {
        "doc": "only entries whose text contains this",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`nextCursor` of the previous page",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "level": {
        "doc": "least severe level shown: debug | log | info | warn | error",
        "required": false,
        "type": "string"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size (JSON of the entries)",
        "max": 1048576,
        "min": 256,
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "since": {
        "doc": "only entries after this seq (`lastSeq` of an earlier answer)",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "viaDebugger": {
        "doc": "Chromium with debugger mode: true takes the tab's console from CDP from now on (Runtime, Log; the debugging bar shows), false goes back to the hook",
        "required": false,
        "type": "boolean"
      }
    },
    "result": "{tab, via: hook | debugger | off, debugger?: {on: false, why}, capturedSince: ms | null, entries: [{seq, level, source, text, url?, line?, column?, stack?, time, count, doc, frameId}], documents: [{doc, url, frameId, current}], total: matching entries, dropped: older entries dropped by the bounds, lastSeq, nextCursor}",
    "target": "extension"
  },
  "containers.list": {
    "doc": "Firefox containers (contextual identities) with their tab counts; UNSUPPORTED in Chromium.",
    "params": {},
    "result": "{containers: [{name, color, icon, cookieStoreId, tabs}]}",
    "target": "extension"
  },
  "cookies.clear": {
    "doc": "Removes the cookies matching the filters (at least one filter); dryRun only counts them.",
    "params": {
      "domain": {
        "doc": "cookies of this domain and its subdomains",
        "required": false,
        "type": "string"
      },
      "dryRun": {
        "doc": "count, remove nothing",
        "required": false,
        "type": "boolean"
      },
      "name": {
        "doc": "only cookies of this name",
        "required": false,
        "type": "string"
      },
      "partitionKey": {
        "doc": "CHIPS partition `{topLevelSite}`; `{}` = every partition",
        "required": false,
        "type": "object"
      },
      "storeId": {
        "doc": "cookie store (Firefox container `firefox-container-N`, private store)",
        "required": false,
        "type": "string"
      },
      "url": {
        "doc": "cookies the browser would send to this URL",
        "required": false,
        "type": "string"
      }
    },
    "result": "{matched, removed, cookies: [{name, domain, path, storeId}]}",
    "target": "extension"
  },
  "cookies.get": {
    "doc": "Cookies matching the filters: names, attributes and sizes; values only with includeValues.",
    "params": {
      "cursor": {
        "doc": "nextCursor of the previous page",
        "required": false,
        "type": "string"
      },
      "domain": {
        "doc": "cookies of this domain and its subdomains",
        "required": false,
        "type": "string"
      },
      "includeValues": {
        "doc": "with values (the server decides whether it may ask)",
        "required": false,
        "type": "boolean"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size of the listing",
        "required": false,
        "type": "integer"
      },
      "name": {
        "doc": "only cookies of this name",
        "required": false,
        "type": "string"
      },
      "partitionKey": {
        "doc": "CHIPS partition `{topLevelSite}`; `{}` = every partition",
        "required": false,
        "type": "object"
      },
      "storeId": {
        "doc": "cookie store (Firefox container `firefox-container-N`, private store)",
        "required": false,
        "type": "string"
      },
      "url": {
        "doc": "cookies the browser would send to this URL",
        "required": false,
        "type": "string"
      }
    },
    "result": "{cookies: [{name, domain, path, secure, httpOnly, sameSite, session, expirationDate?, hostOnly, storeId, partitionKey?, size, value?}], total, offset, nextCursor}",
    "target": "extension"
  },
  "cookies.set": {
    "doc": "Sets cookies (`cookies.set` details each: url or domain, name, value, path, secure, httpOnly, sameSite, expirationDate, storeId, partitionKey).",
    "params": {
      "cookies": {
        "doc": "[{url?, domain?, name, value, …}]",
        "required": true,
        "type": "array"
      }
    },
    "result": "{set: [{name, domain, path, storeId, size}]}",
    "target": "extension"
  },
  "debug.digest": {
    "doc": "Diagnostic: what arrived in the extension, to check framing and chunk reassembly.",
    "params": {
      "payload": {
        "doc": "any text; hashed as UTF-8",
        "required": true,
        "type": "string"
      }
    },
    "result": "{length: UTF-16 units, bytes: UTF-8 bytes, sha256: hex of the UTF-8 bytes, chunked: bool, chunks: number of chunk frames (0 when whole), frameBytes: request body size}",
    "target": "extension"
  },
  "host.info": {
    "doc": "The host's descriptor and the extension's hello.",
    "params": {},
    "result": "{descriptor, hello, clients, pending}",
    "target": "host"
  },
  "network.get": {
    "doc": "One request of the tab in full: headers both ways, request body, response body when captured.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "id": {
        "doc": "the request's `id` from network.list",
        "required": true,
        "type": "string"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "most bytes of each body returned",
        "max": 1048576,
        "min": 0,
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, request: the list entry plus requestHeaders, responseHeaders: [{name, value}], requestBody?: {text | formData, bytes, truncated}, responseBody: {available, text?, base64?, bytes, truncated, why?}}",
    "target": "extension"
  },
  "network.list": {
    "doc": "The tab's requests seen through webRequest, oldest first (method, URL, status, type, timings, sizes, cache, failure); starts capturing in a tab the helper had not seen yet.",
    "params": {
      "captureBodies": {
        "doc": "Chromium with debugger mode: keep response bodies of the tab's next loads (true) or stop (false)",
        "required": false,
        "type": "boolean"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`nextCursor` of the previous page",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size (JSON of the entries)",
        "max": 1048576,
        "min": 256,
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "since": {
        "doc": "only entries after this seq (`lastSeq` of an earlier answer)",
        "required": false,
        "type": "integer"
      },
      "status": {
        "doc": "200, 4xx, 5xx, ok (2xx/3xx), failed (no response)",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "type": {
        "doc": "resource type: document, script, stylesheet, image, font, fetch (XHR and fetch), media, websocket, other",
        "required": false,
        "type": "string"
      },
      "url": {
        "doc": "URL substring, or a pattern with *",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tab, capturedSince, bodies: {captured: bool, via?, why?}, entries: [{seq, id, method, url, type, status?, statusText?, fromCache, failed, error?, initiator?, frameId, doc, timings, sizes, body}], total, dropped, lastSeq, nextCursor}",
    "target": "extension"
  },
  "page.act": {
    "doc": "One action with auto-wait (attached, visible, enabled, stable box, hit test), then settle.",
    "params": {
      "action": {
        "doc": "click | hover | fill | type | select | press | scroll | drag",
        "required": true,
        "type": "string"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "dx": {
        "doc": "scroll without locator: pixels right",
        "required": false,
        "type": "integer"
      },
      "dy": {
        "doc": "scroll without locator: pixels down",
        "required": false,
        "type": "integer"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "key": {
        "doc": "press: a key name (Enter, Tab, Escape, a, …)",
        "required": false,
        "type": "string"
      },
      "locator": {
        "doc": "a ref (e12, f2e7), text=…, role=button[name=\"…\"] or a CSS selector",
        "required": false,
        "type": "string"
      },
      "nth": {
        "doc": "which match (0-based) when the locator matches several",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "shift": {
        "doc": "press: with Shift (Shift+Tab)",
        "required": false,
        "type": "boolean"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "text": {
        "doc": "type: the text, key by key",
        "required": false,
        "type": "string"
      },
      "timeoutMs": {
        "default": 10000,
        "doc": "auto-wait and navigation deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "to": {
        "doc": "drag: the drop target's locator",
        "required": false,
        "type": "string"
      },
      "toNth": {
        "doc": "drag: which match of `to`",
        "required": false,
        "type": "integer"
      },
      "value": {
        "doc": "fill: the value (text; checkboxes and radios: true/false)",
        "required": false,
        "type": "string|boolean"
      },
      "values": {
        "doc": "select: option values or labels",
        "required": false,
        "type": "array"
      }
    },
    "result": "{action, ref, element, input: synthetic | trusted, waitedMs, settledMs, navigated, tab, changes: {added: [snapshot lines], removed: [refs], truncated} | null}",
    "target": "extension"
  },
  "page.clearSnapshot": {
    "doc": "Forgets the tab's cached snapshot and tables (refs stay valid: they name elements).",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{cleared: bool}",
    "target": "extension"
  },
  "page.dialog": {
    "doc": "accept_dialog / dismiss_dialog: arms the answer to the tab's next dialog (its hook answers at once); a tab a native dialog blocks is BLOCKED.",
    "params": {
      "accept": {
        "doc": "true: OK (accept); false: Cancel (dismiss)",
        "required": true,
        "type": "boolean"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "promptText": {
        "doc": "prompt(): the text to answer with when accepting",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, armed: {action, promptText?}, dialogs: [{type, message, answered}]}",
    "target": "extension"
  },
  "page.emulate": {
    "doc": "Per-tab emulation through the debugger (Chromium, debugger mode): device scale factor, mobile, user agent, colour scheme, reduced motion; held until reset. UNSUPPORTED naming what is missing otherwise.",
    "params": {
      "colorScheme": {
        "doc": "light | dark (prefers-color-scheme)",
        "required": false,
        "type": "string"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "deviceScaleFactor": {
        "doc": "devicePixelRatio the page sees (0.5–4)",
        "required": false,
        "type": "number"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "mobile": {
        "doc": "mobile viewport (meta viewport honoured) and touch events",
        "required": false,
        "type": "boolean"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "reducedMotion": {
        "doc": "reduce | no-preference (prefers-reduced-motion)",
        "required": false,
        "type": "string"
      },
      "reset": {
        "doc": "clear every emulation of the tab (and its debugger-made size) first",
        "required": false,
        "type": "boolean"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 15000,
        "doc": "deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "userAgent": {
        "doc": "navigator.userAgent and the User-Agent header",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tab, mechanism: debugger | none, emulation: {…what is in effect}, page: {innerWidth, innerHeight, devicePixelRatio, userAgent, dark, reducedMotion, touch}}",
    "target": "extension"
  },
  "page.evaluate": {
    "doc": "Runs a function in the page's main world with JSON arguments; JSON result, paged.",
    "params": {
      "args": {
        "doc": "JSON arguments",
        "required": false,
        "type": "array"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`<resultId>:<offset>` for the next page",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "function": {
        "doc": "function expression or expression (required without cursor)",
        "required": false,
        "type": "string"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size of the JSON text",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "scrubSecrets": {
        "default": true,
        "doc": "replace the tab's cookie values and secret storage values in the result",
        "required": false,
        "type": "boolean"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, resultId, json: this page of the JSON text, offset, nextCursor, totalBytes, scrubbed}",
    "target": "extension"
  },
  "page.fillForm": {
    "doc": "Fills several fields by ref (each auto-waited), then settles once.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "fields": {
        "doc": "[{ref, value}]",
        "required": true,
        "type": "array"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 10000,
        "doc": "deadline for the whole form",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      }
    },
    "result": "{action: fill_form, filled: [{ref, element}], input, settledMs, navigated, tab, changes}",
    "target": "extension"
  },
  "page.find": {
    "doc": "Elements whose text, accessible name, placeholder, alt, title or aria-label match `query`; one line each with its ref.",
    "params": {
      "caseSensitive": {
        "doc": "match case",
        "required": false,
        "type": "boolean"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`<findId>:<offset>` from a previous page",
        "required": false,
        "type": "string"
      },
      "exact": {
        "doc": "whole text equal (whitespace-normalized), not a substring",
        "required": false,
        "type": "boolean"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "limit": {
        "default": 50,
        "doc": "most hits per page",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "query": {
        "doc": "text to find (whitespace-normalized), or `/pattern/flags` (JavaScript RegExp)",
        "required": true,
        "type": "string"
      },
      "redact": {
        "default": "safe",
        "doc": "safe | strict | off",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{snapshotId: q<N>, tab, text: one line per hit, offset, nextCursor: string | null, totalBytes, hits: [{ref, role, name, field, context, inViewport}], total}",
    "target": "extension"
  },
  "page.resize": {
    "doc": "Sets the tab's viewport (innerWidth × innerHeight) by sizing its window, or per tab through the debugger (Chromium, debugger mode); a window holding the user's other tabs only with `force`.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "force": {
        "doc": "size the tab's window even when it holds tabs of the user's",
        "required": false,
        "type": "boolean"
      },
      "height": {
        "doc": "viewport height in CSS px",
        "max": 7680,
        "min": 100,
        "required": true,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 15000,
        "doc": "deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "width": {
        "doc": "viewport width in CSS px",
        "max": 7680,
        "min": 100,
        "required": true,
        "type": "integer"
      }
    },
    "result": "{tab, mechanism: window | debugger, width, height (what the page reports now), asked: {width, height}, exact: bool, window?: {windowId, width, height, agent: bool, otherTabs: tabs sharing the new size}, moved?: bool}",
    "target": "extension"
  },
  "page.resolveRef": {
    "doc": "A CSS selector that finds the element a ref names (through open shadow roots: one per host).",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "ref": {
        "doc": "e12 or f2e7",
        "required": true,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{ref, selector, shadowPath: [selector…], frame: {ordinal, frameId, url}, tag, unique: bool}",
    "target": "extension"
  },
  "page.screenshot": {
    "doc": "An image of the tab (viewport, full page, clip or one element), background tabs included, without activating the tab or focusing its window; fitted to the budget.",
    "params": {
      "clip": {
        "doc": "{x, y, width, height} in CSS pixels of the page",
        "required": false,
        "type": "object"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "format": {
        "default": "auto",
        "doc": "png | jpeg | auto (as captured when it fits, else JPEG)",
        "required": false,
        "type": "string"
      },
      "fullPage": {
        "doc": "the whole page, not only the viewport",
        "required": false,
        "type": "boolean"
      },
      "maxBytes": {
        "default": 204800,
        "doc": "image size budget",
        "max": 1048576,
        "min": 1024,
        "required": false,
        "type": "integer"
      },
      "maxWidth": {
        "default": 1568,
        "doc": "longest side in pixels",
        "max": 8192,
        "min": 16,
        "required": false,
        "type": "integer"
      },
      "padding": {
        "default": 8,
        "doc": "with ref: CSS pixels around the element",
        "max": 200,
        "min": 0,
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "quality": {
        "doc": "JPEG quality",
        "max": 100,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "redact": {
        "default": "safe",
        "doc": "safe (mask password and secret fields) | off",
        "required": false,
        "type": "string"
      },
      "ref": {
        "doc": "an element (a ref from take_snapshot) instead of the viewport",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 15000,
        "doc": "capture deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, mechanism: captureTab | visibleTab | debugger, format, width, height, bytes, scaled, masked, element?, truncated?, data: base64, timings: {captureMs, encodeMs, helperMs}}",
    "target": "extension"
  },
  "page.snapshot": {
    "doc": "Snapshot of a tab's DOM as a text tree with refs (collector + engine); pages with `cursor`.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`<snapshotId>:<offset>` from a previous page; STALE once superseded",
        "required": false,
        "type": "string"
      },
      "diff": {
        "doc": "only what changed since this client's previous snapshot of the tab",
        "required": false,
        "type": "boolean"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "interactiveOnly": {
        "doc": "only interactive elements, flat",
        "required": false,
        "type": "boolean"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size",
        "required": false,
        "type": "integer"
      },
      "maxDepth": {
        "doc": "depth limit below the root",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "redact": {
        "default": "safe",
        "doc": "safe | strict | off",
        "required": false,
        "type": "string"
      },
      "root": {
        "doc": "ref whose subtree to render (expands collapsed runs)",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "viewportOnly": {
        "doc": "only what intersects the viewport",
        "required": false,
        "type": "boolean"
      }
    },
    "result": "{snapshotId, diff?: {full: true, why} | {full: false, since, added, removed, changed}, tab, text: this page, offset, nextCursor: string | null, totalBytes,                  nodes, refs, collapsed, frames, timings: {prepMs, collectMs, walkMs, mapMs, jsonMs, transferMs,                  engineMs, pageMs, helperMs, walkers: [\"main\" | \"isolated\" per frame]}}",
    "target": "extension"
  },
  "page.text": {
    "doc": "The tab's visible text in reading order, one line per block (frames included, hidden text left out, redacted); pages with `cursor`.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "`<textId>:<offset>` from a previous page; STALE once superseded",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "main": {
        "doc": "read_page: the main content as structured text (headings, lists, tables, code, links with refs)",
        "required": false,
        "type": "boolean"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "redact": {
        "default": "safe",
        "doc": "safe | strict | off",
        "required": false,
        "type": "string"
      },
      "root": {
        "doc": "ref whose subtree to read",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{snapshotId: t<N> (m<N> with main), tab, text: this page, offset, nextCursor: string | null, totalBytes: null while only the start of a long page was read, pageChanged?: true when the page changed since the previous page, nodes: lines, frames}",
    "target": "extension"
  },
  "page.upload": {
    "doc": "Sets the files of an open upload on its <input type=file> (input and change events), or drops them on its element (dragenter, dragover, drop), then settles.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "drop": {
        "doc": "drop the files on the element instead of setting an input's files",
        "required": false,
        "type": "boolean"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "files": {
        "doc": "[{name, type, size, lastModified}] in staging order",
        "required": true,
        "type": "array"
      },
      "locator": {
        "doc": "a ref (e12, f2e7), text=…, role=…[name=\"…\"] or a CSS selector",
        "required": true,
        "type": "string"
      },
      "nth": {
        "doc": "which match (0-based) when the locator matches several",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "paths": {
        "doc": "Chromium debugger mode, an <input type=file> of the top document: the admitted real paths, set by DOM.setFileInputFiles (nothing staged); UNSUPPORTED with data.stage = true when that cannot be used",
        "required": false,
        "type": "array"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 10000,
        "doc": "auto-wait and navigation deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "upload": {
        "doc": "the id page.uploadOpen opened (required without `paths`); the locator must name the element it was opened for",
        "required": false,
        "type": "string"
      }
    },
    "result": "{action: upload, ref, element, files: [{name, size, type}] as the page sees them, accept, warnings, input, waitedMs, settledMs, navigated, tab, changes}",
    "target": "extension"
  },
  "page.uploadCancel": {
    "doc": "Drops an open upload and every piece staged for it (in the background and in the page).",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "upload": {
        "doc": "the id page.uploadOpen opened",
        "required": true,
        "type": "string"
      }
    },
    "result": "{upload, cancelled}",
    "target": "extension"
  },
  "page.uploadChunk": {
    "doc": "One piece of a file of an open upload: decoded in the element's frame (or kept in the background for a Firefox drop); pieces may arrive in any order and stay under the message cap; an upload expires 60 s after its last piece.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "data": {
        "doc": "the piece, base64 (every piece but a file's last is a multiple of 3 bytes)",
        "required": true,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "file": {
        "doc": "which file of the upload (0-based)",
        "required": true,
        "type": "integer"
      },
      "index": {
        "doc": "which piece of that file (0-based)",
        "required": true,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "upload": {
        "doc": "the id page.uploadOpen opened",
        "required": true,
        "type": "string"
      }
    },
    "result": "{upload, file, index, stagedBytes}",
    "target": "extension"
  },
  "page.uploadOpen": {
    "doc": "Opens a staged upload: resolves the element (auto-waited, a ref re-checked) and binds the upload to it, so the pieces that follow go straight to its frame.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "drop": {
        "doc": "drop the files on the element instead of setting an input's files",
        "required": false,
        "type": "boolean"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "files": {
        "doc": "[{name, type, size, lastModified}] in staging order",
        "required": true,
        "type": "array"
      },
      "locator": {
        "doc": "a ref (e12, f2e7), text=… or a CSS selector",
        "required": true,
        "type": "string"
      },
      "nth": {
        "doc": "which match (0-based) when the locator matches several",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 10000,
        "doc": "auto-wait deadline",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "upload": {
        "doc": "the upload's id (8–64 of A-Z a-z 0-9 _ -), chosen by the caller",
        "required": true,
        "type": "string"
      }
    },
    "result": "{upload, element, accept, warnings, staging: page | helper}",
    "target": "extension"
  },
  "page.waitFor": {
    "doc": "Waits until text, a selector or a ref appears (or is gone), or the URL matches.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "ref": {
        "doc": "a ref from take_snapshot",
        "required": false,
        "type": "string"
      },
      "selector": {
        "doc": "CSS selector",
        "required": false,
        "type": "string"
      },
      "state": {
        "default": "visible",
        "doc": "visible | gone",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "text": {
        "doc": "visible text to wait for",
        "required": false,
        "type": "string"
      },
      "timeoutMs": {
        "default": 10000,
        "doc": "how long to wait",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "url": {
        "doc": "URL substring, or a pattern with *",
        "required": false,
        "type": "string"
      }
    },
    "result": "{met: true, waitedMs, element?, ref?}",
    "target": "extension"
  },
  "ping": {
    "doc": "Round trip to the extension background.",
    "params": {
      "payload": {
        "doc": "echoed back as `payload`",
        "required": false,
        "type": "string"
      }
    },
    "result": "{pong: true, payload?, time: ms since epoch}",
    "target": "extension"
  },
  "storage.clear": {
    "doc": "Removes keys (or every key) of the tab's localStorage and/or sessionStorage; dryRun only counts.",
    "params": {
      "area": {
        "default": "all",
        "doc": "local | session | all",
        "required": false,
        "type": "string"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "dryRun": {
        "doc": "count, remove nothing",
        "required": false,
        "type": "boolean"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "keys": {
        "doc": "only these keys (default: all)",
        "required": false,
        "type": "array"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, origin, removed: [{area, key}], dryRun}",
    "target": "extension"
  },
  "storage.get": {
    "doc": "The tab's origin's localStorage / sessionStorage (keys, sizes, values with secrets redacted unless includeValues) and its IndexedDB databases with object-store counts; paged.",
    "params": {
      "area": {
        "default": "all",
        "doc": "local | session | all",
        "required": false,
        "type": "string"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "cursor": {
        "doc": "nextCursor of the previous page",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "includeValues": {
        "doc": "secret-looking values too (the server decides whether it may ask)",
        "required": false,
        "type": "boolean"
      },
      "indexedDb": {
        "default": true,
        "doc": "list IndexedDB databases",
        "required": false,
        "type": "boolean"
      },
      "maxBytes": {
        "default": 16384,
        "doc": "page size of the listing",
        "required": false,
        "type": "integer"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "prefix": {
        "doc": "only keys starting with this",
        "required": false,
        "type": "string"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, origin, entries: [{area, key, size, value, redacted}], total, offset, nextCursor, indexedDb: [{name, version, stores: [{name, count}]}] | null}",
    "target": "extension"
  },
  "storage.set": {
    "doc": "Sets keys of the tab's localStorage or sessionStorage.",
    "params": {
      "area": {
        "default": "local",
        "doc": "local | session",
        "required": false,
        "type": "string"
      },
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "items": {
        "doc": "{key: string value}",
        "required": true,
        "type": "object"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{tab, origin, area, set: [key]}",
    "target": "extension"
  },
  "subscribe": {
    "doc": "Receive these extension events on this connection (`*` = all).",
    "params": {
      "events": {
        "doc": "event names",
        "required": true,
        "type": "array"
      }
    },
    "result": "{events: every name now subscribed}",
    "target": "host"
  },
  "tabs.close": {
    "doc": "Closes a tab.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      }
    },
    "result": "{closed: tabId}",
    "target": "extension"
  },
  "tabs.list": {
    "doc": "The tabs visible to the extension, in fingerprint order.",
    "params": {
      "container": {
        "doc": "only this cookie store's tabs (a container-scoped server)",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tabs: [{tabId, windowId, index, url, title, active, status, container}], fingerprint, activeTabId}",
    "target": "extension"
  },
  "tabs.navigate": {
    "doc": "Loads a URL, goes back/forward or reloads, then waits for the load.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "steps": {
        "default": 1,
        "doc": "history entries to move with back/forward",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "timeoutMs": {
        "default": 15000,
        "doc": "load wait",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "type": {
        "doc": "url | back | forward | reload",
        "required": true,
        "type": "string"
      },
      "url": {
        "doc": "with type url",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tab, loaded: bool, moved: bool}",
    "target": "extension"
  },
  "tabs.new": {
    "doc": "Opens a tab, in the background unless `active`; waits for its load.",
    "params": {
      "active": {
        "default": false,
        "doc": "bring it to the front",
        "required": false,
        "type": "boolean"
      },
      "cookieStoreId": {
        "doc": "Firefox: open it in this container (UNSUPPORTED elsewhere)",
        "required": false,
        "type": "string"
      },
      "timeoutMs": {
        "default": 15000,
        "doc": "load wait",
        "max": 50000,
        "min": 1,
        "required": false,
        "type": "integer"
      },
      "url": {
        "default": "about:blank",
        "doc": "the page to open",
        "required": false,
        "type": "string"
      },
      "window": {
        "default": "current",
        "doc": "current | agent (the agent's own unfocused window)",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tab, loaded: bool}",
    "target": "extension"
  },
  "tabs.select": {
    "doc": "Brings a tab to the front (and its window); by address or by URL substring.",
    "params": {
      "container": {
        "doc": "a container-scoped server's cookie store: other tabs are NOT_FOUND",
        "required": false,
        "type": "string"
      },
      "expectTabSet": {
        "doc": "tab-set fingerprint the caller saw; STALE when it changed",
        "required": false,
        "type": "string"
      },
      "pageIdx": {
        "doc": "position in the visible tab list of `tabs.list`",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab (preferred)",
        "required": false,
        "type": "integer"
      },
      "url": {
        "doc": "substring of the URL, instead of tabId/pageIdx",
        "required": false,
        "type": "string"
      }
    },
    "result": "{tab}",
    "target": "extension"
  },
  "unsubscribe": {
    "doc": "Stop receiving these events.",
    "params": {
      "events": {
        "doc": "event names",
        "required": true,
        "type": "array"
      }
    },
    "result": "{events: every name still subscribed}",
    "target": "host"
  }
});

export const EVENTS = Object.freeze({
  "HELLO": "hello",
  "OBSERVE_CHANGED": "observe.changed"
});

export const EVENT_SPECS = Object.freeze({
  "hello": {
    "doc": "The extension's first frame after connectNative.",
    "params": {
      "browser": {
        "doc": "browser name, e.g. chromium, chrome, edge, brave, firefox, zen",
        "required": true,
        "type": "string"
      },
      "browserVersion": {
        "doc": "browser version",
        "required": true,
        "type": "string"
      },
      "capabilities": {
        "doc": "feature names, e.g. tabs, scripting, debugger",
        "required": true,
        "type": "array"
      },
      "extVersion": {
        "doc": "helper extension version",
        "required": true,
        "type": "string"
      },
      "label": {
        "doc": "profile label (default `<browser>-<6 hex>`)",
        "required": true,
        "type": "string"
      },
      "permissions": {
        "doc": "{permissions, origins}: what permissions.getAll() says the helper holds (doctor compares it with the permission table)",
        "required": false,
        "type": "object"
      }
    }
  },
  "observe.changed": {
    "doc": "A tab's console or network log has new entries (at most 4 events a second per tab), or the tab closed. Never an entry: read them with console.list / network.list.",
    "params": {
      "closed": {
        "doc": "true: the tab closed",
        "required": false,
        "type": "boolean"
      },
      "console": {
        "doc": "newest seq of its console log (lastSeq of console.list)",
        "required": false,
        "type": "integer"
      },
      "network": {
        "doc": "newest seq of its network log (lastSeq of network.list)",
        "required": false,
        "type": "integer"
      },
      "tabId": {
        "doc": "the tab",
        "required": true,
        "type": "integer"
      }
    }
  }
});

export const CHUNK = Object.freeze({
  "dataKey": "data",
  "doc": "Concatenate `data` of seq 0, 1, … until `last`; the result is the JSON text of one frame.",
  "example": {
    "chunk": {
      "id": "c1:7",
      "last": false,
      "seq": 0
    },
    "data": "…",
    "v": 1
  },
  "fields": [
    "id",
    "seq",
    "last"
  ],
  "key": "chunk"
});

export const FINGERPRINT = Object.freeze({
  "doc": "first 12 hex of sha256 over `${windowId}:${tabId}` joined with ',' (windows by ascending id, tabs by index)",
  "length": 12,
  "separator": ","
});

export const CAPTURE = Object.freeze({
  "bodyBytes": 1048576,
  "consoleBytes": 1048576,
  "consoleEntries": 1000,
  "networkBytes": 2097152,
  "networkEntries": 1000,
  "requestBodyBytes": 65536,
  "tabBodyBytes": 8388608
});
