//! Pushed events (issue 30) as a client not written here sees them (the official Python MCP
//! SDK, `subscriptions_client.py`), both browsers, background tabs: `console://<tab>` and
//! `network://<tab>` are templates, read like the list tools, subscribed with
//! `resources/subscribe` (2025 protocol) and `subscriptions/listen` (2026-07-28), paced to at
//! most 4 notifications a second while the page logs ~30 batches a second, unsubscribed, and
//! ended when the tab closes.

use crate::common::http::TestServer;
use crate::{Agent, BOTH};
use std::collections::HashMap;

/// Logs 30 batches (one microtask turn each) and fetches once a second, from the start.
const BURST: &str = r#"<!doctype html><title>Burst</title><body><p>burst</p>
<script>
let n = 0;
async function burst() {
  for (let i = 0; i < 30; i++) { console.log('burst ' + (n++)); await Promise.resolve(); }
  console.error('an error line');
  fetch('/data.json').catch(() => {});
}
burst();
setInterval(burst, 1000);
</script></body>"#;

fn findings(stdout: &str) -> HashMap<String, String> {
    stdout.lines().filter_map(|l| l.split_once(' ').map(|(k, v)| (k.to_owned(), v.to_owned()))).collect()
}

fn count(f: &HashMap<String, String>, key: &str) -> usize {
    f.get(key)
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count `{key}` in {f:?}"))
}

#[test]
fn resource_subscriptions_push_paced_updates_and_end_with_the_tab() {
    let server = TestServer::start();
    server.page("/burst.html", BURST);
    server.route("/data.json", "application/json", r#"{"ok":true}"#);
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&server.url("/burst.html"));
        let listen_tab = agent.open(&server.url("/burst.html"));
        let run = crate::sdk_client::run(
            "subscriptions_client.py",
            agent.browser,
            &[tab.to_string(), listen_tab.to_string()],
        );
        let (stdout, context) = (&run.stdout, &run.context);
        assert!(run.success && stdout.contains("done"), "{context}");
        let r = findings(stdout);
        let is = |k: &str, v: &str| assert_eq!(r.get(k).map(String::as_str), Some(v), "{k}: {context}");

        is("subscribe-capability", "True");
        is("templates", "console://{tabId} network://{tabId}");
        // The read is the tool's page (the tab keeps logging, so counts may differ by a bit).
        assert!(count(&r, "read-entries") > 0, "{context}");
        is("read-has-burst", "True");
        is("read-text-bounded", "True");
        is("filtered-levels", "['error']");
        assert_eq!(stdout.matches("bad-uri-refused -32602").count(), 3, "{context}");
        is("unknown-tab-refused", "-32002");

        // Updates came, paced: far fewer than the page's ~30 batches a second.
        let console = count(&r, "console-updates");
        assert!(console >= 2, "{context}");
        is("console-rate-ok", "True");
        assert!(count(&r, "burst-entries") > 4 * console, "{context}");
        assert!(count(&r, "network-updates") >= 1, "{context}");
        assert!(count(&r, "after-unsubscribe-console") >= 2, "{context}");
        assert_eq!(count(&r, "after-unsubscribe-network"), 0, "{context}");
        // Closed: the subscription ended (nothing after the last update), the read says so.
        assert_eq!(count(&r, "after-close-updates"), 0, "{context}");
        is("closed-tab-read-refused", "-32002");

        assert!(r.get("modern-protocol").is_some_and(|v| v.starts_with("2026-07-28")), "{context}");
        is("honored", &format!("console://{listen_tab}"));
        assert_eq!(count(&r, "listen-updates"), 3, "{context}");
        is("modern-read-entries", "True");
        agent.close(listen_tab);
    }
}
