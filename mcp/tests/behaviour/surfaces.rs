//! What a working extension shows: a content-script widget in an open shadow root styled by a
//! sheet inside it, a popup mounted into `#root` with its stylesheet, a live background, the
//! host page untouched, no error.

use webext_mcp::browsers::Engine;

use crate::common::behaviour::{report, surface};
use crate::fixture;

async fn widget_and_popup_are_mounted_and_styled(engine: Engine) {
    let r = report(&fixture("widget"), engine).await;
    assert!(r.loaded, "{r:#?}");
    let content = surface(&r, "content");
    assert!(content.read, "{content:#?}");
    assert_eq!(content.root_count, 1, "{content:#?}");
    let widget = &content.roots[0];
    assert_eq!(widget.name, "widget");
    assert_eq!(widget.shadow.as_deref(), Some("open"));
    assert_eq!(widget.text, "Widget mounted");
    assert_eq!(widget.first_element.as_deref(), Some("div"));
    assert_eq!(widget.style["color"], "rgb(200, 30, 40)");
    assert_eq!(widget.style["background-color"], "rgb(255, 250, 200)");
    assert_eq!(widget.sheets.count, 1);
    assert!(widget.sheets.chars > 100, "{:?}", widget.sheets);
    assert!(content.host_changes.is_empty(), "{:?}", content.host_changes);
    assert_eq!(content.page_roots, 0);

    let popup = surface(&r, "popup");
    assert!(popup.read, "{popup:#?}");
    assert_eq!(popup.path, "popup.html");
    let mount = popup.mount.as_ref().expect("the popup's mount node");
    assert_eq!(mount.name, "div#root");
    assert_eq!(mount.children, 1);
    assert_eq!(mount.text, "Popup mounted");
    assert_eq!(mount.first_element.as_deref(), Some("p"));
    assert_eq!(mount.style["color"], "rgb(0, 100, 200)");
    assert_eq!(mount.style["font-weight"], "700");
    assert_eq!(mount.sheets.count, 1, "the popup's own stylesheet");

    assert!(r.background.alive, "{:?}", r.background);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(webext_mcp::behaviour::problems(&r).is_empty());
}

#[tokio::test]
async fn chromium_widget_and_popup_are_mounted_and_styled() {
    widget_and_popup_are_mounted_and_styled(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_widget_and_popup_are_mounted_and_styled() {
    widget_and_popup_are_mounted_and_styled(Engine::Gecko).await;
}
