//! Two builds that differ in one thing (the widget's colour, written with as many characters)
//! differ in exactly that path, wherever each build lives.

use webext_mcp::behaviour::{Difference, diff};
use webext_mcp::browsers::Engine;

use crate::common::behaviour::report;
use crate::fixture;

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

async fn one_change_is_exactly_one_difference(engine: Engine) {
    let tmp = tempfile::tempdir().unwrap();
    let (same, changed) = (tmp.path().join("same"), tmp.path().join("changed"));
    copy_dir(&fixture("widget"), &same);
    copy_dir(&fixture("widget"), &changed);
    let content = std::fs::read_to_string(changed.join("content.js")).unwrap();
    std::fs::write(changed.join("content.js"), content.replace("rgb(200, 30, 40)", "rgb(20, 130, 40)"))
        .unwrap();

    let left = report(&fixture("widget"), engine).await;
    let right = report(&same, engine).await;
    assert_eq!(diff(&left, &right), vec![], "a copy elsewhere is the same build");
    let right = report(&changed, engine).await;
    assert_eq!(
        diff(&left, &right),
        vec![Difference {
            path: "content/roots/0/style/color".into(),
            left: Some("rgb(200, 30, 40)".into()),
            right: Some("rgb(20, 130, 40)".into()),
        }]
    );
}

#[tokio::test]
async fn chromium_one_change_is_exactly_one_difference() {
    one_change_is_exactly_one_difference(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_one_change_is_exactly_one_difference() {
    one_change_is_exactly_one_difference(Engine::Gecko).await;
}
