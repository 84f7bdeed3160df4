//! A Chrome DevTools Protocol client over `--remote-debugging-pipe`.
//!
//! The browser reads NUL-terminated JSON commands on its fd 3 and writes NUL-terminated
//! replies and events on its fd 4. One reader thread routes replies to their waiting callers
//! (by `id`) and fans events out to listeners and subscribers; one writer thread owns the
//! write end, so a sender never blocks on a full pipe. Sessions are flat: a command or event
//! for an attached target carries its `sessionId`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{broadcast, oneshot};

/// How long a command may wait for its reply unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::CDP_COMMAND_MS);

/// Why a CDP command failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// The browser closed the pipe (it exited or crashed).
    #[error("the browser's DevTools pipe is closed; the browser has exited")]
    Closed,
    /// The browser answered with an error.
    #[error("{method} failed: {message} (CDP error {code})")]
    Protocol { method: String, code: i64, message: String },
    /// No reply in time (e.g. a command sent to a worker that has stopped).
    #[error("{method} got no reply within {} s; the target may be gone (look it up again with Target.getTargets)", timeout.as_secs())]
    Timeout { method: String, timeout: Duration },
}

/// An event from the browser, with the session it belongs to (`None`: the browser itself).
#[derive(Debug, Clone)]
pub struct CdpEvent {
    pub method: String,
    pub params: Value,
    pub session_id: Option<String>,
}

type Reply = Result<Value, CdpError>;
type Listener = Arc<dyn Fn(&CdpClient, &CdpEvent) + Send + Sync>;

struct Inner {
    to_browser: std::sync::mpsc::Sender<Vec<u8>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, (String, oneshot::Sender<Reply>)>>,
    events: broadcast::Sender<CdpEvent>,
    listeners: RwLock<Vec<Listener>>,
    closed: AtomicBool,
}

/// A cloneable handle on one browser's CDP pipe.
#[derive(Clone)]
pub struct CdpClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CdpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpClient").field("closed", &self.is_closed()).finish()
    }
}

impl CdpClient {
    /// Starts the reader and writer threads on the parent's ends of the two pipes.
    pub(crate) fn start(from_browser: File, to_browser: File) -> std::io::Result<CdpClient> {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let (events, _) = broadcast::channel(1024);
        let client = CdpClient {
            inner: Arc::new(Inner {
                to_browser: tx,
                next_id: AtomicU64::new(1),
                pending: Mutex::new(HashMap::new()),
                events,
                listeners: RwLock::new(Vec::new()),
                closed: AtomicBool::new(false),
            }),
        };
        std::thread::Builder::new().name("cdp-writer".into()).spawn(move || {
            let mut out = to_browser;
            while let Ok(frame) = rx.recv() {
                if out.write_all(&frame).is_err() {
                    break;
                }
            }
        })?;
        let reader = client.clone();
        std::thread::Builder::new()
            .name("cdp-reader".into())
            .spawn(move || reader.read_loop(from_browser))?;
        Ok(client)
    }

    fn read_loop(self, from_browser: File) {
        let mut reader = BufReader::new(from_browser);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(0, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if buf.last() == Some(&0) {
                buf.pop();
            }
            match serde_json::from_slice::<Value>(&buf) {
                Ok(msg) => self.dispatch(msg),
                Err(e) => tracing::warn!(error = %e, "unparsable CDP message"),
            }
        }
        self.inner.closed.store(true, Ordering::SeqCst);
        let pending: Vec<_> = self.pending().drain().collect();
        for (_, (_, tx)) in pending {
            let _ = tx.send(Err(CdpError::Closed));
        }
        tracing::debug!("CDP pipe closed");
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (String, oneshot::Sender<Reply>)>> {
        self.inner.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn dispatch(&self, mut msg: Value) {
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            let Some((method, tx)) = self.pending().remove(&id) else { return };
            let reply = match msg.get_mut("error") {
                Some(err) => Err(CdpError::Protocol {
                    method,
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| err.to_string(), str::to_owned),
                }),
                None => Ok(msg.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
            };
            let _ = tx.send(reply);
            return;
        }
        let Some(method) = msg.get("method").and_then(Value::as_str) else { return };
        let event = CdpEvent {
            method: method.to_owned(),
            session_id: msg.get("sessionId").and_then(Value::as_str).map(str::to_owned),
            params: msg.get_mut("params").map(Value::take).unwrap_or(Value::Null),
        };
        let listeners = self.inner.listeners.read().unwrap_or_else(PoisonError::into_inner).clone();
        for listener in listeners {
            listener(self, &event);
        }
        let _ = self.inner.events.send(event);
    }

    fn frame(&self, id: u64, session: Option<&str>, method: &str, params: Value) -> Vec<u8> {
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_owned());
        }
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        bytes
    }

    /// Sends a command to the browser target and waits for its result.
    pub async fn send(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.send_to(None, method, params, DEFAULT_TIMEOUT).await
    }

    /// Sends a command to a session (`None`: the browser) and waits up to `timeout`.
    pub async fn send_to(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending().insert(id, (method.to_owned(), tx));
        if self.is_closed() || self.inner.to_browser.send(self.frame(id, session, method, params)).is_err() {
            self.pending().remove(&id);
            return Err(CdpError::Closed);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(CdpError::Closed),
            Err(_) => {
                self.pending().remove(&id);
                Err(CdpError::Timeout { method: method.to_owned(), timeout })
            }
        }
    }

    /// Sends a command without waiting for (or keeping) its reply. Safe to call from a
    /// listener, which runs on the reader thread and must not wait.
    pub fn send_detached(&self, session: Option<&str>, method: &str, params: Value) {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.inner.to_browser.send(self.frame(id, session, method, params));
    }

    /// Live events from now on. A slow receiver loses the oldest events (`Lagged`).
    pub fn subscribe(&self) -> broadcast::Receiver<CdpEvent> {
        self.inner.events.subscribe()
    }

    /// Calls `f` for every event, on the reader thread, before subscribers see it. `f` must
    /// be quick and must not wait for replies (use [`CdpClient::send_detached`]).
    pub fn add_listener(&self, f: impl Fn(&CdpClient, &CdpEvent) + Send + Sync + 'static) {
        self.inner.listeners.write().unwrap_or_else(PoisonError::into_inner).push(Arc::new(f));
    }

    /// Whether the pipe has closed.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::SeqCst)
    }
}
