//! Bridge benchmark (not a test): client → host (the real `webext-mcp` in host mode) →
//! scripted extension on its stdio → back.
//!
//! Reports p50/p99 latency of sequential pings from one client, throughput with 10 clients
//! keeping calls in flight, and the host's RSS idle and after the load.
//!
//! Usage: `bridge_bench [path/to/webext-mcp] [total requests]` (see `scripts/bench-bridge`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use webext_mcp_host::client::Client;
use webext_mcp_host::descriptor;
use webext_mcp_host::peer::{self, Script};
use webext_mcp_host::protocol::HELPER_CHROMIUM_ID;

const CLIENTS: usize = 10;
const IN_FLIGHT_PER_CLIENT: usize = 16;
const T: Duration = Duration::from_secs(30);

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bin = args.get(1).cloned().unwrap_or_else(|| "target/release/webext-mcp".into());
    let total: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let runtime_dir = tempfile::Builder::new().prefix("wmbench").tempdir().unwrap();
    let mut child = Command::new(&bin)
        .arg(format!("chrome-extension://{HELPER_CHROMIUM_ID}/"))
        .env("WEBEXT_MCP_RUNTIME_DIR", runtime_dir.path())
        .env("WEBEXT_MCP_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
    let pid = child.id();
    let (_peer, _thread) = peer::spawn(
        Script::new("chromium", "bench"),
        child.stdout.take().unwrap(),
        child.stdin.take().unwrap(),
    );
    let until = Instant::now() + T;
    let d = loop {
        if let Some(d) = descriptor::discover(runtime_dir.path()).into_iter().find(|d| d.pid == pid) {
            break d;
        }
        assert!(Instant::now() < until, "host never wrote its descriptor");
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(300));
    let idle_rss = rss_kib(pid);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        // Latency: one client, one call at a time.
        let client = Client::connect(&d).await.unwrap();
        for _ in 0..500 {
            client.call("ping", json!({}), T).await.unwrap();
        }
        let mut samples = Vec::with_capacity(5000);
        for i in 0..5000 {
            let t0 = Instant::now();
            client.call("ping", json!({ "payload": i.to_string() }), T).await.unwrap();
            samples.push(t0.elapsed());
        }
        samples.sort();
        println!(
            "latency (1 client, sequential, {} calls): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            samples.len(),
            percentile(&samples, 0.50).as_secs_f64() * 1e3,
            percentile(&samples, 0.99).as_secs_f64() * 1e3,
            samples[samples.len() - 1].as_secs_f64() * 1e3,
        );

        // Throughput: 10 clients, each keeping calls in flight.
        let mut clients = Vec::new();
        for _ in 0..CLIENTS {
            clients.push(Arc::new(Client::connect(&d).await.unwrap()));
        }
        let per_worker = total / (CLIENTS * IN_FLIGHT_PER_CLIENT);
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for c in &clients {
            for w in 0..IN_FLIGHT_PER_CLIENT {
                let c = Arc::clone(c);
                tasks.spawn(async move {
                    let mut lat = Vec::with_capacity(per_worker);
                    for i in 0..per_worker {
                        let t0 = Instant::now();
                        let r = c.call("ping", json!({ "payload": format!("{w}-{i}") }), T).await.unwrap();
                        assert_eq!(r["payload"], format!("{w}-{i}"));
                        lat.push(t0.elapsed());
                    }
                    lat
                });
            }
        }
        let mut lat = Vec::new();
        while let Some(r) = tasks.join_next().await {
            lat.extend(r.unwrap());
        }
        let elapsed = started.elapsed();
        lat.sort();
        println!(
            "throughput ({CLIENTS} clients x {IN_FLIGHT_PER_CLIENT} in flight, {} calls): {:.0} requests/s; under load p50 {:.3} ms, p99 {:.3} ms",
            lat.len(),
            lat.len() as f64 / elapsed.as_secs_f64(),
            percentile(&lat, 0.50).as_secs_f64() * 1e3,
            percentile(&lat, 0.99).as_secs_f64() * 1e3,
        );
    });
    let fmt =
        |r: Option<u64>| r.map(|k| format!("{:.1} MB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into());
    println!("host RSS: idle {}, after load {}", fmt(idle_rss), fmt(rss_kib(pid)));
    let _ = child.kill();
    let _ = child.wait();
}
