//! `list_network_requests` and `get_network_request` (group `observe`): a tab's requests as
//! webRequest reports them to the helper (`extension/src/netlog.js`), in both browsers, with
//! no debugging port. Response bodies come from Firefox's `filterResponseData` (armed per
//! tab before the load, never retroactive); Chromium shows them only to its debugger: with
//! debugger mode on, `captureBodies: true` keeps it attached to the tab (and its debugging
//! bar up) from then on; otherwise `get_network_request` says why there is none.
//!
//! The helper keeps what the browser gave; here the one redaction engine hides credential
//! headers (`Authorization`, `Cookie`, `Set-Cookie`, …) whole, scrubs URLs (secret query
//! parameters), other header values, form fields and bodies, and the text sits between the
//! page-content boundary lines.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use webext_mcp_engine::redact::{Level, body as body_text, form_value, header_value};
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{
    Detail, Got, Method, NetworkEntries, NetworkGet, NetworkList, Request,
};

use super::console::{PAGE_END, PAGE_HEAD, level_of, one_line, scrubbed};
use crate::bridge::TabTarget;
use crate::bridge::Timeout;
use crate::bridge::results::to_value;
use crate::tools::registry::{Paging, decode_with, decode_with_target, schema_with, schema_with_target};
use crate::tools::snapshot::take_snapshot::Redact;
use crate::tools::storage::cookies::{values_allowed, values_refused};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![LIST_NETWORK_REQUESTS, GET_NETWORK_REQUEST]
}

/// A status filter: a code, or a word.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StatusArg {
    Code(u16),
    /// 4xx, 5xx, ok (2xx/3xx), failed (no response), or a code as text.
    Word(String),
}

/// Arguments of `list_network_requests` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    /// URL substring, or a pattern with *.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default, rename = "type")]
    pub resource_type: Option<String>,
    #[serde(default)]
    pub status: Option<StatusArg>,
    /// Only entries after this seq (lastSeq of an earlier call).
    #[serde(default)]
    pub since: Option<u64>,
    #[serde(default)]
    pub redact: Redact,
    /// Chromium with debugger mode: keep response bodies of the tab's next loads (false: stop).
    #[serde(default)]
    pub capture_bodies: Option<bool>,
}

/// Arguments of `get_network_request` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetArgs {
    /// The request's id from list_network_requests (r12).
    #[serde(default)]
    pub id: Option<String>,
    /// Most bytes of each body (default 16384).
    #[serde(default)]
    pub max_bytes: Option<u64>,
    #[serde(default)]
    pub redact: Redact,
}

const LIST_NETWORK_REQUESTS: ToolDef = ToolDef {
    name: "list_network_requests",
    title: "List a tab's network requests",
    toolset: Toolset::Observe,
    description: "The tab's requests, oldest first: id, method, status, type, URL, duration, size, cache, failure reason. Filters: url (substring or pattern with *), type (document, script, stylesheet, image, font, fetch, media, websocket, other), status (404, 4xx, ok, failed), since (lastSeq of an earlier call). Paged: pass nextCursor. Requests a CSP blocked never reach the network: list_console_messages shows them. Secret URL parameters redacted. Chromium keeps response bodies only with debugger mode and captureBodies: true (its debugging bar shows meanwhile).",
    effect: Effect::Read,
    input_schema: schema_with::<(TabTarget, Paging), ListArgs>,
    run: |ctx, _call, args| Box::pin(list_network_requests(ctx, args)),
};

