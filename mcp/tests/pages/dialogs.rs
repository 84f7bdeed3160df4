//! Dialogs never wedge a call, and a crashed tab says so (issue 18). Agent tabs (new_page)
//! carry the hook: `confirm` is dismissed unless accept_dialog armed it, and the result lists
//! the dialog. A tab whose dialog is native (here: a fresh iframe's own confirm, which the hook
//! cannot cover; a tab the agent did not open is the same) answers BLOCKED within the call's own timeoutMs + 1 s, while other tabs work.

use std::time::{Duration, Instant};

use serde_json::json;
use webext_mcp::browsers::Engine;

use crate::common::http::TestServer;
use crate::{Agent, BOTH};

const DIALOGS: &str = r#"<!doctype html><title>Dialogs</title><body>
<button id="c" onclick="document.getElementById('o').textContent = 'confirm ' + confirm('Delete the report?')">Delete</button>
<button id="p" onclick="document.getElementById('o').textContent = 'prompt ' + prompt('Your name?', 'anon')">Name</button>
<button id="a" onclick="alert('Saved!'); document.getElementById('o').textContent = 'alerted'">Save</button>
<p id="o">none</p></body>"#;

fn server() -> TestServer {
    let s = TestServer::start();
    s.page("/dialogs.html", DIALOGS);
    s.page("/plain.html", "<!doctype html><title>Plain</title><body><p>plain page</p></body>");
    // A native confirm the hook does not cover: a fresh iframe's own `confirm`, called at
    // once (the documented way round the hook; a dialog opened before the hook is the same).
    s.page(
        "/native.html",
        r#"<!doctype html><title>Native</title><body><p>native</p><script>setTimeout(() => { const f = document.createElement('iframe'); document.body.appendChild(f); f.contentWindow.confirm('Native question?'); }, 300)</script></body>"#,
    );
    s
}

fn output(agent: &mut Agent, tab: i64) -> String {
    let out = agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => document.getElementById('o').textContent" }),
    );
    serde_json::from_str::<String>(out["json"].as_str().unwrap()).unwrap()
}

#[test]
fn agent_tabs_answer_dialogs_by_policy_and_report_them_in_background_tabs() {
    let server = server();
    for family in BOTH {
        answers_by_policy(&mut Agent::new(family), &server.url("/dialogs.html"), false);
    }
}

/// The same in a foreground tab: a browser of its own, so no other test's active tab changes.
#[test]
fn agent_tabs_answer_dialogs_by_policy_and_report_them_in_foreground_tabs() {
    let server = server();
    for family in BOTH {
        answers_by_policy(&mut Agent::on(own_browser(family)), &server.url("/dialogs.html"), true);
    }
}

/// A helper browser for one test, closed when the test binary exits.
pub fn own_browser(family: Engine) -> &'static crate::common::helper::HelperBrowser {
    let rt = Box::leak(Box::new(tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()));
    let browser = rt.block_on(async {
        let b = crate::common::helper::launch(family, crate::common::helper::Host::Installed).await;
        b.wait_host("connected", |_| true).await;
        b
    });
    let mut dirs = vec![browser.dirs.path().to_owned(), browser.runtime_dir.path().to_owned()];
    dirs.extend(browser.runner.home_dir().parent().map(Into::into));
    crate::common::at_exit::clean_at_exit(browser.runner.pid(), dirs);
    Box::leak(Box::new(browser))
}

