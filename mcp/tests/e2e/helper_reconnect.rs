//! The helper reconnects by itself: after its host is killed, and (Chromium) after its
//! service worker was stopped, woken by the reconnect alarm.

use std::time::{Duration, Instant};

use serde_json::json;
use webext_mcp::browsers::Engine;
use webext_mcp_host::protocol::HELPER_CHROMIUM_ID;

use crate::common::DEADLINE;
use crate::common::browser::Tab;
use crate::helper_support::{Host, kill, launch, launch_with};

async fn reconnects_after_the_host_is_killed(family: Engine) {
    let b = launch(family, Host::Installed).await;
    let first = b.wait_host("after hello", |_| true).await;
    // A host that exits (kill -9 here; a framing error from the browser in production) is
    // a port disconnect to the browser, which never restarts a native host: the helper must
    // come back by itself, promptly. Six kills in a row, each before the helper confirms
    // the port (it does after 1 s open), so a growing backoff shows.
    let mut last = first.clone();
    let mut gaps = Vec::new();
    for round in 0..6 {
        kill(last.pid);
        let killed_at = Instant::now();
        let old = last.pid;
        let next = b.wait_host(&format!("after kill {round}"), |d| d.pid != old).await;
        let gap = killed_at.elapsed();
        gaps.push(gap.as_millis());
        eprintln!("{}: reconnect gap after kill {round}: {gap:?}", family.name());
        assert_eq!(next.label, first.label, "the profile id must survive a reconnect");
        last = next;
    }
    eprintln!("{}: reconnect gaps after kill -9 (ms): {gaps:?}", family.name());
    // Loose on purpose (timings belong in the report and the bench): the old backoff
    // reached 5 s at the fifth kill and 10 s at the sixth; now it caps at 2 s.
    let worst = gaps.iter().max().copied().unwrap_or(0);
    assert!(worst <= 5_000, "a reconnect took {worst} ms: {gaps:?}");
    let (code, pong) = b.cli("ping", json!({"browser": b.session})).await;
    assert_eq!(code, 0, "{pong}");
    b.runner.shutdown().await;
}

#[tokio::test]
async fn chromium_helper_reconnects_after_the_host_is_killed() {
    reconnects_after_the_host_is_killed(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_helper_reconnects_after_the_host_is_killed() {
    reconnects_after_the_host_is_killed(Engine::Gecko).await;
}

/// Polls `expr` in `tab` until its value satisfies `ok`.
async fn wait_eval(tab: &Tab, expr: &str, ok: impl Fn(&serde_json::Value) -> bool) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let got = tab.evaluate(expr).await;
        if ok(&got) {
            return;
        }
        assert!(Instant::now() < deadline, "`{expr}` is still {got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Stopping the service worker closes the native port (the host exits on stdin EOF); timers
/// die with the worker, so only the alarm brings the helper back. Regression: the runner left
/// the worker restarted by the alarm paused on start, so the helper never came back.
#[tokio::test]
async fn chromium_helper_reconnects_after_its_worker_was_stopped() {
    reconnects_after_worker_stop(true).await;
}

#[tokio::test]
async fn unobserved_chromium_helper_reconnects_after_its_worker_was_stopped() {
    // The runner keeps no inspector on the worker, yet must still resume it when it restarts.
    reconnects_after_worker_stop(false).await;
}

async fn reconnects_after_worker_stop(observe_workers: bool) {
    let b = launch_with(Engine::Chromium, Host::Installed, observe_workers).await;
    let first = b.wait_host("after hello", |_| true).await;
    let cdp = b.runner.as_chromium().unwrap().cdp();
    {
        // Unpacked extensions accept alarm periods under 30 s. The page is closed before the
        // worker stops: its port would wake the worker by itself.
        let status = Tab::open(cdp, &format!("chrome-extension://{HELPER_CHROMIUM_ID}/status.html")).await;
        wait_eval(
            &status,
            "location.protocol === 'chrome-extension:' && typeof chrome.storage === 'object'",
            |v| v == &json!(true),
        )
        .await;
        status.evaluate("chrome.storage.local.set({alarmPeriodSeconds: 2}).then(() => true)").await;
        wait_eval(
            &status,
            "chrome.alarms.get('webext-mcp.reconnect').then((a) => a ? a.periodInMinutes * 60 : null)",
            |v| v.as_f64().is_some_and(|s| (s - 2.0).abs() < 1e-6),
        )
        .await;
    }
    let page = Tab::open(cdp, "about:blank").await;
    let attached = cdp
        .send("Target.attachToTarget", json!({"targetId": page.target_id, "flatten": true}))
        .await
        .unwrap();
    let session = attached["sessionId"].as_str().unwrap();
    cdp.send_to(Some(session), "ServiceWorker.enable", json!({}), DEADLINE).await.unwrap();
    cdp.send_to(Some(session), "ServiceWorker.stopAllWorkers", json!({}), DEADLINE).await.unwrap();
    // The worker stopped: its port closed and the host exited on stdin EOF.
    let deadline = Instant::now() + DEADLINE;
    while b.hosts().iter().any(|d| d.pid == first.pid) {
        assert!(Instant::now() < deadline, "the host outlived the worker");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Nothing here resumes the worker: the runner must (a restarted worker keeps its target
    // and session and would otherwise wait for the debugger forever).
    let second = b.wait_host("after the worker stopped", |d| d.pid != first.pid).await;
    assert_eq!(second.label, first.label);
    let (code, pong) = b.cli("ping", json!({"browser": b.session})).await;
    assert_eq!(code, 0, "{pong}");
    drop(page);
    b.runner.shutdown().await;
}
