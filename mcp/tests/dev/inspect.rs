//! `extension_source_inspect` against a session started here: every event kind on a fixture
//! extension (content script with a shadow-root UI and a console.error, a worker with a
//! console.error, popup.html, options.html) and a local page; the CLI twin; and NOT_FOUND
//! without a session.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

/// The content script: one `[data-extension-root]` whose UI lives in an open shadow root.
fn content(text: &str) -> String {
    format!(
        r#"const label = {text:?};
const host = document.createElement("div");
host.setAttribute("data-extension-root", "inspect-test");
host.className = "ext-host";
const shadow = host.attachShadow({{ mode: "open" }});
const button = document.createElement("button");
button.className = "ext-shadow-btn";
button.textContent = label;
shadow.appendChild(button);
const inner = document.createElement("span");
inner.className = "closed-host";
inner.attachShadow({{ mode: "closed" }}).innerHTML = '<i class="ext-closed">hidden</i>';
shadow.appendChild(inner);
document.body.appendChild(host);
console.error("content script error marker");
"#
    )
}

fn write_fixture(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = json!({
        "manifest_version": 3,
        "name": "inspect test",
        "version": "1.0.0",
        "background": {"service_worker": "background.js"},
        "action": {"default_popup": "popup.html"},
        "options_page": "options.html",
        "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["content.js"]}]
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("content.js"), content("first")).unwrap();
    std::fs::write(dir.join("background.js"), "console.error(\"worker error marker\");\n").unwrap();
    std::fs::write(
        dir.join("popup.html"),
        "<!doctype html><title>popup</title><body><h1>the popup</h1><script src=\"popup.js\"></script></body>",
    )
    .unwrap();
    std::fs::write(dir.join("popup.js"), "document.body.dataset.ready = \"1\";\n").unwrap();
    std::fs::write(
        dir.join("options.html"),
        "<!doctype html><title>options</title><body><h1>options</h1><a href=\"#a\">a</a><a href=\"#b\">b</a></body>",
    )
    .unwrap();
}

/// A page with things to redact and enough text to cut.
fn site() -> crate::common::http::TestServer {
    let server = crate::common::http::TestServer::start();
    let long_data = format!("data:image/png;base64,{}", "A".repeat(400));
    let filler = "<p>filler paragraph with some words in it</p>".repeat(100);
    server.page(
        "/",
        &format!(
            "<!doctype html><title>start</title><body><p>start page</p>\
             <script>var secretBody = \"do not show\"; console.warn(\"page warn marker\");</script>\
             <style>.x {{ color: red }}</style>\
             <button onclick=\"alert(1)\">page button</button>\
             <a href=\"javascript:void(0)\">js link</a>\
             <img src=\"{long_data}\" alt=\"pixel\">{filler}</body>"
        ),
    );
    server.page("/other", "<!doctype html><title>other</title><body><p>other page</p></body>");
    server.page("/secrets", crate::common::planted::SECRETS_PAGE);
    server
}

/// Calls the tool and returns its events, asserting success.
fn inspect(server: &mut Server, project: &Path, browser: &str, extra: Value) -> Vec<Value> {
    let mut args = json!({"projectPath": project, "browser": browser});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    let out = ok(&server.call("extension_source_inspect", args.clone()), "extension_source_inspect");
    let events = out["events"].as_array().unwrap().clone();
    for e in &events {
        for key in ["type", "url", "title", "frameId", "timestamp"] {
            assert!(e.get(key).is_some(), "{key} missing in {e}");
        }
    }
    events
}

fn event<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events.iter().find(|e| e["type"] == kind).unwrap_or_else(|| panic!("no {kind} event in {events:#?}"))
}

