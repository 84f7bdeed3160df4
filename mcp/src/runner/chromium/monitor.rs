//! The CDP monitor of a Chromium browser: one per browser, it watches every target (pages,
//! workers), keeps their consoles and exceptions, attributes them to extensions, tells when an
//! extension's service worker has started, and resumes targets that wait for the debugger.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use super::{SCHEME, exception_text};
use crate::runner::answer;
use crate::runner::cdp::{CdpClient, CdpEvent};
use crate::runner::log::{ConsoleEvent, EventKind, ExtensionLog, Level};

/// Console events kept per page for [`Runner::page_console`](crate::runner::Runner::page_console).
const PAGE_LOG: usize = 200;

/// The extension id in a `chrome-extension://<id>/…` URL.
fn extension_of(url: &str) -> Option<&str> {
    let rest = url.strip_prefix(SCHEME)?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then_some(id)
}

/// A session the monitor watches (one per target).
#[derive(Debug, Clone)]
struct Attached {
    target_id: String,
    kind: String,
    url: String,
    /// Order of attachment: the newest worker of an extension is the live one.
    seq: u64,
    /// A worker that stopped (`Inspector.targetCrashed`) and has not restarted yet.
    stopped: bool,
}

/// Watches targets, their consoles and service-worker versions; one per browser.
///
/// "Background started" comes from the `ServiceWorker` domain (enabled on one page
/// session; it reports every registration of the profile, extensions included): a version
/// of the extension's worker that is `running` and `activated`. A bare `service_worker`
/// target is not enough: a module worker with top-level `await` gets a target, then fails
/// to register (`workerErrorReported`: "Top-level await is disallowed in service workers.")
/// and the target disappears. Only while no page is open does the monitor fall back to the
/// target signal.
#[derive(Default)]
pub(super) struct Monitor {
    sessions: Arc<Mutex<HashMap<String, Attached>>>,
    /// Keyed by extension id. Created on first sight, so events that arrive before
    /// `loadUnpacked` returns are kept.
    logs: Mutex<HashMap<String, Arc<ExtensionLog>>>,
    /// The page session the `ServiceWorker` domain is enabled on.
    sw_session: Mutex<Option<String>>,
    /// Service-worker registration id → extension id.
    registrations: Mutex<HashMap<String, String>>,
    /// Worker errors whose registration was not known yet, by registration id.
    orphan_errors: Mutex<HashMap<String, Vec<ConsoleEvent>>>,
    /// See [`RunnerOptions::observe_workers`](crate::runner::RunnerOptions::observe_workers);
    /// when off, workers are resumed and left alone.
    observe_workers: bool,
    /// Console output of pages' own scripts, by target id; emptied when the page's
    /// document is replaced (`Runtime.executionContextsCleared`).
    pub(super) page_logs: Mutex<HashMap<String, std::collections::VecDeque<ConsoleEvent>>>,
    seq: std::sync::atomic::AtomicU64,
    /// (session, execution context id) → the CDP frame id of its document (for the frame of
    /// a content script's console call: the page's main frame has the target's id) and
    /// whether it is the document's main world (`auxData.isDefault`).
    contexts: Mutex<HashMap<(String, i64), (String, bool)>>,
    /// Page target id → its `tabs` API id (`tabs.rs`).
    pub(super) tab_ids: Arc<Mutex<HashMap<String, i64>>>,
    /// Where the tab ids are looked up from (the CDP reader thread has no runtime).
    pub(super) runtime: Option<tokio::runtime::Handle>,
}

