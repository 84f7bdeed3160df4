//! Figures for issue 30, not pass/fail (`cargo test -p webext-mcp --test pages observe_bench
//! -- --ignored --nocapture`): MCP `tools/call` → result medians on background tabs of
//! - `list_console_messages` and `list_network_requests` default calls on a tab holding 1000
//!   entries;
//! - loading the Rust `Vec` docs page (`navigate_page`, which waits for the load) with capture
//!   on and off (the status page's `capture` setting), interleaved run by run.
//!
//! A browser of its own with remote control, so the test can flip the setting on the
//! helper's status page.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp::runner::Family;
use webext_mcp_host::protocol::timeouts::MAX_TIMEOUT_MS;

use crate::common::DEADLINE;
use crate::common::helper::{HelperBrowser, Host, launch_configured};
use crate::corpus::{corpus, rust_docs};
use crate::{Agent, BOTH};

const RUNS: usize = 11;

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(|a, b| a.total_cmp(b));
    ms[ms.len() / 2]
}

fn timed(agent: &mut Agent, tool: &str, args: Value) -> (f64, Value) {
    let t = Instant::now();
    let out = agent.ok(tool, args);
    (t.elapsed().as_secs_f64() * 1000.0, out)
}

/// A helper browser with remote control (the status page is reachable), leaked: it lives
/// until the binary exits.
pub async fn remote_browser(family: Family) -> &'static HelperBrowser {
    let b = launch_configured(family, Host::Installed, |o| o.remote_control = true).await;
    b.wait_host("connected", |_| true).await;
    let mut dirs = vec![b.dirs.path().to_owned(), b.runtime_dir.path().to_owned()];
    dirs.extend(b.runner.home_dir().parent().map(Into::into));
    crate::common::at_exit::clean_at_exit(b.runner.pid(), dirs);
    Box::leak(Box::new(b))
}

/// A tab showing `url` that the agent did not open: a new one over CDP in Chromium; in
/// Firefox the browser's first tab, navigated over Marionette (the only tab it can reach).
pub async fn user_tab(b: &HelperBrowser, url: &str) -> String {
    match b.family {
        Family::Chromium => b.runner.open_page(url).await.unwrap().target_id,
        Family::Gecko => {
            let handle = b.runner.pages().await.unwrap().remove(0).target_id;
            b.runner.navigate_page(&handle, url).await.unwrap();
            handle
        }
    }
}

