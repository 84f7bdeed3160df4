//! Content scripts' and extension pages' console calls in Firefox, attributed to the
//! extension whose files made them.
//!
//! Firefox files a content script's `console.*` calls under the page it runs in, and an
//! extension page opened in a tab (popup, options, …) is a tab of its own: neither reaches
//! the add-on's watcher, which sees only its background. So every tab is watched: a second
//! debugger connection of its own (actors are per connection, so this follower never
//! unwatches what `Devtools::page_messages` watches, nor the other way round) lists the tabs
//! again whenever the root says the list changed (`tabListChanged`, sent once after each
//! `listTabs`), and each new tab's watcher follows its frame targets (new documents after a
//! navigation included) and their `console-message` resources. A message whose file lies
//! under a registered extension's `moz-extension://<uuid>/` goes to that extension's log,
//! with the tab's URL as its context; the page's own messages are dropped here.
//!
//! ```text
//! rdp.sock ──2nd connection── root: listTabs ◀── tabListChanged
//!                               └─ tab descriptor ─ getWatcher ─ watchTargets frame
//!                                                            └─ watchResources console-message
//! resources-available-array ──filename under moz-extension://<uuid>/──▶ ExtensionLog
//! ```
//!
//! Uncaught errors are not taken from here: they come from the browser's error output
//! (`output.rs`) for every context already, and would be counted twice.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::devtools::resource_events;
use crate::runner::log::{EventKind, ExtensionLog};
use crate::runner::rdp::RdpClient;

/// How long one request of the follower may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Tabs are listed again at least this often, in case a change notice was missed.
const RELIST_EVERY: Duration = Duration::from_secs(2);

/// Extensions whose files' console calls are collected: base URL → log.
type Owners = Arc<Mutex<Vec<(String, Arc<ExtensionLog>)>>>;

/// The follower of every tab's console; it runs on a thread of its own until the browser
/// closes the connection.
pub(super) struct TabConsoles {
    owners: Owners,
}

impl TabConsoles {
    /// Starts following the tabs of the Firefox whose debugger listens on `socket`.
    pub(super) fn start(socket: &Path) -> TabConsoles {
        let owners: Owners = Arc::default();
        let (socket, mine) = (socket.to_owned(), owners.clone());
        let spawned = std::thread::Builder::new().name("firefox-tab-consoles".into()).spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            match runtime {
                Ok(rt) => rt.block_on(follow(socket, mine)),
                Err(e) => tracing::warn!(error = %e, "cannot follow the tabs' consoles"),
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot follow the tabs' consoles");
        }
        TabConsoles { owners }
    }

    /// Collects the console calls of files under `base_url` (`moz-extension://<uuid>/`)
    /// into `log` from now on (replacing an earlier log of the same URL).
    pub(super) fn own(&self, base_url: &str, log: Arc<ExtensionLog>) {
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.retain(|(url, _)| url != base_url);
        owners.push((base_url.to_owned(), log));
    }
}

/// The follower's loop: connect, then watch every tab that appears.
async fn follow(socket: PathBuf, owners: Owners) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let rdp = match RdpClient::connect(&socket, deadline).await {
        Ok((rdp, _)) => rdp,
        Err(e) => {
            tracing::warn!(error = %e, "cannot open a second debugger connection for the tabs' consoles");
            return;
        }
    };
    // Target actor → the URL of its document.
    let urls: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let (changed_tx, mut changed) = mpsc::unbounded_channel::<()>();
    {
        let urls = urls.clone();
        rdp.add_listener(move |packet| on_packet(packet, &urls, &owners, &changed_tx));
    }
    let mut followed: HashSet<String> = HashSet::new();
    while !rdp.is_closed() {
        if let Ok(list) = rdp.request("root", "listTabs", json!({}), REQUEST_TIMEOUT).await {
            let tabs: Vec<String> = list["tabs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["actor"].as_str().map(str::to_owned))
                .collect();
            followed.retain(|d| tabs.contains(d));
            for descriptor in tabs {
                if !followed.contains(&descriptor) && watch_tab(&rdp, &descriptor).await {
                    followed.insert(descriptor);
                }
            }
        }
        let _ = tokio::time::timeout(RELIST_EVERY, changed.recv()).await;
    }
}

