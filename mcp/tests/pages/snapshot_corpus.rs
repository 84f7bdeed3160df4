//! The corpus in both browsers: the default snapshot of every synthetic page is byte for
//! byte the same in Chromium and Firefox, a strict-CSP page reads like the same page without
//! CSP, and the Rust docs come out small and useful.

use serde_json::json;
use webext_mcp::browsers::Engine;

use crate::Agent;
use crate::corpus::{SYNTHETIC, TAMPERING, corpus, rust_docs};

/// The default snapshot of `path` in a fresh tab of `family`.
fn snapshot_of(family: Engine, path: &str, extra: serde_json::Value) -> String {
    let mut agent = Agent::new(family);
    let tab = agent.open(&corpus().url(path));
    let text = agent.snapshot(tab, extra);
    agent.close(tab);
    text
}

/// The lines of `a` and `b` that differ, for failure messages.
pub fn line_diff(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = String::new();
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i).copied().unwrap_or("<none>"), lb.get(i).copied().unwrap_or("<none>"));
        if x != y {
            out.push_str(&format!("line {i}:\n  chromium: {x}\n  firefox:  {y}\n"));
        }
    }
    out
}

#[test]
fn synthetic_pages_are_byte_identical_in_both_browsers() {
    for path in SYNTHETIC {
        let chromium = snapshot_of(Engine::Chromium, path, json!({}));
        let firefox = snapshot_of(Engine::Gecko, path, json!({}));
        assert!(chromium.lines().count() > 2, "{path}: nearly empty snapshot:\n{chromium}");
        assert!(chromium == firefox, "{path} differs between browsers:\n{}", line_diff(&chromium, &firefox));
    }
}

#[test]
fn a_strict_csp_page_reads_like_the_same_page_without_csp() {
    for family in [Engine::Chromium, Engine::Gecko] {
        let strict = snapshot_of(family, "/csp.html", json!({}));
        let open = snapshot_of(family, "/no-csp.html", json!({}));
        assert_eq!(strict, open, "{}:\n{}", family.name(), line_diff(&strict, &open));
        assert!(strict.contains("script ran"), "the page's own script did not run:\n{strict}");
    }
}

#[test]
fn pages_are_walked_in_their_main_world_unless_they_tamper_with_it() {
    for family in [Engine::Chromium, Engine::Gecko] {
        let mut agent = Agent::new(family);
        let mut read = |path: &str| {
            let tab = agent.open(&corpus().url(path));
            let out = agent.ok("take_snapshot", json!({ "tabId": tab }));
            agent.close(tab);
            (out["text"].as_str().unwrap().to_owned(), out["timings"]["walkers"].clone())
        };
        let (plain, walkers) = read("/forms.html");
        assert_eq!(walkers, json!(["main"]), "{}", family.name());
        // A strict CSP governs the page's scripts, not the extension's: still the main world.
        assert_eq!(read("/csp.html").1, json!(["main"]), "{} /csp.html", family.name());
        // Open shadow roots and slotted children map back to the agent's elements too.
        assert_eq!(read("/shadow.html").1, json!(["main"]), "{} /shadow.html", family.name());
        // Same- and cross-origin frames each answer from their own main world.
        assert_eq!(read("/frames.html").1, json!(["main", "main", "main"]), "{} /frames.html", family.name());
        for (path, _) in TAMPERING {
            let (text, walkers) = read(path);
            assert_eq!(walkers, json!(["isolated"]), "{} {path}", family.name());
            assert!(text == plain, "{} {path}:\n{}", family.name(), line_diff(&plain, &text));
        }
        // Role locators render the page too: a table the engine cannot read is walked again.
        for path in ["/forms.html", "/broken-table.html"] {
            let tab = agent.open(&corpus().url(path));
            let out = agent.ok("hover", json!({ "tabId": tab, "locator": "role=textbox[name=\"Name\"]" }));
            assert_eq!(out["element"], "input#name", "{} {path}: {out}", family.name());
            agent.close(tab);
        }
    }
}

/// `id="method.<name>"` of the first `count` methods in the Vec page's main content.
fn first_methods(html: &str, count: usize) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("id=\"method.") {
        rest = &rest[i + "id=\"method.".len()..];
        let name = &rest[..rest.find('"').unwrap()];
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        if names.len() == count {
            break;
        }
    }
    names
}

