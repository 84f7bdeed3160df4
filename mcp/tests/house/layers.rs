//! The folders of `mcp/src` import each other top-down: no circle (architecture.md, "The
//! crates and what each may import"). A node is a top folder or file of `mcp/src`
//! (`build`, `session`, `text.rs` → `text`), and each toolset folder of `tools/` on its own;
//! an edge is a `crate::<module>` path in code that is not a test.

use std::collections::{BTreeMap, BTreeSet};

use crate::sources;

/// The node a file of `mcp/src` belongs to, from its path below `mcp/src/`.
fn node_of(rel: &str) -> Option<String> {
    let rel = rel.strip_suffix(".rs")?;
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["lib"] | ["main"] => None,
        ["tools", set, _, ..] => Some(format!("tools/{set}")),
        [top, ..] => Some(top.trim_end_matches("/mod").to_owned()),
        [] => None,
    }
}

/// The code of a file that is not a test: up to its first `#[cfg(test)]`, comment lines out.
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The nodes `code` names through `crate::…` paths.
fn named(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let first = ident(rest);
        if first.is_empty() {
            continue;
        }
        let after = &rest[first.len()..];
        match after.strip_prefix("::") {
            Some(more) if first == "tools" => {
                // `crate::tools::{Ctx, …}` are the registry's names, re-exported.
                let second = ident(more);
                let module = second.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && more[second.len()..].starts_with("::");
                out.insert(if module { format!("tools/{second}") } else { "tools/registry".to_owned() });
            }
            None if first == "tools" && after.starts_with("::{") => {
                out.insert("tools/registry".to_owned());
            }
            _ => {
                out.insert(first);
            }
        }
    }
    out
}

/// The edges of the house: from → to → the files that make the edge.
fn edges() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (path, _, text) in sources() {
        let Some(rel) = path.strip_prefix("mcp/src/") else { continue };
        // Test-only modules: `tests.rs`, the session fakes, the tools' cross-layer checks.
        let test_only = ["/tests.rs", "/fakes.rs", "tools/checks.rs"].iter().any(|t| rel.ends_with(t));
        if test_only || rel.contains("/tests/") {
            continue;
        }
        let Some(from) = node_of(rel) else { continue };
        for to in named(&code_of(&text)) {
            let same_top = to.split('/').next() == from.split('/').next();
            if to == from || (same_top && !from.starts_with("tools")) {
                continue;
            }
            out.entry(from.clone()).or_default().entry(to).or_default().insert(rel.to_owned());
        }
    }
    out
}

/// A circle through the graph, if there is one, as its nodes in order.
fn circle(edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_owned());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_owned());
        for next in edges.get(n).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_folders_of_mcp_src_import_each_other_without_a_circle() {
    let edges = edges();
    assert!(edges.len() > 15, "read only {} importing folders", edges.len());
    assert!(edges["tools/input"].contains_key("bridge"), "the scan misses plain imports: {edges:?}");
    if let Some(c) = circle(&edges) {
        let why: Vec<String> =
            c.windows(2).map(|w| format!("{} -> {} ({:?})", w[0], w[1], edges[&w[0]][&w[1]])).collect();
        panic!("a circle across folders: {}\n  {}", c.join(" -> "), why.join("\n  "));
    }
    // Nothing below the tools reaches up into them.
    for (from, to) in &edges {
        let up: Vec<&String> = to.keys().filter(|t| t.starts_with("tools")).collect();
        let above = ["cli", "server", "resources"].contains(&from.as_str()) || from.starts_with("tools");
        assert!(above || up.is_empty(), "{from} imports {up:?}: nothing below tools/ may");
    }
}

#[test]
fn a_circle_is_found_and_named() {
    let mut e: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (a, b) in [("build", "validation"), ("validation", "catalog"), ("catalog", "build"), ("cli", "build")]
    {
        e.entry(a.into()).or_default().entry(b.into()).or_default().insert(format!("{a}.rs"));
    }
    let c = circle(&e).unwrap();
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4, "{c:?}");
    e.get_mut("catalog").unwrap().clear();
    assert_eq!(circle(&e), None);
    assert_eq!(
        named("use crate::tools::input::upload; crate::text::counted(1)"),
        ["text", "tools/input"].map(String::from).into()
    );
    assert_eq!(node_of("tools/pages/tabs.rs").as_deref(), Some("tools/pages"));
    assert_eq!(node_of("session/control/mod.rs").as_deref(), Some("session"));
    assert_eq!(node_of("text.rs").as_deref(), Some("text"));
}
