//! One redaction engine (issue 18): a page planting every class of secret the safe level
//! hides; none reaches take_snapshot (safe or strict), an error message, or the server's and
//! the host's log at `--log debug` — not even what the agent filled or what evaluate_script
//! returned (logs carry names and sizes only).

use serde_json::json;

use crate::common::http::TestServer;
use crate::common::mcp_client::Server;
use crate::common::planted::{PLANTED, SECRETS_PAGE};
use crate::{Agent, BOTH};

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
