//! One timeout policy: `timeoutMs` outside 1..=50000 is `INVALID_ARGUMENT` naming the range in
//! the page tools and the action tools alike (the page tools clamped it before), and nothing
//! is done. `wait_for` alone takes more than 50000: it waits 50 s and answers with what it saw
//! before an MCP client gives up on the call.

use serde_json::json;
use webext_mcp_host::protocol::timeouts::{MAX_TIMEOUT_MS, MIN_TIMEOUT_MS};

use crate::corpus::corpus;
use crate::{Agent, BOTH};

#[test]
fn an_out_of_range_timeout_is_invalid_argument_naming_the_range() {
    let range = format!("between {MIN_TIMEOUT_MS} and {MAX_TIMEOUT_MS}");
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&corpus().url("/forms.html"));
        let before = agent.ok("list_pages", json!({}))["tabs"].as_array().unwrap().len();
        let url = corpus().url("/table.html");
        for (tool, args) in [
            ("new_page", json!({ "url": url, "timeoutMs": 0 })),
            ("new_page", json!({ "url": url, "timeoutMs": MAX_TIMEOUT_MS + 1 })),
            ("navigate_page", json!({ "tabId": tab, "url": url, "timeoutMs": 300_000 })),
            ("navigate_history", json!({ "tabId": tab, "steps": -1, "timeoutMs": 0 })),
            ("click", json!({ "tabId": tab, "locator": "button", "timeoutMs": 0 })),
            (
                "fill_form_by_uid",
                json!({ "tabId": tab, "fields": [{"uid": "e1", "value": "x"}], "timeoutMs": 60_000 }),
            ),
            ("wait_for", json!({ "tabId": tab, "text": "never", "timeoutMs": 0 })),
        ] {
            let err = agent.err(tool, args.clone());
            assert_eq!(err["code"], "INVALID_ARGUMENT", "{}: {tool} {args}: {err}", family.name());
            let message = err["message"].as_str().unwrap();
            assert!(message.contains("timeoutMs") && message.contains(&range), "{tool}: {message}");
            assert!(err["hint"].as_str().is_some(), "{tool}: {err}");
        }
        // Nothing was opened or navigated.
        let list = agent.ok("list_pages", json!({}));
        assert_eq!(list["tabs"].as_array().unwrap().len(), before, "{}: {list}", family.name());
        let mine =
            list["tabs"].as_array().unwrap().iter().find(|t| t["tabId"] == json!(tab)).cloned().unwrap();
        assert_eq!(mine["url"], json!(corpus().url("/forms.html")), "{}", family.name());
        // The edges of the range are accepted.
        agent.ok("navigate_page", json!({ "tabId": tab, "url": url, "timeoutMs": MAX_TIMEOUT_MS }));
        agent.ok("wait_for", json!({ "tabId": tab, "text": "Scores", "timeoutMs": MAX_TIMEOUT_MS }));
        // A longer wait is cut, not refused.
        agent.ok("wait_for", json!({ "tabId": tab, "text": "Scores", "timeoutMs": 65_000 }));
        agent.close(tab);
    }
}
