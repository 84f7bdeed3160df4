//! A small Marionette client: how the Firefox runner reads and drives tabs when
//! [`RunnerOptions::remote_control`](super::RunnerOptions::remote_control) is on (tests).
//!
//! Firefox started with `-marionette` and `marionette.port=0` listens on a free port of
//! 127.0.0.1 and writes it to `<profile>/MarionetteActivePort`. Frames are
//! `<byte length>:<json>` both ways (verified on ESR 153):
//!
//! ```text
//! server ─▶ {"applicationType":"gecko","marionetteProtocol":3}
//! client ─▶ [0, id, "WebDriver:NewSession", {}]
//! server ─▶ [1, id, null, {"sessionId": …, "capabilities": …}]
//! client ─▶ [0, id, "WebDriver:ExecuteScript", {"script": "return …", "args": []}]
//! server ─▶ [1, id, {"error": "javascript error", "message": "Error: boom", …}, null]
//! ```
//!
//! Commands act on the session's current window, so switching to a tab and the command on it
//! run under one lock. A reply to a command whose caller gave up is skipped by its id.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use super::RunnerError;

/// The file Firefox writes the port it listens on to.
pub(crate) const PORT_FILE: &str = "MarionetteActivePort";

/// Replies larger than this are refused (a broken stream, not a page value).
const MAX_FRAME: usize = 256 << 20;

/// A Marionette session on one Firefox.
pub(crate) struct Marionette {
    conn: Mutex<Conn>,
}

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    next_id: u64,
}

