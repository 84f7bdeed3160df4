//! Cookies and extension storage.

use super::*;

pub(super) const METHODS: &[Method] = &[
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
];
