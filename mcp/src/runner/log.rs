//! What an extension printed, kept per extension.
//!
//! Extensions often fail in their first milliseconds (a throw at the top of the background
//! script), before anyone had a chance to subscribe. So every extension keeps a bounded
//! history, and a [`LogStream`] replays it before it follows live events: nothing is lost
//! between "browser launched" and "caller subscribed".

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{broadcast, watch};

use super::RunnerError;

/// Events kept per extension for late subscribers.
const HISTORY: usize = 1000;

/// Console level, as the page's `console.*` method named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Log,
    Info,
    Warn,
    Error,
}

impl Level {
    /// Maps a console method or CDP `type` (`warning`, `assert`, `trace`, …) to a level.
    pub fn from_method(method: &str) -> Level {
        match method {
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" | "warning" => Level::Warn,
            "error" | "assert" => Level::Error,
            _ => Level::Log,
        }
    }
}

/// A console call or an uncaught error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Console,
    Exception,
}

/// One thing an extension printed or threw. Lines and columns are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsoleEvent {
    pub kind: EventKind,
    pub level: Level,
    pub text: String,
    /// The script the call or error came from, when the browser says.
    pub url: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The document or worker it ran in (Chromium), when known.
    pub context: Option<String>,
    /// A content script's tab, as the `tabs` API and the page tools (`tabId`) number it,
    /// when the browser says.
    pub tab_id: Option<i64>,
    /// A content script's frame, as the extension APIs number it (0: the tab's top
    /// document), when the browser says.
    pub frame_id: Option<i64>,
    /// Chromium: it ran in a web page's main world, where the page's own scripts run too — a
    /// content script declared with `"world": "MAIN"`, or the page naming the extension's
    /// file in a `sourceURL` comment, which its URL alone cannot tell apart. Such an event is
    /// in the tab's own console ([`super::Runner::page_console`]) as well.
    pub page_world: bool,
}

/// Shared state of one extension: its history, live subscribers and background state.
#[derive(Debug)]
pub(crate) struct ExtensionLog {
    history: Mutex<VecDeque<ConsoleEvent>>,
    tx: broadcast::Sender<ConsoleEvent>,
    background: watch::Sender<bool>,
}

impl ExtensionLog {
    pub(crate) fn new() -> Arc<ExtensionLog> {
        let (tx, _) = broadcast::channel(256);
        let (background, _) = watch::channel(false);
        Arc::new(ExtensionLog { history: Mutex::new(VecDeque::new()), tx, background })
    }

    fn history(&self) -> MutexGuard<'_, VecDeque<ConsoleEvent>> {
        self.history.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records an event. The history lock is held while broadcasting so that a subscriber
    /// sees every event exactly once (in its backlog or live).
    pub(crate) fn push(&self, event: ConsoleEvent) {
        let mut history = self.history();
        if history.len() == HISTORY {
            history.pop_front();
        }
        history.push_back(event.clone());
        let _ = self.tx.send(event);
    }

    pub(crate) fn set_background_started(&self) {
        self.background.send_if_modified(|started| !std::mem::replace(started, true));
    }

    /// Forgets that the background started (before a reload, so that waiting means waiting
    /// for the new version).
    pub(crate) fn reset_background(&self) {
        self.background.send_if_modified(|started| std::mem::replace(started, false));
    }

    pub(crate) fn subscribe(&self) -> LogStream {
        let history = self.history();
        LogStream { backlog: history.clone(), rx: self.tx.subscribe() }
    }
}

/// An extension loaded by a runner.
#[derive(Debug, Clone)]
pub struct ExtensionHandle {
    /// The directory it was loaded from.
    pub dir: PathBuf,
    /// Chromium: the 32-letter extension id. Firefox: the gecko id.
    pub id: String,
    /// The origin of its pages: `chrome-extension://<id>/` or `moz-extension://<uuid>/`.
    pub base_url: String,
    /// Whether the manifest declares a background script, page or service worker.
    pub has_background: bool,
    pub(crate) log: Arc<ExtensionLog>,
}

