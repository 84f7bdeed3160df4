//! MCP resources `console://<tabId>` and `network://<tabId>`: a tab's console messages and
//! network requests, readable and subscribable by any MCP client.
//!
//! ```text
//! resources/read console://12?level=warn ─▶ list_console_messages {tabId: 12, level: warn}
//! resources/subscribe (2025 clients) ─┐
//! subscriptions/listen (2026-07-28) ──┴─▶ subscriptions: one per URI ◀─ observe.changed events
//!                                          └─▶ notifications/resources/updated, ≤ 4/s each
//! ```
//!
//! A read is the list tool itself (the same function, arguments from the URI's query), so a
//! resource gives exactly the page of entries the tool gives, redacted the same way. The
//! subscription side is in [`subscriptions`].

pub mod subscriptions;

use rmcp::ErrorData as McpError;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::tools::{self, Call, Ctx};

/// Which log a resource shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Console,
    Network,
}

impl Kind {
    const ALL: [Kind; 2] = [Kind::Console, Kind::Network];

    /// The URI scheme.
    pub const fn scheme(self) -> &'static str {
        match self {
            Kind::Console => "console",
            Kind::Network => "network",
        }
    }

    /// The list tool a read runs.
    const fn tool(self) -> &'static str {
        match self {
            Kind::Console => "list_console_messages",
            Kind::Network => "list_network_requests",
        }
    }

    /// The field of an `observe.changed` event naming this log's newest seq.
    pub const fn event_field(self) -> &'static str {
        self.scheme()
    }

    /// Query parameters a URI may carry: the list tool's read-only filters.
    const fn query_keys(self) -> &'static [&'static str] {
        match self {
            Kind::Console => &["browser", "level", "contains", "since", "cursor", "maxBytes", "redact"],
            Kind::Network => &["browser", "url", "type", "status", "since", "cursor", "maxBytes", "redact"],
        }
    }
}

/// A parsed resource URI: the tab, its browser, and the list tool's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    pub kind: Kind,
    pub tab_id: i64,
    pub browser: Option<String>,
    /// Everything of the query but `browser`, typed for the tool.
    pub filters: Map<String, Value>,
}

impl Address {
    /// The list tool's arguments for this address.
    fn args(&self) -> Value {
        let mut args = self.filters.clone();
        args.insert("tabId".into(), json!(self.tab_id));
        if let Some(b) = &self.browser {
            args.insert("browser".into(), json!(b));
        }
        Value::Object(args)
    }
}

fn bad_uri(message: String) -> ErrorBody {
    ErrorBody::new(ErrorCode::InvalidArgument, message)
        .with_hint("use console://<tabId> or network://<tabId> (tab ids from list_pages), optionally ?browser=<name>&since=<lastSeq>")
}

/// Parses `console://<tabId>[?k=v&…]` / `network://<tabId>[?…]`. Pure; table-tested below.
pub fn parse(uri: &str) -> Result<Address, ErrorBody> {
    let (kind, rest) = Kind::ALL
        .iter()
        .find_map(|k| uri.strip_prefix(k.scheme()).and_then(|r| r.strip_prefix("://")).map(|r| (*k, r)))
        .ok_or_else(|| bad_uri("not a webext-mcp resource URI".into()))?;
    let (tab, query) = rest.split_once('?').unwrap_or((rest, ""));
    let tab = tab.strip_suffix('/').unwrap_or(tab);
    let tab_id = tab
        .parse::<i64>()
        .ok()
        .filter(|t| *t >= 0 && tab.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| bad_uri(format!("`{}` is not a tab id", one_line(tab))))?;
    let mut browser = None;
    let mut filters = Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(k).ok_or_else(|| bad_uri("bad percent-encoding in the query".into()))?;
        let value = decode(v).ok_or_else(|| bad_uri("bad percent-encoding in the query".into()))?;
        if !kind.query_keys().contains(&key.as_str()) {
            return Err(bad_uri(format!(
                "`{}` is not a query parameter of {}:// (known: {})",
                one_line(&key),
                kind.scheme(),
                kind.query_keys().join(", ")
            )));
        }
        if filters.contains_key(&key) || (key == "browser" && browser.is_some()) {
            return Err(bad_uri(format!("`{key}` given twice")));
        }
        let typed = match key.as_str() {
            "browser" => {
                browser = Some(value);
                continue;
            }
            "since" | "maxBytes" => {
                Value::from(value.parse::<u64>().map_err(|_| bad_uri(format!("`{key}` must be a number")))?)
            }
            "status" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                Value::from(value.parse::<u64>().map_err(|_| bad_uri("`status` is too large".into()))?)
            }
            _ => Value::String(value),
        };
        filters.insert(key, typed);
    }
    Ok(Address { kind, tab_id, browser, filters })
}

/// `%XX` and `+` decoded; `None` for a bad escape or bytes that are not UTF-8.
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// A URI fragment quoted in an error: short, one line.
fn one_line(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(40).collect()
}

