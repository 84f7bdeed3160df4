//! Diffs that re-walk only what changed (issue 28, page/patch.js), both browsers, background
//! tabs: after each kind of change the rendering of the patched table is the one a full walk
//! gives, the walk was a re-walk (`walkers: ["patch"]`), and a change a re-walk cannot follow
//! walks in full. Hostile pages: a planted reuse marker, and lying labels kept by a reused
//! subtree, get nothing past the engine's checks and the ref re-check.

use serde_json::{Value, json};

use crate::corpus::corpus;
use crate::snapshot_basics::ref_of;
use crate::{Agent, BOTH};

/// The whole snapshot of `tab` built from the table the last collection left (nothing
/// changed since, so the agent answers "unchanged"), and then the one a fresh walk gives.
fn held_and_fresh(agent: &mut Agent, tab: i64) -> (String, String) {
    let held = agent.snapshot(tab, json!({}));
    agent.ok("clear_snapshot", json!({ "tabId": tab }));
    let fresh = agent.snapshot(tab, json!({}));
    (held, fresh)
}

/// Runs `change` in the page between two diff snapshots: the second diff's result.
fn diff_after(agent: &mut Agent, tab: i64, change: &str) -> Value {
    agent.ok("take_snapshot", json!({ "tabId": tab, "diff": true }));
    let f = format!("() => {{ {change}; return 1; }}");
    agent.ok("evaluate_script", json!({ "tabId": tab, "function": f }));
    agent.ok("take_snapshot", json!({ "tabId": tab, "diff": true }))
}

/// Changes a re-walk follows, on pages with lists, forms, shadow roots and labelled widgets.
const CHANGES: [(&str, &str); 8] = [
    (
        "/big.html",
        "const b = document.createElement('button'); b.textContent = 'Prepended'; document.body.prepend(b)",
    ),
    ("/big.html", "document.querySelectorAll('li a')[1].firstChild.data = 'Renamed item'"),
    ("/big.html", "document.querySelectorAll('section')[3].hidden = true"),
    (
        "/big.html",
        "document.querySelectorAll('li')[7].remove(); document.querySelectorAll('ul')[2].append(document.querySelectorAll('li')[0])",
    ),
    (
        "/big.html",
        "document.querySelectorAll('h2')[5].setAttribute('aria-label', 'Labelled heading'); document.querySelectorAll('h2')[6].style.opacity = '0'",
    ),
    (
        "/forms.html",
        "document.querySelector('input').value = 'typed'; document.querySelector('input').dispatchEvent(new Event('input', { bubbles: true }))",
    ),
    ("/aria.html", "document.getElementById('dlg-title').textContent = 'Confirm again'"),
    (
        "/shadow.html",
        "const p = document.createElement('p'); p.textContent = 'Light text'; document.body.append(p)",
    ),
];

#[test]
fn a_diff_rewalks_only_the_change_and_renders_what_a_full_walk_renders() {
    let c = corpus();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        for (path, change) in CHANGES {
            let tab = agent.open(&c.url(path));
            let d = diff_after(&mut agent, tab, change);
            assert_eq!(d["timings"]["walkers"][0], "patch", "{f} {path} `{change}`: {d}");
            assert_eq!(d["diff"]["full"], false, "{f} {path}: {d}");
            assert!(
                d["text"].as_str().unwrap().lines().count() > 2,
                "{f} {path} `{change}`: no change shown: {d}"
            );
            let (held, fresh) = held_and_fresh(&mut agent, tab);
            assert_eq!(held, fresh, "{f} {path} `{change}`: the patched table renders differently");
            agent.close(tab);
        }
    }
}

#[test]
fn a_change_a_rewalk_cannot_follow_walks_in_full() {
    let c = corpus();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        let changes = [
            "const s = document.createElement('style'); s.textContent = 'li { display: none }'; document.head.append(s)",
            "document.body.className = 'other'",
            "document.querySelectorAll('a')[3].id = 'named'",
        ];
        for change in changes {
            let tab = agent.open(&c.url("/big.html"));
            let d = diff_after(&mut agent, tab, change);
            assert_ne!(d["timings"]["walkers"][0], "patch", "{f} `{change}`: {d}");
            let (held, fresh) = held_and_fresh(&mut agent, tab);
            assert_eq!(held, fresh, "{f} `{change}`");
            agent.close(tab);
        }
    }
}

