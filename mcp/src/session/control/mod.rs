//! The control socket of a session: frames of the host's codec (`webext_mcp_host::protocol::
//! codec`: 4-byte native-endian length + UTF-8 JSON, at most `MAX_SOCKET_FRAME` bytes), the
//! first `{"token": …}`, then one request per frame, each answered by one frame.
//!
//! ```text
//! {"op":"status"}                      → {"ok": <ready.json>}                 Call<Ready>
//! {"op":"stop"}                        → {"ok": {"stopping": true}}, then     Call<Stopping>
//!                                         the session ends
//! {"op":"evaluate","expression":"…",   → {"ok": <value>} evaluated in the     Call<Value>
//!  "url":"<substring>"}                   first tab whose URL contains `url`
//!                                         (default: the first http(s) tab)
//! {"op":"inspect", …inspect::Request}  → {"ok": {sessionId, tab, events}}     Call<Inspection>
//! {"op":"reload","tabs":"reinject"}    → {"ok": {backgroundMs, tabs, …}}      Call<Reloaded>
//! {"op":"eval","expression":"…",       → {"ok": <value>} in the background,   Call<Value>
//!  "allowed":bool}                        refused unless allowed or the
//!                                         session has allowEval
//! {"op":"storage", …act::StorageRequest}→ {"ok": [[key, value], …] | count}   Call<Stored>
//! {"op":"open","context":"popup"}      → {"ok": {url, targetId, opened, …}}   Call<Opened>
//! anything else / failures             → {"error": {code, message, hint}}
//! ```
//!
//! Each request has its answer type ([`Answer`] on the session side, [`Call`] on the
//! caller's: `request(&endpoint, &Call::status(), t)` gives a `Ready`). A frame over the cap
//! is answered `PAYLOAD_TOO_LARGE` (the connection goes on); an answer over it becomes that
//! error.
//!
//! Sockets follow the host rules (`webext_mcp_host::transport`): runtime dir 0700, socket
//! 0600 bound under umask 0177, same-uid peers only, a stale socket replaced, a live one
//! never. Like a host, a session proves itself and checks its callers: it writes
//! `d-<tag>.json` (0600, in the checked runtime dir) with its socket and a random token; a
//! caller reads it only from a dir that passes the checks, connects only to a socket and a
//! listener of its own uid, and sends `{"token":"…"}` as its first frame. A first frame that
//! is not the right token (none, another frame, one over the cap, a line of the old
//! line-per-request protocol) is answered `PERMISSION_DENIED` and the connection closed.

use std::marker::PhantomData;
use std::path::Path;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::io::{FrameReader, push_frame};
use webext_mcp_host::protocol::codec::encode_frame;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode, MAX_SOCKET_FRAME};
use webext_mcp_host::transport::{PeerVerdict, Platform, Transport};

use super::contract::Ready;

mod ticket;

pub use ticket::{Endpoint, Ticket, locate, publish, running_sessions, session_alive, ticket_name};

/// A request to a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    Status,
    Stop,
    Evaluate {
        expression: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    Inspect(super::inspect::Request),
    /// Reload the extension now (`extension_reload`).
    Reload {
        #[serde(default)]
        tabs: super::act::ReloadTabs,
    },
    /// Evaluate in the background (`extension_eval`). `allowed`: the caller's configuration
    /// allows it (`tools.extension_eval`); else only a session started with `allowEval` does.
    Eval {
        expression: String,
        #[serde(default)]
        allowed: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// Read or change the extension's storage (`extension_storage`).
    Storage(super::act::StorageRequest),
    /// Open one of the extension's pages as a tab (`extension_open`), or with `popup` the
    /// real action popup.
    Open {
        context: super::inspect::Context,
        #[serde(default)]
        popup: bool,
    },
}

/// What a session answers to a request: the `ok` of an answer frame. Each request has its
/// own type (the client side names it through [`Call`]); the wire shape of each is the JSON
/// the session sent before answers were typed.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// `status`: the session's `ready.json`.
    Ready(Box<Ready>),
    /// `stop`.
    Stopping(Stopping),
    /// `evaluate` and `eval`: the evaluated JSON value, as the browser gave it.
    Value(Value),
    /// `inspect`.
    Inspection(Inspection),
    /// `reload`.
    Reloaded(Reloaded),
    /// `storage`.
    Stored(Stored),
    /// `open`.
    Opened(Opened),
}

/// The answer to `stop`: `{"stopping": true}`, then the session ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopping {
    pub stopping: bool,
}

/// The answer to `inspect`: `{sessionId, tab, events}` (`tab` null for the background).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    pub session_id: String,
    pub tab: Option<InspectedTab>,
    /// The inspection's events (`page_meta`, `page_html`, …), forwarded as they are.
    pub events: Vec<Value>,
}

/// The tab an inspection read.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectedTab {
    pub target_id: String,
    pub url: String,
    pub title: String,
    pub opened: bool,
}

