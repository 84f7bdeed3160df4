//! Network requests from webRequest (issue 30), both browsers, background tabs: a page that
//! fetches JSON with a credential, posts a form and JSON, loads a missing image, reaches a
//! closed port, and has an image blocked by its CSP. Entries, statuses, failure reasons,
//! timings; credentials and URL tokens redacted; response bodies in Firefox (its
//! filterResponseData), and in Chromium the reason there are none; CSP-blocked requests never
//! reach webRequest and show up as console entries instead, in both browsers.

use serde_json::{Value, json};

use crate::common::http::TestServer;
use crate::{Agent, BOTH};
use webext_mcp::browsers::Engine;

fn server() -> TestServer {
    let s = TestServer::start();
    s.page(
        "/net.html",
        "<!doctype html><title>Net</title><body><p>net</p><img src=\"/missing.png\" alt=\"missing\"></body>",
    );
    s.route_with_headers(
        "/data.json",
        "application/json",
        &[("Set-Cookie", "sid=planted-cookie-42; Path=/")],
        r#"{"items":[1,2,3],"name":"net test"}"#,
    );
    // Browsers ask for it by themselves; a 404 here would be a second missing resource.
    s.route("/favicon.ico", "image/x-icon", vec![0u8; 4]);
    s.route("/submit", "text/plain", "thanks");
    s.route("/api", "application/json", r#"{"ok":true}"#);
    // The CSP allows images from this origin only; the page asks for one from another origin
    // (localhost is not 127.0.0.1), which the browser refuses before any request is made.
    let blocked = format!("http://localhost:{}/blocked.png", s.port());
    s.route_with_headers(
        "/csp.html",
        "text/html; charset=utf-8",
        &[("Content-Security-Policy", "img-src 'self'")],
        format!(
            "<!doctype html><title>CSP</title><body><p>csp</p><img src=\"{blocked}\" alt=\"blocked\"></body>"
        ),
    );
    s
}

/// The page's requests, after the load: JSON with a credential and a token in the URL, a
/// urlencoded form post, a JSON post, and one to a port nothing listens on.
fn fetches() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!(
        r#"async () => {{
  await fetch('/data.json?token=abcdef123456&page=2', {{ headers: {{ Authorization: 'Bearer s3cr3t-value' }} }}).then((r) => r.json());
  await fetch('/submit', {{ method: 'POST', body: new URLSearchParams({{ user: 'ada', password: 'hunter2' }}) }}).then((r) => r.text());
  await fetch('/api', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json' }}, body: JSON.stringify({{ q: 'find me' }}) }}).then((r) => r.json());
  await fetch('http://127.0.0.1:{closed}/closed').catch(() => null);
  return 1;
}}"#
    )
}

fn list_until(agent: &mut Agent, args: Value, done: impl Fn(&[Value]) -> bool) -> Value {
    crate::console::poll(agent, "list_network_requests", args, done)
}

fn by_url<'a>(entries: &'a [Value], needle: &str) -> Option<&'a Value> {
    entries.iter().find(|e| e["url"].as_str().unwrap_or("").contains(needle))
}

fn finished(entries: &[Value], needle: &str) -> bool {
    by_url(entries, needle).is_some_and(|e| e["timings"]["end"].is_number())
}

