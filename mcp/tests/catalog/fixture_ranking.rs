//! Ranking against the real 53-template Extension.js catalog, where the right answers are
//! not ours to choose.

use webext_mcp::tools::templates::catalog::{ListArgs, list};

use crate::{assert_ranked_first, extension_js_catalog};

#[test]
fn required_queries_rank_the_right_template_first() {
    let cases = [
        ("sidebar to chat with Claude about the page", "ai-claude"),
        ("content script in the page's main world", "content-main-world"),
        ("three content scripts", "content-multi-three-entries"),
        ("new tab with React Router", "new-react-router"),
        ("content script with Sass modules", "content-sass-modules"),
        ("TypeScript content script", "content-typescript"),
        ("toolbar popup", "action"),
    ];
    assert_ranked_first(&extension_js_catalog(), &cases);
}

#[test]
fn filters_work_on_the_real_catalog() {
    let c = extension_js_catalog();
    let out = list(&c, &ListArgs { framework: Some("vue".into()), limit: Some(50), ..ListArgs::default() })
        .unwrap();
    let slugs: Vec<&str> =
        out["templates"].as_array().unwrap().iter().map(|t| t["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["content-vue", "new-vue", "vue"]);
    let out = list(&c, &ListArgs { tags: vec!["AI".into(), "chat".into()], ..ListArgs::default() }).unwrap();
    assert_eq!(out["total"], 4);
    assert!(out["templates"].as_array().unwrap().iter().all(|t| t["source"] == "extension-js"));
}