fn answers_by_policy(agent: &mut Agent, url: &str, active: bool) {
    let f = agent.family();
    let tab = agent.ok("new_page", json!({ "url": url, "active": active }))["tab"]["tabId"].as_i64().unwrap();
    // Unarmed: dismissed at once, and the click's result says so.
    let r = agent.call("click", json!({ "tabId": tab, "locator": "#c", "timeoutMs": 5000 }));
    assert_ne!(r["isError"], json!(true), "{f} active={active}: {r}");
    let dialogs = &r["structuredContent"]["dialogs"];
    assert_eq!(dialogs[0]["type"], "confirm", "{f}: {r}");
    assert_eq!(dialogs[0]["message"], "Delete the report?", "{f}: {r}");
    assert_eq!(dialogs[0]["answered"], "dismissed", "{f}: {r}");
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("confirm \"Delete the report?\" → dismissed"),
        "{r}"
    );
    assert_eq!(output(agent, tab), "confirm false", "{f}");
    // Armed: accepted once, then back to dismissing.
    let armed = agent.ok("accept_dialog", json!({ "tabId": tab }));
    assert_eq!(armed["armed"]["action"], "accept", "{f}: {armed}");
    let out = agent.ok("click", json!({ "tabId": tab, "locator": "#c" }));
    assert_eq!(out["dialogs"][0]["answered"], "accepted", "{f}: {out}");
    assert_eq!(output(agent, tab), "confirm true", "{f}");
    let out = agent.ok("click", json!({ "tabId": tab, "locator": "#c" }));
    assert_eq!(out["dialogs"][0]["answered"], "dismissed", "{f}: {out}");
    // A prompt takes promptText; dismiss_dialog answers null.
    agent.ok("accept_dialog", json!({ "tabId": tab, "promptText": "Ada" }));
    let out = agent.ok("click", json!({ "tabId": tab, "locator": "#p" }));
    assert_eq!(out["dialogs"][0]["type"], "prompt", "{f}: {out}");
    assert_eq!(output(agent, tab), "prompt Ada", "{f}");
    agent.ok("dismiss_dialog", json!({ "tabId": tab }));
    agent.ok("click", json!({ "tabId": tab, "locator": "#p" }));
    assert_eq!(output(agent, tab), "prompt null", "{f}");
    // alert from evaluate_script: reported, never blocking.
    let out = agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => { alert('From script'); return 1; }" }),
    );
    assert_eq!(out["dialogs"][0]["type"], "alert", "{f}: {out}");
    assert_eq!(out["dialogs"][0]["message"], "From script", "{f}: {out}");
    // A dialog the page opens by itself while the agent only reads is not lost: reads leave
    // the records (a snapshot's walk opens none), the next action reports them.
    agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => { setTimeout(() => alert('On its own'), 200); return 1; }" }),
    );
    // Background tabs clamp page timers to 1 s.
    std::thread::sleep(Duration::from_millis(2000));
    let read = agent.ok("take_snapshot", json!({ "tabId": tab }));
    assert!(read.get("dialogs").is_none(), "{f}: a read reports no dialogs: {read}");
    let out = agent.ok("click", json!({ "tabId": tab, "locator": "#a" }));
    let messages: Vec<&str> =
        out["dialogs"].as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(messages, ["On its own", "Saved!"], "{f}: {out}");
    // A navigation keeps the hook (the next document gets it too).
    agent.ok("navigate_page", json!({ "tabId": tab, "url": url }));
    let out = agent.ok("click", json!({ "tabId": tab, "locator": "#a" }));
    assert_eq!(out["dialogs"][0]["message"], "Saved!", "{f}: {out}");
    agent.close(tab);
}

#[test]
fn a_native_dialog_is_blocked_within_the_timeout_and_other_tabs_keep_working() {
    let server = server();
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let other = agent.open(&server.url("/plain.html"));
        let native = agent.open(&server.url("/native.html"));
        // Page timers of background tabs are clamped to 1 s: give the confirm time to open.
        std::thread::sleep(Duration::from_millis(2500));
        for (tool, args) in [
            ("evaluate_script", json!({ "tabId": native, "function": "() => 1", "timeoutMs": 3000 })),
            ("click", json!({ "tabId": native, "locator": "p", "timeoutMs": 3000 })),
            ("take_snapshot", json!({ "tabId": native, "timeoutMs": 3000 })),
        ] {
            let started = Instant::now();
            let err = agent.err(tool, args.clone());
            let took = started.elapsed();
            assert_eq!(err["code"], "BLOCKED", "{f}: {tool}: {err}");
            assert!(err["message"].as_str().unwrap().contains("dialog"), "{f}: {err}");
            assert!(err["hint"].as_str().unwrap().contains("only the user"), "{f}: {err}");
            assert!(took < Duration::from_millis(4000), "{f}: {tool} took {took:?}");
            // Other tabs are not affected.
            let title =
                agent.ok("evaluate_script", json!({ "tabId": other, "function": "() => document.title" }));
            assert_eq!(title["json"], "\"Plain\"", "{f}");
        }
        // Nothing but the user can answer it: accept_dialog says BLOCKED too.
        let err = agent.err("accept_dialog", json!({ "tabId": native }));
        assert_eq!(err["code"], "BLOCKED", "{f}: {err}");
        agent.close(native);
        agent.close(other);
    }
}

