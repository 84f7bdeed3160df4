//! Attack: a test page that forges extension roots (thousands, one with megabytes of text, a
//! copy of the real widget's), console lines and an exception that name the extension's own
//! file (its Chromium id, which derives from the folder), and patched built-ins. The report
//! stays bounded, credits the extension with its one widget only, and credits it with none of
//! the page's lines.

use webext_mcp::behaviour::report::{MAX_MESSAGES, MAX_ROOTS};
use webext_mcp::behaviour::{Options, problems};
use webext_mcp::browsers::Engine;

use crate::common::behaviour::{report_with, surface};
use crate::fixture;

/// Chromium's id of an unpacked extension: the first 16 bytes of sha256 of its folder's path,
/// each hex digit written as a letter from `a`.
fn chromium_id(dir: &std::path::Path) -> String {
    use sha2::Digest;
    let dir = std::fs::canonicalize(dir).unwrap();
    let digest = sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes());
    digest[..16].iter().flat_map(|b| [b >> 4, b & 15]).map(|n| char::from(b'a' + n)).collect()
}

async fn a_hostile_page_cannot_grow_the_report_or_forge_roots(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("hostile.html");
    let text = std::fs::read_to_string(fixture("hostile.html")).unwrap();
    std::fs::write(&page, text.replace("EXTENSION_ID", &chromium_id(&fixture("widget")))).unwrap();
    let opts = Options { page: Some(page), ..Options::default() };
    let r = report_with(&fixture("widget"), engine, &opts).await;
    let content = surface(&r, "content");
    assert!(content.read, "{content:#?}");
    assert_eq!(content.root_count, 1, "only the extension's widget: {content:#?}");
    assert!(content.page_roots > 3000, "{}", content.page_roots);
    let widget = &content.roots[0];
    assert_eq!((widget.name.as_str(), widget.shadow.as_deref()), ("widget", Some("open")), "{widget:#?}");
    assert_eq!(widget.style["color"], "rgb(200, 30, 40)");
    assert!(content.roots.len() <= MAX_ROOTS);
    // The page printed and threw the same without the extension: none of it is reported.
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
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