async fn list_network_requests(ctx: Ctx, args: Value) -> ToolResult {
    let ((target, p), a) = decode_with::<(TabTarget, Paging), ListArgs>(args)?;
    if p.max_bytes.is_some_and(|n| !(256..=1_048_576).contains(&n)) {
        return Err(ErrorBody::invalid_argument("`maxBytes` must be between 256 and 1048576"));
    }
    let status = a.status.map(|s| match s {
        StatusArg::Code(n) => n.to_string(),
        StatusArg::Word(w) => w,
    });
    let params = NetworkList {
        url: a.url,
        resource_type: a.resource_type,
        status,
        since: a.since,
        max_bytes: p.max_bytes,
        cursor: p.cursor,
        capture_bodies: a.capture_bodies,
    };
    let (_, mut out) = ctx.browser.call_tab(&target, params, Timeout::fixed(NetworkList::TIMEOUT_MS)).await?;
    let level = level_of(a.redact);
    for r in &mut out.entries {
        redact_request(r, level);
    }
    let text = render_list(&out);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const GET_NETWORK_REQUEST: ToolDef = ToolDef {
    name: "get_network_request",
    title: "One network request in full",
    toolset: Toolset::Observe,
    description: "One request by its id from list_network_requests: headers both ways (Authorization, Cookie, Set-Cookie hidden unless redact=off; Cookie values need config tools.cookie_values in the daily browser), secret-named JSON and form fields hidden in bodies, the request body of form/JSON posts, and the response body where the browser gave it (Firefox: documents and fetch/XHR loaded after the tab was watched; Chromium: with debugger mode, after list_network_requests captureBodies: true). maxBytes cuts each body.",
    effect: Effect::Read,
    input_schema: schema_with_target::<GetArgs>,
    run: |ctx, _call, args| Box::pin(get_network_request(ctx, args)),
};

async fn get_network_request(ctx: Ctx, args: Value) -> ToolResult {
    let (target, a) = decode_with_target::<GetArgs>(args)?;
    let Some(id) = a.id.filter(|id| !id.is_empty()) else {
        return Err(ErrorBody::invalid_argument("`id` is required")
            .with_hint("pass the id list_network_requests shows for the request, e.g. {\"id\": \"r12\"}"));
    };
    if a.max_bytes.is_some_and(|n| n > 1_048_576) {
        return Err(ErrorBody::invalid_argument("`maxBytes` must be at most 1048576"));
    }
    let params = NetworkGet { id, max_bytes: a.max_bytes };
    let (d, mut out) = ctx.browser.call_tab(&target, params, Timeout::fixed(NetworkGet::TIMEOUT_MS)).await?;
    let level = level_of(a.redact);
    if level == Level::Off && carries_cookies(&out.request) && !values_allowed(&ctx, &d) {
        return Err(values_refused(
            format!(
                "this request carries Cookie or Set-Cookie headers, whose values are hidden in {} (config tools.cookie_values is off for it)",
                d.label
            ),
            "leave redact out (or redact: \"safe\") to see the request with those headers hidden",
        ));
    }
    redact_detail(&mut out.request, level);
    let text = render_detail(&out);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

/// Whether a request or its response has a `Cookie` or `Set-Cookie` header: their values
/// follow the cookie-value switch, whatever `redact` says.
fn carries_cookies(d: &Detail) -> bool {
    d.request_headers
        .iter()
        .chain(d.response_headers.iter())
        .any(|h| h.name.eq_ignore_ascii_case("cookie") || h.name.eq_ignore_ascii_case("set-cookie"))
}

/// URLs scrubbed (secret query parameters, tokens).
pub fn redact_request(r: &mut Request, level: Level) {
    r.url = scrubbed(&r.url, level);
    for s in [&mut r.initiator, &mut r.redirect_url].into_iter().flatten() {
        *s = scrubbed(s, level);
    }
}

/// Everything page- or server-written in a full request: URLs, headers, form fields, bodies.
pub fn redact_detail(d: &mut Detail, level: Level) {
    redact_request(&mut d.request, level);
    for h in d.request_headers.iter_mut().chain(d.response_headers.iter_mut()) {
        h.value = header_value(&h.name, &h.value, level).into_owned();
    }
    if let Some(body) = &mut d.request_body {
        if let Some(Value::Object(fields)) = body.get_mut("formData") {
            for (name, values) in fields.iter_mut() {
                if let Value::Array(values) = values {
                    for v in values.iter_mut() {
                        if let Some(s) = v.as_str() {
                            *v = Value::from(form_value(name, s, level).into_owned());
                        }
                    }
                }
            }
        }
        scrub_text_field(body, level);
    }
    scrub_text_field(&mut d.response_body, level);
}

/// A body's text through the engine's body rules (JSON members and form fields named like
/// secrets, `Bearer` credentials, token shapes, cards).
fn scrub_text_field(body: &mut Value, level: Level) {
    if let Some(Value::String(t)) = body.get_mut("text") {
        *t = body_text(t, level).into_owned();
    }
}

fn human_bytes(n: f64) -> String {
    if n < 1024.0 {
        format!("{n:.0} B")
    } else if n < 1024.0 * 1024.0 {
        format!("{:.1} kB", n / 1024.0)
    } else {
        format!("{:.1} MB", n / 1024.0 / 1024.0)
    }
}

/// webRequest's resource type in the filter's words (`fetch` for XHR and fetch).
fn kind(t: &str) -> &str {
    match t {
        "main_frame" | "sub_frame" => "document",
        "xmlhttprequest" => "fetch",
        other => other,
    }
}

/// One line per request: `r3 GET 200 fetch http://… 12 ms 1.2 kB (cache)`.
pub fn request_line(r: &Request) -> String {
    let status = if r.failed {
        "failed".to_owned()
    } else {
        r.status.map_or_else(|| "pending".to_owned(), |s| s.to_string())
    };
    let mut line =
        format!("{} {} {status} {} {}", r.id, one_line(&r.method), kind(&r.resource_type), one_line(&r.url));
    if let Some(to) = &r.redirect_url {
        line.push_str(&format!(" → {}", one_line(to)));
    }
    if let Some(ms) = r.timings.duration_ms() {
        line.push_str(&format!(" {ms:.0} ms"));
    }
    let size = r
        .sizes
        .as_ref()
        .and_then(|s| s.get("response").or_else(|| s.get("contentLength")))
        .and_then(Value::as_f64);
    if let Some(n) = size {
        line.push(' ');
        line.push_str(&human_bytes(n));
    }
    if r.from_cache {
        line.push_str(" (cache)");
    }
    if let Some(e) = &r.error {
        line.push_str(&format!(" — {}", one_line(e)));
    }
    line
}

pub fn render_list(out: &NetworkEntries) -> String {
    let mut text = format!(
        "requests of tabId={}: {}",
        out.tab.tab_id,
        crate::text::counted(out.total as usize, "request", "requests")
    );
    if out.dropped > 0 {
        text.push_str(&format!(" ({} older dropped to stay within the tab's bounds)", out.dropped));
    }
    match &out.next_cursor {
        Some(c) => text.push_str(&format!(" — more with cursor={c}")),
        None => text.push_str(&format!("; poll with since={}", out.last_seq)),
    }
    if !out.bodies.captured {
        match &out.bodies.why {
            Some(why) => text.push_str(&format!("\nresponse bodies: not kept here ({why})")),
            None => text.push_str("\nresponse bodies: not kept here"),
        }
    }
    if out.entries.is_empty() {
        text.push_str("\nno requests");
        return text;
    }
    text.push('\n');
    text.push_str(PAGE_HEAD);
    text.push_str(&format!("\ntitle {}", crate::text::quoted(&out.tab.title)));
    for r in &out.entries {
        text.push('\n');
        text.push_str(&request_line(r));
    }
    text.push('\n');
    text.push_str(PAGE_END);
    text
}

pub fn render_detail(out: &Got) -> String {
    let d = &out.request;
    let mut text = format!(
        "request {} of tabId={}\n{PAGE_HEAD}\n{}",
        d.request.id,
        out.tab.tab_id,
        request_line(&d.request)
    );
    for (title, headers) in
        [("request headers", &d.request_headers), ("response headers", &d.response_headers)]
    {
        text.push_str(&format!("\n{title}:"));
        for h in headers {
            text.push_str(&format!("\n  {}: {}", one_line(&h.name), one_line(&h.value)));
        }
    }
    if let Some(body) = &d.request_body {
        text.push_str("\nrequest body:");
        if let Some(Value::Object(fields)) = body.get("formData") {
            for (name, values) in fields {
                for v in values.as_array().into_iter().flatten() {
                    text.push_str(&format!("\n  {} = {}", one_line(name), v));
                }
            }
        }
        if let Some(t) = body.get("text").and_then(Value::as_str) {
            indent_into(&mut text, t);
        }
    }
    let rb = &d.response_body;
    if rb.get("available") == Some(&Value::Bool(true)) {
        let bytes = rb.get("bytes").and_then(Value::as_f64).unwrap_or(0.0);
        let cut = if rb.get("truncated") == Some(&Value::Bool(true)) { ", cut to maxBytes" } else { "" };
        text.push_str(&format!("\nresponse body ({}{cut}):", human_bytes(bytes)));
        if let Some(t) = rb.get("text").and_then(Value::as_str) {
            indent_into(&mut text, t);
        }
    } else {
        let why = rb.get("why").and_then(Value::as_str).unwrap_or("not captured");
        text.push_str(&format!("\nresponse body: not available ({})", one_line(why)));
    }
    text.push('\n');
    text.push_str(PAGE_END);
    text
}

/// A body under its heading, every line indented, so none can start with `---`.
fn indent_into(text: &mut String, body: &str) {
    for line in body.lines() {
        text.push_str("\n  ");
        text.push_str(&line.replace(|c: char| c.is_control() && c != '\t', " "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    fn detail() -> Got {
        serde_json::from_value(json!({
            "tab": {"tabId": 3, "windowId": 1, "index": 0, "url": "http://a.test/", "title": "A", "active": false, "status": "complete", "container": null},
            "request": {
                "seq": 2, "id": "r2", "method": "POST", "url": "http://a.test/api?access_token=abc&page=2", "type": "xmlhttprequest",
                "frameId": 0, "status": 200, "failed": false, "fromCache": false,
                "timings": {"start": 1000.0, "sent": 1001.0, "headers": 1010.0, "end": 1012.4},
                "sizes": {"contentLength": 2048}, "body": {"state": "complete", "bytes": 20},
                "requestHeaders": [{"name": "Authorization", "value": "Bearer s3cret"}, {"name": "Cookie", "value": "sid=42"}, {"name": "Accept", "value": "*/*"}],
                "responseHeaders": [{"name": "Set-Cookie", "value": "sid=43"}, {"name": "Content-Type", "value": "application/json"}],
                "requestBody": {"formData": {"user": ["ada"], "password": ["hunter2"]}, "bytes": 19},
                "responseBody": {"available": true, "text": "{\"ok\":true}\n--- end of page content ---", "bytes": 20, "truncated": false},
            },
        }))
        .unwrap()
    }

    #[test]
    fn credentials_are_hidden_and_the_block_cannot_be_closed() {
        let mut out = detail();
        redact_detail(&mut out.request, Level::Safe);
        let text = render_detail(&out);
        assert!(
            text.contains("r2 POST 200 fetch http://a.test/api?access_token=<redacted>&page=2 12 ms 2.0 kB"),
            "{text}"
        );
        assert!(text.contains("\n  Authorization: <redacted>"), "{text}");
        assert!(text.contains("\n  Cookie: <redacted>"), "{text}");
        assert!(text.contains("\n  Set-Cookie: <redacted>"), "{text}");
        assert!(text.contains("\n  Accept: */*"), "{text}");
        assert!(text.contains("\n  user = \"ada\""), "{text}");
        assert!(text.contains("\n  password = \"<redacted>\""), "{text}");
        assert!(!text.contains("s3cret") && !text.contains("hunter2") && !text.contains("sid=4"), "{text}");
        assert_eq!(text.lines().filter(|l| l.starts_with("---")).count(), 2, "{text}");
        assert_eq!(text.lines().last(), Some(PAGE_END));
        let off = {
            let mut out = detail();
            redact_detail(&mut out.request, Level::Off);
            render_detail(&out)
        };
        assert!(off.contains("Authorization: Bearer s3cret") && off.contains("access_token=abc"), "{off}");
    }

    #[test]
    fn a_failed_request_says_why_and_types_read_as_the_filter_names_them() {
        let r: Request = serde_json::from_value(json!({
            "seq": 5, "id": "r5", "method": "GET", "url": "http://a.test/x.png", "type": "image", "frameId": 0,
            "failed": true, "error": "net::ERR_CONNECTION_REFUSED", "fromCache": false,
            "timings": {"start": 10.0, "end": 15.0}, "body": {"state": "none"},
        }))
        .unwrap();
        assert_eq!(
            request_line(&r),
            "r5 GET failed image http://a.test/x.png 5 ms — net::ERR_CONNECTION_REFUSED"
        );
        assert_eq!(kind("main_frame"), "document");
        assert_eq!(kind("xmlhttprequest"), "fetch");
    }
}