#[test]
fn requests_are_listed_with_status_type_timings_and_failures_and_filtered() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let tab = agent.open(&server.url("/net.html"));
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": fetches() }));
        let out = list_until(&mut agent, json!({ "tabId": tab }), |e| {
            ["/net.html", "/missing.png", "/data.json", "/submit", "/api", "/closed"]
                .iter()
                .all(|n| finished(e, n))
        });
        let entries = out["entries"].as_array().unwrap();
        let page = by_url(entries, "/net.html").unwrap();
        assert_eq!(
            (page["type"].as_str(), page["status"].as_u64(), page["method"].as_str()),
            (Some("main_frame"), Some(200), Some("GET")),
            "{f}: {page}"
        );
        let img = by_url(entries, "/missing.png").unwrap();
        assert_eq!((img["type"].as_str(), img["status"].as_u64()), (Some("image"), Some(404)), "{f}: {img}");
        let data = by_url(entries, "/data.json").unwrap();
        assert_eq!(
            (data["type"].as_str(), data["status"].as_u64()),
            (Some("xmlhttprequest"), Some(200)),
            "{f}: {data}"
        );
        assert!(
            data["url"].as_str().unwrap().contains("token=<redacted>&page=2"),
            "{f}: URL tokens redacted: {data}"
        );
        assert_eq!(data["fromCache"], false, "{f}");
        let t = &data["timings"];
        assert!(t["end"].as_f64().unwrap() >= t["start"].as_f64().unwrap(), "{f}: {t}");
        let post = by_url(entries, "/submit").unwrap();
        assert_eq!(post["method"], "POST", "{f}");
        let closed = by_url(entries, "/closed").unwrap();
        assert_eq!(closed["failed"], true, "{f}: {closed}");
        assert!(!closed["error"].as_str().unwrap().is_empty(), "{f}: {closed}");

        // Filters: type, status, URL pattern.
        let fetches = agent.ok("list_network_requests", json!({ "tabId": tab, "type": "fetch" }));
        assert!(
            fetches["entries"].as_array().unwrap().iter().all(|e| e["type"] == "xmlhttprequest"),
            "{f}: {fetches}"
        );
        assert!(fetches["entries"].as_array().unwrap().len() >= 4, "{f}: {fetches}");
        // (Firefox may ask for the missing image twice: each attempt is an entry.)
        let missing = agent.ok("list_network_requests", json!({ "tabId": tab, "status": "4xx" }));
        let urls: Vec<&str> =
            missing["entries"].as_array().unwrap().iter().map(|e| e["url"].as_str().unwrap()).collect();
        assert!(!urls.is_empty() && urls.iter().all(|u| u.ends_with("/missing.png")), "{f}: {urls:?}");
        let by_code = agent.ok("list_network_requests", json!({ "tabId": tab, "status": 404 }));
        assert_eq!(by_code["entries"], missing["entries"], "{f}: {by_code}");
        let failed = agent.ok("list_network_requests", json!({ "tabId": tab, "status": "failed" }));
        assert!(failed["entries"].as_array().unwrap().iter().all(|e| e["failed"] == true), "{f}");
        let pattern = agent.ok("list_network_requests", json!({ "tabId": tab, "url": "*/data.json*" }));
        assert_eq!(pattern["entries"].as_array().unwrap().len(), 1, "{f}: {pattern}");
        let bad = agent.err("list_network_requests", json!({ "tabId": tab, "status": "teapot" }));
        assert_eq!(bad["code"], "INVALID_ARGUMENT", "{f}: {bad}");
        // The text form: one line per request between the boundary lines.
        let text = agent.text("list_network_requests", json!({ "tabId": tab }));
        assert!(text.contains("GET 404 image http"), "{f}: {text}");
        assert!(text.contains("POST 200 fetch http"), "{f}: {text}");
        assert!(!text.contains("abcdef123456"), "{f}: {text}");
        // since: only what came later.
        let last = out["lastSeq"].as_u64().unwrap();
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": "() => fetch('/api?later=1').then((r) => r.text()).then(() => 1)" }));
        let newer =
            list_until(&mut agent, json!({ "tabId": tab, "since": last }), |e| finished(e, "later=1"));
        assert_eq!(newer["entries"].as_array().unwrap().len(), 1, "{f}: {newer}");
        agent.close(tab);
    }
}

#[test]
fn a_request_in_full_has_redacted_headers_its_post_body_and_a_body_where_the_browser_gives_one() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let tab = agent.open(&server.url("/net.html"));
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": fetches() }));
        let out = list_until(&mut agent, json!({ "tabId": tab }), |e| {
            ["/data.json", "/submit", "/api"].iter().all(|n| finished(e, n))
        });
        let entries = out["entries"].as_array().unwrap();
        let id = |needle: &str| by_url(entries, needle).unwrap()["id"].as_str().unwrap().to_owned();

        let r = agent.call("get_network_request", json!({ "tabId": tab, "id": id("/data.json") }));
        let text = r["content"][0]["text"].as_str().unwrap();
        let got = &r["structuredContent"]["request"];
        let header = |list: &str, name: &str| {
            got[list]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
                .map(|h| h["value"].clone())
        };
        assert_eq!(header("requestHeaders", "authorization"), Some(json!("<redacted>")), "{f}: {got}");
        if let Some(v) = header("responseHeaders", "set-cookie") {
            assert_eq!(v, "<redacted>", "{f}");
        } else {
            assert_eq!(family, Engine::Chromium, "{f}: Firefox shows Set-Cookie: {got}");
        }
        assert_eq!(header("responseHeaders", "content-type"), Some(json!("application/json")), "{f}: {got}");
        for secret in ["s3cr3t-value", "planted-cookie-42", "abcdef123456"] {
            assert!(
                !text.contains(secret) && !r["structuredContent"].to_string().contains(secret),
                "{f}: {secret} leaked: {text}"
            );
        }
        let body = &got["responseBody"];
        match family {
            Engine::Gecko => {
                assert_eq!(body["available"], true, "{f}: {body}");
                assert_eq!(body["text"], r#"{"items":[1,2,3],"name":"net test"}"#, "{f}");
                assert!(text.contains("\"name\":\"net test\""), "{f}: {text}");
            }
            Engine::Chromium => {
                assert_eq!(body["available"], false, "{f}: {body}");
                assert!(body["why"].as_str().unwrap().contains("debugger"), "{f}: {body}");
            }
        }
        // redact=off shows the credential: the default hides it, it does not lose it.
        let raw =
            agent.ok("get_network_request", json!({ "tabId": tab, "id": id("/data.json"), "redact": "off" }));
        assert!(raw.to_string().contains("Bearer s3cr3t-value"), "{f}: {raw}");

        // The form post: its fields, the password hidden.
        let form = agent.ok("get_network_request", json!({ "tabId": tab, "id": id("/submit") }));
        let fields = &form["request"]["requestBody"]["formData"];
        assert_eq!(fields["user"], json!(["ada"]), "{f}: {form}");
        assert_eq!(fields["password"], json!(["<redacted>"]), "{f}: {form}");
        // The JSON post: its text.
        let api = agent.ok("get_network_request", json!({ "tabId": tab, "id": id("/api") }));
        assert_eq!(api["request"]["requestBody"]["text"], r#"{"q":"find me"}"#, "{f}: {api}");

        let err = agent.err("get_network_request", json!({ "tabId": tab, "id": "r999999" }));
        assert_eq!(err["code"], "NOT_FOUND", "{f}: {err}");
        let err = agent.err("get_network_request", json!({ "tabId": tab }));
        assert_eq!(err["code"], "INVALID_ARGUMENT", "{f}: {err}");
        agent.close(tab);
    }
}

