//! The status page says why the helper cannot connect, in the browser's own words, and its
//! label setting is what `list_connected_browsers` shows.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp::runner::{Family, Level};
use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, NATIVE_HOST_NAME};

use crate::common::DEADLINE;
use crate::common::browser::Tab;
use crate::helper_support::{Host, is_default_label, launch};

const STATUS_PAGE: &str = "status.html";

async fn open_status(cdp: &webext_mcp::runner::cdp::CdpClient) -> Tab {
    let tab = Tab::open(cdp, &format!("chrome-extension://{HELPER_CHROMIUM_ID}/{STATUS_PAGE}")).await;
    // createTarget returns before the page loads, and the blank document already says
    // readyState "complete": wait for the extension page's own DOM.
    wait_eval(&tab, "location.protocol === 'chrome-extension:' && !!document.getElementById('state')", |v| {
        v == &json!(true)
    })
    .await;
    tab
}

async fn wait_eval(tab: &Tab, expr: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let got = tab.evaluate(expr).await;
        if ok(&got) {
            return got;
        }
        assert!(Instant::now() < deadline, "`{expr}` is still {got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn chromium_status_page_shows_host_not_found() {
    let b = launch(Family::Chromium, Host::Missing).await;
    let tab = open_status(b.runner.cdp().unwrap()).await;
    let error = wait_eval(&tab, "document.getElementById('last-error').textContent", |v| {
        v.as_str().is_some_and(|s| s.contains("Specified native messaging host not found"))
    })
    .await;
    assert!(error.is_string());
    let state = tab.evaluate("document.getElementById('state').textContent").await;
    assert_ne!(state, "connected");
    assert!(b.hosts().is_empty());
    drop(tab);
    b.runner.shutdown().await;
}

/// Firefox's words (`port.error`) reach the helper's console, which the Firefox runner reads
/// (no CDP to read the page itself); the status page renders the same `lastError`.
#[tokio::test]
async fn firefox_helper_reports_the_missing_host_in_firefox_words() {
    let b = launch(Family::Firefox, Host::Missing).await;
    let handle = &b.runner.extensions()[0];
    let event = handle
        .subscribe()
        .wait_for(DEADLINE, |e| e.text.contains(NATIVE_HOST_NAME) && e.text.contains("disconnected"))
        .await
        .unwrap_or_else(|| panic!("no disconnect report; console {:?}", handle.history()));
    assert_eq!(event.level, Level::Warn);
    assert!(event.text.contains("No such native application"), "{}", event.text);
    assert!(b.hosts().is_empty());
    b.runner.shutdown().await;
}

#[tokio::test]
async fn chromium_label_edited_on_the_status_page_is_what_tools_show() {
    let b = launch(Family::Chromium, Host::Installed).await;
    let first = b.wait_host("after hello", |_| true).await;
    assert!(is_default_label(&first.label, "chromium"), "{}", first.label);
    let tab = open_status(b.runner.cdp().unwrap()).await;
    wait_eval(&tab, "document.getElementById('state').textContent", |v| v == "connected").await;
    wait_eval(&tab, "document.getElementById('label').textContent", |v| v == first.label.as_str()).await;
    tab.evaluate(
        "(() => { const input = document.getElementById('label-input'); input.value = '  work profile '; \
         input.dispatchEvent(new Event('input')); document.getElementById('label-form').requestSubmit(); return true; })()",
    )
    .await;
    let renamed = b.wait_host("renamed", |d| d.label == "work profile").await;
    assert_eq!(renamed.pid, first.pid, "a new label needs no new host");
    let (code, list) = b.cli("list_connected_browsers", json!({})).await;
    assert_eq!(code, 0, "{list}");
    assert_eq!(list["browsers"][0]["label"], "work profile", "{list}");
    let (code, pong) = b.cli("ping", json!({"browser": "work profile"})).await;
    assert_eq!(code, 0, "{pong}");

    tab.evaluate("document.getElementById('reset-label').click(), true").await;
    b.wait_host("back to the default label", |d| d.label == first.label).await;
    drop(tab);
    b.runner.shutdown().await;
}

/// Debugger mode is a Chromium-only toggle, off by default; turning it on announces the
/// `debugger` capability in a new hello.
#[tokio::test]
async fn chromium_debugger_mode_toggle_changes_capabilities() {
    let b = launch(Family::Chromium, Host::Installed).await;
    let has_debugger =
        |d: &webext_mcp_host::descriptor::Descriptor| d.capabilities.iter().any(|c| c == "debugger");
    let first = b.wait_host("after hello", |_| true).await;
    assert!(!has_debugger(&first), "{:?}", first.capabilities);
    let tab = open_status(b.runner.cdp().unwrap()).await;
    wait_eval(&tab, "!document.getElementById('debugger-setting').hidden", |v| v == &json!(true)).await;
    tab.evaluate("document.getElementById('debugger-mode').click(), true").await;
    let on = b.wait_host("with debugger mode on", has_debugger).await;
    assert_eq!(on.pid, first.pid);
    tab.evaluate("document.getElementById('debugger-mode').click(), true").await;
    b.wait_host("with debugger mode off", |d| !has_debugger(d)).await;
    drop(tab);
    b.runner.shutdown().await;
}
