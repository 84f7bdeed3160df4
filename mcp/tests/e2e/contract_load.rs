//! Extension.js's content-script contract, loaded in headless Chromium and Firefox
//! (`contract` fixture, built natively for both): each content script's default export
//! mounts on its `run_at` schedule, once (a self-call is removed); imported CSS — plain, CSS
//! modules, with a font and an image through `url()` — styles the shadow root of the
//! extension root, and its files load from the page (web-accessible); an async mount and a
//! `document_start` mount are styled too; the older self-mounting contract mounts once and
//! gets its CSS through `__EXTENSION_SHADOW_ROOT__`; `new URL('./x.css', import.meta.url)`
//! is fetched and wins over the bundle's copy; the host page's computed styles are those of
//! the same page without the extension; the popup and side panel pages are styled by the
//! CSS their scripts import.

use serde_json::{Value, json};
use webext_mcp::browsers::Engine;

use crate::build_load::{assert_clean, build, verdict};
use crate::bundle_load::{firefox_with, wait_value};
use crate::common::DEADLINE;
use crate::common::browser::{Tab, shared};
use crate::common::http::TestServer;

/// The host page: its own stylesheet styles elements whose classes the extension's CSS uses.
const PAGE: &str = "<!doctype html><title>contract page</title>\
     <style>p.card, p.fetched, p.legacy { color: rgb(200, 0, 0); font-family: serif; padding: 1px } body { margin: 13px }</style>\
     <body><p class=\"card\">host card</p><p class=\"fetched\">host fetched</p><p class=\"legacy\">host legacy</p></body>";

/// Pages whose content script mounts one root: path, the root's name, its text, the colour
/// its CSS gives, and the document's state when it mounted (`None`: any but `loading`).
const MOUNTS: [(&str, &str, &str, &str, Option<&str>); 6] = [
    ("/widget", "widget", "widget card", "rgb(1, 2, 3)", Some("complete")),
    ("/modules", "modules", "modules card", "rgb(4, 5, 6)", None),
    ("/async", "async", "async card", "rgb(10, 11, 12)", Some("complete")),
    ("/start", "start", "start card", "rgb(13, 14, 15)", Some("loading")),
    ("/legacy", "extension-root", "legacy card", "rgb(16, 17, 18)", None),
    ("/fetch", "fetch", "fetch card", "rgb(19, 20, 21)", Some("complete")),
];

/// Every extension root: name, text, colour of its first element and number of `<style>`s
/// in its shadow root; and how often each mount ran, with the document's state then.
const ROOTS: &str = "(() => { const d = document.documentElement.dataset; \
     const roots = [...document.querySelectorAll('[data-extension-root], #extension-root')].map((h) => { \
       const r = h.shadowRoot; const p = r && r.querySelector('p'); \
       return [h.getAttribute('data-extension-root') || h.id, p ? p.textContent : null, \
         p ? getComputedStyle(p).color : null, r ? r.querySelectorAll('style').length : -1]; }); \
     const runs = Object.keys(d).filter((k) => k.startsWith('wxMounted')).map((k) => d[k]); \
     const states = Object.keys(d).filter((k) => k.startsWith('wxState')).map((k) => d[k]); \
     return document.readyState === 'complete' ? [roots, runs, states] : null; })()";

/// The host page's own elements' computed styles (`null` until its three are there).
const HOST: &str = "document.readyState === 'complete' && document.querySelectorAll('body > p').length === 3 ? [...document.querySelectorAll('body > p')].map((p) => { \
     const s = getComputedStyle(p); return [p.className, s.color, s.fontFamily, s.paddingTop, s.borderTopStyle]; }) \
     .concat([[getComputedStyle(document.body).margin]]) : null";

/// The `url()`s of the widget's CSS in its shadow root: each an extension URL the page can
/// load (web-accessible), by its file's extension.
const WIDGET_URLS: &str = "(async () => { const h = document.querySelector('[data-extension-root=widget]'); \
     if (!h) return null; const css = [...h.shadowRoot.querySelectorAll('style')].map((s) => s.textContent).join(''); \
     const urls = [...css.matchAll(/url\\((['\"]?)([^'\")]+)\\1\\)/g)].map((m) => m[2]); \
     return Promise.all(urls.map((u) => fetch(u, { mode: 'no-cors' }).then(() => true, () => false) \
       .then((ok) => [u.split('.').pop(), /^(chrome|moz)-extension:\\/\\/[^/]+\\/assets\\//.test(u), ok]))); })()";

const TITLE: &str = "(() => { const t = document.querySelector('.title'); \
     return t && t.dataset.ready ? getComputedStyle(t).color : null; })()";

fn site() -> TestServer {
    let site = TestServer::start();
    for path in ["/plain", "/widget", "/modules", "/async", "/start", "/legacy", "/fetch"] {
        site.page(path, PAGE);
    }
    site
}

/// What the page shows once `path`'s content script mounted.
fn expected(path: &str) -> Value {
    let (_, name, text, color, _) = MOUNTS.iter().find(|m| m.0 == path).unwrap();
    // The fetched copy replaces the bundle's (Extension.js keeps the author's <style>).
    json!([[[name, text, color, 1]], ["1"]])
}

