//! What hostile input makes the host allocate, counted by a global allocator that wraps
//! `System` and tracks the bytes live now and their peak. Each case measures the peak above
//! what was live when it started; the cases run one at a time (one lock), so other tests'
//! allocations never count.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::json;
use webext_mcp_host::protocol::codec::{FrameDecoder, FrameError, Reassembler};
use webext_mcp_host::protocol::{
    ChunkFrame, ChunkHeader, MAX_FROM_BROWSER, MAX_SOCKET_FRAME, MAX_UNFINISHED_CHUNKS, parse_envelope,
    parse_message,
};
use webext_mcp_host::router::{Out, Router};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now =
                    LIVE.fetch_add(new_size - layout.size(), Ordering::SeqCst) + new_size - layout.size();
                // A moving realloc briefly holds both blocks.
                PEAK.fetch_max(now + layout.size(), Ordering::SeqCst);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its result with the peak bytes allocated above the starting level.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst).saturating_sub(base))
}

const KB: usize = 1024;
const MB: usize = 1024 * 1024;

fn greeted_router() -> Router {
    let mut r = Router::new();
    r.client_connected(1);
    let hello = br#"{"v":1,"id":0,"method":"client.hello","params":{"protocol":1}}"#;
    r.client_frame(1, hello, Instant::now(), &mut Vec::new());
    r
}

#[test]
fn a_hostile_4_gib_header_costs_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (err, peak) = peak_of(|| {
        let mut dec = FrameDecoder::new(MAX_FROM_BROWSER);
        dec.push(&u32::MAX.to_ne_bytes());
        dec.push(&[b'x'; 1000]);
        dec.next_frame()
    });
    assert_eq!(err, Some(Err(FrameError::TooLarge { len: u32::MAX as usize, cap: MAX_FROM_BROWSER })));
    eprintln!("4 GiB header: {peak} bytes");
    assert!(peak < 16 * KB, "{peak} bytes");
}

/// Regression: a header at the cap reserved the whole 64 MiB before any body byte came.
#[test]
fn a_header_at_the_cap_without_its_body_costs_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_, peak) = peak_of(|| {
        let mut dec = FrameDecoder::new(MAX_SOCKET_FRAME);
        dec.push(&(MAX_SOCKET_FRAME as u32).to_ne_bytes());
        dec.push(b"{\"v\":1");
        assert!(dec.next_frame().is_none());
        dec
    });
    eprintln!("64 MiB header, no body: {peak} bytes");
    assert!(peak < 16 * KB, "{peak} bytes");
}

/// Regression: 10 k unfinished chunk ids of 6.6 KB held 66 MB.
#[test]
fn ten_thousand_chunk_ids_stay_within_the_cap() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let data = "x".repeat(6_600);
    let mut router = greeted_router();
    let ((), peak) = peak_of(|| {
        for i in 0..10_000 {
            let c = ChunkFrame {
                v: 1,
                chunk: ChunkHeader { id: format!("flood{i}"), seq: 0, last: false },
                data: data.clone(),
            };
            let body = serde_json::to_vec(&c).unwrap();
            router.browser_frame(&body, &mut Vec::new());
        }
    });
    let cap = MAX_UNFINISHED_CHUNKS * data.len();
    eprintln!("10 k chunk ids: peak {peak} bytes (cap {cap} bytes of data)");
    assert!(peak < 2 * cap + 64 * KB, "{peak} bytes");

    // The byte cap holds for fewer, larger payloads too.
    let (_, peak) = peak_of(|| {
        let mut r = Reassembler::with_limits(MB, 64, std::time::Duration::from_secs(30));
        let big = "y".repeat(100 * KB);
        for i in 0..1000 {
            let c = ChunkFrame {
                v: 1,
                chunk: ChunkHeader { id: format!("b{i}"), seq: 0, last: false },
                data: big.clone(),
            };
            let _ = r.push(c, Instant::now());
        }
        assert!(r.held_bytes() <= MB);
        r
    });
    eprintln!("1000 × 100 KB chunk ids under a 1 MiB cap: peak {peak} bytes");
    assert!(peak < 2 * MB + 2 * 100 * KB, "{peak} bytes");
}

