//! Bounded inputs (issue 15): what a hostile or buggy browser or client can make the host
//! hold, measured on the real host process (`VmHWM`/`VmRSS` in `/proc/<pid>/status`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::client::Client;
use webext_mcp_host::peer::Script;
use webext_mcp_host::protocol::codec::{FrameDecoder, encode_frame};
use webext_mcp_host::protocol::methods::HOST_INFO;
use webext_mcp_host::protocol::{ErrorCode, MAX_CALLS_PER_CLIENT, MAX_FROM_BROWSER, MAX_SOCKET_FRAME};

use crate::harness::{DEADLINE, Host, frame, read_frame, runtime_dir};

const T: Duration = Duration::from_secs(30);
/// For 60 MB through the scripted peer: a debug build parses and rebuilds it several times,
/// slowly on two busy cores.
const BIG_T: Duration = Duration::from_secs(120);
const MB: u64 = 1_000_000;

async fn wait_pending(c: &Client, want: u64) {
    let until = Instant::now() + DEADLINE;
    loop {
        let info = c.call(HOST_INFO, json!({}), T).await.unwrap();
        if info["pending"].as_u64() == Some(want) {
            return;
        }
        assert!(Instant::now() < until, "host never had {want} pending calls: {info}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn log_of(host: &Host) -> String {
    std::fs::read_to_string(host.runtime.join(format!("h-{}.log", host.pid()))).unwrap()
}

/// Regression: a length over `MAX_FROM_BROWSER` made the host skip that many bytes, so every
/// later frame from the browser was read from the wrong offset and every reply was lost. A
/// framing error on the browser link now ends the host, as EOF does (the helper reconnects).
#[tokio::test]
async fn a_four_gib_header_from_the_browser_ends_the_host() {
    let rt = runtime_dir();
    let mut host = Host::start(rt.path(), Script::new("chromium", "hdr"), None);
    let d = host.descriptor();
    let client = Arc::new(Client::connect(&d).await.unwrap());
    let held = {
        let c = Arc::clone(&client);
        tokio::spawn(async move { c.call("ping", json!({"payload": "hold on"}), T).await })
    };
    wait_pending(&client, 1).await;
    host.inject(&u32::MAX.to_ne_bytes());
    let e = tokio::time::timeout(DEADLINE, held).await.unwrap().unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::NotConnected, "{}", e.line());
    assert!(host.wait_exit().success());
    assert!(!d.socket.exists(), "socket left behind");
    assert!(!rt.path().join(format!("h-{}.json", d.pid)).exists(), "descriptor left behind");
    let log = log_of(&host);
    assert!(log.contains("4294967295-byte frame"), "{log}");
}

/// The smallest oversized length is as fatal as a 4 GiB one, and a header cut short by EOF
/// is logged as such.
#[test]
fn one_byte_over_the_cap_ends_the_host_and_a_cut_header_is_logged() {
    let rt = runtime_dir();
    let mut host = Host::start(rt.path(), Script::new("chromium", "cap"), None);
    host.descriptor();
    host.inject(&((MAX_FROM_BROWSER + 1) as u32).to_ne_bytes());
    assert!(host.wait_exit().success());
    assert!(log_of(&host).contains("67108865-byte frame, over the 67108864-byte limit"), "{}", log_of(&host));

    let mut host = Host::start(rt.path(), Script::new("chromium", "cut"), None);
    host.descriptor();
    host.inject(&[7, 0]);
    host.kill_peer();
    assert!(host.wait_exit().success());
    assert!(log_of(&host).contains("stdin ended inside a frame header (2 of 4 bytes)"), "{}", log_of(&host));
}

/// Regression: a 60 MB JSON array reply was parsed into a `serde_json::Value` (1.08 GB peak);
/// the host now rewrites only the id.
#[tokio::test]
async fn a_sixty_mb_reply_crosses_the_host_in_bounded_memory() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "big"), None);
    let d = host.descriptor();
    let client = Client::connect(&d).await.unwrap();
    let before = host.status_bytes("VmHWM");
    let reply = client.call("ping", json!({"payload": "big 60000000"}), BIG_T).await.unwrap();
    let items = reply.as_array().unwrap();
    assert!(items.len() > 7_000_000, "{} items", items.len());
    for (i, v) in items.iter().enumerate().step_by(99_991) {
        assert_eq!(v.as_u64(), Some(i as u64));
    }
    assert_eq!(items.last().unwrap().as_u64(), Some(items.len() as u64 - 1));
    let peak = host.status_bytes("VmHWM");
    let rss = host.status_bytes("VmRSS");
    eprintln!(
        "60 MB reply: host VmHWM {} MB (before {} MB), VmRSS after {} MB",
        peak / MB,
        before / MB,
        rss / MB
    );
    assert!(peak < 400 * MB, "host peaked at {} MB", peak / MB);
}

