//! Extension.js's content-script contract, loaded in headless Chromium and Firefox: the
//! `contract` fixture, built natively for both, read by the behaviour harness
//! (`webext_mcp::behaviour`) on its test page, which has a stylesheet of its own and a
//! `.card` of its own. Six content scripts on the page: each default export mounts once on
//! its `run_at` schedule (a self-call is removed; the text says the document's state at the
//! mount), the older self-mounting contract mounts once; the CSS each imports — plain, CSS
//! modules, with a font and an image through `url()` — styles its own extension root's shadow
//! root (one sheet each, none in another's), an async mount's and a `document_start` mount's
//! too; `new URL('./x.css', import.meta.url)` is fetched into the script's own `<style>`,
//! which wins; the host page's computed styles are those without the extension; no error in
//! any world; the popup and side panel are styled by the CSS their scripts import. The
//! widget's `url()`s are extension URLs the page can load (web-accessible).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use webext_mcp::behaviour::Report;
use webext_mcp::browsers::Engine;

use crate::build_load::build;
use crate::bundle_load::{firefox_with, wait_value};
use crate::common::DEADLINE;
use crate::common::behaviour::{report, surface};
use crate::common::browser::{Tab, shared};
use crate::common::http::TestServer;

/// Each root: its text (the document's state when it mounted) and its first element's colour.
const ROOTS: [(&str, &str, &str); 6] = [
    ("async", "async card (complete)", "rgb(10, 11, 12)"),
    ("fetch", "fetch card (complete)", "rgb(19, 20, 21)"),
    // The older contract runs when the browser injects it (document_idle: interactive or
    // complete); document_end mounts once the document is parsed.
    ("legacy", "legacy card (interactive)", "rgb(16, 17, 18)"),
    ("modules", "modules card (interactive)", "rgb(4, 5, 6)"),
    ("start", "start card (loading)", "rgb(13, 14, 15)"),
    ("widget", "widget card (complete)", "rgb(1, 2, 3)"),
];

/// A root as compared: text, shadow mode, its first element's colour, sheets in its shadow.
type Seen<'a> = (String, Option<&'a str>, Option<&'a str>, usize);

/// What the report must say for `engine`.
fn assert_contract(r: &Report, browser: &str) {
    assert!(r.loaded && r.background.alive, "{browser}: {r:#?}");
    assert!(r.errors.is_empty(), "{browser}: errors {:#?}", r.errors);
    let content = surface(r, "content");
    assert!(content.host_changes.is_empty(), "{browser}: the host page changed: {:?}", content.host_changes);
    let got: BTreeMap<&str, Seen<'_>> = content
        .roots
        .iter()
        .map(|root| {
            // Those may find the document interactive or already complete; the mounts at
            // document_idle wait for complete.
            let text = root.text.replace("modules card (complete)", "modules card (interactive)");
            let text = text.replace("legacy card (complete)", "legacy card (interactive)");
            (
                root.name.as_str(),
                (
                    text,
                    root.shadow.as_deref(),
                    root.style.get("color").map(String::as_str),
                    root.sheets.count,
                ),
            )
        })
        .collect();
    let want: BTreeMap<&str, Seen<'_>> = ROOTS
        .iter()
        .map(|(name, text, color)| (*name, ((*text).to_owned(), Some("open"), Some(*color), 1)))
        .collect();
    assert_eq!(got, want, "{browser}: {content:#?}");
    assert_eq!(content.root_count, ROOTS.len(), "{browser}: each mounts once");
    let widget = content.roots.iter().find(|root| root.name == "widget").unwrap();
    // The harness reports font families without the author's quotes (browsers differ there).
    assert_eq!(
        widget.style.get("font-family").map(|f| f.replace('"', "")).as_deref(),
        Some("Contract Sans, monospace"),
        "{browser}: {widget:#?}"
    );
    for (page, color) in [("popup", "rgb(22, 23, 24)"), ("sidepanel", "rgb(25, 26, 27)")] {
        let mount = surface(r, page).mount.as_ref().unwrap_or_else(|| panic!("{browser} {page}: {r:#?}"));
        assert_eq!(mount.style.get("color").map(String::as_str), Some(color), "{browser} {page}: {mount:#?}");
    }
}

#[tokio::test]
async fn chromium_shows_what_the_contract_mounts() {
    let built = build("contract").await;
    assert_manifest(&built.output("chrome"));
    assert_contract(&report(&built.output("chrome"), Engine::Chromium).await, "chromium");
}

#[tokio::test]
async fn firefox_shows_what_the_contract_mounts() {
    let built = build("contract").await;
    assert_manifest(&built.output("firefox"));
    assert_contract(&report(&built.output("firefox"), Engine::Gecko).await, "firefox");
}

/// As Extension.js's manifest: plain CSS imported by a content script is in no
/// `content_scripts[].css` (the browser would put it into the host page); a CSS module's
/// file is, and the url()s' files are web-accessible.
fn assert_manifest(dist: &std::path::Path) {
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("manifest.json")).unwrap()).unwrap();
    for cs in m["content_scripts"].as_array().unwrap() {
        let css = cs["css"].as_array().map_or(0, Vec::len);
        assert_eq!(css, usize::from(cs["js"][0] == "content/modules.js"), "{cs}");
    }
    let war = m["web_accessible_resources"].to_string();
    assert!(war.contains(".woff2") && war.contains(".svg"), "{war}");
}

/// The `url()`s of the widget's CSS in its shadow root: each an extension URL under
/// `assets/` the page can load (web-accessible), by its file's extension.
const WIDGET_URLS: &str = "(async () => { const h = document.querySelector('[data-extension-root=widget]'); \
     if (!h) return null; const css = [...h.shadowRoot.querySelectorAll('style')].map((s) => s.textContent).join(''); \
     const urls = [...css.matchAll(/url\\((['\"]?)([^'\")]+)\\1\\)/g)].map((m) => m[2]); \
     return Promise.all(urls.map((u) => fetch(u, { mode: 'no-cors' }).then(() => true, () => false) \
       .then((ok) => [u.split('.').pop(), /^(chrome|moz)-extension:\\/\\/[^/]+\\/assets\\//.test(u), ok]))); })()";

const WIDGET_LOADS: [(&str, bool, bool); 2] = [("woff2", true, true), ("svg", true, true)];

fn site() -> TestServer {
    let site = TestServer::start();
    site.page("/", "<!doctype html><title>contract page</title><body><p>host</p></body>");
    site
}

#[tokio::test]
async fn chromium_loads_the_files_the_widget_css_names() {
    let site = site();
    let browser = shared(Engine::Chromium);
    let built = build("contract").await;
    browser.runner.load_extension(&built.output("chrome")).await.unwrap();
    let tab = Tab::open(browser.runner.as_chromium().unwrap().cdp(), &site.url("/")).await;
    wait_value("chromium url()s", &json!(WIDGET_LOADS), || tab.evaluate(WIDGET_URLS)).await;
}

#[tokio::test]
async fn firefox_loads_the_files_the_widget_css_names() {
    let site = site();
    let built = build("contract").await;
    let runtime_dir = tempfile::tempdir().unwrap();
    let runner = firefox_with(&built.output("firefox"), runtime_dir.path(), "contract-urls").await;
    let tab = runner.pages().await.unwrap()[0].target_id.clone();
    runner.navigate_page(&tab, &site.url("/")).await.unwrap();
    let eval = || async { runner.evaluate_in_page(&tab, WIDGET_URLS, DEADLINE).await.unwrap_or(Value::Null) };
    wait_value("firefox url()s", &json!(WIDGET_LOADS), eval).await;
    runner.shutdown().await;
}
