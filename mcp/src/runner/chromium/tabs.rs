//! The `tabs` API id of each page target, so a content script's log entry names the tab the
//! page tools take (`tabId`). CDP knows no tab ids; `chrome.debugger.getTargets()` pairs
//! each page target's id with its tab id, and the helper extension (a known id, with the
//! `debugger` permission) answers it from its service worker. Only the helper is asked: the
//! extension under development could answer anything.
//!
//! A lookup starts when a page target is attached, from the monitor (on the CDP reader
//! thread: it runs on the runtime the browser was launched from), and tries again for a
//! while until the helper's worker answers (a session loads the helper after the start).
//! What a content script prints before the answer (at most the first page's first lines,
//! while the helper's worker starts) carries no tab id.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use webext_mcp_host::protocol::HELPER_CHROMIUM_ID;

use super::monitor::{Monitor, lock};
use super::{SCHEME, evaluate};
use crate::runner::cdp::CdpClient;

/// How long a lookup waits for the helper's worker.
const LOOK_UP_FOR: Duration = Duration::from_millis(webext_mcp_host::protocol::timeouts::HELPER_WORKER_MS);

const TARGETS: &str = "chrome.debugger.getTargets().then((ts) => ts.filter((t) => t.type === 'page' && typeof t.tabId === 'number').map((t) => [t.id, t.tabId]))";

/// Starts looking up the tab ids of the open pages (in the background).
pub(super) fn look_up(monitor: &Monitor, cdp: &CdpClient) {
    let Some(runtime) = &monitor.runtime else { return };
    let base = format!("{SCHEME}{HELPER_CHROMIUM_ID}/");
    let (cdp, ids) = (cdp.clone(), monitor.tab_ids.clone());
    // The helper's worker session, looked up afresh on each try.
    let worker = monitor.worker_sessions(&base);
    runtime.spawn(async move {
        let deadline = Instant::now() + LOOK_UP_FOR;
        while Instant::now() < deadline {
            if let Some(s) = worker() {
                match evaluate(&cdp, &s, TARGETS, Duration::from_secs(5)).await {
                    Ok(pairs) => {
                        record(&ids, &pairs);
                        return;
                    }
                    Err(e) => tracing::debug!(error = %e, "tab ids not known yet"),
                }
            }
            // Short: a content script may print as soon as the page loads.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
}

/// Stores `[[targetId, tabId], …]`.
fn record(ids: &Mutex<HashMap<String, i64>>, pairs: &Value) {
    let mut ids = lock(ids);
    for pair in pairs.as_array().into_iter().flatten() {
        if let (Some(target), Some(tab)) = (pair[0].as_str(), pair[1].as_i64()) {
            ids.insert(target.to_owned(), tab);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn pairs_are_recorded_and_junk_ignored() {
        let ids: Arc<Mutex<HashMap<String, i64>>> = Arc::default();
        record(&ids, &serde_json::json!([["T1", 5], ["T2", "x"], [3, 4], "junk"]));
        record(&ids, &serde_json::json!({"not": "a list"}));
        assert_eq!(lock(&ids).clone(), HashMap::from([("T1".to_owned(), 5)]));
    }
}
