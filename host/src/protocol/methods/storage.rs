//! Cookies and extension storage.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
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
    MethodSpec {
        name: COOKIES_SET,
        target: Target::Extension,
        doc: "Sets cookies (`cookies.set` details each: url or domain, name, value, path, secure, httpOnly, \
              sameSite, expirationDate, storeId, partitionKey).",
        params: &[p("cookies", "array", true, "[{url?, domain?, name, value, …}]")],
        result: "{set: [{name, domain, path, storeId, size}]}",
    },
    MethodSpec {
        name: COOKIES_CLEAR,
        target: Target::Extension,
        doc: "Removes the cookies matching the filters (at least one filter); dryRun only counts them.",
        params: cookie_filters![p("dryRun", "boolean", false, "count, remove nothing")],
        result: "{matched, removed, cookies: [{name, domain, path, storeId}]}",
    },
    MethodSpec {
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
    MethodSpec {
        name: STORAGE_SET,
        target: Target::Extension,
        doc: "Sets keys of the tab's localStorage or sessionStorage.",
        params: tab_params![
            p("area", "string", false, "local | session").or(DefaultValue::Str("local")),
            p("items", "object", true, "{key: string value}"),
        ],
        result: "{tab, origin, area, set: [key]}",
    },
    MethodSpec {
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

typed_methods!(CookiesGet, CookiesSet, CookiesClear, StorageGet, StorageSet, StorageClear);

/// A CHIPS partition: the top-level site a partitioned cookie is keyed by.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Partition {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_level_site: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_cross_site_ancestor: Option<bool>,
}

/// `cookies.get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookiesGet {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<Partition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_values: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
method!(CookiesGet => COOKIES_GET, CookieList, TAB_CALL_TIMEOUT_MS);

/// One cookie to set (`cookies.set` details).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub name: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secure: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_only: Option<bool>,
    /// `None`, `Lax`, `Strict` or `Unspecified` (the helper maps them to the API's words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    /// Seconds since the epoch; absent: a session cookie.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<Partition>,
}

/// `cookies.set`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CookiesSet {
    pub cookies: Vec<CookieDetails>,
}
method!(CookiesSet => COOKIES_SET, CookiesWritten, TAB_CALL_TIMEOUT_MS);

/// `cookies.clear`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookiesClear {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<Partition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
}
method!(CookiesClear => COOKIES_CLEAR, CookiesRemoved, TAB_CALL_TIMEOUT_MS);

/// `storage.get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageGet {
    /// `local`, `session` or `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_values: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_db: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
method!(StorageGet => STORAGE_GET, StorageListing, TAB_CALL_TIMEOUT_MS);

/// `storage.set`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageSet {
    /// `local` or `session`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    pub items: Map<String, Value>,
}
method!(StorageSet => STORAGE_SET, StorageWritten, TAB_CALL_TIMEOUT_MS);

/// `storage.clear`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageClear {
    /// `local`, `session` or `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
}
method!(StorageClear => STORAGE_CLEAR, StorageRemoved, TAB_CALL_TIMEOUT_MS);

/// One cookie as the helper describes it (`extension/src/cookies.js`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    pub name: String,
    pub domain: String,
    pub path: String,
    pub secure: bool,
    pub http_only: bool,
    pub same_site: String,
    pub session: bool,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `cookies.get`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieList {
    pub cookies: Vec<Cookie>,
    pub total: u64,
    pub offset: u64,
    pub next_cursor: Option<String>,
}

/// `cookies.set`: the cookies set, named (no values).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CookiesWritten {
    pub set: Vec<Value>,
}

/// `cookies.clear`: counts and the cookies matched, named (no values).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CookiesRemoved {
    pub matched: u64,
    pub removed: u64,
    pub cookies: Vec<Value>,
}

/// One stored key as the helper shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageEntry {
    pub area: String,
    pub key: String,
    pub size: u64,
    pub value: String,
    pub redacted: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `storage.get`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageListing {
    pub tab: Tab,
    pub origin: String,
    pub entries: Vec<StorageEntry>,
    pub total: u64,
    pub offset: u64,
    pub next_cursor: Option<String>,
    pub indexed_db: Option<Vec<Value>>,
}

/// `storage.set`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StorageWritten {
    pub tab: Tab,
    pub origin: String,
    pub area: String,
    pub set: Vec<String>,
}

/// `storage.clear`: the keys removed (or, with dryRun, that would be).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageRemoved {
    pub tab: Tab,
    pub origin: String,
    pub removed: Vec<Value>,
    pub dry_run: bool,
}
