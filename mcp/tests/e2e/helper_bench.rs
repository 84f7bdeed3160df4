//! Figures, not pass/fail (`--ignored --nocapture`): round trips to the helper through the
//! host socket (what the `ping` tool's `rttMs` measures), and the time from killing the host
//! to the next host's hello.

use std::time::{Duration, Instant};

use serde_json::json;
use webext_mcp::browsers::Engine;
use webext_mcp_host::client::Client;
use webext_mcp_host::protocol::methods::PING;

use crate::common::DEADLINE;
use crate::helper_support::{Host, kill, launch_with};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

async fn bench(family: Engine) {
    // No inspector on the helper's worker: measure it as it runs in a user's browser.
    let b = launch_with(family, Host::Installed, false).await;
    let d = b.wait_host("after hello", |_| true).await;
    let client = Client::connect(&d).await.unwrap();
    for _ in 0..100 {
        client.call(PING, json!({}), DEADLINE).await.unwrap();
    }
    let mut times = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let t = Instant::now();
        client.call(PING, json!({}), DEADLINE).await.unwrap();
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "{} ping (host socket → helper → back, n=1000): p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        family.name(),
        percentile(&times, 0.50),
        percentile(&times, 0.95),
        percentile(&times, 0.99),
        percentile(&times, 1.0),
    );
    drop(client);
    let mut gaps = Vec::new();
    let mut current = d;
    for _ in 0..5 {
        let t = Instant::now();
        kill(current.pid);
        let old = current.pid;
        current = b.wait_host("after the kill", |d| d.pid != old).await;
        gaps.push(t.elapsed());
        // Let the helper count the new connection as established (it does after 1 s open);
        // kills in quicker succession back off by design (up to 2 s).
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    gaps.sort();
    println!(
        "{} reconnect after a host kill (kill → next host's descriptor, n=5): median {:.0} ms, max {:.0} ms",
        family.name(),
        percentile(&gaps, 0.5),
        percentile(&gaps, 1.0),
    );
    b.runner.shutdown().await;
}

#[tokio::test]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn chromium_ping_and_reconnect_figures() {
    bench(Engine::Chromium).await;
}

#[tokio::test]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn firefox_ping_and_reconnect_figures() {
    bench(Engine::Gecko).await;
}
