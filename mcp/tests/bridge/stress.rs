//! Many clients at once, and everything that can go away mid-flight: a client, the
//! extension, the host itself (SIGTERM), a browser that stops reading.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::client::Client;
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::peer::Script;
use webext_mcp_host::protocol::ErrorCode;
use webext_mcp_host::protocol::methods::HOST_INFO;

use crate::harness::{DEADLINE, Host, bin, runtime_dir};

const T: Duration = Duration::from_secs(30);

async fn pending_on_host(c: &Client) -> u64 {
    c.call(HOST_INFO, json!({}), T).await.unwrap()["pending"].as_u64().unwrap()
}

async fn wait_pending(c: &Client, want: u64) {
    let until = Instant::now() + DEADLINE;
    while pending_on_host(c).await != want {
        assert!(Instant::now() < until, "host never had {want} pending calls");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn ten_clients_a_thousand_requests_each_nothing_lost_or_misrouted() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "stress"), None);
    let d = host.descriptor();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..10 {
        let client = Arc::new(Client::connect(&d).await.unwrap());
        for i in 0..1000 {
            let client = Arc::clone(&client);
            tasks.spawn(async move {
                let payload = format!("client {c} request {i}");
                let reply = client.call("ping", json!({ "payload": payload }), T).await;
                (payload, reply)
            });
        }
    }
    let mut ok = 0;
    while let Some(done) = tasks.join_next().await {
        let (payload, reply) = done.unwrap();
        let reply = reply.unwrap_or_else(|e| panic!("{payload}: {}", e.line()));
        assert_eq!(reply["payload"], Value::String(payload));
        ok += 1;
    }
    assert_eq!(ok, 10_000);
    assert_eq!(host.peer.requests.load(Ordering::Relaxed), 10_000);
}

#[tokio::test]
async fn a_client_killed_mid_flight_leaves_nothing_behind() {
    let rt = runtime_dir();
    let home = tempfile::tempdir().unwrap();
    let host = Host::start(rt.path(), Script::new("chromium", "solo"), None);
    let d = host.descriptor();
    let watcher = Client::connect(&d).await.unwrap();
    // A real client process whose call is never answered, killed while it waits.
    let mut victim = std::process::Command::new(bin())
        .arg("--home")
        .arg(home.path())
        .args(["call", "ping", r#"{"payload":"hold me"}"#, "--json"])
        .env("WEBEXT_MCP_RUNTIME_DIR", rt.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_pending(&watcher, 1).await;
    victim.kill().unwrap();
    victim.wait().unwrap();
    wait_pending(&watcher, 0).await;
    let pong = watcher.call("ping", json!({"payload": "still here"}), T).await.unwrap();
    assert_eq!(pong["payload"], "still here");
}

/// Starts `n` calls that the peer never answers and waits until the host holds them.
async fn calls_in_flight(
    d: &Descriptor,
    n: u64,
) -> (Arc<Client>, tokio::task::JoinSet<Result<Value, webext_mcp_host::protocol::ErrorBody>>) {
    let client = Arc::new(Client::connect(d).await.unwrap());
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..n {
        let c = Arc::clone(&client);
        calls.spawn(async move { c.call("ping", json!({ "payload": format!("hold {i}") }), T).await });
    }
    wait_pending(&client, n).await;
    (client, calls)
}

async fn all_not_connected(
    mut calls: tokio::task::JoinSet<Result<Value, webext_mcp_host::protocol::ErrorBody>>,
    n: usize,
) {
    let mut count = 0;
    while let Some(r) = calls.join_next().await {
        let e = r.unwrap().expect_err("a call in flight must fail");
        assert_eq!(e.code, ErrorCode::NotConnected, "{}", e.line());
        count += 1;
    }
    assert_eq!(count, n);
}

/// The host's log says why it stopped.
fn assert_logged(host: &Host, d: &Descriptor, why: &str) {
    let log = std::fs::read_to_string(host.runtime.join(format!("h-{}.log", d.pid))).unwrap();
    assert!(log.contains(why), "log lacks `{why}`:\n{log}");
}

fn assert_cleaned(host: &Host, d: &Descriptor) {
    assert!(!d.socket.exists(), "socket left behind");
    assert!(!host.runtime.join(format!("h-{}.json", d.pid)).exists(), "descriptor left behind");
}

#[tokio::test]
async fn peer_killed_mid_flight_fails_every_pending_call_and_the_host_exits() {
    let rt = runtime_dir();
    let mut host = Host::start(rt.path(), Script::new("chromium", "k"), None);
    let d = host.descriptor();
    let (_client, calls) = calls_in_flight(&d, 5).await;
    host.kill_peer();
    all_not_connected(calls, 5).await;
    assert!(host.wait_exit().success());
    assert_cleaned(&host, &d);
    assert_logged(&host, &d, "stdin closed");
}

#[tokio::test]
async fn sigterm_fails_pending_calls_and_removes_socket_and_descriptor() {
    let rt = runtime_dir();
    let mut host = Host::start(rt.path(), Script::new("chromium", "t"), None);
    let d = host.descriptor();
    let (_client, calls) = calls_in_flight(&d, 3).await;
    host.signal(libc::SIGTERM);
    all_not_connected(calls, 3).await;
    host.wait_exit();
    assert_cleaned(&host, &d);
    assert_logged(&host, &d, "received SIGTERM");
}

#[tokio::test]
async fn a_browser_that_stops_reading_is_treated_as_gone() {
    let rt = runtime_dir();
    let mut host = Host::start(rt.path(), Script::new("chromium", "stuck"), None);
    let d = host.descriptor();
    host.peer.stop_reading.store(true, Ordering::Relaxed);
    let client = Arc::new(Client::connect(&d).await.unwrap());
    let mut calls = tokio::task::JoinSet::new();
    // Far more than a pipe buffer: the host's writes to the browser back up.
    for i in 0..8 {
        let c = Arc::clone(&client);
        calls.spawn(async move {
            c.call("ping", json!({ "payload": format!("{i}{}", "x".repeat(1 << 20)) }), T).await
        });
    }
    all_not_connected(calls, 8).await;
    host.wait_exit();
    assert_cleaned(&host, &d);
    assert_logged(&host, &d, "stopped reading for 5 s");
}

#[tokio::test]
async fn oversized_payloads_reach_the_peer_as_chunks_within_the_cap() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "big"), None);
    let d = host.descriptor();
    let client = Client::connect(&d).await.unwrap();
    let payload = "\"\\".repeat(1 << 20) + &"😀".repeat(300_000);
    let reply = client.call("ping", json!({ "payload": payload }), T).await.unwrap();
    assert_eq!(reply["payload"].as_str().unwrap().len(), payload.len());
    assert_eq!(reply["payload"], Value::String(payload));
    assert!(host.peer.chunks.load(Ordering::Relaxed) >= 3);
    assert!(host.peer.largest_frame.load(Ordering::Relaxed) <= 1_048_576);
}
