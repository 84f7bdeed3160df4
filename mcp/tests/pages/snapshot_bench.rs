//! Figures, not pass/fail (`cargo test -p webext-mcp --test pages snapshot_bench -- --ignored
//! --nocapture`, or scripts/bench-snapshot): MCP `tools/call take_snapshot` → result on a
//! background tab, medians, for the Rust `Vec` docs page, `book/print.html`, and synthetic
//! pages of 1k / 10k / 100k nodes; plus an interactive-only walk of the whole Vec page through
//! the cursor.

use std::time::Instant;

use serde_json::json;
use webext_mcp::browsers::Engine;

use crate::Agent;
use crate::corpus::{corpus, rust_docs};

const RUNS: usize = 11;

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(|a, b| a.total_cmp(b));
    ms[ms.len() / 2]
}

/// The stages the helper reports in `timings`, in the order they happen.
const STAGES: [&str; 9] =
    ["prepMs", "walkMs", "mapMs", "jsonMs", "transferMs", "collectMs", "engineMs", "pageMs", "helperMs"];

/// The medians of the helper's own timings over `outs` (tool results), and where the last
/// one's frames were walked.
fn stage_medians(outs: &[serde_json::Value]) -> String {
    let walkers = outs.last().map(|o| o["timings"]["walkers"].to_string()).unwrap_or_default();
    STAGES
        .iter()
        .map(|stage| {
            let ms = outs.iter().map(|o| o["timings"][stage].as_f64().unwrap_or(f64::NAN)).collect();
            format!("{} {:.0}", stage.trim_end_matches("Ms"), median(ms))
        })
        .collect::<Vec<_>>()
        .join(", ")
        + &format!("; walked in {walkers}")
}

/// Median ms of `RUNS` default snapshots of `path` (after one warm-up), with the size of the
/// first page and of the whole rendering, and the medians of the helper's own timings.
fn measure(agent: &mut Agent, path: &str) -> (f64, usize, u64, String) {
    let tab = agent.open(&corpus().url(path));
    let first = agent.ok("take_snapshot", json!({ "tabId": tab }));
    let mut times = Vec::new();
    let mut outs = Vec::new();
    for _ in 0..RUNS {
        // clear_snapshot drops the cached tables: every run collects the page again.
        agent.ok("clear_snapshot", json!({ "tabId": tab }));
        let t = Instant::now();
        let out = agent.ok("take_snapshot", json!({ "tabId": tab }));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        outs.push(out);
    }
    let inside = stage_medians(&outs);
    agent.close(tab);
    let page = first["text"].as_str().map(str::len).unwrap_or(0);
    (median(times), page, first["totalBytes"].as_u64().unwrap_or(0), inside)
}

