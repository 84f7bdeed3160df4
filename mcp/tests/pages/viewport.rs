//! Viewport and emulation (issue 31), as the page sees them: `resize_page` gives the page the
//! innerWidth × innerHeight asked for, by sizing the agent's window, never the user's window
//! holding the user's tabs unless `force`; `emulate` (Chromium debugger mode) changes
//! devicePixelRatio, the user agent, touch and the `matchMedia` answers of one tab, and is
//! UNSUPPORTED (naming the missing piece) without debugger mode and in Firefox. Browsers of
//! their own: windows change size on purpose here.

use serde_json::{Value, json};
use webext_mcp::browsers::Engine;

use crate::common::helper::HelperBrowser;
use crate::common::http::TestServer;
use crate::observe_bench::{remote_browser, set_setting, status_page, user_tab};
use crate::{Agent, BOTH};

const PAGE: &str = r#"<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Viewport</title><style>body { margin: 0 } @media (prefers-color-scheme: dark) { body { background: #000 } }</style>
<body><p>viewport</p></body>"#;

fn server() -> TestServer {
    let s = TestServer::start();
    s.page("/viewport.html", PAGE);
    s.page("/user.html", "<!doctype html><title>User</title><body><p>the user's own page</p></body>");
    s
}

/// What the page itself reports (evaluate_script in its main world).
fn seen(agent: &mut Agent, tab: i64) -> Value {
    let out = agent.ok(
        "evaluate_script",
        json!({ "tabId": tab, "function": "() => ({ w: innerWidth, h: innerHeight, dpr: devicePixelRatio, ua: navigator.userAgent, \
            dark: matchMedia('(prefers-color-scheme: dark)').matches, reduce: matchMedia('(prefers-reduced-motion: reduce)').matches, \
            coarse: matchMedia('(pointer: coarse)').matches, touch: navigator.maxTouchPoints })" }),
    );
    serde_json::from_str(out["json"].as_str().unwrap()).unwrap()
}

fn size(v: &Value) -> (i64, i64) {
    (v["w"].as_i64().unwrap(), v["h"].as_i64().unwrap())
}