#[test]
fn a_planted_reuse_marker_or_a_reused_lie_gets_nothing_past_the_checks() {
    crate::trust::pages();
    let appended =
        "const p = document.createElement('p'); p.textContent = 'Appended'; document.body.append(p)";
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        // A marker in the main world's answer is no tag: the engine refuses the table, the
        // agent walks; the diff after a change re-walks from the agent's table.
        let run = format!("m-{f}");
        let (tab, text) = crate::trust::open(&mut agent, "/trust/planted-marker.html", &run);
        let out = agent.ok("take_snapshot", json!({ "tabId": tab }));
        assert_eq!(out["timings"]["walkers"], json!(["isolated"]), "{f}: {out}");
        assert_eq!(text.matches("Keep my account").count(), 1, "{f}: {text}");
        let d = diff_after(&mut agent, tab, appended);
        assert_eq!(d["timings"]["walkers"], json!(["patch"]), "{f}: {d}");
        assert!(d["text"].as_str().unwrap().contains("Appended"), "{f}: {d}");
        let (held, fresh) = held_and_fresh(&mut agent, tab);
        assert_eq!(held, fresh, "{f}");
        let keep = ref_of(&held, "Keep my account");
        agent.ok("click_by_uid", json!({ "tabId": tab, "uid": keep }));
        assert!(crate::trust::hit(&corpus().main, &format!("/hit/keep?{run}")), "{f}: keep never hit");
        agent.close(tab);

        // Lying labels the engine accepted stay in a reused subtree (as in the table cache),
        // and the ref re-check still refuses the click.
        let run = format!("l-{f}");
        let (tab, _) = crate::trust::open(&mut agent, "/trust/lying-labels.html", &run);
        let d = diff_after(&mut agent, tab, appended);
        assert_eq!(d["timings"]["walkers"], json!(["patch"]), "{f}: {d}");
        let held = agent.snapshot(tab, json!({}));
        let shown_keep = ref_of(&held, "Keep my account");
        let err = agent.err("click_by_uid", json!({ "tabId": tab, "uid": shown_keep, "timeoutMs": 5000 }));
        assert_eq!(err["code"], "STALE", "{f}: {err}");
        let deleted = crate::trust::hits(&corpus().main, "/hit/delete");
        assert!(
            !deleted.iter().any(|p| p.ends_with(&run) || p.ends_with(&format!("m-{f}"))),
            "{f}: {deleted:?}"
        );
        agent.close(tab);
    }
}

/// The reading tools re-walk the same way after a change: find_by_text finds the new text,
/// get_page_text reads what a full walk reads.
#[test]
fn reading_after_a_change_rewalks_only_the_change() {
    let c = corpus();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = agent.family();
        let tab = agent.open(&c.url("/big.html"));
        // (Cold reading tools walk for text alone or scoped and hold no table: a snapshot does.)
        agent.ok("take_snapshot", json!({ "tabId": tab }));
        let change =
            "() => { document.querySelectorAll('li a')[500].firstChild.data = 'Renamed item'; return 1; }";
        agent.ok("evaluate_script", json!({ "tabId": tab, "function": change }));
        let found = agent.ok("find_by_text", json!({ "tabId": tab, "query": "renamed ITEM" }));
        assert_eq!(found["timings"]["walkers"], json!(["patch"]), "{f}: {found}");
        assert_eq!(
            (found["total"].as_u64(), found["hits"][0]["role"].as_str()),
            (Some(1), Some("link")),
            "{f}: {found}"
        );
        let held = agent.ok("get_page_text", json!({ "tabId": tab, "maxBytes": 1 << 20 }))["text"].clone();
        agent.ok("clear_snapshot", json!({ "tabId": tab }));
        let fresh = agent.ok("get_page_text", json!({ "tabId": tab, "maxBytes": 1 << 20 }));
        assert_eq!(fresh["timings"]["walkers"], json!(["text"]), "{f}");
        assert_eq!(held, fresh["text"], "{f}");
        assert!(held.as_str().unwrap().contains("\nRenamed item\n"), "{f}");
        agent.close(tab);
    }
}
