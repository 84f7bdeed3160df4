//! The status page says why the helper cannot connect, in the browser's own words, and its
//! label setting is what `list_connected_browsers` shows.

use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use webext_mcp::runner::{Level, Runner};
use webext_mcp_host::protocol::permissions::{Need, PERMISSIONS, Permission};
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
            Engine::Chromium => {
                let url = format!("chrome-extension://{HELPER_CHROMIUM_ID}/{STATUS_PAGE}");
                StatusPage::Chromium(Tab::open(b.runner.as_chromium().unwrap().cdp(), &url).await)
            }
            Engine::Gecko => {
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
async fn launch_for_page(family: Engine, host: Host) -> HelperBrowser {
    launch_configured(family, host, |o| o.remote_control = true).await
}

/// With no host manifest, the page shows `expected`, the browser's own words.
async fn status_page_shows_host_not_found(family: Engine, expected: &str) -> HelperBrowser {
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
        status_page_shows_host_not_found(Engine::Chromium, "Specified native messaging host not found").await;
    b.runner.shutdown().await;
}

/// Firefox says it in `port.error` (`runtime.lastError` stays null); the helper also warns
/// about it on its console.
#[tokio::test]
async fn firefox_status_page_shows_no_such_native_application() {
    let expected = format!("No such native application {NATIVE_HOST_NAME}");
    let b = status_page_shows_host_not_found(Engine::Gecko, &expected).await;
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
async fn label_edited_on_the_status_page_is_what_tools_show(family: Engine) {
    let b = launch_for_page(family, Host::Installed).await;
    let first = b.wait_host("after hello", |_| true).await;
    assert!(is_default_label(&first.label, family.name()), "{}", first.label);
    let page = StatusPage::open(&b).await;
    page.wait_eval("document.getElementById('state').textContent", |v| v == "connected").await;
    page.wait_eval("document.getElementById('label').textContent", |v| v == first.label.as_str()).await;
    // Debugger mode is a Chromium-only toggle.
    let hidden = page.evaluate("document.getElementById('debugger-setting').hidden").await;
    assert_eq!(hidden, family == Engine::Gecko);
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
    label_edited_on_the_status_page_is_what_tools_show(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_label_edited_on_the_status_page_is_what_tools_show() {
    label_edited_on_the_status_page_is_what_tools_show(Engine::Gecko).await;
}

/// Debugger mode is a Chromium-only toggle, off by default; turning it on announces the
/// `debugger` capability in a new hello.
#[tokio::test]
async fn chromium_debugger_mode_toggle_changes_capabilities() {
    let b = launch(Engine::Chromium, Host::Installed).await;
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

/// Each row of the status page's permission list: `{name, why, state, grant}` (whether its
/// Grant button shows).
const PERMISSION_ROWS: &str = "JSON.stringify([...document.querySelectorAll('#permission-rows tr')].map((r) => ({ \
     name: r.dataset.permission, why: r.cells[1].textContent, \
     state: r.querySelector('.state span').textContent, grant: !r.querySelector('button.grant').hidden })))";

async fn permission_rows(page: &StatusPage<'_>, ok: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let text = page
        .wait_eval(PERMISSION_ROWS, |v| {
            v.as_str().and_then(|t| serde_json::from_str::<Vec<Value>>(t).ok()).is_some_and(|rows| ok(&rows))
        })
        .await;
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}

/// The status page lists the permission table's rows for this family (from the generated
/// permissions.js), each with its reason and state; all granted, so no Grant button.
async fn status_page_lists_the_permission_table(family: Engine) -> (HelperBrowser, String) {
    let b = launch_for_page(family, Host::Installed).await;
    let d = b.wait_host("after hello", |_| true).await;
    let page = StatusPage::open(&b).await;
    let engine = family;
    let want: Vec<&Permission> = PERMISSIONS.iter().filter(|p| p.need(engine) != Need::Absent).collect();
    let rows = permission_rows(&page, |rows| !rows.is_empty() && rows.iter().all(|r| r["state"] != "")).await;
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, want.iter().map(|p| p.name).collect::<Vec<_>>());
    for (row, p) in rows.iter().zip(&want) {
        assert_eq!(row["why"], p.why);
        assert_eq!(row["state"], "required, granted", "{row}");
        assert_eq!(row["grant"], false, "{row}");
    }
    drop(page);
    (b, d.label)
}

#[tokio::test]
async fn chromium_status_page_lists_the_permission_table() {
    let (b, _) = status_page_lists_the_permission_table(Engine::Chromium).await;
    b.runner.shutdown().await;
}

/// Firefox lets the user take site access back (about:addons → Permissions); the helper then
/// offers "Grant" for it, and doctor, from the new hello, says what it costs.
#[tokio::test]
async fn firefox_status_page_offers_to_grant_withheld_site_access_and_doctor_says_so() {
    let (b, label) = status_page_lists_the_permission_table(Engine::Gecko).await;
    let page = StatusPage::open(&b).await;
    page.evaluate("(browser.permissions.remove({ origins: ['<all_urls>'] }), true)").await;
    let rows =
        permission_rows(&page, |rows| rows.iter().any(|r| r["state"] == "required, not granted")).await;
    let withheld: Vec<&Value> = rows.iter().filter(|r| r["state"] != "required, granted").collect();
    assert_eq!(withheld.len(), 1, "{rows:?}");
    assert_eq!(withheld[0]["name"], "<all_urls>");
    assert_eq!(withheld[0]["grant"], true, "a withheld host pattern can be asked for again");

    let scope = format!("host:{label}");
    let deadline = Instant::now() + DEADLINE;
    let found = loop {
        let (_, report) = b.cli("doctor", json!({})).await;
        let found = report["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["scope"] == scope.as_str() && p["code"] == "HELPER_SITE_ACCESS_WITHHELD")
            .cloned();
        if let Some(found) = found {
            break found;
        }
        assert!(Instant::now() < deadline, "doctor never saw the withheld site access: {report:#}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(found["message"].as_str().unwrap().contains("<all_urls>"), "{found}");
    assert!(found["fix"].as_str().unwrap().contains("status page"), "{found}");
    drop(page);
    b.runner.shutdown().await;
}