/// Follows one tab's frame targets and their console. False when the tab went away first.
async fn watch_tab(rdp: &RdpClient, descriptor: &str) -> bool {
    let config = json!({"isServerTargetSwitchingEnabled": true, "isPopupDebuggingEnabled": false});
    let Ok(w) = rdp.request(descriptor, "getWatcher", config, REQUEST_TIMEOUT).await else { return false };
    let Some(watcher) = w["actor"].as_str() else { return false };
    let targets = rdp.request(watcher, "watchTargets", json!({"targetType": "frame"}), REQUEST_TIMEOUT).await;
    let types = json!({"resourceTypes": ["console-message"]});
    targets.is_ok() && rdp.request(watcher, "watchResources", types, REQUEST_TIMEOUT).await.is_ok()
}

/// One notification of the follower's connection (on the reader thread: quick, no waits).
fn on_packet(
    packet: &Value,
    urls: &Mutex<HashMap<String, String>>,
    owners: &Mutex<Vec<(String, Arc<ExtensionLog>)>>,
    changed: &mpsc::UnboundedSender<()>,
) {
    let lock_urls = || urls.lock().unwrap_or_else(PoisonError::into_inner);
    match packet["type"].as_str().unwrap_or("") {
        "tabListChanged" => {
            let _ = changed.send(());
        }
        "target-available-form" => {
            let t = &packet["target"];
            if let (Some(actor), Some(url)) = (t["actor"].as_str(), t["url"].as_str()) {
                lock_urls().insert(actor.to_owned(), url.to_owned());
            }
        }
        "target-destroyed-form" => {
            if let Some(actor) = packet["target"]["actor"].as_str() {
                lock_urls().remove(actor);
            }
        }
        // A document replaced within the same target.
        "tabNavigated" | "frameUpdate" => {
            if let (Some(from), Some(url)) = (packet["from"].as_str(), packet["url"].as_str()) {
                lock_urls().insert(from.to_owned(), url.to_owned());
            }
        }
        "resources-available-array" => {
            let page = packet["from"].as_str().and_then(|f| lock_urls().get(f).cloned());
            let owners = owners.lock().unwrap_or_else(PoisonError::into_inner);
            for mut event in resource_events(packet, false) {
                if event.kind != EventKind::Console {
                    continue;
                }
                let file = event.url.as_deref().unwrap_or("");
                let Some((_, log)) = owners.iter().find(|(base, _)| file.starts_with(base.as_str())) else {
                    continue;
                };
                event.context = page.clone();
                log.push(event);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A content script's call goes to its extension with the tab's URL; the page's own
    /// calls and other extensions' stay out.
    #[test]
    fn console_calls_go_to_the_extension_whose_file_made_them() {
        let urls = Mutex::new(HashMap::new());
        let log = ExtensionLog::new();
        let owners = Mutex::new(vec![("moz-extension://u-1/".to_owned(), log.clone())]);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let target = json!({"type": "target-available-form", "from": "w",
            "target": {"actor": "t1", "url": "http://127.0.0.1/page"}});
        on_packet(&target, &urls, &owners, &tx);
        let message = |file: &str, text: &str| json!({"arguments": [text], "filename": file, "lineNumber": 2, "columnNumber": 5, "level": "log"});
        let packet = json!({"type": "resources-available-array", "from": "t1", "array": [
            ["console-message", [message("moz-extension://u-1/content.js", "from the content script"),
                                 message("http://127.0.0.1/app.js", "the page's own"),
                                 message("moz-extension://u-2/content.js", "another extension")]],
            ["error-message", [{"pageError": {"errorMessage": "boom", "sourceName": "moz-extension://u-1/content.js",
                                              "lineNumber": 1, "warning": false}}]]]});
        on_packet(&packet, &urls, &owners, &tx);
        let mut stream = log.subscribe();
        let got: Vec<_> = std::iter::from_fn(|| futures_poll(stream.next()).flatten()).collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].text, "from the content script");
        assert_eq!((got[0].line, got[0].column), (Some(2), Some(5)));
        assert_eq!(got[0].context.as_deref(), Some("http://127.0.0.1/page"));
        on_packet(&json!({"type": "tabListChanged", "from": "root"}), &urls, &owners, &tx);
        assert!(rx.try_recv().is_ok());
    }

    /// Polls a future once (the log's backlog is ready at once).
    fn futures_poll<F: std::future::Future>(fut: F) -> Option<F::Output> {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut fut = std::pin::pin!(fut);
        match fut.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        }
    }
}