#[test]
fn a_csp_blocked_request_never_reaches_the_network_and_is_a_console_entry() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let tab = agent.open(&server.url("/csp.html"));
        let out = crate::console::poll(&mut agent, "list_console_messages", json!({ "tabId": tab }), |e| {
            e.iter().any(|e| e["source"] == "csp")
        });
        let csp = out["entries"].as_array().unwrap().iter().find(|e| e["source"] == "csp").cloned().unwrap();
        assert_eq!(csp["level"], "error", "{f}: {csp}");
        assert!(csp["blockedUrl"].as_str().unwrap().contains("/blocked.png"), "{f}: {csp}");
        assert!(csp["directive"].as_str().unwrap().starts_with("img-src"), "{f}: {csp}");
        let net = list_until(&mut agent, json!({ "tabId": tab }), |e| finished(e, "/csp.html"));
        assert!(by_url(net["entries"].as_array().unwrap(), "blocked.png").is_none(), "{f}: {net}");
        assert!(!server.requests().iter().any(|p| p.contains("blocked.png")), "{f}: the server saw it");
        agent.close(tab);
    }
}

/// Chromium keeps response bodies only through its debugger: with debugger mode on, a client
/// arms it per tab (`captureBodies: true`), the session stays attached (its debugging bar
/// up) until released, and the bodies of later requests are there.
#[tokio::test]
async fn chromium_bodies_come_from_the_debugger_once_armed() {
    use crate::observe_bench::{remote_browser, set_setting, status_page};
    let server = server();
    let b = remote_browser(Engine::Chromium).await;
    let status = status_page(b).await;
    let url = server.url("/net.html");
    let without = tokio::task::spawn_blocking(move || {
        let mut agent = Agent::on(b);
        let tab = agent.open(&url);
        let out = agent.ok("list_network_requests", json!({ "tabId": tab, "captureBodies": true }));
        assert_eq!(out["bodies"]["captured"], false, "debugger mode is off: {out}");
        assert!(out["bodies"]["why"].as_str().unwrap().contains("debugger mode"), "{out}");
        (agent, tab)
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", true).await;
    let (mut agent, tab) = without;
    tokio::task::spawn_blocking(move || {
        let out = agent.ok("list_network_requests", json!({ "tabId": tab, "captureBodies": true }));
        assert_eq!(out["bodies"]["captured"], true, "{out}");
        assert_eq!(out["bodies"]["via"], "debugger", "{out}");
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": fetches() }));
        let out = list_until(&mut agent, json!({ "tabId": tab }), |e| finished(e, "/data.json"));
        let id = by_url(out["entries"].as_array().unwrap(), "/data.json").unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let got = agent.ok("get_network_request", json!({ "tabId": tab, "id": id }));
        let body = &got["request"]["responseBody"];
        assert_eq!(body["available"], true, "{got}");
        assert_eq!(body["text"], r#"{"items":[1,2,3],"name":"net test"}"#, "{got}");
        let info = agent.ok("get_browser_info", json!({}));
        assert_eq!(info["debuggerSessions"], 1, "held while bodies are kept: {info}");
        agent.ok("list_network_requests", json!({ "tabId": tab, "captureBodies": false }));
        let info = agent.ok("get_browser_info", json!({}));
        assert_eq!(info["debuggerSessions"], 0, "released: {info}");
        agent.close(tab);
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", false).await;
    b.runner.shutdown().await;
}