impl Marionette {
    /// Waits for `<profile>/MarionetteActivePort` (remove a stale one before starting
    /// Firefox), connects and opens a WebDriver session.
    pub(crate) async fn connect(profile: &Path, deadline: Instant) -> Result<Marionette, RunnerError> {
        let port_file = profile.join(PORT_FILE);
        let stream = loop {
            let port = std::fs::read_to_string(&port_file).ok().and_then(|s| s.trim().parse::<u16>().ok());
            if let Some(port) = port {
                match TcpStream::connect(("127.0.0.1", port)).await {
                    Ok(s) => break s,
                    // The file is written once the server listens; refused means not yet.
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                    Err(e) => {
                        return Err(RunnerError::io(format!("cannot connect to Marionette on {port}"))(e));
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(remote(format!(
                    "Firefox wrote no usable {} within the start timeout",
                    port_file.display()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let _ = stream.set_nodelay(true);
        let mut conn = Conn { stream, buf: Vec::new(), next_id: 1 };
        let hello = tokio::time::timeout_at(deadline.into(), conn.read_frame())
            .await
            .map_err(|_| remote("Marionette sent no greeting".to_owned()))??;
        if hello["marionetteProtocol"] != json!(3) {
            return Err(remote(format!("unexpected Marionette greeting {hello}")));
        }
        conn.call("WebDriver:NewSession", json!({}), deadline).await?;
        Ok(Marionette { conn: Mutex::new(conn) })
    }

    /// The window handles of the open tabs, in the browser's order.
    pub(crate) async fn windows(&self, timeout: Duration) -> Result<Vec<String>, RunnerError> {
        let deadline = Instant::now() + timeout;
        let handles = self.conn.lock().await.call("WebDriver:GetWindowHandles", json!({}), deadline).await?;
        serde_json::from_value(handles).map_err(|e| remote(format!("window handles: {e}")))
    }

    /// The URL of a tab.
    pub(crate) async fn url(&self, handle: &str, timeout: Duration) -> Result<String, RunnerError> {
        let deadline = Instant::now() + timeout;
        let mut conn = self.conn.lock().await;
        conn.switch_to(handle, deadline).await?;
        let reply = conn.call("WebDriver:GetCurrentURL", json!({}), deadline).await?;
        Ok(reply["value"].as_str().unwrap_or_default().to_owned())
    }

    /// Navigates a tab and waits until the new document has loaded.
    pub(crate) async fn navigate(
        &self,
        handle: &str,
        url: &str,
        timeout: Duration,
    ) -> Result<(), RunnerError> {
        let deadline = Instant::now() + timeout;
        let mut conn = self.conn.lock().await;
        conn.switch_to(handle, deadline).await?;
        conn.call("WebDriver:Navigate", json!({"url": url}), deadline).await?;
        Ok(())
    }

    /// Evaluates `expression` in a tab's document, awaiting a promise, and returns its value.
    pub(crate) async fn evaluate(
        &self,
        handle: &str,
        expression: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let deadline = Instant::now() + timeout;
        let mut conn = self.conn.lock().await;
        conn.switch_to(handle, deadline).await?;
        // ExecuteScript runs a function body; the newline keeps a trailing `//` comment inside.
        let script = format!("return (\n{expression}\n);");
        let mut reply =
            conn.call("WebDriver:ExecuteScript", json!({"script": script, "args": []}), deadline).await?;
        Ok(reply.get_mut("value").map(Value::take).unwrap_or(Value::Null))
    }
}

impl Conn {
    async fn switch_to(&mut self, handle: &str, deadline: Instant) -> Result<(), RunnerError> {
        self.call("WebDriver:SwitchToWindow", json!({"handle": handle}), deadline).await.map(drop)
    }

    /// Sends one command and waits for its reply until `deadline`.
    async fn call(&mut self, name: &str, params: Value, deadline: Instant) -> Result<Value, RunnerError> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!([0, id, name, params]).to_string();
        // Not under the timeout: a write cut in half would corrupt the stream.
        self.stream
            .write_all(format!("{}:{body}", body.len()).as_bytes())
            .await
            .map_err(RunnerError::io(format!("Marionette {name}")))?;
        loop {
            let frame = tokio::time::timeout_at(deadline.into(), self.read_frame())
                .await
                .map_err(|_| remote(format!("{name}: no reply in time")))??;
            match parse_reply(&frame) {
                Some((reply_id, _)) if reply_id != id => continue,
                Some((_, Ok(value))) => return Ok(value),
                Some((_, Err(e))) if e.kind == "javascript error" => {
                    return Err(RunnerError::Script { message: e.message });
                }
                Some((_, Err(e))) => return Err(remote(format!("{name}: {}: {}", e.kind, e.message))),
                None => return Err(remote(format!("{name}: unexpected reply {frame}"))),
            }
        }
    }

    /// Reads one frame; cancel-safe (bytes read so far stay in `buf`).
    async fn read_frame(&mut self) -> Result<Value, RunnerError> {
        loop {
            match split_frame(&self.buf) {
                Ok(Some((value, used))) => {
                    self.buf.drain(..used);
                    return Ok(value);
                }
                Ok(None) => {}
                Err(e) => return Err(remote(e)),
            }
            let n = self.stream.read_buf(&mut self.buf).await.map_err(RunnerError::io("Marionette read"))?;
            if n == 0 {
                return Err(remote("Firefox closed the Marionette connection".to_owned()));
            }
        }
    }
}

fn remote(message: String) -> RunnerError {
    RunnerError::Remote { message }
}

/// The first `<length>:<json>` frame of `buf` and the bytes it spans; `None` while incomplete.
fn split_frame(buf: &[u8]) -> Result<Option<(Value, usize)>, String> {
    let Some(colon) = buf.iter().position(|&b| b == b':') else {
        return if buf.len() > 20 || !buf.iter().all(u8::is_ascii_digit) {
            Err("a Marionette frame does not start with its length".to_owned())
        } else {
            Ok(None)
        };
    };
    let len: usize = std::str::from_utf8(&buf[..colon])
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse().ok())
        .ok_or("a Marionette frame does not start with its length")?;
    if len > MAX_FRAME {
        return Err(format!("a Marionette frame of {len} bytes is too large"));
    }
    let end = colon + 1 + len;
    let Some(body) = buf.get(colon + 1..end) else { return Ok(None) };
    let value = serde_json::from_slice(body).map_err(|e| format!("a Marionette frame is not JSON: {e}"))?;
    Ok(Some((value, end)))
}

/// A command's failure as Marionette reports it.
#[derive(Debug, PartialEq)]
struct ReplyError {
    /// The WebDriver error code (`javascript error`, `no such window`, …).
    kind: String,
    message: String,
}

/// `[1, id, error, result]` → the id and the result or error.
fn parse_reply(frame: &Value) -> Option<(u64, Result<Value, ReplyError>)> {
    let [kind, id, error, result] = frame.as_array()?.as_slice() else { return None };
    if kind != &json!(1) {
        return None;
    }
    let id = id.as_u64()?;
    if error.is_null() {
        return Some((id, Ok(result.clone())));
    }
    let text = |k: &str| error[k].as_str().unwrap_or_default().to_owned();
    Some((id, Err(ReplyError { kind: text("error"), message: text("message") })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_on_their_length() {
        let buf = br#"13:[1,2,null,{}]7:[1,3,"#;
        let (v, used) = split_frame(buf).unwrap().unwrap();
        assert_eq!((v, used), (json!([1, 2, null, {}]), 16));
        assert_eq!(split_frame(&buf[used..]).unwrap(), None);
        assert_eq!(split_frame(b"12").unwrap(), None);
        assert_eq!(split_frame(b"").unwrap(), None);
        assert!(split_frame(b"x:{}").is_err());
        assert!(split_frame(b":{}").is_err());
        assert!(split_frame(b"2:{x").is_err());
        assert!(split_frame(b"999999999999:").is_err());
        // Lengths count bytes, not characters.
        let s = json!("é").to_string();
        let framed = format!("{}:{s}", s.len());
        assert_eq!(split_frame(framed.as_bytes()).unwrap(), Some((json!("é"), framed.len())));
    }

    #[test]
    fn replies_carry_a_result_or_an_error() {
        assert_eq!(parse_reply(&json!([1, 4, null, {"value": "hi"}])), Some((4, Ok(json!({"value": "hi"})))));
        let err =
            json!([1, 6, {"error": "javascript error", "message": "Error: boom", "stacktrace": "@x"}, null]);
        assert_eq!(
            parse_reply(&err),
            Some((6, Err(ReplyError { kind: "javascript error".into(), message: "Error: boom".into() })))
        );
        assert_eq!(parse_reply(&json!([0, 1, "WebDriver:NewSession", {}])), None);
        assert_eq!(parse_reply(&json!({"applicationType": "gecko"})), None);
    }
}
