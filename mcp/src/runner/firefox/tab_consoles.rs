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
//! with the tab's URL as its context, the tab's id as the `tabs` API numbers it (asked of
//! the parent process's extension tab tracker, which the helper's `tabs.list` and so the
//! page tools use too) and the frame's id as the extension APIs number it (0 for the top
//! document, else its browsing context id, as in `webNavigation`); the page's own messages
//! are dropped here.
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

use super::devtools::{evaluate_on, parent_console_on, resource_events};
use crate::runner::log::{EventKind, ExtensionLog};
use crate::runner::rdp::RdpClient;

/// How long one request of the follower may take.
const REQUEST_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::FIREFOX_CONSOLE_REQUEST_MS);
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
    let known: Arc<Mutex<Known>> = Arc::default();
    let (changed_tx, mut changed) = mpsc::unbounded_channel::<()>();
    {
        let known = known.clone();
        rdp.add_listener(move |packet| on_packet(packet, &known, &owners, &changed_tx));
    }
    let parent = parent_console_on(&rdp).await.ok();
    let mut followed: HashSet<String> = HashSet::new();
    while !rdp.is_closed() {
        if let Ok(list) = rdp.request("root", "listTabs", json!({}), REQUEST_TIMEOUT).await {
            let tabs: Vec<(String, Option<u64>)> = list["tabs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["actor"].as_str().map(|a| (a.to_owned(), t["browserId"].as_u64())))
                .collect();
            followed.retain(|d| tabs.iter().any(|(t, _)| t == d));
            for (descriptor, browser_id) in tabs {
                if followed.contains(&descriptor) {
                    continue;
                }
                let tab_id = match (&parent, browser_id) {
                    (Some(console), Some(id)) => tab_id_of(&rdp, console, id).await,
                    _ => None,
                };
                if watch_tab(&rdp, &descriptor, tab_id, &known).await {
                    followed.insert(descriptor);
                }
            }
        }
        let _ = tokio::time::timeout(RELIST_EVERY, changed.recv()).await;
    }
}

/// What the follower knows of the targets it watches.
#[derive(Debug, Default)]
struct Known {
    /// Watcher actor → the `tabs` API id of its tab.
    tabs: HashMap<String, i64>,
    /// Target actor → its document.
    targets: HashMap<String, Frame>,
}

/// One document (frame target) of a tab.
#[derive(Debug, Clone)]
struct Frame {
    url: String,
    tab_id: Option<i64>,
    frame_id: Option<i64>,
}

/// The `tabs` API id of the tab whose browser is `browser_id`, from the parent process's
/// extension tab tracker (the same numbering every extension, the helper included, sees;
/// the tracker numbers a tab on first sight, as the API does).
async fn tab_id_of(rdp: &RdpClient, console: &str, browser_id: u64) -> Option<i64> {
    let expression = format!(
        "(() => {{ const {{ ExtensionParent }} = ChromeUtils.importESModule('resource://gre/modules/ExtensionParent.sys.mjs'); \
         const tracker = ExtensionParent.apiManager.global.tabTracker; \
         const browser = BrowsingContext.getCurrentTopByBrowserId({browser_id})?.embedderElement; \
         return tracker && browser ? tracker.getBrowserData(browser).tabId : null; }})()"
    );
    let id = evaluate_on(rdp, console, &expression, REQUEST_TIMEOUT).await.ok()?.as_i64()?;
    (id >= 0).then_some(id)
}

/// Follows one tab's frame targets and their console. False when the tab went away first.
async fn watch_tab(rdp: &RdpClient, descriptor: &str, tab_id: Option<i64>, known: &Mutex<Known>) -> bool {
    let config = json!({"isServerTargetSwitchingEnabled": true, "isPopupDebuggingEnabled": false});
    let Ok(w) = rdp.request(descriptor, "getWatcher", config, REQUEST_TIMEOUT).await else { return false };
    let Some(watcher) = w["actor"].as_str() else { return false };
    // Before the targets are announced (during `watchTargets`).
    if let Some(id) = tab_id {
        known.lock().unwrap_or_else(PoisonError::into_inner).tabs.insert(watcher.to_owned(), id);
    }
    let targets = rdp.request(watcher, "watchTargets", json!({"targetType": "frame"}), REQUEST_TIMEOUT).await;
    let types = json!({"resourceTypes": ["console-message"]});
    targets.is_ok() && rdp.request(watcher, "watchResources", types, REQUEST_TIMEOUT).await.is_ok()
}

