//! `get_cookies`, `set_cookies`, `clear_cookies` (the Zen spec's names): every attribute,
//! cookie stores (Firefox containers: `storeId`) and CHIPS partitions (`partitionKey`).
//!
//! Values are secrets: results show names, attributes and sizes; a value leaves the browser
//! only when the call says `includeValues: true` AND [`may_show_values`] allows it for that
//! browser (config `tools.cookie_values`; unset, only dev-session browsers). Values are never
//! logged (the server logs tool names and sizes only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::methods::{
    Cookie, CookieDetails, CookiesClear, CookiesGet, CookiesSet, Method, Partition,
};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::bridge::Timeout;
use crate::bridge::results::to_value;
use crate::tools::{Context, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![GET_COOKIES, SET_COOKIES, CLEAR_COOKIES]
}

/// A CHIPS partition: the top-level site a partitioned cookie is keyed by.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PartitionKey {
    /// e.g. `https://example.com` (scheme and registrable domain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_level_site: Option<String>,
    /// Chromium: whether the cookie was set from a cross-site frame chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_cross_site_ancestor: Option<bool>,
}

impl GetArgs {
    /// The `cookies.get` call these arguments make: only the filters given.
    fn wire(&self) -> CookiesGet {
        CookiesGet {
            url: self.url.clone(),
            domain: self.domain.clone(),
            name: self.name.clone(),
            store_id: self.store_id.clone(),
            partition_key: self.partition_key.as_ref().map(PartitionKey::wire),
            include_values: Some(self.include_values),
            max_bytes: self.max_bytes,
            cursor: self.cursor.clone(),
        }
    }
}

impl PartitionKey {
    fn wire(&self) -> Partition {
        Partition {
            top_level_site: self.top_level_site.clone(),
            has_cross_site_ancestor: self.has_cross_site_ancestor,
        }
    }
}

/// The filters of `get_cookies` and `clear_cookies`.
macro_rules! cookie_args {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $fvis:vis $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            #[serde(default)]
            pub browser: Option<String>,
            /// Cookies the browser would send to this URL.
            #[serde(default)]
            pub url: Option<String>,
            /// Cookies of this domain and its subdomains.
            #[serde(default)]
            pub domain: Option<String>,
            #[serde(default)]
            pub name: Option<String>,
            /// Cookie store: a Firefox container (`firefox-container-1`, list_pages shows tabs' containers); default: the browser's default store.
            #[serde(default)]
            pub store_id: Option<String>,
            /// Only this CHIPS partition ({} or absent: every partition and unpartitioned cookies).
            #[serde(default)]
            pub partition_key: Option<PartitionKey>,
            $($(#[$fmeta])* $fvis $field: $ty,)*
        }

    };
}

cookie_args! {
    /// Arguments of `get_cookies`.
    GetArgs {
        /// With values (needs config tools.cookie_values for the daily browser).
        #[serde(default)]
        pub include_values: bool,
        /// Page size of the listing (default 16384).
        #[serde(default)]
        pub max_bytes: Option<u64>,
        /// nextCursor of the previous page.
        #[serde(default)]
        pub cursor: Option<String>,
    }
}

cookie_args! {
    /// Arguments of `clear_cookies`.
    ClearArgs {
        /// Count the matching cookies, remove nothing.
        #[serde(default)]
        pub dry_run: bool,
    }
}

/// `SameSite`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub enum SameSite {
    None,
    Lax,
    Strict,
    Unspecified,
}

/// One cookie to set.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CookieSpec {
    /// The URL it belongs to (default: built from domain, path and secure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub name: String,
    #[serde(default)]
    pub value: String,
    /// Makes it a domain cookie (sent to subdomains); without it, host-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
    /// Seconds since the epoch; none: a session cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    /// CHIPS: set as a partitioned cookie of this top-level site (needs secure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<PartitionKey>,
}

impl SameSite {
    fn as_str(self) -> &'static str {
        match self {
            SameSite::None => "None",
            SameSite::Lax => "Lax",
            SameSite::Strict => "Strict",
            SameSite::Unspecified => "Unspecified",
        }
    }
}