/// The tab id of the page at `url` (one the agent did not open).
fn tab_at(agent: &mut Agent, url: &str) -> i64 {
    let deadline = std::time::Instant::now() + crate::common::DEADLINE;
    loop {
        let list = agent.ok("list_pages", json!({}));
        if let Some(t) = list["tabs"].as_array().unwrap().iter().find(|t| t["url"] == url) {
            return t["tabId"].as_i64().unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no tab shows {url}: {list}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn resizes(b: &'static HelperBrowser, user: i64, server_url: &dyn Fn(&str) -> String) {
    let mut agent = Agent::on(b);
    let f = agent.family();
    let before = size(&seen(&mut agent, user));

    // A hidden agent tab of the user's window moves into the agent window (made around it).
    let hidden = agent.open(&server_url("/viewport.html"));
    let moved = agent.ok("resize_page", json!({ "tabId": hidden, "width": 800, "height": 500 }));
    assert_eq!(moved["moved"], true, "{f}: {moved}");
    assert_eq!(moved["window"]["agent"], true, "{f}: {moved}");
    assert_eq!(size(&seen(&mut agent, hidden)), (800, 500), "{f}");
    assert_eq!(size(&seen(&mut agent, user)), before, "{f}: the user's window changed size");

    // The agent window: sized until the page reports exactly the size asked for.
    let tab = agent.ok("new_page", json!({ "url": server_url("/viewport.html"), "window": "agent" }))["tab"]
        ["tabId"]
        .as_i64()
        .unwrap();
    for (w, h) in [(900, 600), (1100, 700), (640, 800)] {
        let out = agent.ok("resize_page", json!({ "tabId": tab, "width": w, "height": h }));
        assert_eq!(out["mechanism"], "window", "{f}: {out}");
        assert_eq!(out["window"]["agent"], true, "{f}: {out}");
        assert_eq!(out["window"]["windowId"], moved["window"]["windowId"], "{f}: one agent window");
        assert_eq!(out["window"]["otherTabs"], 1, "{f}: the moved tab shares the new size: {out}");
        assert_eq!((out["width"].as_i64().unwrap(), out["height"].as_i64().unwrap()), (w, h), "{f}: {out}");
        assert_eq!(out["exact"], true, "{f}: {out}");
        assert_eq!(size(&seen(&mut agent, tab)), (w, h), "{f}: what the page reports");
    }
    assert_eq!(size(&seen(&mut agent, user)), before, "{f}: the user's window changed size");
    // Firefox's windows are at least 500 px wide: the result says the size is not exact.
    if b.family == Engine::Gecko {
        let r = agent.call("resize_page", json!({ "tabId": tab, "width": 400, "height": 600 }));
        let out = &r["structuredContent"];
        assert_eq!(out["exact"], false, "{f}: {r}");
        assert_eq!(out["width"].as_i64(), Some(seen(&mut agent, tab)["w"].as_i64().unwrap()), "{f}: {r}");
        assert!(
            r["content"][0]["text"].as_str().unwrap().contains("did not give exactly 400×600"),
            "{f}: {r}"
        );
    }

    // The user's own tab: their window is left alone, unless force.
    let err = agent.err("resize_page", json!({ "tabId": user, "width": 700, "height": 500 }));
    assert_eq!(err["code"], "PERMISSION_DENIED", "{f}: {err}");
    assert!(err["hint"].as_str().unwrap().contains("force: true"), "{f}: {err}");
    assert_eq!(size(&seen(&mut agent, user)), before, "{f}: refused, yet resized");
    let err = agent.err("resize_page", json!({ "tabId": tab, "width": 20, "height": 500 }));
    assert_eq!(err["code"], "INVALID_ARGUMENT", "{f}: {err}");
    let out = agent.ok("resize_page", json!({ "tabId": user, "width": 700, "height": 500, "force": true }));
    assert_eq!(out["window"]["agent"], false, "{f}: {out}");
    assert_eq!(size(&seen(&mut agent, user)), (700, 500), "{f}: forced");

    // Without the debugger, emulation is UNSUPPORTED, saying what is missing; nothing changes.
    let dpr = seen(&mut agent, tab)["dpr"].clone();
    for args in [
        json!({ "deviceScaleFactor": 2 }),
        json!({ "mobile": true }),
        json!({ "userAgent": "Phone/1.0" }),
        json!({ "colorScheme": "dark" }),
        json!({ "reducedMotion": "reduce" }),
    ] {
        let mut call = args.clone();
        call["tabId"] = json!(tab);
        let err = agent.err("emulate", call);
        assert_eq!(err["code"], "UNSUPPORTED", "{f} {args}: {err}");
        let why = format!("{} {}", err["message"], err["hint"]);
        match b.family {
            Engine::Chromium => assert!(why.contains("debugger mode"), "{f}: {err}"),
            Engine::Gecko => {
                assert!(why.contains("Firefox gives extensions no per-tab emulation"), "{f}: {err}")
            }
        }
    }
    let now = seen(&mut agent, tab);
    assert_eq!(now["dpr"], dpr, "{f}: {now}");
    assert_eq!(now["dark"], false, "{f}: {now}");
    let out = agent.ok("emulate", json!({ "tabId": tab, "reset": true }));
    assert_eq!(out["mechanism"], "none", "{f}: {out}");
}

/// `resize_page` in both browsers: the agent window is sized to exactly what the page then
/// reports; a hidden agent tab of the user's window is moved there first; the user's window
/// with their own tab is refused (PERMISSION_DENIED naming force) and untouched, and sized with
/// `force`; `emulate` without the debugger is UNSUPPORTED.
#[tokio::test]
async fn resize_page_sizes_the_viewport_and_leaves_the_users_window_alone() {
    let server = server();
    for family in BOTH {
        let b = remote_browser(family).await;
        let url = server.url("/user.html");
        user_tab(b, &url).await;
        let urls = server.url("/");
        tokio::task::spawn_blocking(move || {
            let mut agent = Agent::on(b);
            let user = tab_at(&mut agent, &url);
            // The user looks at their page (the agent's own tabs open in the background).
            agent.ok("select_page", json!({ "tabId": user }));
            let base = urls.trim_end_matches('/').to_owned();
            resizes(b, user, &move |p| format!("{base}{p}"));
        })
        .await
        .unwrap();
        b.runner.shutdown().await;
    }
}

/// Chromium debugger mode: one tab of the user's window gets its own size (the user's tab
/// beside it keeps its own), and `emulate` changes what that tab's page reports —
/// devicePixelRatio, user agent, touch, prefers-color-scheme, prefers-reduced-motion — while
/// the session is held (the debugging bar's time), until `reset` detaches it.
#[tokio::test]
async fn chromium_debugger_mode_sizes_one_tab_and_emulates_a_device() {
    let server = server();
    let b = remote_browser(Engine::Chromium).await;
    let url = server.url("/user.html");
    user_tab(b, &url).await;
    let status = status_page(b).await;
    set_setting(b, &status, "debuggerMode", true).await;
    let page = server.url("/viewport.html");
    tokio::task::spawn_blocking(move || {
        let mut agent = Agent::on(b);
        let user = tab_at(&mut agent, &url);
        let before = size(&seen(&mut agent, user));
        let tab = agent.open(&page);
        let out = agent.ok("resize_page", json!({ "tabId": tab, "width": 600, "height": 450 }));
        assert_eq!(out["mechanism"], "debugger", "{out}");
        assert_eq!(size(&seen(&mut agent, tab)), (600, 450));
        assert_eq!(size(&seen(&mut agent, user)), before, "the user's tab keeps its size");

        let ua = "Mozilla/5.0 (Linux; Android 14) webext-mcp-test Mobile";
        let out = agent.ok(
            "emulate",
            json!({ "tabId": tab, "deviceScaleFactor": 2, "mobile": true, "userAgent": ua, "colorScheme": "dark", "reducedMotion": "reduce" }),
        );
        assert_eq!(out["mechanism"], "debugger", "{out}");
        assert_eq!(out["page"]["devicePixelRatio"], 2.0, "{out}");
        let now = seen(&mut agent, tab);
        assert_eq!(now["dpr"], 2, "{now}");
        assert_eq!(now["ua"], ua, "{now}");
        assert_eq!(now["dark"], true, "{now}");
        assert_eq!(now["reduce"], true, "{now}");
        assert_eq!(now["coarse"], true, "{now}");
        assert_eq!(size(&now), (600, 450), "the size stays with the emulation: {now}");
        let user_now = seen(&mut agent, user);
        assert_eq!((user_now["dark"].clone(), user_now["dpr"].clone()), (json!(false), json!(1)), "{user_now}");
        // It lasts across a reload: the session is held (and counted).
        agent.ok("navigate_page", json!({ "tabId": tab, "type": "reload" }));
        assert_eq!(seen(&mut agent, tab)["dark"], true);
        assert_eq!(agent.ok("get_browser_info", json!({}))["debuggerSessions"], 1);

        let out = agent.ok("emulate", json!({ "tabId": tab, "reset": true, "colorScheme": "light" }));
        assert_eq!(out["emulation"], json!({ "colorScheme": "light" }), "{out}");
        let now = seen(&mut agent, tab);
        assert_eq!((now["dpr"].clone(), now["dark"].clone(), now["reduce"].clone()), (json!(1), json!(false), json!(false)), "{now}");
        agent.ok("emulate", json!({ "tabId": tab, "reset": true }));
        assert_eq!(agent.ok("get_browser_info", json!({}))["debuggerSessions"], 0, "released");
        assert_ne!(seen(&mut agent, tab)["ua"], ua);
    })
    .await
    .unwrap();
    set_setting(b, &status, "debuggerMode", false).await;
    b.runner.shutdown().await;
}
