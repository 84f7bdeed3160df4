//! What "ready" waits for beyond a loaded extension: the session's helper reachable (its
//! host's descriptor written and answering, so `browser: <sessionId>` works on the first
//! call) and the starting page loaded (`readyState` complete: by then the browser has run
//! the extension's `document_idle` content scripts, which run at the latest right after the
//! load event).
//!
//! Neither wait fails the session: a helper that never connects (a build without one, a
//! browser refusing native messaging) is reported as an event, and the page tools' own
//! errors say the rest.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use super::contract::Contract;
use crate::runner::{BoxFuture, PageInfo, Runner};

/// How a session asks whether its helper answers: one `tabs.list` to the host of its
/// session id, through the bridge (the one door to hosts, which sits above this module:
/// the session's caller hands it in). Answers the host's pid.
pub trait HelperProbe: Send + Sync {
    fn probe<'a>(&'a self, session_id: &'a str, timeout: Duration) -> BoxFuture<'a, Result<u32, ErrorBody>>;
}

/// How long a session waits for its helper and its starting page before saying ready.
pub const USABLE_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_USABLE_MS);

const POLL: Duration = Duration::from_millis(50);

/// Waits until the helper host of `session_id` answers `tabs.list`. Returns whether it did.
pub async fn wait_helper(
    probe: &dyn HelperProbe,
    session_id: &str,
    contract: &Contract,
    deadline: Instant,
) -> bool {
    loop {
        let last = match probe
            .probe(session_id, Duration::from_millis(webext_mcp_host::protocol::timeouts::READINESS_PROBE_MS))
            .await
        {
            Ok(pid) => {
                contract.event("helper", json!({"status": "connected", "hostPid": pid}));
                return true;
            }
            Err(e) => e.message,
        };
        if Instant::now() >= deadline {
            contract.event("helper", json!({"status": "unreachable", "message": last}));
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Waits until the page `target_id` has loaded `url` (`document.readyState` is `complete`
/// in a document other than the blank one a tab starts with), then one more task, so that
/// scripts the browser queued at the load have run.
pub async fn wait_loaded(
    runner: &dyn Runner,
    target_id: &str,
    url: &str,
    contract: &Contract,
    deadline: Instant,
) -> bool {
    let probe = format!(
        "(location.href === 'about:blank' && {} !== 'about:blank') ? 'blank' : document.readyState",
        Value::String(url.to_owned())
    );
    loop {
        let state = runner
            .evaluate_in_page(
                target_id,
                &probe,
                Duration::from_millis(webext_mcp_host::protocol::timeouts::READINESS_PROBE_MS),
            )
            .await
            .ok();
        if state.as_ref().and_then(Value::as_str) == Some("complete") {
            let settle = "new Promise((r) => setTimeout(() => r(document.readyState), 0))";
            let _ = runner
                .evaluate_in_page(
                    target_id,
                    settle,
                    Duration::from_millis(webext_mcp_host::protocol::timeouts::READINESS_PROBE_MS),
                )
                .await;
            contract.event("page", json!({"status": "loaded"}));
            return true;
        }
        if Instant::now() >= deadline {
            contract.event("page", json!({"status": "loading", "readyState": state}));
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The browser's first tab, once it has one (a Firefox session is up before its first
/// window: `runner/firefox`).
pub async fn first_page(runner: &dyn Runner, deadline: Instant) -> Option<PageInfo> {
    loop {
        if let Some(page) = runner.pages().await.ok().and_then(|p| p.into_iter().next()) {
            return Some(page);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
}
