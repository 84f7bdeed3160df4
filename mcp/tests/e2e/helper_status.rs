//! The status page says why the helper cannot connect, in the browser's own words, and its
//! label setting is what `list_connected_browsers` shows.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp::runner::{Family, Level, Runner};
use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, NATIVE_HOST_NAME};

use crate::common::DEADLINE;
use crate::common::browser::Tab;
use crate::helper_support::{HelperBrowser, Host, is_default_label, launch, launch_configured};

const STATUS_PAGE: &str = "status.html";

/// The helper's status page in a tab: over CDP in Chromium; over Marionette in Firefox
/// (`remote_control`), at the helper's fixed `moz-extension://<uuid>/`.
enum StatusPage<'a> {
    Chromium(Tab),
    Firefox { runner: &'a dyn Runner, handle: String },
}

impl<'a> StatusPage<'a> {
    async fn open(b: &'a HelperBrowser) -> StatusPage<'a> {
        let page = match b.family {
            Family::Chromium => {
                let url = format!("chrome-extension://{HELPER_CHROMIUM_ID}/{STATUS_PAGE}");
                StatusPage::Chromium(Tab::open(b.runner.as_chromium().unwrap().cdp(), &url).await)
            }
            Family::Firefox => {
                let url = format!("{}{STATUS_PAGE}", b.runner.extensions()[0].base_url);
                let handle = b.runner.pages().await.unwrap().remove(0).target_id;
                b.runner.navigate_page(&handle, &url).await.unwrap();
                StatusPage::Firefox { runner: &*b.runner, handle }
            }
        };
        // Chromium's createTarget returns before the page loads, and the blank document
        // already says readyState "complete": wait for the extension page's own DOM.
        page.wait_eval(
            &format!("location.pathname === '/{STATUS_PAGE}' && !!document.getElementById('state')"),
            |v| v == &json!(true),
        )
        .await;
        page
    }

    async fn evaluate(&self, expr: &str) -> Value {
        match self {
            StatusPage::Chromium(tab) => tab.evaluate(expr).await,
            StatusPage::Firefox { runner, handle } => runner
                .evaluate_in_page(handle, expr, DEADLINE)
                .await
                .unwrap_or_else(|e| panic!("`{expr}`: {e}")),
        }
    }

    async fn wait_eval(&self, expr: &str, ok: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let got = self.evaluate(expr).await;
            if ok(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "`{expr}` is still {got}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A helper browser whose status page the test can open.
async fn launch_for_page(family: Family, host: Host) -> HelperBrowser {
    launch_configured(family, host, |o| o.remote_control = true).await
}

/// With no host manifest, the page shows `expected`, the browser's own words.
async fn status_page_shows_host_not_found(family: Family, expected: &str) -> HelperBrowser {
    let b = launch_for_page(family, Host::Missing).await;
    let page = StatusPage::open(&b).await;
    let error = page
        .wait_eval("document.getElementById('last-error').textContent", |v| {
            v.as_str().is_some_and(|s| s.contains(expected))
        })
        .await;
    assert!(error.is_string());
    let state = page.evaluate("document.getElementById('state').textContent").await;
    assert_ne!(state, "connected");
    assert!(b.hosts().is_empty());
    drop(page);
    b
}

#[tokio::test]
async fn chromium_status_page_shows_host_not_found() {
    let b =
        status_page_shows_host_not_found(Family::Chromium, "Specified native messaging host not found").await;
    b.runner.shutdown().await;
}

/// Firefox says it in `port.error` (`runtime.lastError` stays null); the helper also warns
/// about it on its console.
#[tokio::test]
async fn firefox_status_page_shows_no_such_native_application() {
    let expected = format!("No such native application {NATIVE_HOST_NAME}");
    let b = status_page_shows_host_not_found(Family::Firefox, &expected).await;
    let handle = &b.runner.extensions()[0];
    let event = handle
        .subscribe()
        .wait_for(DEADLINE, |e| e.text.contains(NATIVE_HOST_NAME) && e.text.contains("disconnected"))
        .await
        .unwrap_or_else(|| panic!("no disconnect report; console {:?}", handle.history()));
    assert_eq!(event.level, Level::Warn);
    assert!(event.text.contains(&expected), "{}", event.text);
    b.runner.shutdown().await;
}

/// Editing the label on the page renames the browser for the tools, without a new host.
async fn label_edited_on_the_status_page_is_what_tools_show(family: Family) {
    let b = launch_for_page(family, Host::Installed).await;
    let first = b.wait_host("after hello", |_| true).await;
    assert!(is_default_label(&first.label, family.name()), "{}", first.label);
    let page = StatusPage::open(&b).await;
    page.wait_eval("document.getElementById('state').textContent", |v| v == "connected").await;
    page.wait_eval("document.getElementById('label').textContent", |v| v == first.label.as_str()).await;
    // Debugger mode is a Chromium-only toggle.
    let hidden = page.evaluate("document.getElementById('debugger-setting').hidden").await;
    assert_eq!(hidden, family == Family::Firefox);
    page.evaluate(
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

    page.evaluate("document.getElementById('reset-label').click(), true").await;
    b.wait_host("back to the default label", |d| d.label == first.label).await;
    drop(page);
    b.runner.shutdown().await;
}

#[tokio::test]
async fn chromium_label_edited_on_the_status_page_is_what_tools_show() {
    label_edited_on_the_status_page_is_what_tools_show(Family::Chromium).await;
}

#[tokio::test]
async fn firefox_label_edited_on_the_status_page_is_what_tools_show() {
    label_edited_on_the_status_page_is_what_tools_show(Family::Firefox).await;
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
    let page = StatusPage::open(&b).await;
    page.wait_eval("!document.getElementById('debugger-setting').hidden", |v| v == &json!(true)).await;
    page.evaluate("document.getElementById('debugger-mode').click(), true").await;
    let on = b.wait_host("with debugger mode on", has_debugger).await;
    assert_eq!(on.pid, first.pid);
    page.evaluate("document.getElementById('debugger-mode').click(), true").await;
    b.wait_host("with debugger mode off", |d| !has_debugger(d)).await;
    drop(page);
    b.runner.shutdown().await;
}