/// Checks one page: the mount, its state, the host page untouched, the widget's files.
async fn check_page<F, Fut>(browser: &str, path: &str, host_before: &Value, eval: F)
where
    F: Fn(&'static str) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let want = expected(path);
    let what = format!("{browser} {path}");
    wait_value(&what, &want, || async {
        let got = eval(ROOTS).await;
        // The state is checked apart (document_end may mount at either).
        match got.as_array() {
            Some(a) if a.len() == 3 => json!([a[0], a[1]]),
            _ => got,
        }
    })
    .await;
    let states = eval(ROOTS).await[2].clone();
    let state = MOUNTS.iter().find(|m| m.0 == path).unwrap().4;
    match state {
        Some(s) => assert_eq!(states, json!([s]), "{what}"),
        None if path != "/legacy" => assert_ne!(states, json!(["loading"]), "{what}"),
        None => {}
    }
    assert_eq!(&host_styles(&eval).await, host_before, "{what}: the host page's styles changed");
    if path == "/widget" {
        let want = json!([["woff2", true, true], ["svg", true, true]]);
        wait_value(&format!("{what} url()s"), &want, || eval(WIDGET_URLS)).await;
    }
}

/// The host page's styles, once it loaded.
async fn host_styles<F, Fut>(eval: F) -> Value
where
    F: Fn(&'static str) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = std::time::Instant::now() + DEADLINE;
    loop {
        let got = eval(HOST).await;
        if got.is_array() {
            return got;
        }
        assert!(std::time::Instant::now() < deadline, "the host page did not load: {got}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn chromium_mounts_content_scripts_with_their_css_in_the_shadow_root() {
    let site = site();
    let browser = shared(Engine::Chromium);
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    let built = build("contract").await;
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(built.output("chrome").join("manifest.json")).unwrap())
            .unwrap();
    assert_manifest(&manifest);
    let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
    assert_clean("contract", Engine::Chromium, &handle, &verdict(&handle).await);
    let plain = Tab::open(cdp, &site.url("/plain")).await;
    let host_before = host_styles(|e| plain.evaluate(e)).await;
    for (path, ..) in MOUNTS {
        let tab = Tab::open(cdp, &site.url(path)).await;
        check_page("chromium", path, &host_before, |e| tab.evaluate(e)).await;
    }
    for page in ["popup/index.html", "panel/index.html"] {
        let tab = Tab::open(cdp, &format!("{}{page}", handle.base_url)).await;
        let want = if page.starts_with("popup") { "rgb(22, 23, 24)" } else { "rgb(25, 26, 27)" };
        wait_value(page, &json!(want), || tab.evaluate(TITLE)).await;
    }
    let v = verdict(&handle).await;
    assert!(v.is_clean(), "{}", v.report());
}

#[tokio::test]
async fn firefox_mounts_content_scripts_with_their_css_in_the_shadow_root() {
    let site = site();
    let built = build("contract").await;
    let runtime_dir = tempfile::tempdir().unwrap();
    let runner = firefox_with(&built.output("firefox"), runtime_dir.path(), "contract").await;
    let handle = runner.extensions()[0].clone();
    assert_clean("contract", Engine::Gecko, &handle, &verdict(&handle).await);
    let tab = runner.pages().await.unwrap()[0].target_id.clone();
    let eval = |expr: &'static str| {
        let runner = &runner;
        let tab = tab.clone();
        async move { runner.evaluate_in_page(&tab, expr, DEADLINE).await.unwrap_or(Value::Null) }
    };
    runner.navigate_page(&tab, &site.url("/plain")).await.unwrap();
    let host_before = host_styles(eval).await;
    for (path, ..) in MOUNTS {
        runner.navigate_page(&tab, &site.url(path)).await.unwrap();
        check_page("firefox", path, &host_before, eval).await;
    }
    for page in ["popup/index.html", "panel/index.html"] {
        runner.navigate_page(&tab, &format!("{}{page}", handle.base_url)).await.unwrap();
        let want = if page.starts_with("popup") { "rgb(22, 23, 24)" } else { "rgb(25, 26, 27)" };
        wait_value(page, &json!(want), || eval(TITLE)).await;
    }
    let v = verdict(&handle).await;
    assert!(v.is_clean(), "{}", v.report());
    runner.shutdown().await;
}

/// As Extension.js's manifest: plain CSS imported by a content script is in no
/// `content_scripts[].css` (the browser would put it into the host page); a CSS module's
/// file is, and the url()s' files are web-accessible.
fn assert_manifest(m: &Value) {
    let entries = m["content_scripts"].as_array().unwrap();
    for (i, cs) in entries.iter().enumerate() {
        let css = cs["css"].as_array().map_or(0, Vec::len);
        let modules = cs["js"][0] == "content/modules.js";
        assert_eq!(css, usize::from(modules), "entry {i}: {cs}");
    }
    let war = m["web_accessible_resources"].to_string();
    assert!(war.contains(".woff2") && war.contains(".svg"), "{war}");
}