/// The answer to `reload` (`extension_reload` returns it as its structured output).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reloaded {
    pub extension_id: Option<String>,
    pub status: super::contract::Status,
    /// Dev sessions only: the rebuild.
    pub build_ms: Option<u64>,
    /// From the reload to the new background's answer; null without a background.
    pub background_ms: Option<u64>,
    pub duration_ms: u64,
    /// One row per tab (`{url, action}` or what the re-injection reported), null when they
    /// could not be listed.
    pub tabs: Value,
    pub errors: Vec<String>,
    pub error_details: Vec<super::contract::ErrorEntry>,
}

/// The answer to `storage`: the sorted `[key, value]` pairs of a `get`, or how many keys a
/// `set`, `remove` or `clear` touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Stored {
    Count(u64),
    Pairs(Vec<(String, Value)>),
}

/// The answer to `open`: the tab showing the page, or with `popup` the shown popup.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    pub url: String,
    /// The tab (absent for the popup, which is no tab).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    pub opened: bool,
    /// `true` for the real action popup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub popup: Option<bool>,
    pub context: super::inspect::Context,
}

/// A request together with the type of its answer: the only way a caller sends one, so a
/// caller reads each answer as the type the session builds it with.
#[derive(Debug, Clone)]
pub struct Call<A> {
    request: Request,
    answer: PhantomData<fn() -> A>,
}

impl<A> Call<A> {
    const fn new(request: Request) -> Self {
        Call { request, answer: PhantomData }
    }

    pub fn request(&self) -> &Request {
        &self.request
    }
}

impl Call<Ready> {
    pub const fn status() -> Self {
        Call::new(Request::Status)
    }
}

impl Call<Stopping> {
    pub const fn stop() -> Self {
        Call::new(Request::Stop)
    }
}

impl Call<Value> {
    pub fn evaluate(expression: String, url: Option<String>) -> Self {
        Call::new(Request::Evaluate { expression, url })
    }

    pub fn eval(expression: String, allowed: bool, timeout_ms: Option<u64>) -> Self {
        Call::new(Request::Eval { expression, allowed, timeout_ms })
    }
}

impl Call<Inspection> {
    pub fn inspect(req: super::inspect::Request) -> Self {
        Call::new(Request::Inspect(req))
    }
}

impl Call<Reloaded> {
    pub fn reload(tabs: super::act::ReloadTabs) -> Self {
        Call::new(Request::Reload { tabs })
    }
}

impl Call<Stored> {
    pub fn storage(req: super::act::StorageRequest) -> Self {
        Call::new(Request::Storage(req))
    }
}

impl Call<Opened> {
    pub fn open(context: super::inspect::Context, popup: bool) -> Self {
        Call::new(Request::Open { context, popup })
    }
}

/// The frame a session answers with: `{"ok": …}` or `{"error": …}`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Reply<A> {
    Ok(A),
    Error(ErrorBody),
}

/// The token presentation, the first frame of a connection.
#[derive(Debug, Serialize, Deserialize)]
struct Presented {
    token: String,
}

/// A request with the way back to its caller, and word once the answer is written (a
/// session that stops waits for it, or its exit would cut the answer off).
pub type Incoming = (Request, oneshot::Sender<Result<Answer, ErrorBody>>, oneshot::Receiver<()>);

/// Binds the socket and serves it on the current runtime; requests of callers that present
/// `token` arrive on the channel.
pub fn serve(path: &Path, token: Token) -> std::io::Result<mpsc::Receiver<Incoming>> {
    let mut listener = <Platform as Transport>::bind(path)?;
    let (tx, rx) = mpsc::channel::<Incoming>(16);
    tokio::spawn(async move {
        loop {
            let (stream, verdict) = match <Platform as Transport>::accept(&mut listener).await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "control socket accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            if let PeerVerdict::Refuse(why) = verdict {
                tracing::warn!(why, "control socket peer refused");
                let mut stream = stream;
                let e = ErrorBody::new(ErrorCode::PermissionDenied, format!("refused: {why}"))
                    .with_hint("connect as the user who started the session");
                let _ = stream.write_all(&answer_frame(Err(e))).await;
                continue;
            }
            let tx = tx.clone();
            let token = token.clone();
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(stream);
                let mut frames = FrameReader::new(read, MAX_SOCKET_FRAME);
                // Anything but a well-formed token frame first (a frame over the cap, a line of
                // the old protocol, a request) is refused before any request is read.
                let presented = match frames.next().await {
                    Ok(Some(Ok(body))) => serde_json::from_slice::<Presented>(&body).ok(),
                    _ => None,
                };
                if !presented.is_some_and(|p| token.matches(&p.token)) {
                    tracing::warn!("control socket caller without the session token");
                    let e =
                        ErrorBody::new(ErrorCode::PermissionDenied, "the session token is missing or wrong")
                            .with_hint("send a frame {\"token\": …} from the session's d-<tag>.json first");
                    let _ = write.write_all(&answer_frame(Err(e))).await;
                    return;
                }
                while let Ok(Some(frame)) = frames.next().await {
                    let mut written = None;
                    let answer = match frame.map_err(ErrorBody::from).and_then(|body| {
                        serde_json::from_slice::<Request>(&body).map_err(|e| {
                            ErrorBody::invalid_argument(format!("bad control request: {e}"))
                                .with_hint("send one JSON object per frame, e.g. {\"op\":\"status\"}")
                        })
                    }) {
                        Ok(req) => {
                            let (reply_tx, reply_rx) = oneshot::channel();
                            let (written_tx, written_rx) = oneshot::channel();
                            written = Some(written_tx);
                            if tx.send((req, reply_tx, written_rx)).await.is_err() {
                                break;
                            }
                            reply_rx.await.unwrap_or_else(|_| {
                                Err(ErrorBody::new(ErrorCode::NotConnected, "the session is stopping"))
                            })
                        }
                        Err(e) => Err(e),
                    };
                    let sent =
                        write.write_all(&answer_frame(answer)).await.is_ok() && write.flush().await.is_ok();
                    if let Some(w) = written {
                        let _ = w.send(());
                    }
                    if !sent {
                        break;
                    }
                }
            });
        }
    });
    Ok(rx)
}

