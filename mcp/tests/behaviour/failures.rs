//! What a broken extension shows: CSS leaked into the host page, a content script that
//! throws, a background that fails to start. Each is a problem of the report.

use webext_mcp::behaviour::problems;
use webext_mcp::browsers::Engine;

use crate::common::behaviour::{report, surface};
use crate::fixture;

async fn leaked_css_changes_the_host_page(engine: Engine) {
    let r = report(&fixture("leak"), engine).await;
    let content = surface(&r, "content");
    assert_eq!(content.root_count, 1, "{content:#?}");
    assert_eq!(content.roots[0].shadow, None);
    // The page's own `h1 { color }` may win over the injected sheet (Chromium puts extension
    // sheets first); the font it never set comes from the leak in both browsers.
    assert!(
        content.host_changes.iter().any(|c| c == "h1 font-family: Georgia, serif → Comic Sans MS, cursive"),
        "{:?}",
        content.host_changes
    );
    assert!(problems(&r).iter().any(|p| p.contains("host page style changed")), "{:?}", problems(&r));
}

#[tokio::test]
async fn chromium_leaked_css_changes_the_host_page() {
    leaked_css_changes_the_host_page(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_leaked_css_changes_the_host_page() {
    leaked_css_changes_the_host_page(Engine::Gecko).await;
}

async fn a_throwing_content_script_is_an_exception_of_its_world(engine: Engine) {
    let r = report(&fixture("throws"), engine).await;
    assert_eq!(surface(&r, "content").root_count, 0);
    let thrown: Vec<_> =
        r.errors.iter().filter(|m| m.text.contains("behaviour fixture: mount failed")).collect();
    assert_eq!(thrown.len(), 1, "{:?}", r.errors);
    assert_eq!(thrown[0].world, "content", "{:?}", thrown[0]);
    assert_eq!(thrown[0].kind, "exception", "{:?}", thrown[0]);
    assert!(thrown[0].source.as_deref().is_some_and(|s| s == "content.js:3"), "{:?}", thrown[0]);
    assert!(!problems(&r).is_empty());
}

#[tokio::test]
async fn chromium_a_throwing_content_script_is_an_exception_of_its_world() {
    a_throwing_content_script_is_an_exception_of_its_world(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_a_throwing_content_script_is_an_exception_of_its_world() {
    a_throwing_content_script_is_an_exception_of_its_world(Engine::Gecko).await;
}

async fn a_broken_background_is_reported(engine: Engine) {
    let r = report(&fixture("broken-background"), engine).await;
    assert!(r.loaded, "{r:#?}");
    let error = r.errors.iter().find(|m| m.text.contains("behaviour fixture: background failed"));
    assert!(
        !r.background.alive || error.is_some_and(|m| m.world == "background"),
        "neither dead nor its error reported: {r:#?}"
    );
    assert!(!problems(&r).is_empty());
}

#[tokio::test]
async fn chromium_a_broken_background_is_reported() {
    a_broken_background_is_reported(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_a_broken_background_is_reported() {
    a_broken_background_is_reported(Engine::Gecko).await;
}