/// Regression: one 60 MB request from a client peaked at 1.6 GB and kept ~600 MB.
#[tokio::test]
async fn a_sixty_mb_request_crosses_the_host_in_bounded_memory() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "bigreq"), None);
    let d = host.descriptor();
    let client = Client::connect(&d).await.unwrap();
    let pad: Vec<u64> = (0..7_500_000).collect();
    let reply = client.call("ping", json!({"payload": "small", "pad": pad}), BIG_T).await.unwrap();
    assert_eq!(reply["payload"], "small");
    let peak = host.status_bytes("VmHWM");
    // Let the host settle, then see what it kept.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss = host.status_bytes("VmRSS");
    eprintln!("60 MB request: host VmHWM {} MB, VmRSS after {} MB", peak / MB, rss / MB);
    assert!(peak < 400 * MB, "host peaked at {} MB", peak / MB);
    assert!(rss < 200 * MB, "host kept {} MB", rss / MB);
}

/// Regression: 10 k chunk ids that never finish held 66 MB for the host's lifetime.
#[tokio::test]
async fn ten_thousand_unfinished_chunk_ids_are_not_kept() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "chunks"), None);
    let d = host.descriptor();
    let client = Client::connect(&d).await.unwrap();
    let before = host.status_bytes("VmRSS");
    let data = "x".repeat(6_600);
    let mut flood = Vec::new();
    for i in 0..10_000 {
        let body = json!({"v":1,"chunk":{"id":format!("flood{i}"),"seq":0,"last":false},"data":data});
        flood.extend(encode_frame(body.to_string().as_bytes(), usize::MAX >> 1).unwrap());
    }
    host.inject(&flood);
    drop(flood);
    // The host is still serving (and has read the whole flood by the time it answers).
    let pong = client.call("ping", json!({"payload": "after"}), T).await.unwrap();
    assert_eq!(pong["payload"], "after");
    let info = client.call(HOST_INFO, json!({}), T).await.unwrap();
    assert_eq!(info["unfinishedChunks"], 64, "{info}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = host.status_bytes("VmRSS");
    eprintln!("10 k chunk ids: host VmRSS {} MB before, {} MB after", before / MB, after / MB);
    assert!(after < before + 20 * MB, "host grew from {} MB to {} MB", before / MB, after / MB);
    assert!(log_of(&host).contains("unfinished chunked payloads"), "{}", log_of(&host));
}

/// One connection cannot hold more than `MAX_CALLS_PER_CLIENT` calls in flight: the excess
/// is answered `BUSY` at once.
#[tokio::test]
async fn calls_over_the_per_connection_cap_are_busy() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "busy"), None);
    let d = host.descriptor();
    let client = Arc::new(Client::connect(&d).await.unwrap());
    let extra = 20;
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..MAX_CALLS_PER_CLIENT + extra {
        let c = Arc::clone(&client);
        calls.spawn(async move {
            c.call("ping", json!({"payload": format!("hold {i}")}), Duration::from_secs(3)).await
        });
    }
    let (mut busy, mut timeout) = (0, 0);
    while let Some(r) = calls.join_next().await {
        let e = r.unwrap().unwrap_err();
        match e.code {
            ErrorCode::Busy => {
                assert!(e.hint.as_deref().is_some_and(|h| !h.is_empty()), "{}", e.line());
                busy += 1
            }
            ErrorCode::Timeout => timeout += 1,
            other => panic!("unexpected {other:?}: {}", e.line()),
        }
    }
    assert_eq!((busy, timeout), (extra, MAX_CALLS_PER_CLIENT));
    drop(host);
}

