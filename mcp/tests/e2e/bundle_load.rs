//! Issue 22: projects that need a bundler build natively (`bundle-esm`: ES-module chains in
//! content scripts and a classic worker, a module shared by three entries, JSON, env;
//! `bundle-ts`: TypeScript with a `paths` alias, CSS, a CSS module and an image imported by
//! a content script, a page with a dynamic import) and run in headless Chromium and Firefox:
//! the background starts with no uncaught error, the content scripts' markers appear in a
//! served page, the CSS applies, the image loads from the page, the popup renders. React and
//! Preact popups (`bundle-react`, `bundle-preact`, and `bundle-preact-as-react`: React code
//! on Preact alone) render with the packages `scripts/setup` installs from the npm registry
//! (skipped with the reason when they are not there).

use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use webext_mcp::runner::Level;

use crate::build_load::{assert_clean, build, build_prepared, copy_dir, verdict};
use crate::common::DEADLINE;
use crate::common::browser::{Tab, options, shared};
use crate::common::http::TestServer;

const PAGE: &str = "<!doctype html><title>bundle page</title><body><p>served page</p></body>";

/// What the content scripts left in the page, read from the page's own world (they share
/// its DOM): `null` until both bundles ran.
const ESM_MARKERS: &str = "(() => { const d = document.documentElement.dataset; \
     return d.wxChain && d.wxSecond ? [d.wxChain, d.wxSecond] : null; })()";

/// The TypeScript content script's card: text, the colour from the CSS module (whose file
/// the manifest injects), the border its plain stylesheet would give (none: a content
/// script's plain CSS goes to the shadow root of an extension root, never into the page, as
/// Extension.js does; `contract_load.rs`), and whether its imported image loads from the page
/// (web-accessible).
const TS_CARD: &str = "(async () => { const c = document.getElementById('wx-card'); if (!c) return null; \
     const s = getComputedStyle(c); \
     const img = await new Promise((r) => { const i = new Image(); i.onload = () => r('loaded'); \
       i.onerror = () => r('failed: ' + c.dataset.logo); i.src = c.dataset.logo; }); \
     return [document.documentElement.dataset.wxTs, s.color, s.borderTopStyle, img]; })()";

const POPUP_TEXT: &str = "document.readyState === 'complete' && document.getElementById('out') \
     ? document.getElementById('out').textContent : null";

fn esm_expected(browser: &str) -> Value {
    json!([format!("shared:content|deep|calls=1|{browser}"), "shared:second|42"])
}

fn ts_expected() -> Value {
    json!(["ts-card", "rgb(10, 20, 30)", "none", "loaded"])
}

/// Polls `eval` until it gives `want` (other values are kept for the failure message).
pub(crate) async fn wait_value<F, Fut>(what: &str, want: &Value, mut eval: F)
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

/// A Firefox of its own with one extension, its tabs driven over Marionette.
pub(crate) async fn firefox_with(
    extension: &std::path::Path,
    runtime_dir: &std::path::Path,
    session: &str,
) -> Box<dyn webext_mcp::runner::Runner> {
    let mut opts = options(&[extension], runtime_dir, session);
    opts.remote_control = true;
    webext_mcp::runner::launch(Engine::Gecko, opts, &webext_mcp::paths::Env::capture(), None).await.unwrap()
}

