//! Attack: a test page that forges extension roots (thousands, one with megabytes of text, a
//! copy of the real widget's), console lines that claim an extension's file, and patched
//! built-ins. The report stays bounded, credits the extension with its one widget only, and
//! files the page's lines under the page.

use webext_mcp::behaviour::report::{MAX_MESSAGES, MAX_ROOTS, MAX_TEXT};
use webext_mcp::behaviour::{Options, problems};
use webext_mcp::browsers::Engine;

use crate::common::behaviour::{report_with, surface};
use crate::fixture;

async fn a_hostile_page_cannot_grow_the_report_or_forge_roots(engine: Engine) {
    let opts = Options { page: Some(fixture("hostile.html")), ..Options::default() };
    let r = report_with(&fixture("widget"), engine, &opts).await;
    let content = surface(&r, "content");
    assert!(content.read, "{content:#?}");
    assert_eq!(content.root_count, 1, "only the extension's widget: {content:#?}");
    assert!(content.page_roots > 3000, "{}", content.page_roots);
    let widget = &content.roots[0];
    assert_eq!((widget.name.as_str(), widget.shadow.as_deref()), ("widget", Some("open")), "{widget:#?}");
    assert_eq!(widget.style["color"], "rgb(200, 30, 40)");
    assert!(content.roots.len() <= MAX_ROOTS);
    for m in &r.errors {
        assert!(m.text.len() <= MAX_TEXT, "{}", m.text.len());
        assert_ne!(m.world, "content", "a page line credited to the extension: {m:?}");
    }
    assert!(r.errors.len() <= MAX_MESSAGES);
    let size = serde_json::to_string(&r).unwrap().len();
    assert!(size < 64 * 1024, "report of {size} bytes");
    assert!(problems(&r).iter().all(|p| !p.contains("host page style")), "{:?}", problems(&r));
}

#[tokio::test]
async fn chromium_a_hostile_page_cannot_grow_the_report_or_forge_roots() {
    a_hostile_page_cannot_grow_the_report_or_forge_roots(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_a_hostile_page_cannot_grow_the_report_or_forge_roots() {
    a_hostile_page_cannot_grow_the_report_or_forge_roots(Engine::Gecko).await;
}