/// An oversized socket frame is answered `PAYLOAD_TOO_LARGE` and skipped as it streams by:
/// the host neither buffers it nor loses the connection.
#[test]
fn an_oversized_socket_frame_is_answered_and_skipped_unbuffered() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "over"), None);
    let d = host.descriptor();
    let mut s = UnixStream::connect(&d.socket).unwrap();
    let mut dec = FrameDecoder::new(1 << 20);
    let len = MAX_SOCKET_FRAME + 1;
    s.write_all(&(len as u32).to_ne_bytes()).unwrap();
    let e = read_frame(&mut s, &mut dec);
    assert_eq!(e["error"]["code"], "PAYLOAD_TOO_LARGE");
    let piece = vec![b' '; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(piece.len());
        s.write_all(&piece[..n]).unwrap();
        left -= n;
    }
    s.write_all(&frame(b"[]")).unwrap();
    let e = read_frame(&mut s, &mut dec);
    assert_eq!(e["error"]["code"], "INVALID_ARGUMENT", "{e}");
    let peak = host.status_bytes("VmHWM");
    eprintln!("oversized socket frame: host VmHWM {} MB", peak / MB);
    assert!(peak < 50 * MB, "host peaked at {} MB", peak / MB);
}

/// Connects to `socket` from a thread whose effective uid is 65534 while its filesystem uid
/// stays 0 (so it can still reach the root-owned 0700 runtime dir): the kernel records the
/// effective uid as the peer credential, so the host sees another user. Raw syscalls change
/// only the calling thread (glibc's wrappers would change every thread of the test binary).
fn connect_as_nobody(socket: &std::path::Path) -> UnixStream {
    let socket = socket.to_path_buf();
    std::thread::spawn(move || {
        let keep = u32::MAX; // -1: leave unchanged
        // SAFETY: plain credential syscalls on this thread; no memory is shared.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_setresuid, keep, 65534u32, keep), 0);
            libc::syscall(libc::SYS_setfsuid, 0u32);
        }
        let stream = UnixStream::connect(&socket);
        // SAFETY: as above; the saved uid 0 allows going back.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_setresuid, keep, 0u32, keep), 0);
        }
        stream.unwrap()
    })
    .join()
    .unwrap()
}

/// Regression: a peer of another uid got a bare close (a broken pipe on its first write);
/// it now reads one `PERMISSION_DENIED` frame that says why and what to do.
#[test]
fn a_refused_peer_reads_why_instead_of_a_broken_pipe() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped: needs root to connect as another uid");
        return;
    }
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "refuse"), None);
    let d = host.descriptor();
    let mut s = connect_as_nobody(&d.socket);
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut got = Vec::new();
    s.read_to_end(&mut got).unwrap();
    let mut dec = FrameDecoder::new(1 << 20);
    dec.push(&got);
    let body = dec.next_frame().expect("the refused peer got no frame").unwrap();
    assert_eq!(dec.pending_bytes(), 0);
    let e: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(e["error"]["code"], "PERMISSION_DENIED", "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("uid 65534"), "{e}");
    assert_eq!(e["error"]["hint"], "connect as the user who runs the browser");
    assert!(log_of(&host).contains("refused a connection"));
}

/// Figures, not pass/fail (`--ignored --nocapture`): ten clients each sending one 60 MB
/// request at once. Calls in flight are capped by count; bytes queued for the browser are
/// bounded by the browser queue's frame count (4096 frames of at most 1 MiB), not by bytes.
/// In a debug build the scripted peer is too slow to answer them all within 30 s.
#[tokio::test]
#[ignore = "figures: run with --ignored --nocapture"]
async fn figures_ten_concurrent_sixty_mb_requests() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "ten"), None);
    let d = host.descriptor();
    let pad: Arc<Vec<u64>> = Arc::new((0..7_500_000).collect());
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..10 {
        let client = Client::connect(&d).await.unwrap();
        let pad = Arc::clone(&pad);
        calls.spawn(async move {
            let r = client.call("ping", json!({"payload": format!("c{i}"), "pad": *pad}), T).await;
            r.map(|v| v["payload"].clone())
        });
    }
    while let Some(r) = calls.join_next().await {
        if let Err(e) = r.unwrap() {
            eprintln!("{}", e.line());
        }
    }
    eprintln!("10 × 60 MB requests at once: host VmHWM {} MB", host.status_bytes("VmHWM") / MB);
}