#[test]
fn the_vec_docs_snapshot_is_small_and_useful() {
    let Some(docs) = rust_docs() else {
        panic!(
            "the rust-docs component is missing: scripts/setup installs it (rustup component add rust-docs)"
        );
    };
    let html = std::fs::read_to_string(docs.join("std/vec/struct.Vec.html")).unwrap();
    let methods = first_methods(&html, 10);
    assert_eq!(methods.len(), 10);
    for family in [Engine::Chromium, Engine::Gecko] {
        let mut agent = Agent::new(family);
        let tab = agent.open(&corpus().url("/doc/std/vec/struct.Vec.html"));
        let out = agent.ok("take_snapshot", json!({ "tabId": tab }));
        let text = out["text"].as_str().unwrap();
        assert!(text.len() <= 16384, "first page of {} bytes", text.len());
        assert!(out["nextCursor"].is_string(), "the Vec page fits one page?");
        assert!(
            text.lines().any(|l| l.contains("heading") && l.contains("Struct Vec")),
            "{}: no title:\n{text}",
            family.name()
        );
        for name in &methods {
            assert!(
                text.lines().any(|l| l.contains("heading") && l.contains(&format!("fn {name}"))),
                "{}: method heading `{name}` missing from the first page:\n{text}",
                family.name()
            );
        }
        assert!(
            text.lines().any(|l| l.trim_start().starts_with("… ")
                && l.contains(" more ")
                && l.contains("like these")),
            "{}: the sidebar is not collapsed:\n{text}",
            family.name()
        );
        agent.close(tab);
    }
}

/// Lines of `a` not matched in `b` (multiset difference), so one inserted line does not
/// count every following line as different.
fn unmatched_lines<'a>(a: &'a str, b: &str) -> Vec<&'a str> {
    let mut pool: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in b.lines() {
        *pool.entry(l).or_default() += 1;
    }
    a.lines()
        .filter(|l| match pool.get_mut(l) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

#[test]
fn the_rust_docs_read_the_same_in_both_browsers() {
    assert!(rust_docs().is_some(), "the rust-docs component is missing (scripts/setup installs it)");
    for path in ["/doc/std/vec/struct.Vec.html", "/doc/book/print.html"] {
        let chromium = snapshot_of(Engine::Chromium, path, json!({ "maxBytes": 50_000_000 }));
        let firefox = snapshot_of(Engine::Gecko, path, json!({ "maxBytes": 50_000_000 }));
        let only_c = unmatched_lines(&chromium, &firefox);
        let only_f = unmatched_lines(&firefox, &chromium);
        let total = chromium.lines().count().max(firefox.lines().count());
        let differing = only_c.len().max(only_f.len());
        println!("{path}: {differing} of {total} lines differ");
        assert!(
            differing * 100 <= total,
            "{path}: {differing} of {total} lines differ\nonly in chromium:\n{}\nonly in firefox:\n{}",
            only_c.iter().take(40).copied().collect::<Vec<_>>().join("\n"),
            only_f.iter().take(40).copied().collect::<Vec<_>>().join("\n"),
        );
    }
}

/// Each corpus page shows the constructs it exists for (in Chromium; the test above proves
/// Firefox identical).
#[test]
fn corpus_pages_show_their_constructs() {
    let expect: [(&str, &[&str]); 6] = [
        (
            "/forms.html",
            &[
                "textbox \"Name\" value=\"Ada\"",
                "textbox \"Email\" value=\"ada@example.test\" required",
                "textbox \"Password\" value=<redacted>",
                "checkbox \"Remember me\" checked",
                "radio \"Free\" checked",
                "slider \"Volume\" value=\"3\"",
                "textbox \"About you\" value=\"Hello there\"",
                "combobox \"Country\" value=\"Peru\"",
                "button \"Sign up\"",
                "button \"Later\" disabled",
            ],
        ),
        ("/table.html", &["columnheader \"Name\"", "cell \"Ada\"", "rowheader \"Total\""]),
        (
            "/aria.html",
            &[
                "navigation \"Main\"",
                "tab \"List\" selected",
                "switch \"Dark mode\" checked",
                "checkbox \"Select all\" checked=mixed",
                "heading \"Custom level\" level=4",
                "img \"A diagram\"",
                "Visible child",
            ],
        ),
        ("/shadow.html", &["button \"Inside open\"", "[shadow closed]", "Slotted title"]),
        ("/frames.html", &["button \"Same-origin button\"", "link \"Cross-origin link\""]),
        ("/csp.html", &["heading \"Strict page\" level=1", "button \"Act\""]),
    ];
    for (path, needles) in expect {
        let text = snapshot_of(Engine::Chromium, path, json!({}));
        for needle in needles {
            assert!(text.contains(needle), "{path}: `{needle}` missing:\n{text}");
        }
        for absent in ["Hidden button", "Invisible text", "Invisible\""] {
            assert!(!text.contains(absent), "{path}: hidden content `{absent}` shown:\n{text}");
        }
    }
    let frames = snapshot_of(Engine::Chromium, "/frames.html", json!({}));
    assert!(
        frames.lines().any(|l| l.trim_start().starts_with("[f") && l.contains("Cross-origin link")),
        "{frames}"
    );
}
