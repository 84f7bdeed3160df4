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
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::io::{FrameReader, push_frame};
use webext_mcp_host::private_dir::PrivateDir;
use webext_mcp_host::protocol::codec::encode_frame;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode, MAX_SOCKET_FRAME};
use webext_mcp_host::transport::{PeerVerdict, Platform, Transport};

use super::contract::Ready;

/// Largest `d-<tag>.json` read.
const MAX_TICKET: u64 = 64 * 1024;

/// What a session publishes next to its socket: `d-<tag>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ticket {
    pub socket: PathBuf,
    pub token: Token,
    pub pid: u32,
    /// The session's id (what page tools take as `browser`), so that a tool addressed to a
    /// session still starting can tell it exists and wait for its browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The project the session runs (its folder is an upload root while it runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
}

/// The name of the ticket of the session tagged `tag`.
pub fn ticket_name(tag: &str) -> String {
    format!("d-{tag}.json")
}

/// Writes the ticket of a session into its (checked) runtime dir.
pub fn publish(dir: &PrivateDir, tag: &str, ticket: &Ticket) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(ticket).map_err(std::io::Error::other)?;
    dir.write_private(&ticket_name(tag), &bytes)
}

/// Whether a live session process with id `session_id` has a ticket in one of `dirs` (that
/// pass the checks): it exists, even if its browser is not connected yet.
pub fn session_alive(dirs: &[PathBuf], session_id: &str) -> bool {
    dirs.iter().filter_map(|dir| PrivateDir::open(dir).ok()).any(|checked| {
        checked.names().iter().filter(|n| n.starts_with("d-") && n.ends_with(".json")).any(|name| {
            checked
                .read_private(name, MAX_TICKET)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Ticket>(&bytes).ok())
                .is_some_and(|t| t.session.as_deref() == Some(session_id) && super::pid_alive(t.pid))
        })
    })
}

/// The projects of the live sessions with a ticket in one of `dirs` (that pass the checks).
pub fn running_projects(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for checked in dirs.iter().filter_map(|dir| PrivateDir::open(dir).ok()) {
        for name in checked.names().iter().filter(|n| n.starts_with("d-") && n.ends_with(".json")) {
            let ticket = checked
                .read_private(name, MAX_TICKET)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Ticket>(&bytes).ok());
            if let Some(Ticket { project: Some(p), pid, .. }) = ticket
                && super::pid_alive(pid)
            {
                out.push(p);
            }
        }
    }
    out
}

/// A session found and proven: where to connect and what to present.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub socket: PathBuf,
    token: Token,
}

/// Finds the session of `project` and `browser` in the first of `dirs` that passes the
/// checks and holds its ticket. `NOT_CONNECTED` when none does; dirs refused on the way are
/// named in the error's data.
pub fn locate(dirs: &[PathBuf], project: &Path, browser: &str) -> Result<Endpoint, ErrorBody> {
    let tag = super::tag(project, browser);
    let mut refused = Vec::new();
    for dir in dirs {
        // Only the ticket is read here; the socket is proven by `request` when connecting.
        let checked = match PrivateDir::open(dir) {
            Ok(d) => d,
            Err(p) => {
                if p.is_unsafe() {
                    refused.push(p.describe(dir));
                }
                continue;
            }
        };
        let Ok(bytes) = checked.read_private(&ticket_name(&tag), MAX_TICKET) else { continue };
        let Ok(ticket) = serde_json::from_slice::<Ticket>(&bytes) else { continue };
        // The ticket must name exactly the socket this dir gives this session.
        if ticket.socket != super::socket_path(dir, project, browser) {
            tracing::warn!(dir = %dir.display(), "ignoring a session ticket naming another socket");
            continue;
        }
        return Ok(Endpoint { socket: ticket.socket, token: ticket.token });
    }
    let mut e = ErrorBody::new(
        ErrorCode::NotConnected,
        format!("no {browser} session is running for {}", project.display()),
    )
    .with_hint("start one with extension_dev, extension_start or extension_preview");
    if !refused.is_empty() {
        e = e.with_data(serde_json::json!({ "refusedRuntimeDirs": refused }));
    }
    Err(e)
}

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
mod tests {
    use serde_json::json;
    use tokio::net::UnixStream;

    use super::*;
    use crate::session::contract::{ErrorEntry, Status};
    use crate::session::inspect::Context;

    fn ready() -> Ready {
        Ready {
            schema_version: super::super::contract::SCHEMA_VERSION,
            schema: super::super::contract::SCHEMA.into(),
            status: Status::Ready,
            command: "dev".into(),
            browser: "chromium".into(),
            run_id: "r1".into(),
            pid: 42,
            browser_pid: Some(43),
            port: None,
            dist_path: "/p/dist/dev/chromium".into(),
            manifest_path: "/p/dist/dev/chromium/manifest.json".into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            compiled_at: None,
            errors: vec!["a.js:1 x".into()],
            error_details: vec![ErrorEntry {
                source: "build".into(),
                message: "x".into(),
                file: Some("a.js".into()),
                line: Some(1),
                column: None,
                code: "BUILD_FAILED".into(),
            }],
            extension_id: Some("abc".into()),
            profile_path: "/p/profile".into(),
            session_id: "dev-1".into(),
            project_path: "/p".into(),
            control_socket: "/run/s".into(),
            run_config: None,
        }
    }