/// Issue 28's figures on one page: get_page_text, read_page and find_by_text (first page,
/// tables collected again each run), and a diff after a one-element change (median ms, bytes).
fn reading_figures(agent: &mut Agent, path: &str) -> Vec<(&'static str, f64, usize, String)> {
    let tab = agent.open(&corpus().url(path));
    let mut out = Vec::new();
    let calls: [(&'static str, &str, serde_json::Value); 3] = [
        ("get_page_text first page", "get_page_text", json!({ "tabId": tab })),
        ("read_page first page", "read_page", json!({ "tabId": tab })),
        ("find_by_text \"push\"", "find_by_text", json!({ "tabId": tab, "query": "push" })),
    ];
    for (label, tool, args) in calls {
        let mut times = Vec::new();
        let mut outs = Vec::new();
        for _ in 0..RUNS {
            agent.ok("clear_snapshot", json!({ "tabId": tab }));
            let t = Instant::now();
            outs.push(agent.ok(tool, args.clone()));
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let bytes = outs.last().and_then(|r| r["text"].as_str()).map_or(0, str::len);
        out.push((label, median(times), bytes, stage_medians(&outs)));
    }
    // A diff after one element changed: the baseline, then one change per run.
    agent.ok("take_snapshot", json!({ "tabId": tab, "diff": true }));
    let mut times = Vec::new();
    let mut outs = Vec::new();
    for k in 0..RUNS {
        let f = format!(
            "() => {{ const b = document.createElement('button'); b.textContent = 'Bench {k}'; document.querySelector('main').prepend(b); return 1; }}"
        );
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": f }));
        let t = Instant::now();
        outs.push(agent.ok("take_snapshot", json!({ "tabId": tab, "diff": true })));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let bytes = outs.last().and_then(|r| r["text"].as_str()).map_or(0, str::len);
    out.push(("take_snapshot diff after a one-element change", median(times), bytes, stage_medians(&outs)));
    agent.close(tab);
    out
}

fn walk_interactive(agent: &mut Agent, path: &str) -> (f64, usize) {
    let tab = agent.open(&corpus().url(path));
    agent.ok("take_snapshot", json!({ "tabId": tab, "interactiveOnly": true }));
    let mut times = Vec::new();
    let mut pages = 0;
    for _ in 0..RUNS {
        agent.ok("clear_snapshot", json!({ "tabId": tab }));
        let t = Instant::now();
        let mut out = agent.ok("take_snapshot", json!({ "tabId": tab, "interactiveOnly": true }));
        pages = 1;
        while let Some(c) = out["nextCursor"].as_str().map(str::to_owned) {
            out = agent.ok("take_snapshot", json!({ "tabId": tab, "cursor": c }));
            pages += 1;
        }
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    agent.close(tab);
    (median(times), pages)
}

/// `click_by_uid` on a static form (a checkbox), tools/call → settled result, n = 50.
fn click_figures(agent: &mut Agent) -> (f64, f64) {
    let tab = agent.open(&corpus().url("/login.html"));
    let snap = agent.snapshot(tab, json!({}));
    let line = snap.lines().find(|l| l.contains("button \"Sign in\"")).unwrap();
    let uid = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
    // The button submits the form: click the field instead, which changes nothing.
    let field = snap.lines().find(|l| l.contains("\"User name\"")).unwrap();
    let field = &field[field.find('[').unwrap() + 1..field.find(']').unwrap()];
    let _ = uid;
    for _ in 0..5 {
        agent.ok("click_by_uid", json!({ "tabId": tab, "uid": field }));
    }
    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        agent.ok("click_by_uid", json!({ "tabId": tab, "uid": field }));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    agent.close(tab);
    times.sort_by(|a, b| a.total_cmp(b));
    (times[times.len() / 2], times[times.len() * 95 / 100])
}

/// `WEBEXT_MCP_BENCH_ONLY=<substring>` limits the benchmark to the figures whose name
/// contains it (`Vec`, `print`, `click`, `interactive`, …), for quick comparisons.
fn wanted(name: &str) -> bool {
    std::env::var("WEBEXT_MCP_BENCH_ONLY").map_or(true, |only| name.contains(&only))
}

fn bench(family: Engine) {
    let mut agent = Agent::new(family);
    if wanted("click_by_uid") {
        let (p50, p95) = click_figures(&mut agent);
        println!(
            "{} click_by_uid on a static form (tools/call → settled result, n=50): p50 {p50:.1} ms, p95 {p95:.1} ms",
            family.name()
        );
    }
    let mut paths = vec!["/big-1000.html", "/big.html", "/big-100000.html"];
    if rust_docs().is_some() {
        paths.insert(0, "/doc/book/print.html");
        paths.insert(0, "/doc/std/vec/struct.Vec.html");
    }
    for path in paths.into_iter().filter(|p| wanted(p)) {
        let (ms, page, total, inside) = measure(&mut agent, path);
        println!(
            "{} take_snapshot {path}: median {ms:.1} ms (n={RUNS}; helper ms: {inside}), first page {page} B, whole {total} B",
            family.name(),
        );
    }
    if rust_docs().is_some() && wanted("read") {
        for (label, ms, bytes, inside) in reading_figures(&mut agent, "/doc/std/vec/struct.Vec.html") {
            println!(
                "{} {label} on the Vec page: median {ms:.1} ms (n={RUNS}; helper ms: {inside}), {bytes} B",
                family.name()
            );
        }
    }
    if rust_docs().is_some() && wanted("interactive") {
        let (ms, pages) = walk_interactive(&mut agent, "/doc/std/vec/struct.Vec.html");
        println!(
            "{} interactive-only walk of the Vec page through the cursor: median {ms:.1} ms ({pages} pages)",
            family.name()
        );
    }
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn snapshot_bench_chromium() {
    bench(Engine::Chromium);
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture"]
fn snapshot_bench_firefox() {
    bench(Engine::Gecko);
}

/// A profiling aid, not a test: saves the engine input of the Vec page (walked by the
/// collector's own code, run from `evaluate_script`, element ids standing for themselves) to
/// `$WEBEXT_MCP_DUMP_INPUT` for `cargo run --release -p webext-mcp-engine --example profile`.
#[test]
#[ignore = "profiling aid: WEBEXT_MCP_DUMP_INPUT=/tmp/vec.json … -- --ignored dump_vec_input"]
fn dump_vec_input() {
    let (Ok(path), Some(_)) = (std::env::var("WEBEXT_MCP_DUMP_INPUT"), rust_docs()) else {
        return;
    };
    let mut agent = Agent::new(Engine::Chromium);
    let tab = agent.open(&corpus().url("/doc/std/vec/struct.Vec.html"));
    let collector =
        include_str!("../../../extension/src/page/collector.js").replace("export function", "function");
    let f = format!(
        "() => {{ {collector}; installCollector('dump'); let out = ''; \
         document.addEventListener('dump:webext-mcp-table-5:table', (e) => {{ out = e.detail; }}); \
         document.dispatchEvent(new CustomEvent('dump:webext-mcp-table-5:all')); \
         return out.slice(out.indexOf('\\n') + 1); }}"
    );
    let mut out = agent.ok("evaluate_script", json!({ "tabId": tab, "function": f, "maxBytes": 1 << 20 }));
    let mut all = out["json"].as_str().unwrap_or_default().to_owned();
    while let Some(c) = out["nextCursor"].as_str().map(str::to_owned) {
        out = agent.ok("evaluate_script", json!({ "tabId": tab, "cursor": c, "maxBytes": 1 << 20 }));
        all.push_str(out["json"].as_str().unwrap_or_default());
    }
    let nodes: String = serde_json::from_str(&all).unwrap();
    std::fs::write(&path, format!("{{\"frames\":[{{\"nodes\":{nodes}}}],\"options\":{{}}}}")).unwrap();
    agent.close(tab);
}