impl CookieSpec {
    /// The `cookies.set` details of this cookie.
    fn details(&self) -> CookieDetails {
        CookieDetails {
            url: self.url.clone(),
            name: self.name.clone(),
            value: self.value.clone(),
            domain: self.domain.clone(),
            path: self.path.clone(),
            secure: self.secure,
            http_only: self.http_only,
            same_site: self.same_site.map(|s| s.as_str().to_owned()),
            expiration_date: self.expiration_date,
            store_id: self.store_id.clone(),
            partition_key: self.partition_key.as_ref().map(PartitionKey::wire),
        }
    }
}

/// Arguments of `set_cookies`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetArgs {
    #[serde(default)]
    pub browser: Option<String>,
    pub cookies: Vec<CookieSpec>,
}

/// Whether secret values (cookie values, secret-looking storage values) may be shown for
/// browser `d`: config `tools.cookie_values` when set, else only in dev-session browsers
/// (a browser webext-mcp launched carries a session id), never the daily browser.
pub fn may_show_values(setting: bool, unset: bool, dev_session: bool) -> bool {
    if unset { dev_session } else { setting }
}

/// [`may_show_values`] for this server and browser.
pub fn values_allowed(ctx: &Context, d: &Descriptor) -> bool {
    may_show_values(
        ctx.config.flag("tools.cookie_values"),
        ctx.config.is_unset("tools.cookie_values"),
        d.session.is_some(),
    )
}

/// [`may_show_values`] for this server and browser, or the error for a call that asked.
pub fn value_policy(ctx: &Context, d: &Descriptor) -> Result<(), ErrorBody> {
    if values_allowed(ctx, d) {
        return Ok(());
    }
    Err(values_refused(
        format!("values are hidden in {} (config tools.cookie_values is off for it)", d.label),
        "leave includeValues out to see names, attributes and sizes",
    ))
}

/// The refusal of a call that would show cookie (or secret storage) values the switch keeps
/// hidden: `PERMISSION_DENIED` naming the switch in `data.capability`.
pub fn values_refused(message: String, instead: &str) -> ErrorBody {
    ErrorBody::new(ErrorCode::PermissionDenied, message)
        .with_hint(format!(
            "{instead}; or set tools.cookie_values = true in the config file (webext-mcp config shows where)"
        ))
        .with_data(serde_json::json!({ "capability": "tools.cookie_values" }))
}

fn timeout() -> Timeout {
    Timeout::fixed(CookiesGet::TIMEOUT_MS)
}

const GET_COOKIES: ToolDef = ToolDef {
    name: "get_cookies",
    title: "List cookies",
    toolset: Toolset::Storage,
    description: "Cookies by url or domain (name, storeId/container, partitionKey for CHIPS): names, attributes, sizes. Values only with includeValues and config tools.cookie_values (unset: dev-session browsers only). Paged: maxBytes + cursor.",
    effect: Effect::Read,
    input_schema: schema_of::<GetArgs>,
    run: |ctx, _call, args| Box::pin(get_cookies(ctx, args)),
};

async fn get_cookies(ctx: Ctx, args: Value) -> ToolResult {
    let a: GetArgs = decode(args)?;
    let d = ctx.browser.resolve_waiting(a.browser.as_deref(), timeout()).await?;
    if a.include_values {
        value_policy(&ctx, &d)?;
    }
    // Through `call`, like every browser call: a container-scoped server's store applies.
    let (_, list) = ctx.browser.call(a.browser.as_deref(), a.wire(), timeout()).await?;
    let mut text = format!(
        "{} of {} cookies{}",
        list.cookies.len(),
        list.total,
        list.next_cursor.as_ref().map(|c| format!(" (nextCursor {c})")).unwrap_or_default()
    );
    // Names, domains and values are the sites' to choose: inside the untrusted block.
    let lines: Vec<String> = list.cookies.iter().map(cookie_line).collect();
    if !lines.is_empty() {
        text.push('\n');
        text.push_str(&crate::text::untrusted(&lines.join("\n")));
    }
    Ok(ToolOutput { structured: to_value(&list)?, text: Some(text) })
}

/// `name=value|‹N bytes› domain path flags`, one line.
fn cookie_line(c: &Cookie) -> String {
    let value = match &c.value {
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
        None => format!("‹{} bytes›", c.size),
    };
    let mut flags = vec![format!("SameSite={}", c.same_site)];
    if c.secure {
        flags.push("Secure".into());
    }
    if c.http_only {
        flags.push("HttpOnly".into());
    }
    flags.push(if c.session { "session".into() } else { "persistent".into() });
    if let Some(pk) = c.extra.get("partitionKey") {
        flags.push(format!("Partitioned={pk}"));
    }
    if let Some(store) = c.extra.get("storeId").and_then(Value::as_str) {
        flags.push(format!("store={store}"));
    }
    format!("{}={value} {} {} {}", c.name, c.domain, c.path, flags.join(" "))
}