/// The hook is in before the page's own scripts: a confirm in the first inline script of an
/// agent tab is answered (dismissed) and the load completes.
#[test]
fn a_dialog_raised_while_the_page_loads_is_answered_by_the_hook() {
    let server = TestServer::start();
    server.page(
        "/early.html",
        r#"<!doctype html><html><head><script>window.early = confirm('Leave early?');</script><title>Early</title></head><body>early</body></html>"#,
    );
    for family in BOTH {
        let mut agent = Agent::new(family);
        let f = family.name();
        let opened = agent.ok("new_page", json!({ "url": server.url("/early.html"), "timeoutMs": 10000 }));
        assert_eq!(opened["dialogs"][0]["message"], "Leave early?", "{f}: {opened}");
        assert_eq!(opened["dialogs"][0]["answered"], "dismissed", "{f}: {opened}");
        let tab = opened["tab"]["tabId"].as_i64().unwrap();
        let out = agent.ok("evaluate_script", json!({ "tabId": tab, "function": "() => window.early" }));
        assert_eq!(out["json"], "false", "{f}: {out}");
        agent.close(tab);
    }
}

/// Chromium's renderer dies building a DOM 5,000 levels deep (its layout recursion); Firefox
/// survives the same page, and no page or extension can crash a Firefox content process on
/// purpose, so the fixture is Chromium's (see docs/pages.md, "Crashed tabs").
#[test]
fn a_crashed_tab_is_tab_crashed_well_within_the_timeout() {
    let server = TestServer::start();
    server.page(
        "/deep.html",
        r#"<!doctype html><title>Deep</title><body><script>let n = document.body; for (let i = 0; i < 5000; i++) { const d = document.createElement('div'); n.appendChild(d); n = d; } n.textContent = 'bottom';</script></body>"#,
    );
    let mut agent = Agent::new(Engine::Chromium);
    let started = Instant::now();
    let err = agent.err("new_page", json!({ "url": server.url("/deep.html"), "timeoutMs": 15000 }));
    assert_eq!(err["code"], "TAB_CRASHED", "{err}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let tab = err["data"]["tab"]["tabId"].as_i64().unwrap();
    for (tool, args) in [
        ("take_snapshot", json!({ "tabId": tab })),
        ("evaluate_script", json!({ "tabId": tab, "function": "() => 1" })),
        ("click", json!({ "tabId": tab, "locator": "div" })),
    ] {
        let started = Instant::now();
        let err = agent.err(tool, args);
        assert_eq!(err["code"], "TAB_CRASHED", "{tool}: {err}");
        assert!(err["hint"].as_str().unwrap().contains("reload"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5), "{tool} took {:?}", started.elapsed());
    }
    agent.close(tab);
}

/// Firefox survives the deep DOM, and nothing a page or an extension can do crashes a content
/// process; the fixture kills the content process that holds the page (found by a marker the
/// page's script builds in its heap), as a renderer crash would end it. Firefox then shows its
/// crash page, which the tabs API reports as `about:blank`.
#[test]
fn a_firefox_tab_whose_content_process_died_is_tab_crashed() {
    let server = TestServer::start();
    server.page(
        "/victim.html",
        r#"<!doctype html><title>Victim</title><body><p>victim</p><script>window.marker = ['wxm', 'crash', 'fixture', '9731'].join('-');</script></body>"#,
    );
    let mut agent = Agent::new(Engine::Gecko);
    let tab = agent.open(&server.url("/victim.html"));
    let pids = content_processes_holding(agent.browser.runner.pid(), b"wxm-crash-fixture-9731");
    assert_eq!(pids.len(), 1, "the page's content process: {pids:?}");
    // SAFETY: kill(2) on a pid of this test's own browser; no memory is involved.
    assert_eq!(unsafe { libc::kill(pids[0] as i32, libc::SIGKILL) }, 0);
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let started = Instant::now();
        let r =
            agent.call("evaluate_script", json!({ "tabId": tab, "function": "() => 1", "timeoutMs": 5000 }));
        let code = r["structuredContent"]["error"]["code"].clone();
        if code == "TAB_CRASHED" {
            assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
            break;
        }
        // Until Firefox has noticed, the page may still answer.
        assert!(Instant::now() < until, "never TAB_CRASHED: {r}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let err = agent.err("take_snapshot", json!({ "tabId": tab }));
    assert_eq!(err["code"], "TAB_CRASHED", "{err}");
    agent.close(tab);
}

/// Content processes (`-isForBrowser`) descending from the Firefox `parent` whose writable
/// anonymous memory holds `marker`.
fn content_processes_holding(parent: u32, marker: &[u8]) -> Vec<u32> {
    use std::io::{Read, Seek, SeekFrom};
    let mut hits = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        // Processes from Firefox's fork server rewrite their argv: one string, not NUL-separated.
        if !String::from_utf8_lossy(&cmd).contains("-isForBrowser") || !descends_from(pid, parent) {
            continue;
        }
        let (Ok(maps), Ok(mut mem)) = (
            std::fs::read_to_string(format!("/proc/{pid}/maps")),
            std::fs::File::open(format!("/proc/{pid}/mem")),
        ) else {
            continue;
        };
        for line in maps.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // Writable and anonymous (no path): where the JS heap lives.
            if fields.len() > 5 || !fields.get(1).is_some_and(|p| p.starts_with("rw")) {
                continue;
            }
            let Some((a, b)) = fields[0].split_once('-') else { continue };
            let (a, b) = (u64::from_str_radix(a, 16).unwrap(), u64::from_str_radix(b, 16).unwrap());
            if b - a > 512 << 20 {
                continue; // a reservation, not a heap
            }
            let mut buf = vec![0u8; usize::try_from(b - a).unwrap()];
            if mem.seek(SeekFrom::Start(a)).is_ok()
                && mem.read_exact(&mut buf).is_ok()
                && buf.windows(marker.len()).any(|w| w == marker)
            {
                hits.push(pid);
                break;
            }
        }
    }
    hits
}

fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..8 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
        // `pid (comm) state ppid …`; comm may hold spaces, so read after the last `)`.
        let Some(ppid) = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)) else {
            return false;
        };
        let Ok(ppid) = ppid.parse::<u32>() else { return false };
        if ppid == ancestor {
            return true;
        }
        if ppid <= 1 {
            return false;
        }
        pid = ppid;
    }
    false
}

/// Only the agent's tabs get the hook: a tab the user opened (here: over CDP, as the browser's
/// own UI would) keeps the page's native dialogs, and its page sees no trace of the helper.
#[test]
fn a_tab_the_agent_did_not_open_has_no_hook() {
    let server = server();
    let mut agent = Agent::new(Engine::Chromium);
    let url = server.url("/plain.html");
    let mine = agent.open(&url);
    let cdp = agent.browser.runner.as_chromium().unwrap().cdp().clone();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let theirs = rt.block_on(crate::common::browser::Tab::open(&cdp, &format!("{url}?user")));
    let until = Instant::now() + Duration::from_secs(30);
    let user_tab = loop {
        let list = agent.ok("list_pages", json!({}));
        let hit = list["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["url"].as_str().unwrap().ends_with("?user"))
            .cloned();
        if let Some(t) = hit.filter(|t| t["status"] == "complete") {
            break t["tabId"].as_i64().unwrap();
        }
        assert!(Instant::now() < until, "the user's tab did not load: {list}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let probe = "() => [typeof window[Symbol.for('webext-mcp.dialogs')], String(window.confirm).includes('[native code]')]";
    let out = agent.ok("evaluate_script", json!({ "tabId": mine, "function": probe }));
    assert_eq!(out["json"], "[\"object\",false]", "agent tab: {out}");
    let out = agent.ok("evaluate_script", json!({ "tabId": user_tab, "function": probe }));
    assert_eq!(out["json"], "[\"undefined\",true]", "user tab: {out}");
    drop(theirs);
    agent.close(mine);
}
