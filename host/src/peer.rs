//! A scripted helper extension: speaks the extension side of protocol v1 over any byte
//! pipes. Tests and the benchmark put it on the stdio of a real `webext-mcp` in host mode,
//! so everything but the browser itself is the product's code.
//!
//! It says `hello`, answers `ping` (echoing `payload`; a payload starting with `hold` is never
//! answered, to keep calls in flight; `emit <name>` first sends event `<name>`; `big <bytes>`
//! answers with a JSON array of consecutive integers about that long, for memory bounds) and
//! `browser.info`, reassembles chunk frames, answers
//! anything else `UNSUPPORTED`, and can be told to stop reading.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::protocol::codec::{FrameDecoder, Reassembler, encode_frame};
use crate::protocol::methods::{BROWSER_INFO, EVENT_HELLO, PING};
use crate::protocol::{
    ErrorBody, ErrorCode, Event, Hello, Incoming, MAX_FROM_BROWSER, MAX_TO_BROWSER, PROTOCOL_VERSION, Reply,
    parse_message,
};

/// What the scripted extension says about itself.
#[derive(Debug, Clone)]
pub struct Script {
    pub hello: Hello,
    /// Visible tabs as `(windowId, tabId)`, in the extension's order.
    pub tabs: Vec<(i64, i64)>,
}

impl Script {
    pub fn new(browser: &str, label: &str) -> Script {
        Script {
            hello: Hello {
                ext_version: "0.1.0".into(),
                browser: browser.into(),
                browser_version: "140.0".into(),
                label: label.into(),
                capabilities: vec!["tabs".into(), "scripting".into()],
                ..Hello::default()
            },
            tabs: vec![(1, 10), (1, 11), (2, 20)],
        }
    }
}

/// Live controls and counters of a running peer.
#[derive(Debug, Default)]
pub struct PeerState {
    /// Set to stop reading from the host (the host's writes then back up).
    pub stop_reading: AtomicBool,
    /// Requests received (chunked ones count once).
    pub requests: AtomicU64,
    /// Chunk frames received.
    pub chunks: AtomicU64,
    /// Largest frame body received from the host.
    pub largest_frame: AtomicU64,
}

/// Runs the peer on the current thread until the host closes its stdout. `host_out` is
/// the host's stdout, `host_in` its stdin.
pub fn run(script: &Script, mut host_out: impl Read, mut host_in: impl Write, state: &PeerState) {
    let hello = Event {
        v: PROTOCOL_VERSION,
        event: EVENT_HELLO.into(),
        params: serde_json::to_value(&script.hello).unwrap_or_default(),
    };
    if send(&mut host_in, &hello).is_err() {
        return;
    }
    let mut decoder = FrameDecoder::new(MAX_TO_BROWSER);
    let mut chunks = Reassembler::new(MAX_FROM_BROWSER);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        while state.stop_reading.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let n = match host_out.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        decoder.push(&buf[..n]);
        while let Some(frame) = decoder.next_frame() {
            let Ok(body) = frame else { continue };
            state.largest_frame.fetch_max(body.len() as u64, Ordering::Relaxed);
            let message = match parse_message(&body) {
                Ok(Incoming::Chunk(c)) => {
                    state.chunks.fetch_add(1, Ordering::Relaxed);
                    match chunks.push(c, std::time::Instant::now()) {
                        Ok(Some((_, payload))) => parse_message(payload.as_bytes()),
                        _ => continue,
                    }
                }
                other => other,
            };
            let Ok(Incoming::Request(request)) = message else { continue };
            state.requests.fetch_add(1, Ordering::Relaxed);
            let result = match request.method.as_str() {
                PING => {
                    let payload = request.params.get("payload").cloned();
                    let text = payload.as_ref().and_then(Value::as_str).unwrap_or_default();
                    if text.starts_with("hold") {
                        continue;
                    }
                    if let Some(size) = text.strip_prefix("big ").and_then(|n| n.trim().parse::<usize>().ok())
                    {
                        if send_body(&mut host_in, &big_reply(&request.id, size)).is_err() {
                            return;
                        }
                        continue;
                    }
                    if let Some(name) = text.strip_prefix("emit ") {
                        let event = Event {
                            v: PROTOCOL_VERSION,
                            event: name.into(),
                            params: json!({ "by": "peer" }),
                        };
                        if send(&mut host_in, &event).is_err() {
                            return;
                        }
                    }
                    Ok(json!({ "pong": true, "payload": payload, "time": crate::descriptor::now_ms() }))
                }
                BROWSER_INFO => Ok(json!({
                    "browser": script.hello.browser,
                    "browserVersion": script.hello.browser_version,
                    "extVersion": script.hello.ext_version,
                    "label": script.hello.label,
                    "platform": { "os": std::env::consts::OS, "arch": std::env::consts::ARCH },
                    "tabs": script.tabs.iter().map(|(w, t)| json!({ "windowId": w, "tabId": t })).collect::<Vec<_>>(),
                    "capabilities": script.hello.capabilities,
                })),
                other => {
                    Err(ErrorBody::new(ErrorCode::Unsupported, format!("the scripted peer has no `{other}`")))
                }
            };
            let reply = match result {
                Ok(v) => Reply::ok(request.id, v),
                Err(e) => Reply::err(request.id, e),
            };
            if send(&mut host_in, &reply).is_err() {
                return;
            }
        }
    }
}

fn send(w: &mut impl Write, message: &impl serde::Serialize) -> std::io::Result<()> {
    let body = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    let frame = encode_frame(&body, MAX_FROM_BROWSER).map_err(std::io::Error::other)?;
    w.write_all(&frame)?;
    w.flush()
}

/// `{"id":…,"result":[0,1,2,…]}` with a result of about `size` bytes, written directly so
/// the peer itself stays small.
pub fn big_reply(id: &Value, size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 64);
    body.extend_from_slice(b"{\"id\":");
    body.extend_from_slice(&serde_json::to_vec(id).unwrap_or_else(|_| b"null".to_vec()));
    body.extend_from_slice(b",\"result\":[");
    let start = body.len();
    let mut i: u64 = 0;
    while body.len() - start < size {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(i.to_string().as_bytes());
        i += 1;
    }
    body.extend_from_slice(b"]}");
    body
}

fn send_body(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    let frame = encode_frame(body, MAX_FROM_BROWSER).map_err(std::io::Error::other)?;
    w.write_all(&frame)?;
    w.flush()
}

/// Spawns the peer on a thread.
pub fn spawn(
    script: Script,
    host_out: impl Read + Send + 'static,
    host_in: impl Write + Send + 'static,
) -> (Arc<PeerState>, std::thread::JoinHandle<()>) {
    let state = Arc::new(PeerState::default());
    let s = Arc::clone(&state);
    let handle = std::thread::spawn(move || run(&script, host_out, host_in, &s));
    (state, handle)
}
