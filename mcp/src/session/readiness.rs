//! What "ready" waits for beyond a loaded extension: the session's helper reachable (its
//! host's descriptor written and answering, so `browser: <sessionId>` works on the first
//! call) and the starting page loaded (`readyState` complete: by then the browser has run
//! the extension's `document_idle` content scripts, which run at the latest right after the
//! load event).
//!
//! Neither wait fails the session: a helper that never connects (a build without one, a
//! browser refusing native messaging) is reported as an event, and the page tools' own
//! errors say the rest.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::client::Hub;
use webext_mcp_host::protocol::methods::TABS_LIST;

use super::contract::Contract;
use crate::runner::{PageInfo, Runner};

/// How long a session waits for its helper and its starting page before saying ready.
pub const USABLE_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::SESSION_USABLE_MS);

const POLL: Duration = Duration::from_millis(50);

/// Waits until the helper host of `session_id` in `runtime_dir` answers `tabs.list`.
/// Returns whether it did.
pub async fn wait_helper(
    runtime_dir: &Path,
    session_id: &str,
    contract: &Contract,
    deadline: Instant,
) -> bool {
    let hub = Hub::new(runtime_dir);
    loop {
        let last = match hub
            .call(
                Some(session_id),
                TABS_LIST,
                json!({}),
                Duration::from_millis(webext_mcp_host::protocol::timeouts::READINESS_PROBE_MS),
            )
            .await
        {
            Ok((d, _)) => {
                contract.event("helper", json!({"status": "connected", "hostPid": d.pid}));
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
