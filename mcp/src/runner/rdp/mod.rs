//! A client of Firefox's remote debugging protocol (RDP) over a unix-domain socket.
//!
//! ```text
//! request(to, type, params) ──writer lock──▶ socket ──▶ Firefox devtools server
//!        ▲ oneshot, FIFO per actor                          │ `<len>:<json>` packets
//!        └──────────── reader thread ◀──────────────────────┘
//!                          └──▶ events (unsolicited packets: console calls, page errors,
//!                               evaluation results, tab changes) to subscribers
//! ```
//!
//! Packets are addressed to actors (`to`) and come back from them (`from`). An actor
//! answers its requests in the order it received them, so replies are matched to the oldest
//! waiting request of the same actor; packets whose `type` names a notification (and
//! packets from an actor nobody is waiting on) are events. A request that times out keeps
//! its place in the queue, so the late reply is consumed by it and does not shift the others.
//!
//! Firefox starts this server with `--start-debugger-server <path>`: the socket is created
//! mode 0666, so it must live in a directory only the user can enter. Anyone reaching it
//! runs code in the browser with full privileges.
//!
//! The reader is a thread, not a task: runners live in runtimes that may stop being polled
//! (the tests' shared browsers), and replies must still arrive.

pub mod frame;
pub mod grip;

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::{broadcast, oneshot};

/// How long a request waits for its reply unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::RDP_REQUEST_MS);

/// Packet types that are notifications, never replies.
const EVENT_TYPES: &[&str] = &[
    "consoleAPICall",
    "pageError",
    "logMessage",
    "evaluationResult",
    "tabNavigated",
    "tabListChanged",
    "addonListChanged",
    "workerListChanged",
    "serviceWorkerRegistrationListChanged",
    "processListChanged",
    "frameUpdate",
    "documentEvent",
    "tabDetached",
    "descriptor-destroyed",
    "target-available-form",
    "target-destroyed-form",
    "resources-available-array",
    "resources-updated-array",
    "resources-destroyed-array",
    "newSource",
    "networkEvent",
    "networkEventUpdate",
    "forwardingCancelled",
];

/// Why an RDP request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RdpError {
    /// The socket closed (the browser exited).
    #[error("the Firefox debugger connection is closed; the browser has exited")]
    Closed,
    /// The socket could not be reached.
    #[error("cannot reach the Firefox debugger socket {path}: {message}")]
    Connect { path: String, message: String },
    /// The actor answered with an error.
    #[error("{to} {kind} failed: {error}: {message}")]
    Actor { to: String, kind: String, error: String, message: String },
    /// No reply in time.
    #[error("{to} {kind} got no reply within {} s", timeout.as_secs())]
    Timeout { to: String, kind: String, timeout: Duration },
    /// The stream is not RDP.
    #[error(transparent)]
    Frame(#[from] frame::FrameError),
}

type Reply = Result<Value, RdpError>;
/// The requests waiting for one actor's replies, oldest first: (packet type, the way back).
type Queue = VecDeque<(String, oneshot::Sender<Reply>)>;
/// Per actor, its waiting requests.
type Waiting = HashMap<String, Queue>;
type Listener = Arc<dyn Fn(&Value) + Send + Sync>;

struct Inner {
    writer: Mutex<UnixStream>,
    pending: Mutex<Waiting>,
    events: broadcast::Sender<Value>,
    listeners: RwLock<Vec<Listener>>,
    closed: AtomicBool,
}

/// A cloneable handle on one debugger connection.
#[derive(Clone)]
pub struct RdpClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RdpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RdpClient").field("closed", &self.is_closed()).finish()
    }
}

