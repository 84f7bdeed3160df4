//! One redaction policy for every tool that shows page or network data (issue 46), both
//! browsers, with cookie values off (the daily-browser default): request and response bodies
//! through the engine, Cookie headers behind the cookie-value switch, `find_by_text` patterns
//! run on the redacted text, `evaluate_script` scrubbed of the tab's cookie and secret storage
//! values, textareas named like secrets hidden, and screenshots masking every field and text a
//! snapshot redacts — checked on the captured pixels, seven captures in a row.

use serde_json::{Value, json};

use crate::common::http::{Quirk, TestServer};
use crate::common::planted::{PLANTED, SECRETS_PAGE};
use crate::png::Image;
use crate::{Agent, BOTH};
use webext_mcp::browsers::Engine;

const COOKIE: &str = "cookie-PLANTED-77x";
const STORED: &str = "ls-PLANTED-88-token";
const SENT: [&str; 2] = ["pw-PLANTED-3", "tk-PLANTED-4"];
const RECEIVED: [&str; 2] = ["at-PLANTED-1", "st-PLANTED-2"];

/// Every secret drawn in red on white: a card number in a plain field, an API key in a field
/// named like nothing, a card number in a paragraph, a token in a broken image's alt, and a
/// textarea labelled "Private key"; the rest of the page is black.
const RED: &str = r#"<!doctype html><title>Red</title><style>
html, body { margin: 0; background: #fff; color: #000; font: 40px monospace }
input, textarea, p, img { display: block; color: #f00; border: 0; outline: 0; background: #fff; margin: 8px; width: 90vw; font: 40px monospace; padding: 0; transition: color 10s }
img { height: 60px }
</style>
<input id="plain" value="4111 1111 1111 1111">
<input id="k1" value="sk_live_4eC39HqLyjWDarjtT1zdp7dc">
<p>card 5555 5555 5555 4444</p>
<img src="/nothing.png" alt="tok 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c">
<label>Private key <textarea rows="1">just plain words here</textarea></label>
<div>nothing secret</div>"#;

fn server() -> TestServer {
    let s = TestServer::start();
    s.route_with_headers(
        "/account.html",
        "text/html; charset=utf-8",
        &[("Set-Cookie", "sid=cookie-PLANTED-77x; Path=/")],
        format!("{SECRETS_PAGE}<script>localStorage.setItem('authToken', '{STORED}')</script>"),
    );
    s.route(
        "/login",
        "application/json",
        r#"{"user":"ada","access_token":"at-PLANTED-1","session_token":"st-PLANTED-2","expires":3600}"#,
    );
    s.page("/red.html", RED);
    s.page("/next.html", "<!doctype html><title>Next</title><p>next page</p>");
    s.route("/late", "text/plain", "ok");
    s.quirk("/late", Quirk { pause: std::time::Duration::from_millis(50), ..Default::default() });
    s.page(
        "/late.html",
        r#"<!doctype html><title>Late</title><button onclick="fetch('/late').then(() => { location.href = '/next.html' })">Go</button>"#,
    );
    s
}

fn json_of(out: &Value) -> Value {
    serde_json::from_str(out["json"].as_str().unwrap()).unwrap()
}

#[test]
fn bodies_cookies_patterns_and_scripts_follow_the_one_policy() {
    let server = server();
    for family in BOTH {
        let f = family.name();
        let mut agent = crate::storage::strict_agent(family);
        let tab = agent.open(&server.url("/account.html"));

        // evaluate_script: the tab's cookie value and the token get_storage hides, scrubbed.
        let read = "() => [document.cookie, localStorage.getItem('authToken'), 'kept']";
        let out = agent.ok("evaluate_script", json!({ "tabId": tab, "function": read }));
        let got = out["json"].as_str().unwrap();
        assert!(!got.contains(COOKIE) && !got.contains(STORED), "{f}: {got}");
        assert!(got.contains("kept") && got.contains("<redacted>"), "{f}: {got}");
        assert_eq!(out["scrubbed"], json!(2), "{f}: {out}");

        // find_by_text: a pattern runs on what the agent would be shown.
        for pattern in ["/5555 5555/", "/9f8a7b6c/", "/bt-PLANTED/"] {
            let hits = agent.ok("find_by_text", json!({ "tabId": tab, "query": pattern }));
            assert_eq!(hits["total"], json!(0), "{f}: {pattern} confirmed a redacted secret: {hits}");
        }
        let hits = agent.ok("find_by_text", json!({ "tabId": tab, "query": "/Card on/" }));
        assert_eq!(hits["total"], json!(1), "{f}: {hits}");

        // Network: a JSON login, its answer.
        let login = format!(
            "async () => (await fetch('/login', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json', Authorization: 'Bearer bearer-PLANTED-9' }}, body: JSON.stringify({{ user: 'ada', password: '{}', token: '{}' }}) }})).text()",
            SENT[0], SENT[1]
        );
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": login }));
        let list = crate::console::poll(&mut agent, "list_network_requests", json!({ "tabId": tab }), |e| {
            e.iter().any(|r| {
                r["url"].as_str().unwrap_or("").ends_with("/login") && r["timings"]["end"].is_number()
            })
        });
        let id = list["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["url"].as_str().unwrap().ends_with("/login"))
            .unwrap()["id"]
            .clone();
        let r = agent.call("get_network_request", json!({ "tabId": tab, "id": id }));
        let all = r.to_string();
        for secret in SENT.iter().chain(RECEIVED.iter()).chain([&COOKIE, &"bearer-PLANTED-9"]) {
            assert!(!all.contains(secret), "{f}: {secret} leaked: {all}");
        }
        let body = &r["structuredContent"]["request"]["requestBody"]["text"];
        assert_eq!(body, &json!(r#"{"user":"ada","password":"<redacted>","token":"<redacted>"}"#), "{f}");
        if family == Engine::Gecko {
            let answer = r["structuredContent"]["request"]["responseBody"]["text"].as_str().unwrap();
            assert!(
                answer.contains(r#""access_token":"<redacted>""#) && answer.contains(r#""user":"ada""#),
                "{answer}"
            );
        }
        // redact: "off" would print the Cookie header: the cookie-value switch refuses it.
        let err = agent.err("get_network_request", json!({ "tabId": tab, "id": id, "redact": "off" }));
        assert_eq!(err["code"], "PERMISSION_DENIED", "{f}: {err}");
        assert_eq!(err["data"]["capability"], "tools.cookie_values", "{f}: {err}");

        // Snapshots: the bearer token in text, and every other planted secret.
        let text = agent.snapshot(tab, json!({}));
        for (class, secret) in PLANTED {
            assert!(!text.contains(secret), "{f}: the {class} showed:\n{text}");
        }
        agent.close(tab);
    }
}

/// Red pixels anywhere in the capture: the secrets' text.
fn red_pixels(img: &Image) -> usize {
    let mut n = 0;
    for y in 0..img.height {
        for x in 0..img.width {
            let [r, g, b] = img.rgb(x, y);
            if r > 180 && g < 90 && b < 90 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn screenshots_mask_what_snapshots_redact_in_every_capture() {
    let server = server();
    for family in BOTH {
        let f = family.name();
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/red.html"));
        let text = agent.snapshot(tab, json!({}));
        assert!(
            !text.contains("just plain words here"),
            "{f}: a textarea labelled Private key showed:\n{text}"
        );
        // Off first: the page's own `transition: color 10s` would still be fading the text
        // back in after a masked capture.
        let (s, img) = crate::capture::shot(
            &mut agent,
            "screenshot_page",
            json!({ "tabId": tab, "format": "png", "redact": "off" }),
        );
        assert_eq!(s["masked"], json!(0), "{f}: {s}");
        assert!(red_pixels(&img) > 500, "{f}: redact off shows the secrets");
        // Seven in a row: the masked fields were visible in one of seven before the capture
        // waited for the masked frame to be drawn (and a transition could fade them out late).
        for round in 0..7 {
            let (s, img) =
                crate::capture::shot(&mut agent, "screenshot_page", json!({ "tabId": tab, "format": "png" }));
            assert_eq!(s["masked"], json!(5), "{f} capture {round}: {s}");
            assert_eq!(red_pixels(&img), 0, "{f} capture {round}: a secret showed");
        }
        // The page's own styles are back.
        let out = agent.ok(
            "evaluate_script",
            json!({ "tabId": tab, "function": "() => [...document.querySelectorAll('[style]')].length" }),
        );
        assert_eq!(json_of(&out), json!(0), "{f}");
        agent.close(tab);
    }
}

#[test]
fn a_navigation_shortly_after_a_click_is_reported_as_a_navigation() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/late.html"));
        let out = agent.ok("click", json!({ "tabId": tab, "locator": "text=Go" }));
        assert_eq!(out["navigated"], json!(true), "{}: {out}", family.name());
        assert!(out["tab"]["url"].as_str().unwrap().ends_with("/next.html"), "{out}");
        agent.close(tab);
    }
}
