//! The control socket of a session: one JSON request per line, one JSON answer per line.
//!
//! ```text
//! {"op":"status"}                      → {"ok": <ready.json>}
//! {"op":"stop"}                        → {"ok": {"stopping": true}}, then the session ends
//! {"op":"pages"}                       → {"ok": [{"targetId","url"}…]}
//! {"op":"evaluate","expression":"…",   → {"ok": <value>} evaluated in the first tab whose
//!  "url":"<substring>"}                   URL contains `url` (default: the first http(s) tab)
//! {"op":"inspect", …inspect::Request}  → {"ok": {sessionId, tab, events}} (extension_source_inspect)
//! anything else / failures             → {"error": {code, message, hint}}
//! ```
//!
//! Sockets follow the host rules (`webext_mcp_host::transport`): runtime dir 0700, socket
//! 0600 bound under umask 0177, same-uid peers only, a stale socket replaced, a live one
//! never.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};
use webext_mcp_host::transport::{PeerVerdict, Platform, Transport};

/// Longest request line accepted.
const MAX_LINE: usize = 1 << 20;

/// A request to a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    Status,
    Stop,
    Pages,
    Evaluate {
        expression: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    Inspect(super::inspect::Request),
}

/// A request with the way back to its caller.
pub type Incoming = (Request, oneshot::Sender<Result<Value, ErrorBody>>);

/// Binds the socket and serves it on the current runtime; requests arrive on the channel.
pub fn serve(path: &Path) -> std::io::Result<mpsc::Receiver<Incoming>> {
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
                continue;
            }
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(stream);
                let mut lines = BufReader::new(read.take(MAX_LINE as u64)).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let answer = match serde_json::from_str::<Request>(&line) {
                        Ok(req) => {
                            let (reply_tx, reply_rx) = oneshot::channel();
                            if tx.send((req, reply_tx)).await.is_err() {
                                break;
                            }
                            reply_rx.await.unwrap_or_else(|_| {
                                Err(ErrorBody::new(ErrorCode::NotConnected, "the session is stopping"))
                            })
                        }
                        Err(e) => Err(ErrorBody::invalid_argument(format!("bad control request: {e}"))
                            .with_hint("send one JSON object per line, e.g. {\"op\":\"status\"}")),
                    };
                    let mut out = match answer {
                        Ok(v) => serde_json::json!({ "ok": v }),
                        Err(e) => serde_json::json!({ "error": e }),
                    }
                    .to_string();
                    out.push('\n');
                    if write.write_all(out.as_bytes()).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    Ok(rx)
}

/// Sends one request to the session at `path` and waits up to `timeout` for its answer.
/// `NOT_CONNECTED` when nothing listens there.
pub async fn request(path: &Path, req: &Request, timeout: Duration) -> Result<Value, ErrorBody> {
    let talk = async {
        let stream = <Platform as Transport>::connect(path).await.map_err(|e| {
            ErrorBody::new(ErrorCode::NotConnected, format!("no session listens on {}: {e}", path.display()))
                .with_hint("start one with extension_dev, extension_start or extension_preview")
        })?;
        let (read, mut write) = tokio::io::split(stream);
        let mut line = serde_json::to_string(req).map_err(|e| ErrorBody::internal(e.to_string()))?;
        line.push('\n');
        write.write_all(line.as_bytes()).await.map_err(|e| {
            ErrorBody::new(ErrorCode::NotConnected, format!("the session closed the socket: {e}"))
        })?;
        let mut answer = String::new();
        BufReader::new(read).read_line(&mut answer).await.map_err(|e| {
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