/// The two URI templates (`resources/templates/list`).
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("console://{tabId}", "console")
            .with_title("A tab's console messages")
            .with_description("list_console_messages of the tab (query: level, contains, since, cursor, maxBytes, redact, browser); subscribe for notifications/resources/updated when new messages arrive (at most 4 a second)")
            .with_mime_type("text/plain"),
        ResourceTemplate::new("network://{tabId}", "network")
            .with_title("A tab's network requests")
            .with_description("list_network_requests of the tab (query: url, type, status, since, cursor, maxBytes, redact, browser); subscribe for notifications/resources/updated when requests start or end (at most 4 a second)")
            .with_mime_type("text/plain"),
    ]
}

/// `resources/list`: the two resources of this server's current page in its default
/// browser, when it has one (no browser call: the page is remembered here).
pub fn listed(ctx: &Ctx) -> Vec<Resource> {
    let Ok(d) = ctx.browser.resolve(None) else { return Vec::new() };
    let Some(tab) = ctx.browser.pages().get(&d) else { return Vec::new() };
    Kind::ALL
        .iter()
        .map(|k| {
            Resource::new(format!("{}://{tab}", k.scheme()), format!("{} of tab {tab}", k.scheme()))
                .with_description(format!("{} of the current page (tab {tab}, {})", k.tool(), d.browser))
                .with_mime_type("text/plain")
        })
        .collect()
}

/// `resources/read`: the list tool's page for the URI, as its text and its JSON.
pub async fn read(ctx: &Ctx, uri: &str, cancel: CancellationToken) -> Result<ReadResourceResult, McpError> {
    let out = run(ctx, uri, cancel).await.map_err(to_mcp_error)?;
    let json = out.structured.to_string();
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(out.text(), uri),
        ResourceContents::text(json, uri).with_mime_type("application/json"),
    ]))
}

/// Runs the list tool a URI names.
pub async fn run(ctx: &Ctx, uri: &str, cancel: CancellationToken) -> tools::ToolResult {
    let address = parse(uri)?;
    let call = Call::new(None, cancel);
    match tools::call(ctx, call, address.kind.tool(), address.args()).await {
        Some(result) => result,
        None => Err(ErrorBody::new(ErrorCode::Internal, "the list tool is not registered")),
    }
}

/// A domain error as a JSON-RPC error: NOT_FOUND is MCP's "resource not found", the rest
/// invalid params; the stable code and hint ride in `data.error`.
pub fn to_mcp_error(err: ErrorBody) -> McpError {
    let data = Some(json!({ "error": err }));
    if err.code == ErrorCode::NotFound {
        McpError::resource_not_found(err.line(), data)
    } else {
        McpError::invalid_params(err.line(), data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_parse_into_the_list_tools_arguments() {
        let a = parse("console://12").unwrap();
        assert_eq!((a.kind, a.tab_id, a.browser.as_deref()), (Kind::Console, 12, None));
        assert_eq!(a.args(), json!({"tabId": 12}));

        let a = parse("console://7/?level=warn&since=40&contains=a%20b+c&browser=firefox").unwrap();
        assert_eq!(
            a.args(),
            json!({"tabId": 7, "level": "warn", "since": 40, "contains": "a b c", "browser": "firefox"})
        );

        let a = parse("network://3?status=404&type=fetch&url=*.json").unwrap();
        assert_eq!(a.args(), json!({"tabId": 3, "status": 404, "type": "fetch", "url": "*.json"}));
        assert_eq!(parse("network://3?status=4xx").unwrap().filters["status"], "4xx");
    }

    #[test]
    fn bad_uris_are_invalid_argument_with_a_hint() {
        for uri in [
            "console://",
            "console://-1",
            "console://+5",
            "console://1e3",
            "console://abc",
            "console://99999999999999999999999",
            "cookies://1",
            "console:/1",
            "console://1?tabId=2",
            "console://1?captureBodies=true",
            "network://1?level=warn",
            "console://1?since=x",
            "console://1?since=1&since=2",
            "console://1?browser=a&browser=b",
            "console://1?contains=%zz",
            "console://1?contains=%ff",
        ] {
            let err = parse(uri).expect_err(uri);
            assert_eq!(err.code, ErrorCode::InvalidArgument, "{uri}");
            assert!(err.hint.as_deref().is_some_and(|h| h.contains("list_pages")), "{uri}");
        }
    }

    #[test]
    fn not_found_is_mcps_resource_not_found_and_keeps_the_stable_code() {
        let e = to_mcp_error(ErrorBody::not_found("no tab 9").with_hint("call list_pages"));
        assert_eq!(e.code, McpError::resource_not_found("", None).code);
        assert_eq!(e.data.as_ref().unwrap()["error"]["code"], "NOT_FOUND");
        let e = to_mcp_error(ErrorBody::new(ErrorCode::InvalidArgument, "x"));
        assert_eq!(e.code, McpError::invalid_params("", None).code);
    }
}