/// The helper's status page in a [`user_tab`]; its target id.
pub async fn status_page(b: &HelperBrowser) -> String {
    let url = format!("{}status.html", b.runner.extensions()[0].base_url);
    let page = user_tab(b, &url).await;
    let deadline = Instant::now() + DEADLINE;
    loop {
        let ready = b
            .runner
            .evaluate_in_page(
                &page,
                "location.pathname === '/status.html' && !!document.getElementById('capture')",
                DEADLINE,
            )
            .await;
        if matches!(ready, Ok(v) if v == json!(true)) {
            return page;
        }
        assert!(Instant::now() < deadline, "the status page did not load");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Sets the helper's `capture` setting from its status page.
pub async fn set_capture(b: &HelperBrowser, page: &str, on: bool) {
    set_setting(b, page, "capture", on).await;
}

/// Sets one of the helper's settings (storage.local) from its status page.
pub async fn set_setting(b: &HelperBrowser, page: &str, key: &str, on: bool) {
    let expr = format!(
        "(globalThis.browser ?? globalThis.chrome).storage.local.set({{ {key}: {on} }}).then(() => true)"
    );
    let v = b.runner.evaluate_in_page(page, &expr, DEADLINE).await.unwrap();
    assert_eq!(v, json!(true));
    // storage.onChanged reaches the background within a turn or two.
    tokio::time::sleep(Duration::from_millis(100)).await;
}

fn lists(agent: &mut Agent) {
    let f = agent.family();
    let tab = agent.open(&corpus().url("/forms.html"));
    agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => { for (let i = 0; i < 1000; i++) console.log('bench line ' + i + ' with a little text to make it typical'); return 1; }" }),
    );
    agent.ok("evaluate_script", json!({ "tabId": tab, "function": "async () => { for (let i = 0; i < 1000; i++) await fetch('/forms.html?i=' + i).then((r) => r.text()); return 1; }", "timeoutMs": MAX_TIMEOUT_MS }));
    let deadline = Instant::now() + DEADLINE;
    while agent.ok("list_console_messages", json!({ "tabId": tab }))["total"].as_u64() < Some(1000) {
        assert!(Instant::now() < deadline, "{f}: the console never held 1000 entries");
        std::thread::sleep(Duration::from_millis(100));
    }
    for tool in ["list_console_messages", "list_network_requests"] {
        let mut times = Vec::new();
        let mut total = 0;
        let mut bytes = 0;
        for _ in 0..RUNS {
            let (ms, out) = timed(agent, tool, json!({ "tabId": tab }));
            times.push(ms);
            total = out["total"].as_u64().unwrap_or(0);
            bytes = out.to_string().len();
        }
        // The same call answering nothing new (since = lastSeq): the fixed cost of a call.
        let last = agent.ok(tool, json!({ "tabId": tab }))["lastSeq"].clone();
        let empty: Vec<f64> =
            (0..RUNS).map(|_| timed(agent, tool, json!({ "tabId": tab, "since": last })).0).collect();
        println!(
            "{f} {tool} default call, tab holding {total} entries: median {:.1} ms (n={RUNS}), {bytes} B structured; an empty answer {:.1} ms",
            median(times),
            median(empty)
        );
    }
    agent.close(tab);
}

async fn page_load(b: &'static HelperBrowser, status: &str) {
    let f = b.family.name();
    let url = corpus().url("/doc/std/vec/struct.Vec.html");
    let mut on = Vec::new();
    let mut off = Vec::new();
    for run in 0..(2 * RUNS + 2) {
        let capture = run % 2 == 0;
        set_capture(b, status, capture).await;
        let url = url.clone();
        let ms = tokio::task::spawn_blocking(move || {
            let mut agent = Agent::on(b);
            let tab = agent.open("about:blank");
            let (ms, _) = timed(
                &mut agent,
                "navigate_page",
                json!({ "tabId": tab, "url": url, "timeoutMs": MAX_TIMEOUT_MS }),
            );
            agent.close(tab);
            ms
        })
        .await
        .unwrap();
        // The first pair warms the cache.
        if run >= 2 {
            if capture { on.push(ms) } else { off.push(ms) }
        }
    }
    set_capture(b, status, true).await;
    let (on, off) = (median(on), median(off));
    println!(
        "{f} Vec docs page load (navigate_page): capture on {on:.1} ms, off {off:.1} ms (medians, n={RUNS} each, interleaved): overhead {:+.1} %",
        (on - off) / off * 100.0
    );
}

#[tokio::test]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn observe_bench() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average before: {}", load.trim());
    for family in BOTH {
        let b = remote_browser(family).await;
        if std::env::var("WEBEXT_MCP_BENCH_ONLY").map_or(true, |only| "list".contains(&only)) {
            tokio::task::spawn_blocking(move || lists(&mut Agent::on(b))).await.unwrap();
        }
        // WEBEXT_MCP_BENCH_ONLY=list: only the list figures (as in snapshot_bench).
        if rust_docs().is_some()
            && std::env::var("WEBEXT_MCP_BENCH_ONLY").map_or(true, |only| "Vec load".contains(&only))
        {
            let status = status_page(b).await;
            page_load(b, &status).await;
        } else {
            println!("no rust-docs component: no Vec page figures");
        }
        b.runner.shutdown().await;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average after: {}", load.trim());
}