fn latest_worker_in(sessions: &Mutex<HashMap<String, Attached>>, base_url: &str) -> Option<(String, bool)> {
    lock(sessions)
        .iter()
        .filter(|(_, a)| a.kind == "service_worker" && a.url.starts_with(base_url))
        .max_by_key(|(_, a)| a.seq)
        .map(|(s, a)| (s.clone(), a.stopped))
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Monitor {
    /// A monitor that keeps a session on every worker, or resumes them and leaves them
    /// alone ([`RunnerOptions::observe_workers`](crate::runner::RunnerOptions::observe_workers)).
    pub(super) fn new(observe_workers: bool) -> Monitor {
        Monitor { observe_workers, runtime: tokio::runtime::Handle::try_current().ok(), ..Monitor::default() }
    }

    pub(super) fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }

    pub(super) fn page_session(&self, target_id: &str) -> Option<String> {
        lock(&self.sessions)
            .iter()
            .find(|(_, a)| a.target_id == target_id && a.kind == "page")
            .map(|(s, _)| s.clone())
    }

    /// The newest worker session at `base_url` and whether it is stopped.
    pub(super) fn latest_worker(&self, base_url: &str) -> Option<(String, bool)> {
        latest_worker_in(&self.sessions, base_url)
    }

    /// A lookup of the newest running worker session at `base_url` that outlives this
    /// borrow (for tasks off the CDP reader thread).
    pub(super) fn worker_sessions(&self, base_url: &str) -> impl Fn() -> Option<String> + Send + 'static {
        let (sessions, base) = (self.sessions.clone(), base_url.to_owned());
        move || latest_worker_in(&sessions, &base).filter(|(_, stopped)| !stopped).map(|(s, _)| s)
    }

    pub(super) fn forget_workers(&self, base_url: &str, before: u64) {
        lock(&self.sessions)
            .retain(|_, a| !(a.kind == "service_worker" && a.url.starts_with(base_url) && a.seq < before));
    }

    pub(super) fn forget_session(&self, session: &str) {
        lock(&self.sessions).remove(session);
    }

    pub(super) fn set_stopped(&self, session: &str, stopped: bool) {
        if let Some(a) = lock(&self.sessions).get_mut(session) {
            a.stopped = stopped;
        }
    }

    /// Starts the extension's worker from the page session that has the `ServiceWorker`
    /// domain (any page session can; ~5 ms).
    pub(super) fn wake_worker(&self, cdp: &CdpClient, base_url: &str) {
        if let Some(s) = lock(&self.sw_session).clone() {
            cdp.send_detached(Some(&s), "ServiceWorker.startWorker", json!({"scopeURL": base_url}));
        }
    }

    pub(super) fn log(&self, id: &str) -> Arc<ExtensionLog> {
        lock(&self.logs).entry(id.to_owned()).or_insert_with(ExtensionLog::new).clone()
    }

    fn note_target(&self, info: &Value) {
        if info.get("type").and_then(Value::as_str) == Some("service_worker")
            && lock(&self.sw_session).is_none()
            && let Some(id) = info.get("url").and_then(Value::as_str).and_then(extension_of)
        {
            self.log(id).set_background_started();
        }
    }

    /// Enables the `ServiceWorker` domain on `session` unless another page has it.
    fn watch_workers_from(&self, cdp: &CdpClient, session: &str) {
        let mut sw = lock(&self.sw_session);
        if sw.is_none() {
            *sw = Some(session.to_owned());
            cdp.send_detached(Some(session), "ServiceWorker.enable", json!({}));
        }
    }

    pub(super) fn on_event(&self, cdp: &CdpClient, ev: &CdpEvent) {
        match ev.method.as_str() {
            "Target.attachedToTarget" => {
                let info = &ev.params["targetInfo"];
                let Some(session) = ev.params.get("sessionId").and_then(Value::as_str) else { return };
                // A target CDP describes without its id, type or URL cannot be followed.
                let (Ok(kind), Ok(url), Ok(target_id)) = (
                    answer::owned(info, "type", "Target.attachedToTarget targetInfo"),
                    answer::owned(info, "url", "Target.attachedToTarget targetInfo"),
                    answer::owned(info, "targetId", "Target.attachedToTarget targetInfo"),
                ) else {
                    tracing::debug!("an attached target without its id, type or url is not followed");
                    return;
                };
                self.note_target(info);
                // Only the first session per target is watched: the auto-attached one. A
                // later `Target.attachToTarget` by other code would otherwise double every
                // console event once that code enables `Runtime` on its own session.
                let first = !lock(&self.sessions).values().any(|a| a.target_id == target_id);
                if first {
                    // An unobserved worker is still attached (so a restart can be resumed),
                    // but never instrumented.
                    let instrument = kind != "service_worker" || self.observe_workers;
                    if instrument
                        && matches!(
                            kind.as_str(),
                            "page" | "service_worker" | "worker" | "shared_worker" | "background_page"
                        )
                    {
                        cdp.send_detached(Some(session), "Runtime.enable", json!({}));
                    }
                    if kind == "page" {
                        self.watch_workers_from(cdp, session);
                        super::tabs::look_up(self, cdp);
                    }
                    let seq = self.next_seq();
                    lock(&self.sessions)
                        .insert(session.to_owned(), Attached { target_id, kind, url, seq, stopped: false });
                }
                if ev.params.get("waitingForDebugger").and_then(Value::as_bool).unwrap_or(false) {
                    cdp.send_detached(Some(session), "Runtime.runIfWaitingForDebugger", json!({}));
                }
            }
            "Target.detachedFromTarget" => {
                let Some(session) = ev.params.get("sessionId").and_then(Value::as_str) else { return };
                lock(&self.sessions).remove(session);
                let mut sw = lock(&self.sw_session);
                if sw.as_deref() == Some(session) {
                    *sw = None;
                    drop(sw);
                    let next =
                        lock(&self.sessions).iter().find(|(_, a)| a.kind == "page").map(|(s, _)| s.clone());
                    if let Some(next) = next {
                        self.watch_workers_from(cdp, &next);
                    }
                }
            }
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                let info = &ev.params["targetInfo"];
                self.note_target(info);
                let (Some(target), Some(url)) =
                    (info.get("targetId").and_then(Value::as_str), info.get("url").and_then(Value::as_str))
                else {
                    return;
                };
                for attached in lock(&self.sessions).values_mut().filter(|a| a.target_id == target) {
                    attached.url = url.to_owned();
                }
            }
            // A service worker that stopped and is started again by an event (alarm, message,
            // `ServiceWorker.startWorker`) keeps its target and our session: no new
            // `attachedToTarget` arrives, yet the new worker thread honours
            // `waitForDebuggerOnStart` and waits. Chromium 156 reports the stop as
            // `Inspector.targetCrashed` and the restart as `Inspector.targetReloadedAfterCrash`
            // on that session (measured; `Runtime` stays enabled), so resume it there.
            "Inspector.targetCrashed" => {
                if let Some(session) = ev.session_id.as_deref() {
                    self.set_stopped(session, true);
                }
            }
            "Inspector.targetReloadedAfterCrash" => {
                let Some(session) = ev.session_id.as_deref() else { return };
                self.set_stopped(session, false);
                if lock(&self.sessions).contains_key(session) {
                    tracing::debug!(session, "target restarted; resuming it");
                    cdp.send_detached(Some(session), "Runtime.runIfWaitingForDebugger", json!({}));
                }
            }
            "Runtime.consoleAPICalled" | "Runtime.exceptionThrown" => self.on_console(ev),
            "Runtime.executionContextCreated" => {
                let c = &ev.params["context"];
                if let (Some(session), Some(id), Some(frame)) =
                    (ev.session_id.as_deref(), c["id"].as_i64(), c["auxData"]["frameId"].as_str())
                {
                    let main = c["auxData"]["isDefault"].as_bool().unwrap_or(false);
                    lock(&self.contexts).insert((session.to_owned(), id), (frame.to_owned(), main));
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let (Some(session), Some(id)) =
                    (ev.session_id.as_deref(), ev.params["executionContextId"].as_i64())
                {
                    lock(&self.contexts).remove(&(session.to_owned(), id));
                }
            }
            "Runtime.executionContextsCleared" => {
                if let Some(session) = ev.session_id.as_deref() {
                    lock(&self.contexts).retain(|(s, _), _| s != session);
                }
                let target = ev.session_id.as_deref().and_then(|s| lock(&self.sessions).get(s).cloned());
                if let Some(a) = target.filter(|a| a.kind == "page") {
                    lock(&self.page_logs).remove(&a.target_id);
                }
            }
            m if m.starts_with("ServiceWorker.")
                && ev.session_id.is_some()
                && ev.session_id == *lock(&self.sw_session) =>
            {
                self.on_service_worker(ev);
            }
            _ => {}
        }
    }

    fn on_service_worker(&self, ev: &CdpEvent) {
        let p = &ev.params;
        match ev.method.as_str() {
            "ServiceWorker.workerRegistrationUpdated" => {
                for r in p["registrations"].as_array().into_iter().flatten() {
                    let (Some(reg), Some(id)) =
                        (r["registrationId"].as_str(), r["scopeURL"].as_str().and_then(extension_of))
                    else {
                        continue;
                    };
                    self.register(reg, id);
                }
            }
            "ServiceWorker.workerVersionUpdated" => {
                for v in p["versions"].as_array().into_iter().flatten() {
                    let Some(id) = v["scriptURL"].as_str().and_then(extension_of) else { continue };
                    if let Some(reg) = v["registrationId"].as_str() {
                        self.register(reg, id);
                    }
                    if v["runningStatus"] == "running" && v["status"] == "activated" {
                        self.log(id).set_background_started();
                    }
                }
            }
            "ServiceWorker.workerErrorReported" => {
                // Errors with a source URL also arrive as `Runtime.exceptionThrown`; the ones
                // without (registration failures, top-level await) arrive only here.
                let e = &p["errorMessage"];
                if e["sourceURL"].as_str().is_some_and(|u| !u.is_empty()) {
                    return;
                }
                let Some(reg) = e["registrationId"].as_str().map(str::to_owned) else { return };
                let text = e["errorMessage"].as_str().unwrap_or("service worker error").trim_end().to_owned();
                let event = ConsoleEvent {
                    kind: EventKind::Exception,
                    level: Level::Error,
                    text,
                    url: None,
                    line: None,
                    column: None,
                    context: Some("service worker registration".to_owned()),
                    tab_id: None,
                    frame_id: None,
                    page_world: false,
                };
                let owner = lock(&self.registrations).get(&reg).cloned();
                match owner {
                    Some(id) => self.log(&id).push(event),
                    None => lock(&self.orphan_errors).entry(reg).or_default().push(event),
                }
            }
            _ => {}
        }
    }

    /// Records which extension a registration belongs to and hands it any errors that
    /// arrived before the registration was known.
    fn register(&self, reg: &str, id: &str) {
        lock(&self.registrations).insert(reg.to_owned(), id.to_owned());
        let waiting = lock(&self.orphan_errors).remove(reg);
        for event in waiting.into_iter().flatten() {
            self.log(id).push(event);
        }
    }

    fn on_console(&self, ev: &CdpEvent) {
        let context = ev.session_id.as_deref().and_then(|s| lock(&self.sessions).get(s).cloned());
        let Some(mut event) = console_event(ev, context.as_ref().map(|c| c.url.as_str())) else { return };
        let web_page = context.as_ref().filter(|c| c.kind == "page" && extension_of(&c.url).is_none());
        if let (Some(page), Some(session)) = (context.as_ref().filter(|c| c.kind == "page"), &ev.session_id) {
            (event.tab_id, event.frame_id) = self.tab_and_frame(session, &page.target_id, ev);
            event.page_world = web_page.is_some() && self.in_main_world(session, ev);
        }
        let owner = context
            .as_ref()
            .and_then(|c| extension_of(&c.url))
            .or_else(|| event.url.as_deref().and_then(extension_of))
            .map(str::to_owned);
        // A web page's main world is the page's console whatever file a line names (a page
        // can name any in a `sourceURL` comment); a `world: MAIN` content script's lines are
        // also its extension's.
        if let Some(page) = web_page.filter(|_| owner.is_none() || event.page_world) {
            let mut logs = lock(&self.page_logs);
            let log = logs.entry(page.target_id.clone()).or_default();
            if log.len() == PAGE_LOG {
                log.pop_front();
            }
            log.push_back(event.clone());
        }
        if let Some(id) = owner {
            self.log(&id).push(event);
        }
    }

    /// Whether a page's console event ran in its main world.
    fn in_main_world(&self, session: &str, ev: &CdpEvent) -> bool {
        let context = ev.params["executionContextId"]
            .as_i64()
            .or_else(|| ev.params["exceptionDetails"]["executionContextId"].as_i64());
        context.is_some_and(|c| {
            lock(&self.contexts).get(&(session.to_owned(), c)).is_some_and(|(_, main)| *main)
        })
    }
}