#[tokio::test]
async fn chromium_runs_bundled_content_scripts_workers_and_pages() {
    let site = TestServer::start();
    site.page("/", PAGE);
    let browser = shared(Engine::Chromium);
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    for fixture in ["bundle-esm", "bundle-ts"] {
        let built = build(fixture).await;
        let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
        let v = verdict(&handle).await;
        assert_clean(fixture, Engine::Chromium, &handle, &v);
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
        let runtime_dir = tempfile::tempdir().unwrap();
        let runner =
            firefox_with(&built.output("firefox"), runtime_dir.path(), &format!("bundle-{fixture}")).await;
        let handle = runner.extensions()[0].clone();
        let v = verdict(&handle).await;
        assert_clean(fixture, Engine::Gecko, &handle, &v);
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

/// `node_modules` with react, react-dom and preact: `scripts/setup` installs them (pinned) in
/// `~/.cache/webext-mcp-ci/jsx-deps`; `WEBEXT_MCP_TEST_JSX_DEPS` names another such folder.
pub(crate) fn jsx_deps() -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("WEBEXT_MCP_TEST_JSX_DEPS") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))?;
            cache.join("webext-mcp-ci/jsx-deps")
        }
    };
    let modules = dir.join("node_modules");
    let complete = ["react", "react-dom", "scheduler", "preact"]
        .iter()
        .all(|p| modules.join(p).join("package.json").is_file());
    if complete {
        Some(modules)
    } else {
        eprintln!(
            "skipped: no react/react-dom/preact in {} (run scripts/setup online to install them from the npm registry)",
            modules.display()
        );
        None
    }
}

/// The React and Preact fixtures built with their packages copied in (a link out of the
/// project would be refused by the build, as it should).
async fn jsx_builds() -> Option<Vec<(&'static str, &'static str, crate::build_load::Built)>> {
    let modules = jsx_deps()?;
    let mut out = Vec::new();
    for (fixture, text) in
        [("bundle-react", "React popup|count 2"), ("bundle-preact", "Preact popup|count 3")]
    {
        let built = build_prepared(fixture, |dir| copy_dir(&modules, &dir.join("node_modules"))).await;
        out.push((fixture, text, built));
    }
    // Only preact installed, JSX for React's runtime and `useState` from "react": React's
    // entry points resolve to Preact's, as Extension.js aliases them.
    let preact_only =
        |dir: &std::path::Path| copy_dir(&modules.join("preact"), &dir.join("node_modules/preact"));
    out.push((
        "bundle-preact-as-react",
        "Preact as React|count 4",
        build_prepared("bundle-preact-as-react", preact_only).await,
    ));
    Some(out)
}

const RENDERED: &str = "(() => { const h = document.querySelector('h1'), p = document.getElementById('count'); \
     return h && p ? h.textContent + '|' + p.textContent : null; })()";

#[tokio::test]
async fn chromium_renders_react_and_preact_popups() {
    let Some(builds) = jsx_builds().await else { return };
    let browser = shared(Engine::Chromium);
    let cdp = browser.runner.as_chromium().unwrap().cdp();
    for (fixture, text, built) in builds {
        let handle = browser.runner.load_extension(&built.output("chrome")).await.unwrap();
        let popup = Tab::open(cdp, &format!("{}popup.html", handle.base_url)).await;
        wait_value(fixture, &json!(text), || popup.evaluate(RENDERED)).await;
        let v = verdict(&handle).await;
        assert!(v.is_clean(), "{fixture}: {}", v.report());
    }
}

#[tokio::test]
async fn firefox_renders_react_and_preact_popups() {
    let Some(builds) = jsx_builds().await else { return };
    for (fixture, text, built) in builds {
        let runtime_dir = tempfile::tempdir().unwrap();
        let runner =
            firefox_with(&built.output("firefox"), runtime_dir.path(), &format!("jsx-{fixture}")).await;
        let handle = runner.extensions()[0].clone();
        let tab = runner.pages().await.unwrap()[0].target_id.clone();
        runner.navigate_page(&tab, &format!("{}popup.html", handle.base_url)).await.unwrap();
        let eval =
            || async { runner.evaluate_in_page(&tab, RENDERED, DEADLINE).await.unwrap_or(Value::Null) };
        wait_value(fixture, &json!(text), eval).await;
        let v = verdict(&handle).await;
        runner.shutdown().await;
        assert!(v.is_clean(), "{fixture}: {}", v.report());
    }
}
