//! Chromium's console through the debugger (issue 30): with debugger mode on,
//! `list_console_messages {viaDebugger: true}` takes the tab's console from CDP (`via:
//! "debugger"`) — messages, exceptions and rejections with V8's positions, a page that
//! replaced `console` before any hook could wrap it still heard — without doubling what the
//! hook had; `viaDebugger: false` goes back to the hook and detaches. Without debugger mode it
//! says why. A browser of its own (debugger mode is a browser-wide setting).

use serde_json::json;
use webext_mcp::browsers::Engine;

use crate::Agent;
use crate::common::http::TestServer;
use crate::console::poll;

/// Logs at load, while the hook is the source (V8 replays it when the debugger comes).
const PAGE: &str = r#"<!doctype html><title>CDP console</title><body><p>cdp</p>
<script>
console.log('said at load');
</script></body>"#;

fn has(entries: &[serde_json::Value], needle: &str) -> usize {
    entries.iter().filter(|e| e["text"].as_str().unwrap_or("").contains(needle)).count()
}

/// How many tabs the helper's debugger is attached to (get_browser_info).
fn debugger_sessions(agent: &mut Agent) -> u64 {
    agent.ok("get_browser_info", json!({}))["debuggerSessions"].as_u64().unwrap_or(u64::MAX)
}

#[tokio::test]
async fn chromium_console_comes_from_the_debugger_when_asked() {
    use crate::observe_bench::{remote_browser, set_setting, status_page};
    let server = TestServer::start();
    server.page("/cdp.html", PAGE);
    let b = remote_browser(Engine::Chromium).await;
    let status = status_page(b).await;
    let url = server.url("/cdp.html");
    let (agent, tab) = tokio::task::spawn_blocking(move || {
        let mut agent = Agent::on(b);
        let tab = agent.open(&url);
        poll(&mut agent, "list_console_messages", json!({ "tabId": tab }), |e| has(e, "said at load") == 1);
        let out = agent.ok("list_console_messages", json!({ "tabId": tab, "viaDebugger": true }));
        assert_eq!(out["via"], "hook", "debugger mode is off: {out}");
        assert!(out["debugger"]["why"].as_str().unwrap().contains("debugger mode"), "{out}");
        (agent, tab)
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", true).await;
    tokio::task::spawn_blocking(move || {
        let mut agent = agent;
        let out = agent.ok("list_console_messages", json!({ "tabId": tab, "viaDebugger": true }));
        assert_eq!(out["via"], "debugger", "{out}");
        // The page wraps console itself; whatever the hook would see, the log has one source now.
        agent.ok(
            "evaluate_script",
            json!({ "tabId": tab, "function": "() => { const real = console.log.bind(console); console.log = (...a) => real(...a); console.log('after the page wrapped console', 42); console.warn('a warning'); setTimeout(() => { throw new Error('thrown later'); }, 0); Promise.reject(new Error('rejected later')); return 1; }" }),
        );
        let out = poll(&mut agent, "list_console_messages", json!({ "tabId": tab }), |e| {
            has(e, "after the page wrapped console") > 0 && has(e, "thrown later") > 0 && has(e, "rejected later") > 0
        });
        let entries = out["entries"].as_array().unwrap();
        assert_eq!(out["via"], "debugger", "{out}");
        assert_eq!(has(entries, "said at load"), 1, "replayed by V8 but not doubled: {out}");
        assert_eq!(has(entries, "after the page wrapped console"), 1, "one source, no doubles: {out}");
        let logged = entries.iter().find(|e| e["text"].as_str().unwrap().contains("wrapped console")).unwrap();
        assert_eq!(logged["text"], "after the page wrapped console 42", "{logged}");
        let warned = entries.iter().find(|e| e["text"] == "a warning").unwrap();
        assert_eq!(warned["level"], "warn", "{warned}");
        let thrown = entries.iter().find(|e| e["text"].as_str().unwrap().contains("thrown later")).unwrap();
        assert_eq!((thrown["source"].as_str(), thrown["level"].as_str()), (Some("exception"), Some("error")), "{thrown}");
        let rejected = entries.iter().find(|e| e["text"].as_str().unwrap().contains("rejected later")).unwrap();
        assert_eq!(rejected["source"], "rejection", "{rejected}");
        assert_eq!(debugger_sessions(&mut agent), 1, "held while the console comes from it");
        let out = agent.ok("list_console_messages", json!({ "tabId": tab, "viaDebugger": false }));
        assert_eq!(out["via"], "hook", "{out}");
        assert_eq!(debugger_sessions(&mut agent), 0, "released");
        agent.close(tab);
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", false).await;
    b.runner.shutdown().await;
}
