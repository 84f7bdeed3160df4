//! One redaction engine (issue 18): a page planting every class of secret the safe level
//! hides; none reaches take_snapshot (safe or strict), an error message, or the server's and
//! the host's log at `--log debug` — not even what the agent filled or what evaluate_script
//! returned (logs carry names and sizes only).

use serde_json::json;

use crate::common::http::TestServer;
use crate::common::mcp_client::Server;
use crate::{Agent, BOTH};

/// (what, secret) for every class the safe level hides.
pub const PLANTED: [(&str, &str); 11] = [
    ("password value", "hunter2-pass-Zq"),
    ("hidden value", "hidden-tok-77aa"),
    ("API key typed in a text input", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("one-time code", "839201"),
    ("card number in a cc-number value", "4242 4242 4242 4242"),
    ("card number in text", "5555 5555 5555 4444"),
    ("access_token in an href", "atok-SECRET-1a2b3c"),
    ("token in an image's alt", "9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"),
    ("textarea contents", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng99"),
    ("API key in a data-* attribute", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("a card number in a data-* attribute", "4012888888881881"),
];

pub const SECRETS_PAGE: &str = r#"<!doctype html><title>Account</title><body>
<h1>Account settings</h1>
<form>
  <label>Name <input id="name" value="Ada Lovelace"></label>
  <label>Password <input id="pw" type="password" value="hunter2-pass-Zq"></label>
  <input type="hidden" name="csrf" value="hidden-tok-77aa">
  <label>API key <input id="key" value="sk_live_4eC39HqLyjWDarjtT1zdp7dc"></label>
  <label>Code <input id="otp" autocomplete="one-time-code" value="839201"></label>
  <label>Card <input id="cc" autocomplete="cc-number" value="4242 4242 4242 4242"></label>
  <label>Notes <textarea id="notes">ghp_R4nd0mT0k3nV4lu3F0rT3st1ng99</textarea></label>
  <button type="button">Save</button>
</form>
<p>Card on file: 5555 5555 5555 4444</p>
<a href="/callback?access_token=atok-SECRET-1a2b3c&amp;state=ok">Continue</a>
<img src="/pixel.png" alt="token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c">
<div data-api-key="AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY" data-card="4012888888881881">widget</div>
</body>"#;

/// What the agent fills and what evaluate returns: results may carry them, logs never.
const FILLED: &str = "filled-pw-Qx93";
const TYPED_KEY: &str = "sk_test_9aB8cD7eF6gH5iJ4kL3mN2oP";
const EVALUATED: &str = "eval-out-Secret-55";

fn assert_clean(family: &str, what: &str, text: &str, extra: &[&str]) {
    for (class, secret) in PLANTED {
        assert!(!text.contains(secret), "{family}: {what} leaks the {class} `{secret}`:\n{text}");
    }
    for secret in extra {
        assert!(!text.contains(secret), "{family}: {what} leaks `{secret}`:\n{text}");
    }
}

#[test]
fn no_planted_secret_reaches_a_snapshot_an_error_or_a_debug_log() {
    let server = TestServer::start();
    server.page("/account.html", SECRETS_PAGE);
    for family in BOTH {
        let f = family.name();
        let mut agent = Agent::new(family);
        let home = tempfile::tempdir().unwrap();
        let log = home.path().join("server.log");
        agent.server = Server::serve_logged(
            home.path(),
            agent.browser.runtime_dir.path(),
            &["--browser", &agent.browser.session],
            &log,
        );
        let tab = agent.open(&server.url("/account.html"));
        for level in ["safe", "strict"] {
            let text = agent.snapshot(tab, json!({ "redact": level }));
            assert!(text.contains("Account settings") && text.contains("<redacted>"), "{f}: {text}");
            assert_clean(f, &format!("take_snapshot {level}"), &text, &[]);
            if level == "strict" {
                assert!(!text.contains("Ada Lovelace"), "{f}: strict shows a field value:\n{text}");
            }
        }
        // The redaction can be turned off on purpose (proof that the page does carry them).
        let off = agent.snapshot(tab, json!({ "redact": "off" }));
        assert!(off.contains("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), "{f}: {off}");
        // What the agent fills, types and evaluates.
        agent.ok("fill", json!({ "tabId": tab, "locator": "#pw", "value": FILLED }));
        agent.ok("fill", json!({ "tabId": tab, "locator": "#name", "value": TYPED_KEY }));
        let text = agent.snapshot(tab, json!({}));
        assert_clean(f, "take_snapshot after filling", &text, &[FILLED, TYPED_KEY]);
        let out =
            agent.ok("evaluate_script", json!({ "tabId": tab, "function": format!("() => '{EVALUATED}'") }));
        assert!(out["json"].as_str().unwrap().contains(EVALUATED), "{f}: {out}");
        // An error that lists what the page offers (close candidates).
        let err = agent.err(
            "click",
            json!({ "tabId": tab, "locator": "role=button[name=\"Delete everything\"]", "timeoutMs": 1000 }),
        );
        assert_clean(f, "a TIMEOUT error", &err.to_string(), &[FILLED, TYPED_KEY]);
        agent.close(tab);
        let Agent { server: serve, browser, .. } = agent;
        drop(serve);
        let server_log = std::fs::read_to_string(&log).unwrap();
        // Debug lines were written (names and sizes), so the absence below means something.
        assert!(server_log.contains("bridge call") && server_log.contains("page.act"), "{f}: {server_log}");
        assert_clean(f, "the server log at debug", &server_log, &[FILLED, TYPED_KEY, EVALUATED]);
        let host_log = browser.host_logs();
        assert_clean(f, "the host log at debug", &host_log, &[FILLED, TYPED_KEY, EVALUATED]);
    }
}