    fn reloaded() -> Reloaded {
        Reloaded {
            extension_id: Some("abc".into()),
            status: Status::Ready,
            build_ms: None,
            background_ms: Some(7),
            duration_ms: 9,
            tabs: json!([{"url": "https://a/", "action": "reinjected"}]),
            errors: Vec::new(),
            error_details: Vec::new(),
        }
    }

    /// A session serving `socket` whose answers are made by `answer`; every request it
    /// received is counted in the returned channel.
    fn session(
        dir: &Path,
        answer: fn(Request) -> Result<Answer, ErrorBody>,
    ) -> (Endpoint, mpsc::UnboundedReceiver<Request>) {
        let socket = dir.join("d.sock");
        let token = Token::generate().unwrap();
        let mut rx = serve(&socket, token.clone()).unwrap();
        let (seen_tx, seen_rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some((req, reply, _written)) = rx.recv().await {
                let _ = seen_tx.send(req.clone());
                let _ = reply.send(answer(req));
            }
        });
        (Endpoint { socket, token }, seen_rx)
    }

    fn answer(req: Request) -> Result<Answer, ErrorBody> {
        Ok(match req {
            Request::Status => Answer::Ready(Box::new(ready())),
            Request::Stop => Answer::Stopping(Stopping { stopping: true }),
            Request::Evaluate { expression, .. } | Request::Eval { expression, .. } => {
                Answer::Value(json!({ "evaluated": expression }))
            }
            Request::Inspect(_) => Answer::Inspection(Inspection {
                session_id: "dev-1".into(),
                tab: None,
                events: vec![json!({})],
            }),
            Request::Reload { .. } => Answer::Reloaded(reloaded()),
            Request::Storage(_) => Answer::Stored(Stored::Pairs(vec![("k".into(), json!([1]))])),
            Request::Open { popup: true, .. } => {
                return Err(ErrorBody::not_found("the extension has no action popup"));
            }
            Request::Open { context, .. } => Answer::Opened(Opened {
                url: "chrome-extension://abc/options.html".into(),
                target_id: Some("T1".into()),
                opened: true,
                popup: None,
                context,
            }),
        })
    }

    #[tokio::test]
    async fn requests_and_typed_answers_round_trip_over_the_socket() {
        let dir = tempfile::tempdir().unwrap();
        let (ep, mut seen) = session(dir.path(), answer);
        let t = Duration::from_secs(5);
        assert_eq!(request(&ep, &Call::status(), t).await.unwrap(), ready());
        assert_eq!(request(&ep, &Call::stop(), t).await.unwrap(), Stopping { stopping: true });
        let v = request(&ep, &Call::eval("1 + 1".into(), true, Some(100)), t).await.unwrap();
        assert_eq!(v, json!({"evaluated": "1 + 1"}));
        let r = request(&ep, &Call::reload(Default::default()), t).await.unwrap();
        assert_eq!((r.background_ms, r.tabs), (Some(7), reloaded().tabs));
        let req = super::super::act::StorageRequest {
            action: super::super::act::StorageOp::Get,
            area: super::super::act::Area::Local,
            keys: Vec::new(),
            items: Default::default(),
        };
        let s = request(&ep, &Call::storage(req), t).await.unwrap();
        assert_eq!(s, Stored::Pairs(vec![("k".into(), json!([1]))]));
        let o = request(&ep, &Call::open(Context::Options, false), t).await.unwrap();
        assert_eq!((o.target_id.as_deref(), o.context), (Some("T1"), Context::Options));
        let e = request(&ep, &Call::open(Context::Popup, true), t).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let mut ops = Vec::new();
        while let Ok(req) = seen.try_recv() {
            ops.push(serde_json::to_value(req).unwrap()["op"].as_str().unwrap().to_owned());
        }
        assert_eq!(ops, ["status", "stop", "eval", "reload", "storage", "open", "open"]);

        // A wrong token is refused before anything runs; a socket nobody serves is NOT_CONNECTED.
        let wrong = Endpoint { socket: ep.socket.clone(), token: Token::generate().unwrap() };
        let e = request(&wrong, &Call::stop(), t).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::PermissionDenied);
        let gone = Endpoint { socket: dir.path().join("none.sock"), token: ep.token.clone() };
        assert_eq!(request(&gone, &Call::status(), t).await.unwrap_err().code, ErrorCode::NotConnected);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(seen.try_recv().is_err(), "a refused caller's request never reaches the session");
    }

    /// The JSON of each answer is what the session sent before answers were typed (tools
    /// forward it as their structured output): a renamed field fails here.
    #[test]
    fn answers_keep_their_wire_shape() {
        let wire = |a: Answer| serde_json::to_value(a).unwrap();
        assert_eq!(wire(Answer::Stopping(Stopping { stopping: true })), json!({"stopping": true}));
        assert_eq!(wire(Answer::Ready(Box::new(ready()))), serde_json::to_value(ready()).unwrap());
        assert_eq!(
            wire(Answer::Reloaded(reloaded())),
            json!({"extensionId": "abc", "status": "ready", "buildMs": null, "backgroundMs": 7, "durationMs": 9,
                   "tabs": [{"url": "https://a/", "action": "reinjected"}], "errors": [], "errorDetails": []})
        );
        assert_eq!(wire(Answer::Stored(Stored::Count(3))), json!(3));
        assert_eq!(wire(Answer::Stored(Stored::Pairs(vec![("k".into(), json!(1))]))), json!([["k", 1]]));
        let tab = Opened {
            url: "u".into(),
            target_id: Some("T".into()),
            opened: false,
            popup: None,
            context: Context::Options,
        };
        assert_eq!(
            wire(Answer::Opened(tab)),
            json!({"url": "u", "targetId": "T", "opened": false, "context": "options"})
        );
        let popup = Opened {
            url: "u".into(),
            target_id: None,
            opened: true,
            popup: Some(true),
            context: Context::Popup,
        };
        assert_eq!(
            wire(Answer::Opened(popup)),
            json!({"url": "u", "opened": true, "popup": true, "context": "popup"})
        );
        let seen = InspectedTab { target_id: "T".into(), url: "u".into(), title: "t".into(), opened: false };
        let page = Inspection { session_id: "s".into(), tab: Some(seen), events: Vec::new() };
        assert_eq!(
            wire(Answer::Inspection(page)),
            json!({"sessionId": "s", "tab": {"targetId": "T", "url": "u", "title": "t", "opened": false}, "events": []})
        );
        let background = Inspection { session_id: "s".into(), tab: None, events: Vec::new() };
        assert_eq!(
            wire(Answer::Inspection(background)),
            json!({"sessionId": "s", "tab": null, "events": []})
        );
    }

    /// Writes `bytes` raw and reads what the session answers: the answer, and whether the
    /// session then closed the connection.
    async fn poke(socket: &Path, bytes: &[u8]) -> (Value, bool) {
        let stream = UnixStream::connect(socket).await.unwrap();
        let (read, mut write) = tokio::io::split(stream);
        write.write_all(bytes).await.unwrap();
        let mut frames = FrameReader::new(read, MAX_SOCKET_FRAME);
        let first = frames.next().await.unwrap().unwrap().unwrap();
        let next = tokio::time::timeout(Duration::from_millis(300), frames.next()).await;
        let closed = matches!(next, Ok(Ok(None)) | Ok(Err(_)));
        (serde_json::from_slice(&first).unwrap(), closed)
    }

    fn frame(v: &Value) -> Vec<u8> {
        encode_frame(v.to_string().as_bytes(), MAX_SOCKET_FRAME).unwrap()
    }

    #[tokio::test]
    async fn refuses_callers_without_the_token_in_a_first_frame() {
        let dir = tempfile::tempdir().unwrap();
        let (ep, mut seen) = session(dir.path(), answer);
        let token = json!({"token": ep.token.as_str()});
        let stop = json!({"op": "stop"});
        let oversized = ((MAX_SOCKET_FRAME + 1) as u32).to_ne_bytes();
        let line_framed = format!("{token}\n{stop}\n");
        for (what, bytes) in [
            ("a request without the token", frame(&stop)),
            ("a wrong token", [frame(&json!({"token": "0".repeat(64)})), frame(&stop)].concat()),
            ("a first frame over the cap", [&oversized[..], &[b'x'; 16][..]].concat()),
            ("the old line protocol", line_framed.into_bytes()),
        ] {
            let (answer, closed) = poke(&ep.socket, &bytes).await;
            assert_eq!(answer["error"]["code"], "PERMISSION_DENIED", "{what}: {answer}");
            assert!(closed, "{what}: the connection is closed");
        }
        // Past the token, a frame over the cap is answered PAYLOAD_TOO_LARGE and not run.
        let (answer, _) = poke(&ep.socket, &[frame(&token), oversized.to_vec()].concat()).await;
        assert_eq!(answer["error"]["code"], "PAYLOAD_TOO_LARGE", "{answer}");
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(seen.try_recv().is_err(), "nothing refused reached the session");
        // The same socket still serves a caller that speaks the protocol.
        let (answer, _) = poke(&ep.socket, &[frame(&token), frame(&json!({"op": "status"}))].concat()).await;
        assert_eq!(answer["ok"]["sessionId"], "dev-1", "{answer}");
        assert!(matches!(seen.try_recv(), Ok(Request::Status)));
    }
}
