//! Console and network logs.

use super::*;

pub(super) const METHODS: &[Method] = &[
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
