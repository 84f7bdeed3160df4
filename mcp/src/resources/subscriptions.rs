//! Resource subscriptions: `notifications/resources/updated` when a subscribed tab's console
//! or network log gets new entries.
//!
//! ```text
//! helper: observe.changed {tabId, console?, network?, closed?}  (≤ 4/s per tab, ids only)
//!    └─▶ host ─▶ pump (one per browser host, re-subscribes after a reconnect)
//!          └─▶ every subscription of that (host, tab, kind): wake ─▶ its sender task:
//!                send updated(uri), then wait ≥ 250 ms (wakes meanwhile fold into one)
//! ```
//!
//! Bounded by construction: a subscription sends at most 4 notifications a second however
//! fast its page logs, holds no entries (the client reads them with resources/read), and
//! ends when the tab closes (one last notification, so the client's read says NOT_FOUND),
//! when its browser host is gone for good, when the client unsubscribes or cancels its
//! `subscriptions/listen`, or when the client stops reading notifications.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionSink};
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::EVENT_OBSERVE_CHANGED;

use super::{Kind, parse};
use crate::tools::Ctx;

/// Least time between two notifications of one subscription (≤ 4 a second).
pub const MIN_GAP: Duration = Duration::from_millis(250);
/// Wait before re-subscribing to a host whose connection ended.
const RESUBSCRIBE_AFTER: Duration = Duration::from_secs(1);

/// Where a subscription's notifications go.
#[derive(Clone)]
pub enum Notifier {
    /// `resources/subscribe` (protocol versions before 2026-07-28): plain notifications.
    Legacy(Peer<RoleServer>),
    /// A `subscriptions/listen` stream (2026-07-28): notifications tagged with its id.
    Listen(SubscriptionSink),
}

impl Notifier {
    /// Sends `updated(uri)`; false when the client is gone or the stream closed.
    async fn updated(&self, uri: &str) -> bool {
        match self {
            Notifier::Legacy(peer) => {
                peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await.is_ok()
            }
            Notifier::Listen(sink) => sink.notify_resource_updated(uri).await.is_ok(),
        }
    }

    fn is_legacy(&self) -> bool {
        matches!(self, Notifier::Legacy(_))
    }
}

/// Which host, tab and log a subscription watches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Watch {
    socket: PathBuf,
    pid: u32,
    tab_id: i64,
    kind: Kind,
}

struct Sub {
    id: u64,
    uri: String,
    watch: Watch,
    legacy: bool,
    wake: Arc<Notify>,
    closing: Arc<AtomicBool>,
    sender: tokio::task::AbortHandle,
}

#[derive(Default)]
struct State {
    subs: Vec<Sub>,
    /// Host (socket, pid) → its event pump.
    pumps: HashMap<(PathBuf, u32), tokio::task::AbortHandle>,
}

/// Every subscription of one MCP server.
#[derive(Default)]
pub struct Subscriptions {
    state: Arc<Mutex<State>>,
    next: AtomicU64,
}

impl Subscriptions {
    /// Subscribes `uri` for `notifier`: the URI must name a tab the tool can read now (the
    /// read also starts capture of a tab the agent did not open). Returns the id.
    pub async fn subscribe(&self, ctx: &Ctx, uri: &str, notifier: Notifier) -> Result<u64, ErrorBody> {
        let address = parse(uri)?;
        let d = ctx.browser.resolve(address.browser.as_deref())?;
        super::run(ctx, uri, CancellationToken::new()).await?;
        let watch =
            Watch { socket: d.socket.clone(), pid: d.pid, tab_id: address.tab_id, kind: address.kind };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let wake = Arc::new(Notify::new());
        let closing = Arc::new(AtomicBool::new(false));
        let legacy = notifier.is_legacy();
        let sender = tokio::spawn(send_loop(
            Arc::clone(&self.state),
            id,
            uri.to_owned(),
            notifier,
            Arc::clone(&wake),
            Arc::clone(&closing),
        ))
        .abort_handle();
        let Ok(mut state) = self.state.lock() else {
            sender.abort();
            return Err(ErrorBody::new(
                webext_mcp_host::protocol::ErrorCode::Internal,
                "subscriptions poisoned",
            ));
        };
        state.subs.push(Sub { id, uri: uri.to_owned(), watch, legacy, wake, closing, sender });
        let host = (d.socket.clone(), d.pid);
        if state.pumps.get(&host).is_none_or(|p| p.is_finished()) {
            let pump = tokio::spawn(pump(Arc::clone(ctx), Arc::clone(&self.state), d.clone())).abort_handle();
            state.pumps.insert(host, pump);
        }
        tracing::debug!(subscriptions = state.subs.len(), "resource subscribed");
        Ok(id)
    }