in_both_browsers!(every_event_kind_contexts_cli_and_no_session, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_fixture(&project);
    let site = site();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();

    // No session yet: NOT_FOUND naming how to start one.
    let none = server.call("extension_source_inspect", json!({"projectPath": project, "browser": browser}));
    assert_eq!(err_code(&none, "inspect without a session"), "NOT_FOUND");
    let hint = none["structuredContent"]["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("extension_dev") && hint.contains("webext-mcp dev"), "{hint}");

    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let started = ok(&server.call("extension_dev", args), "extension_dev");
    let ids = ids(&started);

    // The probe finds the root once the content script ran; meta and summary come along.
    let probe = json!({"probe": ["[data-extension-root]"]});
    let events = wait_for(&project, "the probe to find the root in the loaded page", || {
        let events = inspect(&mut server, &project, browser, probe.clone());
        // Content scripts run at document_idle, which may come before the load completes.
        let loaded = event(&events, "page_meta")["readyState"] == "complete";
        (event(&events, "selector_probe")["count"] == 1 && loaded).then_some(events)
    });
    let found = event(&events, "selector_probe");
    assert_eq!(found["selector"], "[data-extension-root]");
    let sample = &found["samples"][0];
    assert_eq!(sample["tag"], "div", "{found}");
    assert_eq!(sample["attrs"]["data-extension-root"], "inspect-test", "{found}");
    let meta = event(&events, "page_meta");
    assert_eq!(meta["readyState"], "complete", "{meta}");
    assert!(meta["viewport"]["width"].as_u64().unwrap() > 0, "{meta}");
    assert_eq!(meta["frameCount"], 0, "{meta}");
    assert_eq!(meta["title"], "start");
    assert!(meta["url"].as_str().unwrap().starts_with("http://127.0.0.1"), "{meta}");
    let summary = event(&events, "page_html_summary");
    assert_eq!(summary["extensionRoots"], 1, "{summary}");
    assert_eq!(summary["shadowRoots"], 1, "{summary}");
    assert!(summary["scripts"].as_u64().unwrap() >= 1, "{summary}");
    assert!(summary["styles"].as_u64().unwrap() >= 1, "{summary}");
    assert!(summary["links"].as_u64().unwrap() >= 1, "{summary}");

    // console_summary: the content script's and the worker's console.error, the page's warn.
    let console = wait_for(&project, "both errors in the console summary", || {
        let events = inspect(&mut server, &project, browser, json!({"include": ["console"]}));
        let c = event(&events, "console_summary").clone();
        (c["bySource"]["content_script"]["error"].as_u64() >= Some(1)
            && c["bySource"]["worker"]["error"].as_u64() >= Some(1))
        .then_some(c)
    });
    let texts: Vec<&str> =
        console["top"].as_array().unwrap().iter().filter_map(|t| t["text"].as_str()).collect();
    assert!(texts.contains(&"content script error marker"), "{console:#}");
    assert!(texts.contains(&"worker error marker"), "{console:#}");
    assert!(console["counts"]["error"].as_u64().unwrap() >= 2, "{console:#}");
    assert!(console["bySource"]["page"]["warn"].as_u64() >= Some(1), "{console:#}");

    // page_html: safe drops script bodies, strict drops on* and javascript: URLs, maxBytes cuts.
    let html = |server: &mut Server, redact: &str, max: u64| {
        let events = inspect(
            server,
            &project,
            browser,
            json!({"include": ["html"], "redact": redact, "maxBytes": max}),
        );
        event(&events, "page_html").clone()
    };
    let safe = html(&mut server, "safe", 1 << 20);
    let text = safe["html"].as_str().unwrap();
    assert!(text.contains("<script>") && !text.contains("do not show"), "script body kept under safe");
    assert!(!text.contains(&"A".repeat(200)), "long data: URI kept under safe");
    assert!(text.contains("onclick=") && text.contains("data-extension-root"), "safe lost too much");
    assert!(text.contains("shadowrootmode=\"open\"") && text.contains("ext-shadow-btn"), "no shadow DOM");
    assert_eq!(safe["truncated"], false);
    let strict = html(&mut server, "strict", 1 << 20);
    let text = strict["html"].as_str().unwrap();
    assert!(!text.contains("onclick=") && !text.contains("javascript:void"), "strict kept handlers: {text}");
    let off = html(&mut server, "off", 1 << 20);
    assert!(off["html"].as_str().unwrap().contains("do not show"));
    // One redaction engine: the planted-secret page leaks nothing at safe or strict, in the
    // HTML, the probe samples or the tree (the same rules as take_snapshot's).
    for level in ["safe", "strict"] {
        let events = inspect(
            &mut server,
            &project,
            browser,
            json!({"url": site.url("/secrets"), "include": ["html", "tree"], "probe": ["a", "img", "div", "input"], "redact": level}),
        );
        let all = serde_json::to_string(&events).unwrap();
        let html = event(&events, "page_html")["html"].as_str().unwrap().to_owned();
        assert!(html.contains("Account settings") && html.contains("<redacted>"), "{level}: {html}");
        for (class, secret) in crate::common::planted::PLANTED {
            assert!(!all.contains(secret), "page_html {level} leaks the {class} `{secret}`: {all}");
        }
        assert_eq!(html.contains("Ada Lovelace"), level == "safe", "{level}: {html}");
    }
    inspect(&mut server, &project, browser, json!({"url": site.url("/"), "include": ["meta"]}));
    let cut = html(&mut server, "safe", 1024);
    assert_eq!(cut["truncated"], true, "{cut}");
    assert!(cut["html"].as_str().unwrap().len() <= 1024 && cut["bytes"].as_u64().unwrap() <= 1024);

    // shadowDom: off stays in the light DOM; open-only enters the shadow-root UI.
    let shadow = |server: &mut Server, mode: &str| {
        inspect(
            server,
            &project,
            browser,
            json!({"include": ["tree"], "probe": [".ext-shadow-btn"], "shadowDom": mode}),
        )
    };
    let open = shadow(&mut server, "open-only");
    let closed = shadow(&mut server, "off");
    assert_eq!(event(&open, "selector_probe")["count"], 1);
    assert_eq!(event(&closed, "selector_probe")["count"], 0);
    let open_tree = &event(&open, "extension_root_tree")["roots"][0]["tree"];
    let off_tree = &event(&closed, "extension_root_tree")["roots"][0]["tree"];
    assert_eq!(open_tree["shadowRoot"], "open", "{open_tree}");
    assert_eq!(open_tree["shadow"][0]["classes"][0], "ext-shadow-btn", "{open_tree}");
    assert!(off_tree.get("shadow").is_none(), "{off_tree}");
    // all: closed shadow roots too.
    let all = inspect(
        &mut server,
        &project,
        browser,
        json!({"include": ["summary"], "probe": [".ext-closed"], "shadowDom": "all"}),
    );
    assert_eq!(event(&all, "selector_probe")["count"], 1, "{all:#?}");
    assert_eq!(event(&all, "page_html_summary")["shadowRoots"], 2, "{all:#?}");
    let open_only =
        inspect(&mut server, &project, browser, json!({"include": ["summary"], "probe": [".ext-closed"]}));
    assert_eq!(event(&open_only, "selector_probe")["count"], 0);
    assert_eq!(event(&open_only, "page_html_summary")["shadowRoots"], 1);

    // extension_root_tree: generation 1, then 2 after a save re-injects the content script.
    let tree = event(&open, "extension_root_tree");
    assert_eq!(tree["roots"].as_array().unwrap().len(), 1, "{tree}");
    assert_eq!(tree["roots"][0]["generation"], 1, "{tree}");
    std::fs::write(project.join("content.js"), content("second")).unwrap();
    let tree = wait_for(&project, "generation 2 after the re-injection", || {
        let events = inspect(&mut server, &project, browser, json!({"include": ["tree"]}));
        let t = event(&events, "extension_root_tree").clone();
        (t["roots"].as_array().map(Vec::len) == Some(1) && t["roots"][0]["generation"] == 2).then_some(t)
    });
    assert_eq!(tree["roots"][0]["tree"]["shadow"][0]["text"], "second", "{tree}");

    // dom_snapshot: the helper's snapshot of the same tab.
    let events =
        inspect(&mut server, &project, browser, json!({"include": ["dom_snapshot"], "maxBytes": 4096}));
    let snap = event(&events, "dom_snapshot");
    assert!(snap.get("error").is_none(), "{snap:#}");
    assert!(snap["text"].as_str().unwrap().contains("page button"), "{snap:#}");

    // url navigates the session's tab first.
    let events =
        inspect(&mut server, &project, browser, json!({"url": site.url("/other"), "include": ["meta"]}));
    let meta = event(&events, "page_meta");
    assert_eq!(meta["title"], "other", "{meta}");
    assert!(meta["url"].as_str().unwrap().ends_with("/other"), "{meta}");

    // The extension's own pages, opened as tabs.
    let popup = inspect(&mut server, &project, browser, json!({"context": "popup", "probe": ["h1"]}));
    let summary = event(&popup, "page_html_summary");
    assert!(summary["url"].as_str().unwrap().starts_with(extension_scheme(browser)), "{summary}");
    assert!(summary["url"].as_str().unwrap().ends_with("/popup.html"), "{summary}");
    assert_eq!(summary["title"], "popup");
    assert_eq!(summary["scripts"], 1, "{summary}");
    assert_eq!(event(&popup, "selector_probe")["samples"][0]["text"], "the popup");
    let options = inspect(&mut server, &project, browser, json!({"context": "options"}));
    let summary = event(&options, "page_html_summary");
    assert!(summary["url"].as_str().unwrap().ends_with("/options.html"), "{summary}");
    assert_eq!(summary["links"], 2, "{summary}");

    // background: the worker's state and console, nothing evaluated.
    let bg = inspect(&mut server, &project, browser, json!({"context": "background"}));
    let meta = event(&bg, "page_meta");
    let declared = if browser == "firefox" { &meta["backgroundScripts"][0] } else { &meta["serviceWorker"] };
    assert!(declared.as_str().unwrap().ends_with("/background.js"), "{meta}");
    assert_eq!(meta["startedOnce"], true, "{meta}");
    assert!(event(&bg, "console_summary")["bySource"]["worker"]["error"].as_u64() >= Some(1));

    // The CLI twin.
    let p = project.to_str().unwrap();
    let (code, out, err) = cli(
        home.path(),
        &[
            "inspect",
            p,
            "--browser",
            browser,
            "--probe",
            "[data-extension-root]",
            "--include",
            "summary",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let types: Vec<&str> =
        v["events"].as_array().unwrap().iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types, ["page_html_summary", "selector_probe"], "{v:#}");
    let (code, out, _) = cli(home.path(), &["inspect", p, "--browser", browser, "--include", "meta"]);
    assert_eq!(code, 0);
    let line: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(line["type"], "page_meta");

    ok(&server.call("extension_stop", json!({"projectPath": project})), "extension_stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