/// The frame of an answer; an answer over the cap becomes a `PAYLOAD_TOO_LARGE` error.
fn answer_frame(answer: Result<Answer, ErrorBody>) -> Vec<u8> {
    let body = |reply: &Reply<Answer>| serde_json::to_vec(reply).unwrap_or_else(|_| b"{}".to_vec());
    let reply = match answer {
        Ok(a) => Reply::Ok(a),
        Err(e) => Reply::Error(e),
    };
    encode_frame(&body(&reply), MAX_SOCKET_FRAME).unwrap_or_else(|e| {
        let e = ErrorBody::from(e).with_hint("ask for less (e.g. a smaller maxBytes, fewer keys)");
        encode_frame(&body(&Reply::Error(e)), MAX_SOCKET_FRAME).unwrap_or_default()
    })
}

/// Sends one request to the session at `endpoint` and waits up to `timeout` for its answer,
/// read as the request's answer type. `NOT_CONNECTED` when nothing listens there,
/// `PERMISSION_DENIED` when what listens is not ours, `PAYLOAD_TOO_LARGE` for a request or
/// an answer over the frame cap.
pub async fn request<A: DeserializeOwned>(
    endpoint: &Endpoint,
    call: &Call<A>,
    timeout: Duration,
) -> Result<A, ErrorBody> {
    let path = &endpoint.socket;
    let closed = |e: std::io::Error| {
        ErrorBody::new(ErrorCode::NotConnected, format!("the session closed the socket: {e}"))
    };
    let talk = async {
        let mut out = Vec::new();
        let token = serde_json::to_vec(&Presented { token: endpoint.token.as_str().to_owned() })
            .map_err(|e| ErrorBody::internal(e.to_string()))?;
        push_frame(&mut out, &token, MAX_SOCKET_FRAME)?;
        let body = serde_json::to_vec(&call.request).map_err(|e| ErrorBody::internal(e.to_string()))?;
        push_frame(&mut out, &body, MAX_SOCKET_FRAME)?;
        let stream = <Platform as Transport>::connect(path).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                return ErrorBody::new(
                    ErrorCode::PermissionDenied,
                    format!("refusing the session socket: {e}"),
                )
                .with_hint("another local user may be impersonating the session; run `webext-mcp doctor`");
            }
            ErrorBody::new(ErrorCode::NotConnected, format!("no session listens on {}: {e}", path.display()))
                .with_hint("start one with extension_dev, extension_start or extension_preview")
        })?;
        let (read, mut write) = tokio::io::split(stream);
        write.write_all(&out).await.map_err(closed)?;
        let frame =
            FrameReader::new(read, MAX_SOCKET_FRAME).next().await.map_err(closed)?.ok_or_else(|| {
                ErrorBody::new(ErrorCode::NotConnected, "the session closed the socket without answering")
            })?;
        match serde_json::from_slice::<Reply<A>>(&frame?) {
            Ok(Reply::Ok(answer)) => Ok(answer),
            Ok(Reply::Error(e)) => Err(e),
            Err(e) => Err(ErrorBody::internal(format!("unreadable answer from the session: {e}"))),
        }
    };
    tokio::time::timeout(timeout, talk).await.unwrap_or_else(|_| {
        Err(ErrorBody::new(
            ErrorCode::Timeout,
            format!("the session did not answer within {} s", timeout.as_secs()),
        )
        .with_hint("it may be busy rebuilding; retry, or stop it"))
    })
}

#[cfg(test)]
mod tests;
