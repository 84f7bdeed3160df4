//! find_by_text's and read_page's scoped walks (issue 28): cold, each frame's main world walks
//! only what the answer can come from (collector.js `findScope`, `mainScope`), and the answer
//! must be exactly the one the tables of a whole walk give — hits, refs, names, text — in both
//! browsers, background tabs; a page that answers the scoped walk itself gets nothing past the
//! engine's checks.

use serde_json::{Value, json};

use crate::common::http::TestServer;
use crate::common::planted::{PLANTED, SECRETS_PAGE};
use crate::corpus::{SYNTHETIC, TAMPERING, corpus, rust_docs};
use crate::{Agent, BOTH, walkers};

/// Where the scope could go wrong: names built across hidden text, inline wrappers, labels
/// elsewhere, `aria-labelledby`, attributes, captions, cut texts, case folding beyond ASCII,
/// code blocks, svg titles, hidden and transparent text, a frame, landmarks around `main`.
const FIND_MIX: &str = r##"<!doctype html><title>Find mix</title><body>
<nav><a href="/n">Vec::push in nav</a></nav>
<main>
<h2 id="m"><a href="#m">Vec::<wbr>push</a></h2>
<p>Appends with pu<span style="display:none">HIDDEN</span>sh and more.</p>
<a href="/split">Pu<span style="display:none">x</span>sh</a>
<button>Pu<b>sh</b> it</button>
<label for="f">Push label</label> <input id="f" placeholder="type to push">
<label>Wrapped <input value="pushed value"></label>
<div aria-labelledby="l" role="button">labelled</div><span id="l">push it now</span>
<img alt="push button" src="/none.png">
<p title="push title">Titled</p>
<table><caption>Push table</caption><tr><td>pu</td><td>sh</td></tr></table>
<div aria-hidden="true"><a href="/h">push hidden</a></div>
<p style="opacity:0">push transparent</p>
<p style="visibility:hidden">push invisible <span style="visibility:visible">push visible again</span></p>
<p>CUT_TEXT push after the cut</p>
<p>Puſh folded, ΣΟΦΊΑ push</p>
<pre>let mut v = Vec::new();
v.<a href="/p">push</a>(1); // pu<span>sh</span></pre>
<svg><title>push chart</title></svg>
<ul><li>pop</li><li>push <em>front</em></li><li><a href="/x"><span>pu</span><span>sh</span></a></li></ul>
<section aria-label="Push section"><p>inside</p></section>
<details><summary>Push <code>summary</code></summary><p>Details push</p></details>
<iframe src="/child.html"></iframe>
</main>
<footer>push footer</footer>
</body>"##;

const CHILD: &str =
    "<!doctype html><title>Child</title><body><p>Child push text</p><a href=/c>push</a></body>";

/// read_page pages the scope must give up on: a label outside `main` names a control inside
/// it, a `main` that is not the main landmark, two candidates, another `main` in an open
/// shadow root (which find walks through, slots and all).
const UNSCOPED: [(&str, &str); 4] = [
    (
        "/label-outside.html",
        r#"<!doctype html><title>L</title><body><label for="q">Search push</label><main><h1>Push</h1><input id="q"></main></body>"#,
    ),
    (
        "/not-main.html",
        r#"<!doctype html><title>N</title><body><article><h1>Article push</h1></article><main role="navigation"><p>Nav push</p></main></body>"#,
    ),
    (
        "/two-mains.html",
        r#"<!doctype html><title>T</title><body><div role="main" hidden><p>Hidden push</p></div><main><h1>Real push</h1></main></body>"#,
    ),
    (
        "/shadow.html",
        r#"<!doctype html><title>S</title><body><div id="host"><span slot="s">Slotted push</span></div><main><h1>Push</h1></main>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<main>Shadow push</main><slot name="s"></slot>';</script></body>"#,
    ),
];

/// Queries and their options (`exact`, `caseSensitive`).
const QUERIES: [(&str, bool, bool); 10] = [
    ("push", false, false),
    ("Push", false, true),
    ("push", true, false),
    ("pu sh", false, false),
    ("vec::push", false, false),
    ("push it", false, false),
    ("Wrapped", false, false),
    ("puSH folded", false, false),
    ("σοφία push", false, false),
    ("Name", false, false),
];

/// `tool` on `tab` twice: cold (a scoped walk where it can), then from the tables a snapshot holds.
fn both_ways(agent: &mut Agent, tab: i64, tool: &str, args: Value) -> (Value, Value) {
    agent.ok("clear_snapshot", json!({ "tabId": tab }));
    let cold = agent.ok(tool, args.clone());
    agent.ok("take_snapshot", json!({ "tabId": tab }));
    let held = agent.ok(tool, args);
    (cold, held)
}

fn find_args(tab: i64, (query, exact, case_sensitive): (&str, bool, bool)) -> Value {
    json!({ "tabId": tab, "query": query, "exact": exact, "caseSensitive": case_sensitive, "limit": 1000 })
}

