//! The client side of the local link, used by the MCP server (and tests, benchmarks).
//!
//! [`Client`] is one connection to one host: `client.hello` on connect, calls multiplexed by
//! id with a timeout each, events fanned out to subscribers. [`Hub`] finds hosts through
//! their descriptors, picks one ([`crate::select`]), keeps one connection per host and
//! reconnects transparently: when a browser restarts, the old connection is closed, and the
//! next call rediscovers and reaches the new host without any caller code.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

use crate::descriptor::{self, Descriptor};
use crate::io::{FrameReader, push_frame};
use crate::protocol::methods::CLIENT_HELLO;
use crate::protocol::{
    ErrorBody, ErrorCode, Event, Incoming, MAX_SOCKET_FRAME, PROTOCOL_VERSION, Request, parse_message,
};
use crate::transport::{Platform, Transport};

/// Deadline for connecting and saying hello.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(crate::protocol::timeouts::HOST_CONNECT_MS);

/// Extra time the client waits beyond the host's own deadline, so the host's `TIMEOUT`
/// (which names the method) normally arrives first: the policy's one margin.
const GRACE: Duration = Duration::from_millis(crate::protocol::timeouts::CALL_MARGIN_MS);

type Waiter = oneshot::Sender<Result<Value, ErrorBody>>;

struct Shared {
    pending: Mutex<HashMap<u64, Waiter>>,
    subscribers: Mutex<Vec<(Vec<String>, mpsc::UnboundedSender<Event>)>>,
    closed: AtomicBool,
}

impl Shared {
    fn close(&self, why: &str) {
        self.closed.store(true, Ordering::SeqCst);
        let waiters: Vec<Waiter> = match self.pending.lock() {
            Ok(mut p) => p.drain().map(|(_, w)| w).collect(),
            Err(_) => Vec::new(),
        };
        for w in waiters {
            let _ = w.send(Err(not_connected(why)));
        }
        if let Ok(mut s) = self.subscribers.lock() {
            s.clear();
        }
    }
}

fn not_connected(why: &str) -> ErrorBody {
    ErrorBody::new(ErrorCode::NotConnected, format!("the browser host went away ({why})"))
        .with_hint("the browser or its helper extension closed; the next call reconnects when it is back")
}

/// One connection to one host.
pub struct Client {
    reader: tokio::task::AbortHandle,
    descriptor: Descriptor,
    hello: Value,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    out: mpsc::Sender<Vec<u8>>,
}

impl Client {
    /// Connects to the host of `d` and says hello with this build's protocol version.
    pub async fn connect(d: &Descriptor) -> Result<Client, ErrorBody> {
        Client::connect_speaking(d, PROTOCOL_VERSION).await
    }