/// One notification of the follower's connection (on the reader thread: quick, no waits).
fn on_packet(
    packet: &Value,
    known: &Mutex<Known>,
    owners: &Mutex<Vec<(String, Arc<ExtensionLog>)>>,
    changed: &mpsc::UnboundedSender<()>,
) {
    let lock = || known.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(kind) = packet["type"].as_str() else { return };
    match kind {
        "tabListChanged" => {
            let _ = changed.send(());
        }
        "target-available-form" => {
            let t = &packet["target"];
            if let (Some(actor), Some(url)) = (t["actor"].as_str(), t["url"].as_str()) {
                let mut known = lock();
                let tab_id = packet["from"].as_str().and_then(|w| known.tabs.get(w).copied());
                // The extension APIs' frame ids: 0 for the top document, else the frame's
                // browsing context id (Firefox's `webNavigation` numbering).
                let frame_id =
                    if t["isTopLevelTarget"] == true { Some(0) } else { t["browsingContextID"].as_i64() };
                known.targets.insert(actor.to_owned(), Frame { url: url.to_owned(), tab_id, frame_id });
            }
        }
        "target-destroyed-form" => {
            if let Some(actor) = packet["target"]["actor"].as_str() {
                lock().targets.remove(actor);
            }
        }
        // A document replaced within the same target.
        "tabNavigated" | "frameUpdate" => {
            if let (Some(from), Some(url)) = (packet["from"].as_str(), packet["url"].as_str())
                && let Some(frame) = lock().targets.get_mut(from)
            {
                url.clone_into(&mut frame.url);
            }
        }
        "resources-available-array" => {
            let frame = packet["from"].as_str().and_then(|f| lock().targets.get(f).cloned());
            let owners = owners.lock().unwrap_or_else(PoisonError::into_inner);
            for mut event in resource_events(packet, false) {
                if event.kind != EventKind::Console {
                    continue;
                }
                // Only messages from the extension's own files belong to its log.
                let Some(file) = event.url.as_deref() else { continue };
                let Some((_, log)) = owners.iter().find(|(base, _)| file.starts_with(base.as_str())) else {
                    continue;
                };
                if let Some(f) = &frame {
                    event.context = Some(f.url.clone());
                    (event.tab_id, event.frame_id) = (f.tab_id, f.frame_id);
                }
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
        let known = Mutex::new(Known::default());
        known.lock().unwrap().tabs.insert("w".to_owned(), 7);
        let log = ExtensionLog::new();
        let owners = Mutex::new(vec![("moz-extension://u-1/".to_owned(), log.clone())]);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let target = json!({"type": "target-available-form", "from": "w",
            "target": {"actor": "t1", "url": "http://127.0.0.1/page", "isTopLevelTarget": true, "browsingContextID": 10}});
        on_packet(&target, &known, &owners, &tx);
        let frame = json!({"type": "target-available-form", "from": "w",
            "target": {"actor": "t2", "url": "http://127.0.0.1/frame", "isTopLevelTarget": false, "browsingContextID": 42}});
        on_packet(&frame, &known, &owners, &tx);
        let message = |file: &str, text: &str| json!({"arguments": [text], "filename": file, "lineNumber": 2, "columnNumber": 5, "level": "log"});
        let packet = json!({"type": "resources-available-array", "from": "t1", "array": [
            ["console-message", [message("moz-extension://u-1/content.js", "from the content script"),
                                 message("http://127.0.0.1/app.js", "the page's own"),
                                 message("moz-extension://u-2/content.js", "another extension")]],
            ["error-message", [{"pageError": {"errorMessage": "boom", "sourceName": "moz-extension://u-1/content.js",
                                              "lineNumber": 1, "warning": false}}]]]});
        on_packet(&packet, &known, &owners, &tx);
        let in_frame = json!({"type": "resources-available-array", "from": "t2", "array": [
            ["console-message", [message("moz-extension://u-1/content.js", "in the frame")]]]});
        on_packet(&in_frame, &known, &owners, &tx);
        let mut stream = log.subscribe();
        let got: Vec<_> = std::iter::from_fn(|| futures_poll(stream.next()).flatten()).collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].text, "from the content script");
        assert_eq!((got[0].line, got[0].column), (Some(2), Some(5)));
        assert_eq!(got[0].context.as_deref(), Some("http://127.0.0.1/page"));
        // The top document is frame 0; the tab id is its watcher's.
        assert_eq!((got[0].tab_id, got[0].frame_id), (Some(7), Some(0)));
        assert_eq!(got[1].context.as_deref(), Some("http://127.0.0.1/frame"));
        assert_eq!((got[1].tab_id, got[1].frame_id), (Some(7), Some(42)));
        on_packet(&json!({"type": "tabListChanged", "from": "root"}), &known, &owners, &tx);
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
