//! The host's byte pipes: the browser's stdin and stdout on two plain threads, and a reader
//! and a writer task per client socket. Frames go to the event loop ([`super::serve`]) as
//! [`super::HostEvent`]s.

use std::io::{Read, Write};
#[cfg(target_os = "linux")]
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use super::HostEvent;
use crate::io::{FrameReader, push_frame};
use crate::protocol::codec::{FrameDecoder, FrameError};
use crate::protocol::{ErrorBody, ErrorCode, MAX_FROM_BROWSER, MAX_SOCKET_FRAME, MAX_TO_BROWSER};
use crate::router::ClientId;

/// Pure: why a framing error on the browser link ends the host (no payload in the text).
fn browser_framing_fatal(e: &FrameError) -> String {
    match e {
        FrameError::TooLarge { len, cap } => {
            format!(
                "the browser sent a {len}-byte frame, over the {cap}-byte limit (the stream cannot be resynchronised)"
            )
        }
        other => format!("bad frame from the browser: {other}"),
    }
}

pub(super) fn spawn_stdin_reader(mut input: impl Read + Send + 'static, events: mpsc::Sender<HostEvent>) {
    let spawned = std::thread::Builder::new().name("browser-in".into()).spawn(move || {
        let mut decoder = FrameDecoder::new(MAX_FROM_BROWSER);
        let mut buf = vec![0u8; 64 * 1024];
        let why = 'read: loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break "stdin closed".to_owned(),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => break format!("stdin read failed: {e}"),
            };
            decoder.push(&buf[..n]);
            while let Some(frame) = decoder.next_frame() {
                match frame {
                    Ok(body) => {
                        if events.blocking_send(HostEvent::BrowserFrame(body)).is_err() {
                            return;
                        }
                    }
                    // Fatal: after a bad length every later byte would be read at the wrong
                    // offset. Exiting is what the helper recovers from (it reconnects).
                    Err(e) => {
                        let why = browser_framing_fatal(&e);
                        tracing::error!("{why}");
                        break 'read why;
                    }
                }
            }
        };
        if decoder.inside_header() {
            tracing::warn!("stdin ended inside a frame header ({} of 4 bytes)", decoder.pending_bytes());
        } else if decoder.pending_bytes() > 0 {
            tracing::warn!("stdin ended inside a frame ({} bytes unread)", decoder.pending_bytes());
        }
        let _ = events.blocking_send(HostEvent::BrowserEnded(why));
    });
    if let Err(e) = spawned {
        tracing::error!("cannot start the stdin thread: {e}");
    }
}

/// Capacity asked for the pipe to the browser: one whole frame ([`MAX_TO_BROWSER`]).
const PIPE_TO_BROWSER: usize = MAX_TO_BROWSER;

/// Widens the pipe on `fd` to `bytes` and answers its new capacity (`None`: not a pipe, or
/// the kernel refused, e.g. `fs.pipe-max-size` is lower; the pipe then keeps its size).
///
/// Why, for the pipe to the browser: Chromium reads a native host's stdout 4 KiB at a time,
/// each read a task on its thread pool (`NativeMessageProcessHost::DoRead`,
/// `kReadBufferSize`; seen with strace: the browser's reads of an upload are 4096 bytes).
/// Through the default 64 KiB pipe a 1 MB frame keeps the pipe full, so each of those reads
/// also wakes this host's writer for the next 4 KiB; with room for a whole frame the host
/// writes it at once and sleeps while the browser drains it (issue 31: an upload's pieces
/// staged ~10-20 % faster in both browsers, docs/bench/pages.md). Linux only
/// (`F_SETPIPE_SZ`).
#[cfg(target_os = "linux")]
pub(super) fn widen_pipe(fd: std::os::fd::BorrowedFd<'_>, bytes: usize) -> Option<usize> {
    use std::os::fd::AsRawFd;
    let bytes = libc::c_int::try_from(bytes).ok()?;
    // SAFETY: fcntl on a live descriptor; F_SETPIPE_SZ fails harmlessly on a non-pipe.
    let got = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, bytes) };
    usize::try_from(got).ok()
}

/// Widens the pipe to the browser (our stdout) to hold a whole frame ([`widen_pipe`]).
pub(super) fn widen_stdout() {
    #[cfg(target_os = "linux")]
    match widen_pipe(std::io::stdout().as_fd(), PIPE_TO_BROWSER) {
        Some(n) => tracing::debug!(bytes = n, "widened the pipe to the browser"),
        None => tracing::debug!("the pipe to the browser keeps its size"),
    }
}