impl RdpClient {
    /// Connects to `path`, retrying while the browser has not created the socket yet (or
    /// refuses connections) until `deadline`; returns the client and the root's greeting.
    pub async fn connect(path: &Path, deadline: Instant) -> Result<(RdpClient, Value), RdpError> {
        let stream = loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(RdpError::Connect {
                        path: path.display().to_string(),
                        message: e.to_string(),
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let reader = stream.try_clone().map_err(|e| connect_error(path, &e))?;
        let (events, _) = broadcast::channel(4096);
        let client = RdpClient {
            inner: Arc::new(Inner {
                writer: Mutex::new(stream),
                pending: Mutex::new(HashMap::new()),
                events,
                listeners: RwLock::new(Vec::new()),
                closed: AtomicBool::new(false),
            }),
        };
        // The greeting is the root's first packet: wait for it like a reply.
        let (tx, rx) = oneshot::channel();
        client.pending().entry("root".into()).or_default().push_back(("greeting".into(), tx));
        let me = client.clone();
        std::thread::Builder::new()
            .name("rdp-reader".into())
            .spawn(move || me.read_loop(reader))
            .map_err(|e| connect_error(path, &e))?;
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
        let greeting = match tokio::time::timeout(left, rx).await {
            Ok(Ok(reply)) => reply?,
            Ok(Err(_)) => return Err(RdpError::Closed),
            Err(_) => {
                return Err(RdpError::Timeout { to: "root".into(), kind: "greeting".into(), timeout: left });
            }
        };
        Ok((client, greeting))
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.inner.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read_loop(self, mut stream: UnixStream) {
        let mut decoder = frame::Decoder::default();
        let mut buf = vec![0u8; 64 * 1024];
        'read: loop {
            let n = match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            decoder.push(&buf[..n]);
            while let Some(packet) = decoder.next_packet() {
                match packet {
                    Ok(p) => self.dispatch(p),
                    Err(e) => {
                        tracing::warn!(error = %e, "the Firefox debugger stream is not RDP");
                        break 'read;
                    }
                }
            }
        }
        self.inner.closed.store(true, Ordering::SeqCst);
        let pending: Vec<_> = self.pending().drain().collect();
        for (_, queue) in pending {
            for (_, tx) in queue {
                let _ = tx.send(Err(RdpError::Closed));
            }
        }
        tracing::debug!("Firefox debugger connection closed");
    }

    fn dispatch(&self, mut packet: Value) {
        // The actors under a prefix are gone (their process's connection ended, as when a
        // navigation moves a tab to another process): their requests would never be answered.
        if packet["type"] == "forwardingCancelled"
            && let Some(prefix) = packet["prefix"].as_str().filter(|p| !p.is_empty())
        {
            let gone: Vec<(String, Queue)> = {
                let mut pending = self.pending();
                let keys: Vec<String> = pending.keys().filter(|k| k.starts_with(prefix)).cloned().collect();
                keys.into_iter().filter_map(|k| pending.remove(&k).map(|q| (k, q))).collect()
            };
            for (to, queue) in gone {
                for (kind, tx) in queue {
                    let _ = tx.send(Err(RdpError::Actor {
                        to: to.clone(),
                        kind,
                        error: "forwardingCancelled".into(),
                        message: "the actor went away".into(),
                    }));
                }
            }
        }
        let from = packet.get("from").and_then(Value::as_str).map(str::to_owned);
        let is_event = packet.get("type").and_then(Value::as_str).is_some_and(|t| EVENT_TYPES.contains(&t));
        // A reply names the actor it comes from; a packet without `from` answers no request.
        if !is_event && let Some(from) = from {
            let waiting = self.pending().get_mut(&from).and_then(VecDeque::pop_front);
            if let Some((kind, tx)) = waiting {
                let reply = match packet.get_mut("error").map(Value::take) {
                    Some(error) => Err(RdpError::Actor {
                        to: from,
                        kind,
                        message: packet["message"]
                            .as_str()
                            .map_or_else(|| format!("(no message; error {error})"), str::to_owned),
                        error: error.as_str().unwrap_or("error").to_owned(),
                    }),
                    None => Ok(packet),
                };
                let _ = tx.send(reply);
                return;
            }
        }
        let listeners = self.inner.listeners.read().unwrap_or_else(PoisonError::into_inner).clone();
        for listener in listeners {
            listener(&packet);
        }
        let _ = self.inner.events.send(packet);
    }

    /// Sends `{to, type, ...params}` and waits up to `timeout` for the actor's reply.
    pub async fn request(&self, to: &str, kind: &str, params: Value, timeout: Duration) -> Reply {
        let mut packet = json!({ "to": to, "type": kind });
        if let (Value::Object(p), Value::Object(extra)) = (&mut packet, params) {
            p.extend(extra);
        }
        let (tx, rx) = oneshot::channel();
        {
            // Queue and write under one lock, so the queue order is the wire order.
            let mut writer = self.inner.writer.lock().unwrap_or_else(PoisonError::into_inner);
            if self.is_closed() {
                return Err(RdpError::Closed);
            }
            self.pending().entry(to.to_owned()).or_default().push_back((kind.to_owned(), tx));
            if writer.write_all(&frame::encode(&packet)).is_err() {
                return Err(RdpError::Closed);
            }
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(RdpError::Closed),
            Err(_) => Err(RdpError::Timeout { to: to.to_owned(), kind: kind.to_owned(), timeout }),
        }
    }

    /// Sends a one-way packet (no reply comes: `unwatchTargets`, `unwatchResources`), so
    /// that no request waits for it and the actor's replies stay matched.
    pub fn notify(&self, to: &str, kind: &str, params: Value) -> Result<(), RdpError> {
        let mut packet = json!({ "to": to, "type": kind });
        if let (Value::Object(p), Value::Object(extra)) = (&mut packet, params) {
            p.extend(extra);
        }
        let mut writer = self.inner.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if self.is_closed() {
            return Err(RdpError::Closed);
        }
        writer.write_all(&frame::encode(&packet)).map_err(|_| RdpError::Closed)
    }

    /// Notifications from now on. A slow receiver loses the oldest (`Lagged`).
    pub fn subscribe(&self) -> broadcast::Receiver<Value> {
        self.inner.events.subscribe()
    }

    /// Calls `f` for every notification, on the reader thread (so it runs whatever runtime
    /// the caller is in). `f` must be quick and must not wait for replies.
    pub fn add_listener(&self, f: impl Fn(&Value) + Send + Sync + 'static) {
        self.inner.listeners.write().unwrap_or_else(PoisonError::into_inner).push(Arc::new(f));
    }

    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::SeqCst)
    }
}