impl Monitor {
    /// The `tabs` API id of a page target (once looked up) and the frame a console event
    /// came from: 0 for the main frame (its CDP frame id is the target's id). A subframe's
    /// extension-API frame id has no CDP counterpart, so it is left out.
    fn tab_and_frame(&self, session: &str, target_id: &str, ev: &CdpEvent) -> (Option<i64>, Option<i64>) {
        let tab = lock(&self.tab_ids).get(target_id).copied();
        let context = ev.params["executionContextId"]
            .as_i64()
            .or_else(|| ev.params["exceptionDetails"]["executionContextId"].as_i64());
        let frame =
            context.and_then(|c| lock(&self.contexts).get(&(session.to_owned(), c)).map(|(f, _)| f.clone()));
        (tab, frame.filter(|f| f == target_id).map(|_| 0))
    }
}

/// Turns `Runtime.consoleAPICalled` / `Runtime.exceptionThrown` into an event (1-based
/// lines; CDP's are 0-based).
fn console_event(ev: &CdpEvent, context: Option<&str>) -> Option<ConsoleEvent> {
    let p = &ev.params;
    let context = context.filter(|c| !c.is_empty()).map(str::to_owned);
    if ev.method == "Runtime.consoleAPICalled" {
        let text = p["args"].as_array().map(|a| a.iter().map(remote_text).collect::<Vec<_>>().join(" "))?;
        let frame = &p["stackTrace"]["callFrames"][0];
        return Some(ConsoleEvent {
            kind: EventKind::Console,
            level: Level::from_method(p["type"].as_str().unwrap_or("log")),
            text,
            url: frame["url"].as_str().filter(|u| !u.is_empty()).map(str::to_owned),
            line: frame["lineNumber"].as_u64().map(|n| n as u32 + 1),
            column: frame["columnNumber"].as_u64().map(|n| n as u32 + 1),
            context,
            tab_id: None,
            frame_id: None,
            page_world: false,
        });
    }
    let d = &p["exceptionDetails"];
    let frame = &d["stackTrace"]["callFrames"][0];
    let text = exception_text(d);
    let url =
        d["url"].as_str().or_else(|| frame["url"].as_str()).filter(|u| !u.is_empty()).map(str::to_owned);
    Some(ConsoleEvent {
        kind: EventKind::Exception,
        level: Level::Error,
        text,
        url,
        line: d["lineNumber"].as_u64().map(|n| n as u32 + 1),
        column: d["columnNumber"].as_u64().map(|n| n as u32 + 1),
        context,
        tab_id: None,
        frame_id: None,
        page_world: false,
    })
}