pub(super) fn spawn_stdout_writer(
    mut output: impl Write + Send + 'static,
    mut frames: mpsc::Receiver<Vec<u8>>,
    busy_since: Arc<AtomicU64>,
    epoch: Instant,
    events: mpsc::Sender<HostEvent>,
) {
    let spawned = std::thread::Builder::new().name("browser-out".into()).spawn(move || {
        let mut buf = Vec::with_capacity(64 * 1024);
        while let Some(body) = frames.blocking_recv() {
            buf.clear();
            let mut next = Some(body);
            while let Some(body) = next.take() {
                if let Err(e) = push_frame(&mut buf, &body, MAX_TO_BROWSER) {
                    tracing::error!("not sending an oversized frame to the browser: {e}");
                }
                if buf.len() < 4 * MAX_TO_BROWSER {
                    next = frames.try_recv().ok();
                }
            }
            busy_since.store(epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
            let written = output.write_all(&buf).and_then(|()| output.flush());
            busy_since.store(0, Ordering::Relaxed);
            if let Err(e) = written {
                let _ = events.blocking_send(HostEvent::BrowserEnded(format!("stdout write failed: {e}")));
                return;
            }
        }
    });
    if let Err(e) = spawned {
        tracing::error!("cannot start the stdout thread: {e}");
    }
}

pub(super) async fn client_reader(
    client: ClientId,
    read: impl tokio::io::AsyncRead + Unpin,
    events: mpsc::Sender<HostEvent>,
) {
    let mut reader = FrameReader::new(read, MAX_SOCKET_FRAME);
    loop {
        let ev = match reader.next().await {
            Ok(Some(Ok(body))) => HostEvent::ClientFrame(client, body),
            Ok(Some(Err(FrameError::TooLarge { len, .. }))) => HostEvent::ClientOversized(client, len),
            Ok(Some(Err(e))) => {
                tracing::warn!(client, "bad frame: {e}");
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(client, "client read ended: {e}");
                break;
            }
        };
        if events.send(ev).await.is_err() {
            return;
        }
    }
    let _ = events.send(HostEvent::ClientGone(client)).await;
}

/// Frames at least this large go to a client straight from their body, not via the batch.
const WRITE_DIRECT: usize = 1 << 20;

pub(super) async fn client_writer(
    mut write: impl tokio::io::AsyncWrite + Unpin,
    mut frames: mpsc::Receiver<Vec<u8>>,
) {
    let mut buf = Vec::with_capacity(64 * 1024);
    while let Some(body) = frames.recv().await {
        buf.clear();
        let mut next = Some(body);
        let mut big = None;
        while let Some(body) = next.take() {
            if body.len() >= WRITE_DIRECT {
                // Written after the batch, from the body itself: no copy of a large reply.
                big = Some(body);
                break;
            }
            if let Err(e) = push_frame(&mut buf, &body, MAX_SOCKET_FRAME) {
                tracing::warn!("not sending an oversized frame to a client: {e}");
            }
            if buf.len() < 1 << 20 {
                next = frames.try_recv().ok();
            }
        }
        if let Some(body) = big {
            match crate::protocol::codec::encode_header(body.len(), MAX_SOCKET_FRAME) {
                Ok(header) => {
                    buf.extend_from_slice(&header);
                    if write.write_all(&buf).await.is_err() || write.write_all(&body).await.is_err() {
                        return;
                    }
                    buf.clear();
                }
                Err(e) => tracing::warn!("not sending an oversized frame to a client: {e}"),
            }
        }
        if write.write_all(&buf).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// Pure: the one frame a refused socket peer gets before the host closes it, so it sees a
/// reason instead of a broken pipe. Says why; never carries anything of the host's.
pub fn refusal_frame(why: &str) -> Vec<u8> {
    let e = ErrorBody::new(
        ErrorCode::PermissionDenied,
        format!("this browser host refuses the connection: {why}"),
    )
    .with_hint("connect as the user who runs the browser");
    let reply = crate::protocol::Reply::err(serde_json::Value::Null, e);
    let body = serde_json::to_vec(&reply).unwrap_or_else(|_| b"{}".to_vec());
    let mut out = Vec::with_capacity(body.len() + 4);
    // A refusal is a few hundred bytes; a failure here would only mean closing silently.
    if push_frame(&mut out, &body, MAX_SOCKET_FRAME).is_err() {
        out.clear();
    }
    out
}

/// Sends a refused peer its error frame (at most 1 s) and closes the connection.
pub(super) async fn refuse(mut stream: impl tokio::io::AsyncWrite + Unpin, why: String) {
    let frame = refusal_frame(&why);
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(&frame).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_peer_gets_one_permission_denied_frame_saying_why() {
        let bytes = refusal_frame("peer runs as uid 65534, the host as uid 0");
        let mut dec = FrameDecoder::new(MAX_SOCKET_FRAME);
        dec.push(&bytes);
        let body = dec.next_frame().unwrap().unwrap();
        assert!(dec.next_frame().is_none());
        assert_eq!(dec.pending_bytes(), 0);
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], "PERMISSION_DENIED");
        assert!(v["error"]["message"].as_str().unwrap().contains("uid 65534"), "{v}");
        assert_eq!(v["error"]["hint"], "connect as the user who runs the browser");
        // The client's own decoding sees the same error.
        let Ok(crate::protocol::Incoming::Reply(r)) = crate::protocol::parse_message(&body) else { panic!() };
        assert_eq!(r.into_result().unwrap_err().code, ErrorCode::PermissionDenied);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_pipe_to_the_browser_is_widened_to_a_whole_frame_and_a_file_is_left_alone() {
        let (reader, writer) = std::io::pipe().unwrap();
        let got = widen_pipe(writer.as_fd(), PIPE_TO_BROWSER).expect("a pipe can be widened");
        // The kernel rounds up to a power of two pages; never below what was asked.
        assert!(got >= PIPE_TO_BROWSER, "{got}");
        // A whole frame now fits without a reader: the writer never waits on the browser's
        // 4 KiB reads mid-frame.
        let mut w = writer;
        let frame = vec![b'a'; PIPE_TO_BROWSER];
        w.write_all(&frame).unwrap();
        drop(w);
        let mut back = Vec::new();
        let mut r = reader;
        r.read_to_end(&mut back).unwrap();
        assert_eq!(back.len(), PIPE_TO_BROWSER);
        let file = tempfile::tempfile().unwrap();
        assert_eq!(widen_pipe(file.as_fd(), PIPE_TO_BROWSER), None);
    }

    #[test]
    fn framing_errors_from_the_browser_say_why_without_payload() {
        let why =
            browser_framing_fatal(&FrameError::TooLarge { len: u32::MAX as usize, cap: MAX_FROM_BROWSER });
        assert!(why.contains("4294967295-byte frame") && why.contains("67108864"), "{why}");
    }
}
