//! Whole-output properties: determinism, counts, the wasm-facing JSON, and speed.
mod common;
use common::{frame, run};
use webext_mcp_engine::table::Options;

fn big_page(n: usize) -> String {
    let mut d = String::from("html\n  body\n    nav aria-label=Side\n      ul\n");
    for k in 0..n / 10 {
        d.push_str(&format!("        li\n          a href=/s{k}\n            \"Side {k}\"\n"));
    }
    d.push_str("    main\n");
    for k in 0..n / 10 {
        d.push_str(&format!(
            "      section class=method\n        h4\n          \"pub fn m{k}()\"\n        div\n          p\n            \"Docs for method {k} with some words\"\n          pre\n            \"let v = m{k}();\"\n"
        ));
    }
    d
}

#[test]
fn same_input_same_bytes() {
    let page = big_page(2000);
    let a = run(vec![frame(0, &[], "u", &page)], Options::default());
    let b = run(vec![frame(0, &[], "u", &page)], Options::default());
    assert_eq!(a, b);
    assert!(a.text.ends_with('\n'));
    assert_eq!(a.text.lines().count(), a.nodes);
    assert_eq!(a.text.lines().filter(|l| l.trim_start().starts_with('[')).count(), a.refs);
}

#[test]
fn empty_input_renders_nothing() {
    let out = run(Vec::new(), Options::default());
    assert_eq!((out.text.as_str(), out.nodes, out.refs, out.title.as_str()), ("", 0, 0, ""));
}

#[test]
fn ten_thousand_nodes_timing() {
    let page = big_page(10_000);
    let frames = vec![frame(0, &[], "u", &page)];
    let count: usize = frames[0].nodes.len();
    let input = webext_mcp_engine::Input { frames, options: Options::default() };
    let mut best = std::time::Duration::MAX;
    let mut out = None;
    for _ in 0..20 {
        let start = std::time::Instant::now();
        out = Some(webext_mcp_engine::render(&input).unwrap());
        best = best.min(start.elapsed());
    }
    let out = out.unwrap();
    println!(
        "{count} nodes rendered in {best:?} (best of 20; {} lines, {} bytes)",
        out.nodes,
        out.text.len()
    );
    assert!(out.collapsed >= 1);
}