impl ExtensionHandle {
    /// Console messages and uncaught errors: everything so far, then live ones.
    pub fn subscribe(&self) -> LogStream {
        self.log.subscribe()
    }

    /// A handle with a log of its own and no browser behind it, for fake runners in tests.
    #[cfg(test)]
    pub(crate) fn detached(dir: PathBuf, id: &str, has_background: bool) -> ExtensionHandle {
        ExtensionHandle {
            dir,
            id: id.to_owned(),
            base_url: format!("chrome-extension://{id}/"),
            has_background,
            log: ExtensionLog::new(),
        }
    }

    /// Records an event as the runner would (tests).
    #[cfg(test)]
    pub(crate) fn record(&self, event: ConsoleEvent) {
        self.log.push(event);
    }

    /// Everything recorded so far.
    pub fn history(&self) -> Vec<ConsoleEvent> {
        self.log.history().iter().cloned().collect()
    }

    /// Whether the background has started at least once.
    pub fn background_started(&self) -> bool {
        *self.log.background.borrow()
    }

    /// Waits until the background has started. Chromium: a `service_worker` target at the
    /// extension's origin exists. Firefox: the background document finished loading (its
    /// top-level scripts ran).
    pub async fn wait_background(&self, timeout: Duration) -> Result<(), RunnerError> {
        if !self.has_background {
            return Err(RunnerError::NoBackground { id: self.id.clone() });
        }
        let mut rx = self.log.background.subscribe();
        match tokio::time::timeout(timeout, rx.wait_for(|started| *started)).await {
            Ok(Ok(_)) => Ok(()),
            _ => Err(RunnerError::BackgroundTimeout { id: self.id.clone(), timeout }),
        }
    }
}

/// Console events of one extension: the backlog first, then live events.
#[derive(Debug)]
pub struct LogStream {
    backlog: VecDeque<ConsoleEvent>,
    rx: broadcast::Receiver<ConsoleEvent>,
}

impl LogStream {
    /// The next event; `None` once the runner and every handle of the extension are gone.
    pub async fn next(&mut self) -> Option<ConsoleEvent> {
        if let Some(event) = self.backlog.pop_front() {
            return Some(event);
        }
        loop {
            match self.rx.recv().await {
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(skipped = n, "console stream reader too slow; events dropped");
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The first event that matches, within `timeout`.
    pub async fn wait_for(
        &mut self,
        timeout: Duration,
        mut matches: impl FnMut(&ConsoleEvent) -> bool,
    ) -> Option<ConsoleEvent> {
        tokio::time::timeout(timeout, async {
            while let Some(event) = self.next().await {
                if matches(&event) {
                    return Some(event);
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(text: &str) -> ConsoleEvent {
        ConsoleEvent {
            kind: EventKind::Console,
            level: Level::Log,
            text: text.to_owned(),
            url: None,
            line: None,
            column: None,
            context: None,
            tab_id: None,
            frame_id: None,
            page_world: false,
        }
    }

    #[tokio::test]
    async fn late_subscriber_sees_backlog_then_live_events_once() {
        let log = ExtensionLog::new();
        log.push(event("early"));
        let mut stream = log.subscribe();
        log.push(event("late"));
        assert_eq!(stream.next().await.unwrap().text, "early");
        assert_eq!(stream.next().await.unwrap().text, "late");
        let none = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        assert!(none.is_err());
    }

    #[test]
    fn levels_from_console_methods_and_cdp_types() {
        assert_eq!(Level::from_method("warning"), Level::Warn);
        assert_eq!(Level::from_method("assert"), Level::Error);
        assert_eq!(Level::from_method("trace"), Level::Log);
        assert_eq!(Level::from_method("debug"), Level::Debug);
    }
}