fn connect_error(path: &Path, e: &std::io::Error) -> RdpError {
    RdpError::Connect { path: path.display().to_string(), message: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake devtools server on a socket pair: replies come back to the right callers in
    /// per-actor order, notifications go to subscribers, errors become `Actor` errors.
    #[tokio::test]
    async fn replies_match_per_actor_and_events_are_broadcast() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rdp.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.write_all(&frame::encode(&json!({"from": "root", "applicationType": "browser"}))).unwrap();
            let mut d = frame::Decoder::default();
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            while got.len() < 3 {
                let n = s.read(&mut buf).unwrap();
                d.push(&buf[..n]);
                while let Some(p) = d.next_packet() {
                    got.push(p.unwrap());
                }
            }
            // An event first, then the replies: b's, then a's two in order.
            s.write_all(&frame::encode(&json!({"from": "a", "type": "pageError", "x": 1}))).unwrap();
            s.write_all(&frame::encode(&json!({"from": "b", "error": "noSuchActor", "message": "gone"})))
                .unwrap();
            s.write_all(&frame::encode(&json!({"from": "a", "n": 1}))).unwrap();
            s.write_all(&frame::encode(&json!({"from": "a", "n": 2}))).unwrap();
            got
        });
        let (client, greeting) =
            RdpClient::connect(&path, Instant::now() + Duration::from_secs(5)).await.unwrap();
        assert_eq!(greeting["applicationType"], "browser");
        let mut events = client.subscribe();
        let t = Duration::from_secs(5);
        let (a1, b, a2) = tokio::join!(
            client.request("a", "one", json!({"p": 1}), t),
            client.request("b", "two", json!({}), t),
            client.request("a", "three", json!({}), t),
        );
        assert_eq!(a1.unwrap()["n"], 1);
        assert_eq!(a2.unwrap()["n"], 2);
        assert!(matches!(b, Err(RdpError::Actor { ref error, .. }) if error == "noSuchActor"), "{b:?}");
        assert_eq!(events.recv().await.unwrap()["type"], "pageError");
        let sent = server.join().unwrap();
        assert_eq!(sent[0]["to"], "a");
        assert_eq!(sent[0]["p"], 1);
        // The server is gone: requests fail instead of hanging.
        let closed = client.request("a", "late", json!({}), t).await;
        assert!(matches!(closed, Err(RdpError::Closed)), "{closed:?}");
    }
}
