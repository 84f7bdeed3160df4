//! Issue 22: projects that need a bundler build natively (`bundle-esm`: ES-module chains in
//! content scripts and a classic worker, a module shared by three entries, JSON, env;
//! `bundle-ts`: TypeScript with a `paths` alias, CSS, a CSS module and an image imported by
//! a content script, a page with a dynamic import) and run in headless Chromium and Firefox:
//! the background starts with no uncaught error, the content scripts' markers appear in a
//! served page, the CSS applies, the image loads from the page, the popup renders.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp::runner::{Family, Level};

use crate::build_load::{assert_clean, build, verdict};
use crate::common::DEADLINE;
use crate::common::browser::{Tab, options, shared};
use crate::common::http::TestServer;

const PAGE: &str = "<!doctype html><title>bundle page</title><body><p>served page</p></body>";

/// What the content scripts left in the page, read from the page's own world (they share
/// its DOM): `null` until both bundles ran.
const ESM_MARKERS: &str = "(() => { const d = document.documentElement.dataset; \
     return d.wxChain && d.wxSecond ? [d.wxChain, d.wxSecond] : null; })()";

/// The TypeScript content script's card: text, colours from the CSS module and the plain
/// stylesheet, and whether its imported image loads from the page (web-accessible).
const TS_CARD: &str = "(async () => { const c = document.getElementById('wx-card'); if (!c) return null; \
     const s = getComputedStyle(c); \
     const img = await new Promise((r) => { const i = new Image(); i.onload = () => r('loaded'); \
       i.onerror = () => r('failed: ' + c.dataset.logo); i.src = c.dataset.logo; }); \
     return [document.documentElement.dataset.wxTs, s.color, s.borderTopColor, img]; })()";

const POPUP_TEXT: &str = "document.readyState === 'complete' && document.getElementById('out') \
     ? document.getElementById('out').textContent : null";

fn esm_expected(browser: &str) -> Value {
    json!([format!("shared:content|deep|calls=1|{browser}"), "shared:second|42"])
}

fn ts_expected() -> Value {
    json!(["ts-card", "rgb(10, 20, 30)", "rgb(40, 50, 60)", "loaded"])
}

/// Polls `eval` until it gives `want` (other values are kept for the failure message).
async fn wait_value<F, Fut>(what: &str, want: &Value, mut eval: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = Instant::now() + DEADLINE;
    loop {
        let got = eval().await;
        if &got == want {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: {got} (want {want})");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn chromium_runs_bundled_content_scripts_workers_and_pages() {
    let site = TestServer::start();
    site.page("/", PAGE);
    let browser = shared(Family::Chromium);
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    for fixture in ["bundle-esm", "bundle-ts"] {
        let built = build(fixture).await;
        let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
        let v = verdict(&handle).await;
        assert_clean(fixture, Family::Chromium, &handle, &v);
        let tab = Tab::open(cdp, &site.url("/")).await;
        if fixture == "bundle-esm" {
            wait_value("bundle-esm markers", &esm_expected("chrome"), || tab.evaluate(ESM_MARKERS)).await;
        } else {
            wait_value("bundle-ts card", &ts_expected(), || tab.evaluate(TS_CARD)).await;
            let popup = Tab::open(cdp, &format!("{}popup.html", handle.base_url)).await;
            wait_value("bundle-ts popup", &json!("lazy ts-card"), || popup.evaluate(POPUP_TEXT)).await;
        }
        let errors: Vec<_> = handle.history().into_iter().filter(|e| e.level == Level::Error).collect();
        assert!(errors.is_empty(), "{fixture}: {errors:?}");
    }
}

#[tokio::test]
async fn firefox_runs_bundled_content_scripts_workers_and_pages() {
    let site = TestServer::start();
    site.page("/", PAGE);
    for fixture in ["bundle-esm", "bundle-ts"] {
        let built = build(fixture).await;
        let out = built.output("firefox");
        let runtime_dir = tempfile::tempdir().unwrap();
        let mut opts = options(&[&out], runtime_dir.path(), &format!("bundle-{fixture}"));
        opts.remote_control = true;
        let runner =
            webext_mcp::runner::launch(Family::Gecko, opts, &webext_mcp::paths::Env::capture(), None)
                .await
                .unwrap();
        let handle = runner.extensions()[0].clone();
        let v = verdict(&handle).await;
        assert_clean(fixture, Family::Gecko, &handle, &v);
        let tab = runner.pages().await.unwrap()[0].target_id.clone();
        runner.navigate_page(&tab, &site.url("/")).await.unwrap();
        let eval = |expr: &'static str| {
            let runner = &runner;
            let tab = tab.clone();
            async move { runner.evaluate_in_page(&tab, expr, DEADLINE).await.unwrap_or(Value::Null) }
        };
        if fixture == "bundle-esm" {
            wait_value("bundle-esm markers", &esm_expected("firefox"), || eval(ESM_MARKERS)).await;
        } else {
            wait_value("bundle-ts card", &ts_expected(), || eval(TS_CARD)).await;
            runner.navigate_page(&tab, &format!("{}popup.html", handle.base_url)).await.unwrap();
            wait_value("bundle-ts popup", &json!("lazy ts-card"), || eval(POPUP_TEXT)).await;
        }
        runner.shutdown().await;
    }
}