#[test]
fn the_scoped_walks_find_and_read_what_the_whole_walk_does() {
    let server = TestServer::start();
    server.page("/mix.html", &FIND_MIX.replace("CUT_TEXT", &"filler words ".repeat(40)));
    server.page("/child.html", CHILD);
    server.page("/account.html", SECRETS_PAGE);
    for (path, html) in UNSCOPED {
        server.page(path, html);
    }
    let c = corpus();
    crate::trust::pages();
    let mut urls: Vec<String> = SYNTHETIC.iter().map(|p| c.url(p)).collect();
    urls.push(c.url("/trust/injection.html"));
    urls.push(c.url("/fake-runtime.html"));
    urls.push(server.url("/mix.html"));
    urls.push(server.url("/account.html"));
    urls.extend(UNSCOPED.iter().map(|(p, _)| server.url(p)));
    if rust_docs().is_some() {
        urls.push(c.url("/doc/std/vec/struct.Vec.html"));
    }
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        for url in &urls {
            let tab = agent.open(url);
            let mut scoped = 0;
            for q in QUERIES {
                let (cold, held) = both_ways(&mut agent, tab, "find_by_text", find_args(tab, q));
                assert_eq!(cold["hits"], held["hits"], "{f} {url} {q:?}: the scoped walk found other hits");
                assert_eq!(cold["text"], held["text"], "{f} {url} {q:?}");
                assert!(walkers(&held).iter().all(|w| w != "scoped"), "{f} {url}: {}", held["timings"]);
                scoped += usize::from(walkers(&cold)[0] == "scoped");
            }
            let (cold, held) =
                both_ways(&mut agent, tab, "read_page", json!({ "tabId": tab, "maxBytes": 1 << 20 }));
            assert_eq!(cold["text"], held["text"], "{f} {url}: the scoped walk read other text");
            for (class, secret) in PLANTED {
                assert!(
                    !cold["text"].as_str().unwrap().contains(secret),
                    "{f} {url}: the {class} `{secret}` leaks"
                );
            }
            let read_walker = walkers(&cold)[0].clone();
            if url.ends_with("/mix.html") {
                // Every query scoped, the frame's too; the hits the mix page must give.
                assert_eq!(scoped, QUERIES.len(), "{f}");
                let (cold, _) = both_ways(&mut agent, tab, "find_by_text", find_args(tab, QUERIES[0]));
                assert!(walkers(&cold).iter().all(|w| w == "scoped"), "{f}: {}", cold["timings"]);
                let text = cold["text"].as_str().unwrap();
                for hit in [
                    "Vec::push",
                    "\"Push\"",
                    "Push label",
                    "push it now",
                    "Child push text",
                    "push chart",
                    "Push table",
                ] {
                    assert!(text.contains(hit), "{f}: `{hit}` not found:\n{text}");
                }
                for gone in ["push hidden", "push transparent", "push invisible", "push after the cut"] {
                    assert!(!text.contains(gone), "{f}: `{gone}` found:\n{text}");
                }
                assert_eq!(read_walker, "scoped", "{f}");
            }
            if url.ends_with("/struct.Vec.html") {
                assert_eq!((scoped, read_walker.as_str()), (QUERIES.len(), "scoped"), "{f}");
            }
            if UNSCOPED.iter().any(|(p, _)| url.ends_with(p)) {
                assert_ne!(read_walker, "scoped", "{f} {url}: read_page kept a scope it cannot");
            }
            if url.ends_with("/shadow.html") {
                // find walks through the shadow root and its slots as the whole walk does.
                assert_eq!(scoped, QUERIES.len(), "{f}");
            }
            agent.close(tab);
        }
    }
}

/// What a find says of each hit, refs aside (ids are numbered in the order a tab's walks meet
/// elements, so two tabs of the same page number them apart).
fn described(found: &Value) -> Vec<(Value, Value, Value, Value)> {
    found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["role"].clone(), h["name"].clone(), h["field"].clone(), h["context"].clone()))
        .collect()
}

/// Pages that answer for the main-world collector (corpus.rs `TAMPERING`: its hook takes the
/// scoped requests too) find and read what the plain forms page does, and what their own
/// tables give.
#[test]
fn a_page_answering_the_scoped_walk_gets_nothing_past_the_checks() {
    let c = corpus();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        let tab = agent.open(&c.url("/forms.html"));
        let (found, _) = both_ways(&mut agent, tab, "find_by_text", json!({ "tabId": tab, "query": "name" }));
        assert_eq!(walkers(&found)[0], "scoped", "{f}: {}", found["timings"]);
        assert!(found["total"].as_u64().unwrap() > 0, "{f}: {found}");
        let (read, _) = both_ways(&mut agent, tab, "read_page", json!({ "tabId": tab }));
        agent.close(tab);
        for (path, _) in TAMPERING {
            let tab = agent.open(&c.url(path));
            let (cold, held) =
                both_ways(&mut agent, tab, "find_by_text", json!({ "tabId": tab, "query": "name" }));
            assert_ne!(walkers(&cold)[0], "scoped", "{f} {path}: {}", cold["timings"]);
            assert_eq!(cold["text"], held["text"], "{f} {path}");
            assert_eq!(described(&cold), described(&found), "{f} {path}");
            let (cold_read, held_read) = both_ways(&mut agent, tab, "read_page", json!({ "tabId": tab }));
            assert_ne!(walkers(&cold_read)[0], "scoped", "{f} {path}: {}", cold_read["timings"]);
            assert_eq!(cold_read["text"], held_read["text"], "{f} {path}");
            assert_eq!(cold_read["nodes"], read["nodes"], "{f} {path}");
            agent.close(tab);
        }
    }
}
