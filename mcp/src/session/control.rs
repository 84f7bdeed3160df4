//! The control socket of a session: one JSON request per line, one JSON answer per line.
//!
//! ```text
//! {"op":"status"}                      → {"ok": <ready.json>}
//! {"op":"stop"}                        → {"ok": {"stopping": true}}, then the session ends
//! {"op":"evaluate","expression":"…",   → {"ok": <value>} evaluated in the first tab whose
//!  "url":"<substring>"}                   URL contains `url` (default: the first http(s) tab)
//! {"op":"inspect", …inspect::Request}  → {"ok": {sessionId, tab, events}} (extension_source_inspect)
//! {"op":"reload","tabs":"reinject"}    → {"ok": {backgroundMs, tabs, errors, …}} (extension_reload)
//! {"op":"eval","expression":"…",        → {"ok": <value>} in the background (extension_eval),
//!  "allowed":bool}                        refused unless allowed or the session has allowEval
//! {"op":"storage", …act::StorageRequest}→ {"ok": [[key, value], …] | count} (extension_storage)
//! {"op":"open","context":"popup"}      → {"ok": {url, targetId, opened}} (extension_open)
//! anything else / failures             → {"error": {code, message, hint}}
//! ```
//!
//! Sockets follow the host rules (`webext_mcp_host::transport`): runtime dir 0700, socket
//! 0600 bound under umask 0177, same-uid peers only, a stale socket replaced, a live one
//! never. Like a host, a session proves itself and checks its callers: it writes
//! `d-<tag>.json` (0600, in the checked runtime dir) with its socket and a random token; a
//! caller reads it only from a dir that passes the checks, connects only to a socket and a
//! listener of its own uid, and sends `{"token":"…"}` as its first line. A line without the
//! right token is answered `PERMISSION_DENIED` and the connection closed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use webext_mcp_host::descriptor::Token;
use webext_mcp_host::private_dir::PrivateDir;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};
use webext_mcp_host::transport::{PeerVerdict, Platform, Transport};

/// Longest request line accepted (the token line and requests of one connection together).
const MAX_LINE: usize = 1 << 20;

/// Longest answer line a caller reads (source inspection can return large pages).
const MAX_ANSWER: u64 = 64 << 20;

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

/// A request with the way back to its caller, and word once the answer is written (a
/// session that stops waits for it, or its exit would cut the answer off).
pub type Incoming = (Request, oneshot::Sender<Result<Value, ErrorBody>>, oneshot::Receiver<()>);

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
                let _ = stream.write_all(answer_line(Err(e)).as_bytes()).await;
                continue;
            }
            let tx = tx.clone();
            let token = token.clone();
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(stream);
                let mut lines = BufReader::new(read.take(MAX_LINE as u64)).lines();
                let presented = match lines.next_line().await {
                    Ok(Some(line)) => serde_json::from_str::<Value>(&line).ok(),
                    _ => None,
                };
                let presented = presented.as_ref().and_then(|v| v.get("token")).and_then(Value::as_str);
                if !presented.is_some_and(|p| token.matches(p)) {
                    tracing::warn!("control socket caller without the session token");
                    let e =
                        ErrorBody::new(ErrorCode::PermissionDenied, "the session token is missing or wrong")
                            .with_hint("send {\"token\": …} from the session's d-<tag>.json first");
                    let _ = write.write_all(answer_line(Err(e)).as_bytes()).await;
                    return;
                }
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut written = None;
                    let answer = match serde_json::from_str::<Request>(&line) {
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
                        Err(e) => Err(ErrorBody::invalid_argument(format!("bad control request: {e}"))
                            .with_hint("send one JSON object per line, e.g. {\"op\":\"status\"}")),
                    };
                    let sent = write.write_all(answer_line(answer).as_bytes()).await.is_ok()
                        && write.flush().await.is_ok();
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

fn answer_line(answer: Result<Value, ErrorBody>) -> String {
    let mut out = match answer {
        Ok(v) => serde_json::json!({ "ok": v }),
        Err(e) => serde_json::json!({ "error": e }),
    }
    .to_string();
    out.push('\n');
    out
}

/// Sends one request to the session at `endpoint` and waits up to `timeout` for its answer.
/// `NOT_CONNECTED` when nothing listens there, `PERMISSION_DENIED` when what listens is not
/// ours.
pub async fn request(endpoint: &Endpoint, req: &Request, timeout: Duration) -> Result<Value, ErrorBody> {
    let path = &endpoint.socket;
    let talk = async {
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
        let mut line = serde_json::json!({ "token": endpoint.token.as_str() }).to_string();
        line.push('\n');
        line.push_str(&serde_json::to_string(req).map_err(|e| ErrorBody::internal(e.to_string()))?);
        line.push('\n');
        write.write_all(line.as_bytes()).await.map_err(|e| {
            ErrorBody::new(ErrorCode::NotConnected, format!("the session closed the socket: {e}"))
        })?;
        let mut answer = String::new();
        BufReader::new(read.take(MAX_ANSWER)).read_line(&mut answer).await.map_err(|e| {
            ErrorBody::new(ErrorCode::NotConnected, format!("the session closed the socket: {e}"))
        })?;
        let mut v: Value = serde_json::from_str(&answer).map_err(|_| {
            ErrorBody::new(ErrorCode::NotConnected, "the session closed the socket without answering")
        })?;
        if let Some(err) = v.get_mut("error") {
            return Err(serde_json::from_value(err.take())
                .unwrap_or_else(|e| ErrorBody::internal(format!("unreadable error from the session: {e}"))));
        }
        Ok(v.get_mut("ok").map(Value::take).unwrap_or(Value::Null))
    };
    tokio::time::timeout(timeout, talk).await.unwrap_or_else(|_| {
        Err(ErrorBody::new(
            ErrorCode::Timeout,
            format!("the session did not answer within {} s", timeout.as_secs()),
        )
        .with_hint("it may be busy rebuilding; retry, or stop it"))
    })
}