    /// `resources/unsubscribe`: ends the legacy subscriptions of `uri` (true if there was one).
    pub fn unsubscribe_uri(&self, uri: &str) -> bool {
        self.remove_where(|s| s.legacy && s.uri == uri)
    }

    /// Ends subscription `id` (a `subscriptions/listen` stream closed).
    pub fn remove(&self, id: u64) {
        self.remove_where(|s| s.id == id);
    }

    /// How many subscriptions are live (tests, `server_info`-style reports).
    pub fn len(&self) -> usize {
        self.state.lock().map(|s| s.subs.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn remove_where(&self, f: impl Fn(&Sub) -> bool) -> bool {
        let Ok(mut state) = self.state.lock() else { return false };
        let before = state.subs.len();
        state.subs.retain(|s| {
            let drop = f(s);
            if drop {
                s.sender.abort();
            }
            !drop
        });
        before != state.subs.len()
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        if let Ok(mut state) = self.state.lock() {
            for s in state.subs.drain(..) {
                s.sender.abort();
            }
            for (_, p) in state.pumps.drain() {
                p.abort();
            }
        }
    }
}

/// One subscription's sender: [`pace`]s its notifications, then leaves the table.
async fn send_loop(
    state: Arc<Mutex<State>>,
    id: u64,
    uri: String,
    notifier: Notifier,
    wake: Arc<Notify>,
    closing: Arc<AtomicBool>,
) {
    let delivered = pace(&wake, &closing, || notifier.updated(&uri)).await;
    if let Ok(mut s) = state.lock() {
        s.subs.retain(|s| s.id != id);
    }
    tracing::debug!(delivered, "resource subscription ended");
}

/// A notification per wake, at least [`MIN_GAP`] apart (wakes during the gap leave one
/// stored permit: coalesced, never lost, never queued up). Ends after the notification that
/// follows `closing`, or when one cannot be delivered (returns whether the last one was).
async fn pace<F, Fut>(wake: &Notify, closing: &AtomicBool, mut send: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    loop {
        wake.notified().await;
        let delivered = send().await;
        if !delivered || closing.load(Ordering::SeqCst) {
            return delivered;
        }
        tokio::time::sleep(MIN_GAP).await;
    }
}

/// Receives `observe.changed` from one host for as long as subscriptions to it exist.
async fn pump(ctx: Ctx, state: Arc<Mutex<State>>, d: Descriptor) {
    loop {
        if !has_subs(&state, &d) {
            break;
        }
        match ctx.browser.events(&d, &[EVENT_OBSERVE_CHANGED]).await {
            Ok(mut rx) => {
                while let Some(event) = rx.recv().await {
                    dispatch(&state, &d, &event.params);
                }
            }
            Err(e) => {
                tracing::debug!(code = e.code.as_str(), "resource events: cannot subscribe to the host")
            }
        }
        // The connection ended. Another browser process at the same socket has other tabs:
        // subscriptions to a host that is gone end (their last read says NOT_FOUND).
        if !ctx.browser.host_alive(&d) {
            close_where(&state, |w| w.socket == d.socket && w.pid == d.pid);
            break;
        }
        tokio::time::sleep(RESUBSCRIBE_AFTER).await;
    }
    if let Ok(mut s) = state.lock() {
        s.pumps.remove(&(d.socket.clone(), d.pid));
    }
}

fn has_subs(state: &Mutex<State>, d: &Descriptor) -> bool {
    state.lock().is_ok_and(|s| s.subs.iter().any(|s| s.watch.socket == d.socket && s.watch.pid == d.pid))
}

/// What an `observe.changed` event means for the subscriptions (pure; tested below).
#[derive(Debug, PartialEq)]
enum Change {
    Closed(i64),
    Grew(i64, Vec<Kind>),
    Ignored,
}

fn change_of(params: &Value) -> Change {
    let Some(tab) = params.get("tabId").and_then(Value::as_i64) else { return Change::Ignored };
    if params.get("closed") == Some(&Value::Bool(true)) {
        return Change::Closed(tab);
    }
    let kinds: Vec<Kind> =
        Kind::ALL.into_iter().filter(|k| params.get(k.event_field()).is_some_and(Value::is_u64)).collect();
    if kinds.is_empty() { Change::Ignored } else { Change::Grew(tab, kinds) }
}

fn dispatch(state: &Mutex<State>, d: &Descriptor, params: &Value) {
    let here = |w: &Watch| w.socket == d.socket && w.pid == d.pid;
    match change_of(params) {
        Change::Closed(tab) => close_where(state, |w| here(w) && w.tab_id == tab),
        Change::Grew(tab, kinds) => {
            let Ok(s) = state.lock() else { return };
            for sub in s
                .subs
                .iter()
                .filter(|s| here(&s.watch) && s.watch.tab_id == tab && kinds.contains(&s.watch.kind))
            {
                sub.wake.notify_one();
            }
        }
        Change::Ignored => {}
    }
}

/// Ends the matching subscriptions after one last notification each.
fn close_where(state: &Mutex<State>, f: impl Fn(&Watch) -> bool) {
    let Ok(s) = state.lock() else { return };
    for sub in s.subs.iter().filter(|s| f(&s.watch)) {
        sub.closing.store(true, Ordering::SeqCst);
        sub.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_map_to_changes() {
        assert_eq!(change_of(&json!({"tabId": 4, "console": 9})), Change::Grew(4, vec![Kind::Console]));
        assert_eq!(
            change_of(&json!({"tabId": 4, "console": 9, "network": 2})),
            Change::Grew(4, vec![Kind::Console, Kind::Network])
        );
        assert_eq!(change_of(&json!({"tabId": 4, "closed": true})), Change::Closed(4));
        assert_eq!(change_of(&json!({"tabId": 4})), Change::Ignored);
        assert_eq!(change_of(&json!({"tabId": "4", "console": 1})), Change::Ignored);
        assert_eq!(change_of(&json!({"tabId": 4, "console": "x"})), Change::Ignored);
        assert_eq!(change_of(&json!(null)), Change::Ignored);
    }

    /// The sender's pacing without a browser: 20 wakes in a burst, then more while it
    /// waits, give one notification now and one after the gap — never one per wake; a
    /// close ends it after one last notification.
    #[tokio::test(start_paused = true)]
    async fn wakes_coalesce_to_at_most_one_notification_per_gap() {
        let wake = Arc::new(Notify::new());
        let closing = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicU64::new(0));
        let (w, c, n) = (Arc::clone(&wake), Arc::clone(&closing), Arc::clone(&sent));
        let task = tokio::spawn(async move {
            pace(&w, &c, || {
                n.fetch_add(1, Ordering::SeqCst);
                std::future::ready(true)
            })
            .await
        });
        for _ in 0..20 {
            wake.notify_one();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(sent.load(Ordering::SeqCst), 1);
        for _ in 0..20 {
            wake.notify_one();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // 200 ms of wakes fall inside the first gap: one more after it, then quiet.
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(sent.load(Ordering::SeqCst), 2);
        assert!(!task.is_finished());
        closing.store(true, Ordering::SeqCst);
        wake.notify_one();
        assert!(task.await.unwrap());
        assert_eq!(sent.load(Ordering::SeqCst), 3);
    }

    /// A client that no longer takes notifications ends its subscription.
    #[tokio::test(start_paused = true)]
    async fn an_undeliverable_notification_ends_the_subscription() {
        let wake = Notify::new();
        wake.notify_one();
        assert!(!pace(&wake, &AtomicBool::new(false), || std::future::ready(false)).await);
    }
}