#[test]
fn deeply_nested_json_is_refused_without_allocating_a_tree() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let levels = 1_000_000;
    let deep =
        format!(r#"{{"v":1,"id":1,"method":"ping","params":{}{}}}"#, "[".repeat(levels), "]".repeat(levels));
    let mut router = greeted_router();
    let (out, peak) = peak_of(|| {
        let mut out = Vec::new();
        router.client_frame(1, deep.as_bytes(), Instant::now(), &mut out);
        out
    });
    let [Out::ToClient(1, body)] = &out[..] else { panic!("{out:?}") };
    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    eprintln!("1 M levels from a client: {peak} bytes");
    assert!(peak < 16 * KB, "{peak} bytes");

    // From the browser the envelope is parsed first (no recursion, one byte per level of
    // scratch at most), then the depth check answers the caller.
    let mut router = greeted_router();
    router.client_frame(1, br#"{"v":1,"id":7,"method":"ping"}"#, Instant::now(), &mut Vec::new());
    let reply = format!(r#"{{"id":"c1:7","result":{}{}}}"#, "[".repeat(levels), "]".repeat(levels));
    let (out, peak) = peak_of(|| {
        let mut out = Vec::new();
        router.browser_frame(reply.as_bytes(), &mut out);
        out
    });
    let [Out::ToClient(1, body)] = &out[..] else { panic!("{out:?}") };
    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
    assert_eq!(v["error"]["code"], "INTERNAL");
    eprintln!("1 M levels from the browser: {peak} bytes (body {} bytes)", reply.len());
    assert!(peak < reply.len(), "{peak} bytes");
    // And the owned parse stops at serde_json's recursion limit.
    let (r, peak) = peak_of(|| parse_message(reply.as_bytes()).is_err());
    assert!(r);
    assert!(peak < 2 * reply.len(), "{peak} bytes");
}

/// Regression: a 60 MB JSON-array reply was parsed into a `Value` (about 18× its size).
#[test]
fn a_sixty_mb_reply_is_routed_for_about_its_own_size() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut router = greeted_router();
    router.client_frame(1, br#"{"v":1,"id":"big","method":"ping"}"#, Instant::now(), &mut Vec::new());
    // The scripted peer's `big` reply: a JSON array of consecutive integers.
    let reply = String::from_utf8(webext_mcp_host::peer::big_reply(&json!("c1:big"), 60_000_000)).unwrap();
    let size = reply.len();
    let (out, peak) = peak_of(|| {
        let mut out = Vec::new();
        router.browser_frame(reply.as_bytes(), &mut out);
        out
    });
    let [Out::ToClient(1, body)] = &out[..] else { panic!() };
    assert_eq!(body.len(), size - r#""c1:big""#.len() + r#""big""#.len());
    assert!(matches!(parse_envelope(body), Ok(webext_mcp_host::protocol::Envelope::Reply(_))));
    eprintln!("{} MB reply: peak {} MB", size / MB, peak / MB);
    assert!(peak < 3 * size, "{peak} bytes for a {size}-byte reply");

    // A large client request is forwarded as chunks of the spliced params (8 MB: chunking
    // walks every char, which a debug build does slowly).
    let request =
        format!(r#"{{"v":1,"id":"up","method":"ping","params":{}}}"#, json!({"pad": "z".repeat(8 * MB)}));
    let (out, peak) = peak_of(|| {
        let mut out = Vec::new();
        router.client_frame(1, request.as_bytes(), Instant::now(), &mut out);
        out
    });
    let [Out::ToBrowser { frames, .. }] = &out[..] else { panic!("{out:?}") };
    assert!(frames.len() > 7);
    eprintln!("{} MB request: peak {} MB", request.len() / MB, peak / MB);
    assert!(peak < 4 * request.len(), "{peak} bytes for a {}-byte request", request.len());
}