const SET_COOKIES: ToolDef = ToolDef {
    name: "set_cookies",
    title: "Set cookies",
    toolset: Toolset::Storage,
    description: "Set cookies: each {url or domain, name, value, path, secure, httpOnly, sameSite, expirationDate (s since epoch; none = session), storeId, partitionKey}.",
    effect: Effect::Destructive,
    input_schema: schema_of::<SetArgs>,
    run: |ctx, _call, args| Box::pin(set_cookies(ctx, args)),
};

async fn set_cookies(ctx: Ctx, args: Value) -> ToolResult {
    let a: SetArgs = decode(args)?;
    if a.cookies.is_empty() {
        return Err(ErrorBody::invalid_argument("`cookies` is empty").with_hint("pass [{url, name, value}]"));
    }
    let params = CookiesSet { cookies: a.cookies.iter().map(CookieSpec::details).collect() };
    let (_, out) = ctx.browser.call(a.browser.as_deref(), params, timeout()).await?;
    let text = format!("set {}", crate::text::counted(out.set.len(), "cookie", "cookies"));
    Ok(ToolOutput { text: Some(text), structured: to_value(&out)? })
}

const CLEAR_COOKIES: ToolDef = ToolDef {
    name: "clear_cookies",
    title: "Clear cookies",
    toolset: Toolset::Storage,
    description: "Remove the cookies matching url/domain/name/storeId/partitionKey (at least one filter); dryRun: true only counts them.",
    effect: Effect::Destructive,
    input_schema: schema_of::<ClearArgs>,
    run: |ctx, _call, args| Box::pin(clear_cookies(ctx, args)),
};

async fn clear_cookies(ctx: Ctx, args: Value) -> ToolResult {
    let a: ClearArgs = decode(args)?;
    let params = CookiesClear {
        url: a.url,
        domain: a.domain,
        name: a.name,
        store_id: a.store_id,
        partition_key: a.partition_key.as_ref().map(PartitionKey::wire),
        dry_run: Some(a.dry_run),
    };
    let (_, out) = ctx.browser.call(a.browser.as_deref(), params, timeout()).await?;
    let text = if a.dry_run {
        format!(
            "{} would be removed (dry run)",
            crate::text::counted(out.matched as usize, "cookie", "cookies")
        )
    } else {
        format!("removed {} of {} matching", out.removed, out.matched)
    };
    Ok(ToolOutput { text: Some(text), structured: to_value(&out)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    #[test]
    fn values_show_in_dev_sessions_unless_configured_otherwise() {
        // (setting, unset, dev session) → allowed
        for (setting, unset, dev, want) in [
            (false, true, false, false),
            (false, true, true, true),
            (true, false, false, true),
            (true, false, true, true),
            (false, false, true, false),
            (false, false, false, false),
        ] {
            assert_eq!(may_show_values(setting, unset, dev), want, "{setting} {unset} {dev}");
        }
    }

    #[test]
    fn a_cookie_line_shows_the_size_not_the_value_unless_given() {
        let c: Cookie = serde_json::from_value(json!({
            "name": "sid", "domain": "127.0.0.1", "path": "/", "secure": true, "httpOnly": true,
            "sameSite": "Lax", "session": true, "size": 12, "storeId": "firefox-container-1"
        }))
        .unwrap();
        let line = cookie_line(&c);
        assert_eq!(
            line,
            "sid=‹12 bytes› 127.0.0.1 / SameSite=Lax Secure HttpOnly session store=firefox-container-1"
        );
        let with = Cookie { value: Some("v".into()), ..c };
        assert!(cookie_line(&with).starts_with("sid=\"v\" "));
    }

    #[test]
    fn filters_carry_only_what_was_given() {
        let a: GetArgs = serde_json::from_value(json!({"domain": "x.test", "partitionKey": {}})).unwrap();
        let wire = serde_json::to_value(a.wire()).unwrap();
        assert_eq!(wire, json!({"domain": "x.test", "partitionKey": {}, "includeValues": false}));
        assert!(serde_json::from_value::<GetArgs>(json!({"value": 1})).is_err());
    }
}
