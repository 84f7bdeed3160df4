//! The Chromium runner in headless Chromium.

use serde_json::json;
use webext_mcp::browsers::Engine;
use webext_mcp::runner::{EventKind, Level};

use crate::common::DEADLINE;
use crate::common::browser::{Tab, isolated, shared};
use crate::common::ext::{background_extension, manifest, write_extension};
use crate::common::http::TestServer;
use crate::runner_checks as checks;

#[tokio::test]
async fn background_fetch_reaches_local_server() {
    checks::background_fetch_reaches_local_server(Engine::Chromium).await;
}

#[tokio::test]
async fn background_throw_is_reported_with_file_and_line() {
    checks::background_throw_is_reported_with_file_and_line(Engine::Chromium).await;
}

#[tokio::test]
async fn console_levels_are_kept() {
    checks::console_levels_are_kept(Engine::Chromium).await;
}

/// The shared browser takes extensions at run time and opens tabs; a content script's
/// error is attributed to its extension through the script URL.
#[tokio::test]
async fn shared_browser_loads_extensions_and_opens_tabs() {
    let server = TestServer::start();
    server.page("/page.html", "<title>t</title><p>hello</p>");
    let mut m = manifest("contentful");
    m["content_scripts"] = json!([{"matches": ["http://127.0.0.1/*"], "js": ["cs.js"]}]);
    let ext = write_extension(&[
        ("manifest.json", &m.to_string()),
        ("bg.js", "console.info('worker-up');\n"),
        ("cs.js", "document.title = 'seen';\nconsole.warn('content-warn');\n"),
    ]);
    let browser = shared(Engine::Chromium);
    let again = shared(Engine::Chromium);
    assert_eq!(browser.runner.pid(), again.runner.pid());
    let handle = browser.runner.load_extension(ext.path()).await.unwrap();
    handle.wait_background(DEADLINE).await.unwrap();
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    let tab = Tab::open(cdp, &server.url("/page.html")).await;
    assert!(server.wait_for_request("/page.html", DEADLINE).await);
    let info = handle.subscribe().wait_for(DEADLINE, |e| e.text == "worker-up").await.unwrap();
    assert_eq!(info.level, Level::Info);
    let warn = handle.subscribe().wait_for(DEADLINE, |e| e.text == "content-warn").await;
    let warn = warn.unwrap_or_else(|| panic!("no content-script warning; history {:?}", handle.history()));
    assert_eq!((warn.kind, warn.level), (EventKind::Console, Level::Warn));
    assert!(warn.url.unwrap().ends_with("/cs.js"));
    drop(tab);
}

/// A manifest Chromium rejects gives `LoadRefused`, and the browser keeps running.
#[tokio::test]
async fn broken_manifest_is_load_refused() {
    let ext = write_extension(&[("manifest.json", r#"{"manifest_version": 3, "name": "x"}"#)]);
    let browser = shared(Engine::Chromium);
    let err = browser.runner.load_extension(ext.path()).await.unwrap_err();
    assert!(matches!(err, webext_mcp::runner::RunnerError::LoadRefused { .. }), "{err}");
    let body = webext_mcp_host::protocol::ErrorBody::from(err);
    assert_eq!(body.code, webext_mcp_host::protocol::ErrorCode::LoadRefused);
    assert!(browser.runner.is_running());
    let ok = background_extension("after-refusal", "console.log(1);");
    assert!(browser.runner.load_extension(ok.path()).await.is_ok());
}

/// Loading the same directory again reloads it: same id, and waiting for the background
/// waits for the new worker, which runs the new code.
#[tokio::test]
async fn reload_keeps_the_id_and_runs_the_new_worker() {
    let ext = background_extension("reloader", "console.log('version-1');\n");
    let browser = shared(Engine::Chromium);
    let first = browser.runner.load_extension(ext.path()).await.unwrap();
    first.wait_background(DEADLINE).await.unwrap();
    std::fs::write(ext.path().join("bg.js"), "console.log('version-2');\n").unwrap();
    let second = browser.runner.load_extension(ext.path()).await.unwrap();
    assert_eq!(first.id, second.id);
    second.wait_background(DEADLINE).await.unwrap();
    let seen = second.subscribe().wait_for(DEADLINE, |e| e.text == "version-2").await;
    assert!(seen.is_some(), "new worker did not run; history {:?}", second.history());
}

/// Regression: a service worker stopped and started again by an event keeps its target and
/// the runner's session, gets no new `attachedToTarget`, and used to stay paused on start
/// (`waitForDebuggerOnStart`) forever. The restarted worker must run, and its console calls
/// and exceptions must still be observed. Own browser: stopping workers is browser-wide.
#[tokio::test]
async fn restarted_worker_is_not_left_waiting_for_the_debugger() {
    let ext = background_extension(
        "restarter",
        "console.log('worker-run');\nsetTimeout(() => { throw new Error('boom-after-start'); }, 100);\n",
    );
    let browser = isolated(Engine::Chromium, &[ext.path()]).await;
    let handle = browser.runner.extensions()[0].clone();
    handle.wait_background(DEADLINE).await.unwrap();
    let mut stream = handle.subscribe();
    let mut wait_run = async |what: &str| {
        let seen = stream.wait_for(DEADLINE, |e| e.kind == EventKind::Exception).await;
        assert!(seen.is_some(), "no exception {what}; history {:?}", handle.history());
    };
    wait_run("from the first run").await;

    let cdp = browser.runner.as_chromium().unwrap().cdp();
    let page = Tab::open(cdp, "about:blank").await;
    let attached = cdp
        .send("Target.attachToTarget", json!({"targetId": page.target_id, "flatten": true}))
        .await
        .unwrap();
    let session = attached["sessionId"].as_str().unwrap();
    let sw = |method: &'static str, params: serde_json::Value| {
        cdp.send_to(Some(session), method, params, DEADLINE)
    };
    let mut events = cdp.subscribe();
    sw("ServiceWorker.enable", json!({})).await.unwrap();
    sw("ServiceWorker.stopAllWorkers", json!({})).await.unwrap();
    // Start it only once it has stopped, or there is nothing to restart.
    let stopped = tokio::time::timeout(DEADLINE, async {
        loop {
            let ev = match events.recv().await {
                Ok(ev) => ev,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(e) => panic!("CDP events ended: {e}"),
            };
            let versions = ev.params["versions"].as_array().cloned().unwrap_or_default();
            if ev.method == "ServiceWorker.workerVersionUpdated"
                && versions.iter().any(|v| {
                    v["runningStatus"] == "stopped"
                        && v["scriptURL"].as_str().is_some_and(|u| u.starts_with(&handle.base_url))
                })
            {
                return;
            }
        }
    })
    .await;
    assert!(stopped.is_ok(), "the worker did not stop");
    sw("ServiceWorker.startWorker", json!({"scopeURL": handle.base_url})).await.unwrap();
    wait_run("after the restart").await;
    let runs = handle.history().iter().filter(|e| e.text == "worker-run").count();
    assert_eq!(runs, 2, "history {:?}", handle.history());
    drop(page);
    browser.runner.shutdown().await;
}