/// A console argument as text: primitives by value, objects by their description.
fn remote_text(obj: &Value) -> String {
    match obj.get("value") {
        Some(Value::String(s)) => s.clone(),
        Some(v) if !v.is_null() || obj["subtype"] == "null" => v.to_string(),
        _ => obj["unserializableValue"]
            .as_str()
            .or_else(|| obj["description"].as_str())
            .or_else(|| obj["type"].as_str())
            // Not a RemoteObject CDP documents: shown as it came.
            .map_or_else(|| obj.to_string(), str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_lines_become_one_based_and_attributed() {
        let ev = CdpEvent {
            method: "Runtime.exceptionThrown".into(),
            session_id: Some("S".into()),
            params: json!({"exceptionDetails": {
                "text": "Uncaught", "lineNumber": 1, "columnNumber": 6,
                "url": "chrome-extension://abc/bg.js",
                "exception": {"description": "Error: boom\n    at bg.js:2:7"}
            }}),
        };
        let e = console_event(&ev, Some("chrome-extension://abc/bg.js")).unwrap();
        assert_eq!((e.kind, e.level, e.text.as_str()), (EventKind::Exception, Level::Error, "Error: boom"));
        assert_eq!((e.line, e.column), (Some(2), Some(7)));
        assert_eq!(extension_of(e.url.as_deref().unwrap()), Some("abc"));
    }

    #[test]
    fn console_args_join_as_text() {
        let ev = CdpEvent {
            method: "Runtime.consoleAPICalled".into(),
            session_id: None,
            params: json!({"type": "warning", "args": [
                {"type": "string", "value": "a"}, {"type": "number", "value": 1},
                {"type": "object", "subtype": "null", "value": null},
                {"type": "object", "description": "Object"},
                {"type": "number", "unserializableValue": "NaN"}
            ]}),
        };
        let e = console_event(&ev, None).unwrap();
        assert_eq!(e.level, Level::Warn);
        assert_eq!(e.text, "a 1 null Object NaN");
    }
}