    /// Like [`Client::connect`], announcing `protocol` (tests of version skew).
    pub async fn connect_speaking(d: &Descriptor, protocol: u32) -> Result<Client, ErrorBody> {
        let stream = tokio::time::timeout(CONNECT_TIMEOUT, Platform::connect(&d.socket))
            .await
            .map_err(|_| {
                ErrorBody::new(ErrorCode::Timeout, format!("connecting to the {} host timed out", d.browser))
            })?
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::PermissionDenied {
                    return ErrorBody::new(
                        ErrorCode::PermissionDenied,
                        format!("refusing the {} host at {}: {e}", d.browser, d.socket.display()),
                    )
                    .with_hint("another local user may be impersonating the host; run `webext-mcp doctor`")
                    .with_data(json!({ "socket": d.socket }));
                }
                ErrorBody::new(
                    ErrorCode::NotConnected,
                    format!("cannot connect to the {} host: {e}", d.browser),
                )
                .with_hint("the browser may have just closed; retry")
                .with_data(json!({ "socket": d.socket }))
            })?;
        let (read, mut write) = tokio::io::split(stream);
        let shared = Arc::new(Shared {
            pending: Mutex::new(HashMap::new()),
            subscribers: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        });
        let (out, mut rx) = mpsc::channel::<Vec<u8>>(1024);
        tokio::spawn(async move {
            let mut buf = Vec::new();
            while let Some(body) = rx.recv().await {
                buf.clear();
                let mut next = Some(body);
                while let Some(body) = next.take() {
                    let _ = push_frame(&mut buf, &body, MAX_SOCKET_FRAME);
                    if buf.len() < 1 << 20 {
                        next = rx.try_recv().ok();
                    }
                }
                if write.write_all(&buf).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        let reader = tokio::spawn(read_loop(read, Arc::clone(&shared))).abort_handle();
        let mut client = Client {
            reader,
            descriptor: d.clone(),
            hello: Value::Null,
            shared,
            next_id: AtomicU64::new(1),
            out,
        };
        let hello = client
            .request(
                CLIENT_HELLO,
                json!({ "protocol": protocol, "name": client_name(), "token": d.token.as_str() }),
                CONNECT_TIMEOUT,
            )
            .await?;
        client.hello = hello;
        Ok(client)
    }

    /// The host's descriptor as discovered.
    pub fn descriptor(&self) -> &Descriptor {
        &self.descriptor
    }

    /// The host's answer to `client.hello`: `{protocol, host, hello}`.
    pub fn hello(&self) -> &Value {
        &self.hello
    }

    /// Whether the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst) || self.out.is_closed()
    }

    /// Calls `method` and waits at most `timeout` (the host enforces the same deadline).
    pub async fn call(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, ErrorBody> {
        self.request(method, params, timeout).await
    }

    async fn request(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, ErrorBody> {
        if self.is_closed() {
            return Err(not_connected("connection closed"));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut request = Request::new(json!(id.to_string()), method, params);
        request.timeout_ms = Some(timeout.as_millis() as u64);
        let body = serde_json::to_vec(&request)
            .map_err(|e| ErrorBody::internal(format!("encoding a request: {e}")))?;
        if body.len() > MAX_SOCKET_FRAME {
            return Err(ErrorBody::new(
                ErrorCode::PayloadTooLarge,
                format!("request of {} bytes exceeds the {MAX_SOCKET_FRAME}-byte limit", body.len()),
            ));
        }
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.shared.pending.lock() {
            p.insert(id, tx);
        }
        if self.out.send(body).await.is_err() {
            self.forget(id);
            return Err(not_connected("connection closed"));
        }
        match tokio::time::timeout(timeout + GRACE, rx).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(not_connected("connection closed")),
            Err(_) => {
                self.forget(id);
                Err(ErrorBody::new(
                    ErrorCode::Timeout,
                    format!("`{method}` got no answer within {} ms", timeout.as_millis()),
                )
                .with_hint("the browser host is not answering; retry, or restart the browser"))
            }
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut p) = self.shared.pending.lock() {
            p.remove(&id);
        }
    }

    /// Receives the named extension events (`*` = all) until the connection ends.
    pub async fn subscribe(&self, events: &[&str]) -> Result<mpsc::UnboundedReceiver<Event>, ErrorBody> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut s) = self.shared.subscribers.lock() {
            s.push((events.iter().map(|e| e.to_string()).collect(), tx));
        }
        self.request(crate::protocol::methods::SUBSCRIBE, json!({ "events": events }), CONNECT_TIMEOUT)
            .await?;
        Ok(rx)
    }
}

impl Drop for Client {
    /// Dropping the last handle closes the connection: the writer task ends with its
    /// channel, and the reader is stopped here (it would otherwise hold the socket open).
    fn drop(&mut self) {
        self.reader.abort();
    }
}

fn client_name() -> String {
    format!("webext-mcp {} pid {}", env!("CARGO_PKG_VERSION"), std::process::id())
}

