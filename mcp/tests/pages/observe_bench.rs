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
use webext_mcp::browsers::Engine;
use webext_mcp_host::protocol::timeouts::MAX_TIMEOUT_MS;

use crate::common::DEADLINE;
use crate::common::helper::{HelperBrowser, Host, launch_configured};
use crate::corpus::{corpus, rust_docs};
use crate::{Agent, BOTH};

const RUNS: usize = 11;

/// Rounds of the page-load figure: RUNS, or WEBEXT_MCP_BENCH_RUNS (more rounds on a busy machine).
fn runs() -> usize {
    std::env::var("WEBEXT_MCP_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(RUNS)
}

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
pub async fn remote_browser(family: Engine) -> &'static HelperBrowser {
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
        Engine::Chromium => b.runner.open_page(url).await.unwrap().target_id,
        Engine::Gecko => {
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
    set_settings(b, page, &json!({ key: on })).await;
}

/// Writes `settings` (an object) into the helper's storage.local from its status page.
pub async fn set_settings(b: &HelperBrowser, page: &str, settings: &Value) {
    let expr =
        format!("(globalThis.browser ?? globalThis.chrome).storage.local.set({settings}).then(() => true)");
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

/// One load of the `Vec` page in a fresh agent tab: the tool's time, split at the page's own
/// navigation start and `load` event (wall clocks: the test's and the page's `timeOrigin`).
struct Load {
    total: f64,
    /// Tool call → the page's navigation start (server, helper, hook registration, commit).
    before: f64,
    /// Navigation start → the end of the page's `load` event (what the page itself took).
    page: f64,
    /// The end of `load` → the tool's result (the helper noticing, `hookNow`, unregistering).
    after: f64,
    /// CPU time the browser's processes (and the native host it runs) spent meanwhile: unlike
    /// wall time, hardly moved by other work on a shared machine.
    cpu: f64,
}

/// CPU time (user + system, ms) of `root` and every process below it, from `/proc` (Linux;
/// 0 elsewhere). A process that exits in between takes its share with it.
fn tree_cpu_ms(root: u32) -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0.0 };
    let mut procs = Vec::new();
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // "pid (comm) state ppid … utime stime …": fields after the command's closing paren.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        procs.push((pid, num(1) as u32, num(11) + num(12)));
    }
    let mut tree = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, ppid, _) in &procs {
            if tree.contains(ppid) && !tree.contains(pid) {
                tree.push(*pid);
                grew = true;
            }
        }
    }
    // /proc counts in USER_HZ ticks, 100 a second on Linux.
    procs.iter().filter(|(pid, _, _)| tree.contains(pid)).map(|(_, _, ticks)| ticks * 10.0).sum()
}

fn epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

const NAVIGATION: &str = "() => { const n = performance.getEntriesByType('navigation')[0]; return { origin: performance.timeOrigin, load: n.loadEventEnd }; }";

fn load_once(agent: &mut Agent, url: &str) -> Load {
    let tab = agent.open("about:blank");
    let browser = agent.browser.runner.pid();
    let cpu = tree_cpu_ms(browser);
    let start = epoch_ms();
    let (total, _) =
        timed(agent, "navigate_page", json!({ "tabId": tab, "url": url, "timeoutMs": MAX_TIMEOUT_MS }));
    let end = start + total;
    let cpu = tree_cpu_ms(browser) - cpu;
    let out = agent.ok("evaluate_script", json!({ "tabId": tab, "function": NAVIGATION }));
    agent.close(tab);
    let nav: Value = serde_json::from_str(out["json"].as_str().unwrap()).unwrap();
    let (origin, page) = (nav["origin"].as_f64().unwrap(), nav["load"].as_f64().unwrap());
    Load { total, before: origin - start, page, after: end - (origin + page), cpu }
}

fn median_of(loads: &[Load], part: impl Fn(&Load) -> f64) -> f64 {
    median(loads.iter().map(part).collect())
}

/// The `Vec` page loaded in turn under each of `variants` (settings written to the helper's
/// storage before the load), round by round, so machine load hits every variant alike; the
/// first round warms the cache. Prints each variant's medians with the stage split, and each
/// variant's overhead over the first.
async fn page_load(b: &'static HelperBrowser, status: &str, variants: &[(&str, Value)]) {
    let f = b.family.name();
    let url = corpus().url("/doc/std/vec/struct.Vec.html");
    let mut loads: Vec<Vec<Load>> = variants.iter().map(|_| Vec::new()).collect();
    for round in 0..=runs() {
        // Every other round backwards: no variant always follows the same one.
        let order: Vec<usize> =
            if round % 2 == 0 { (0..variants.len()).collect() } else { (0..variants.len()).rev().collect() };
        for i in order {
            let settings = &variants[i].1;
            set_settings(b, status, settings).await;
            let url = url.clone();
            let load = tokio::task::spawn_blocking(move || load_once(&mut Agent::on(b), &url)).await.unwrap();
            if round > 0 {
                loads[i].push(load);
            }
        }
    }
    set_capture(b, status, true).await;
    let base = median_of(&loads[0], |l| l.total);
    let base_cpu = median_of(&loads[0], |l| l.cpu);
    for ((name, _), l) in variants.iter().zip(&loads) {
        let total = median_of(l, |l| l.total);
        let cpu = median_of(l, |l| l.cpu);
        println!(
            "{f} Vec docs page load (navigate_page), {name}: {total:.1} ms ({:+.1} % over {}); before the navigation {:.1} ms, page to its load event {:.1} ms, after it {:.1} ms; browser CPU {cpu:.0} ms ({:+.1} %) (medians, n={}, interleaved)",
            (total - base) / base * 100.0,
            variants[0].0,
            median_of(l, |l| l.before),
            median_of(l, |l| l.page),
            median_of(l, |l| l.after),
            (cpu - base_cpu) / base_cpu * 100.0,
            l.len(),
        );
    }
}

#[tokio::test]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn observe_bench() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average before: {}", load.trim());
    // WEBEXT_MCP_BENCH_BROWSER=chromium|firefox: one browser only.
    let only = std::env::var("WEBEXT_MCP_BENCH_BROWSER").ok();
    for family in BOTH {
        if only.as_deref().is_some_and(|o| o != family.name()) {
            continue;
        }
        let b = remote_browser(family).await;
        if std::env::var("WEBEXT_MCP_BENCH_ONLY").map_or(true, |only| "list".contains(&only)) {
            tokio::task::spawn_blocking(move || lists(&mut Agent::on(b))).await.unwrap();
        }
        // WEBEXT_MCP_BENCH_ONLY=list: only the list figures (as in snapshot_bench).
        if rust_docs().is_some()
            && std::env::var("WEBEXT_MCP_BENCH_ONLY").map_or(true, |only| "Vec load".contains(&only))
        {
            let status = status_page(b).await;
            // "off" first: the others' overhead is over it.
            page_load(
                b,
                &status,
                &[("capture off", json!({ "capture": false })), ("capture on", json!({ "capture": true }))],
            )
            .await;
        } else {
            println!("no rust-docs component: no Vec page figures");
        }
        b.runner.shutdown().await;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average after: {}", load.trim());
}