async fn read_loop(read: impl tokio::io::AsyncRead + Unpin, shared: Arc<Shared>) {
    let mut reader = FrameReader::new(read, MAX_SOCKET_FRAME);
    let why = loop {
        let body = match reader.next().await {
            Ok(Some(Ok(body))) => body,
            Ok(Some(Err(e))) => {
                tracing::warn!("host sent a bad frame: {e}");
                continue;
            }
            Ok(None) => break "the host closed the connection".to_owned(),
            Err(e) => break format!("reading from the host failed: {e}"),
        };
        match parse_message(&body) {
            Ok(Incoming::Reply(reply)) => {
                let id = match &reply.id {
                    Value::String(s) => s.parse::<u64>().ok(),
                    Value::Number(n) => n.as_u64(),
                    _ => None,
                };
                let waiter = id.and_then(|id| shared.pending.lock().ok().and_then(|mut p| p.remove(&id)));
                match waiter {
                    Some(w) => {
                        let _ = w.send(reply.into_result());
                    }
                    None if reply.id.is_null() => {
                        if let Some(e) = reply.error {
                            // The code only: an error message may quote page content.
                            tracing::warn!(code = e.code.as_str(), "host reported an error");
                        }
                    }
                    None => tracing::debug!(id = %reply.id, "reply for a call no longer waited for"),
                }
            }
            Ok(Incoming::Event(event)) => {
                if let Ok(mut subs) = shared.subscribers.lock() {
                    subs.retain(|(names, tx)| {
                        if names.iter().any(|n| n == "*" || *n == event.event) {
                            tx.send(event.clone()).is_ok()
                        } else {
                            !tx.is_closed()
                        }
                    });
                }
            }
            Ok(_) => tracing::debug!("ignoring an unexpected frame from the host"),
            Err(e) => tracing::warn!("host sent a malformed frame: {}", e.message),
        }
    };
    shared.close(&why);
}

/// Finds hosts, picks one per call, and keeps one live connection per host.
pub struct Hub {
    /// The candidate runtime dirs searched, in order ([`crate::runtime::search_dirs`]).
    dirs: Vec<PathBuf>,
    clients: tokio::sync::Mutex<HashMap<PathBuf, Arc<Client>>>,
}

impl Hub {
    /// A hub searching one runtime dir.
    pub fn new(runtime_dir: impl Into<PathBuf>) -> Hub {
        Hub::searching(vec![runtime_dir.into()])
    }

    /// A hub searching every dir of `dirs` that passes the checks.
    pub fn searching(dirs: Vec<PathBuf>) -> Hub {
        Hub { dirs, clients: tokio::sync::Mutex::new(HashMap::new()) }
    }

    /// The dirs searched.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Live hosts, oldest first per dir; dead entries are cleaned on the way.
    pub fn discover(&self) -> Vec<Descriptor> {
        descriptor::search(&self.dirs).0
    }

    /// Live hosts and what was found in each dir searched (refused dirs included).
    pub fn search(&self) -> (Vec<Descriptor>, Vec<descriptor::DirReport>) {
        descriptor::search(&self.dirs)
    }

    /// The host `choice` names (or the default host).
    pub fn resolve(&self, choice: Option<&str>) -> Result<Descriptor, ErrorBody> {
        crate::select::select(&self.discover(), choice)
    }

    /// A live connection to the host of `d`, reusing the open one.
    pub async fn client(&self, d: &Descriptor) -> Result<Arc<Client>, ErrorBody> {
        let mut clients = self.clients.lock().await;
        clients.retain(|_, c| !c.is_closed());
        if let Some(c) = clients.get(&d.socket).filter(|c| c.descriptor().pid == d.pid) {
            return Ok(Arc::clone(c));
        }
        match Client::connect(d).await {
            Ok(c) => {
                let c = Arc::new(c);
                clients.insert(d.socket.clone(), Arc::clone(&c));
                Ok(c)
            }
            Err(e) => {
                if e.code == ErrorCode::NotConnected {
                    for dir in &self.dirs {
                        if let Ok(dirs) = descriptor::Dirs::open(dir) {
                            dirs.forget(d);
                        }
                    }
                }
                Err(e)
            }
        }
    }

    /// Calls `method` on the host `choice` names. Discovery runs on every call, so a
    /// restarted browser's new host is found as soon as its descriptor appears.
    pub async fn call(
        &self,
        choice: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<(Descriptor, Value), ErrorBody> {
        let d = self.resolve(choice)?;
        let client = self.client(&d).await?;
        let value = client.call(method, params, timeout).await?;
        Ok((d, value))
    }
}
