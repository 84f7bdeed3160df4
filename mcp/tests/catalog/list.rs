//! `extension_list_templates` on the embedded catalog: ranking, filters, paging, size.

use serde_json::{Value, json};
use webext_mcp::catalog::Catalog;
use webext_mcp::tools::templates::catalog::{ListArgs, list};

use crate::{assert_ranked_first, call};

fn slugs(out: &Value) -> Vec<String> {
    out["templates"].as_array().unwrap().iter().map(|t| t["slug"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn requests_rank_the_fitting_embedded_template_first() {
    let cases = [
        ("Build me a Chrome extension with a popup, options and a content script", "starter"),
        ("toolbar popup that shows the current tab", "popup"),
        ("side panel that takes notes about the page", "sidebar"),
        ("sidebar for Chrome and Firefox", "sidebar"),
        ("replace the new tab page with a dashboard", "newtab"),
        ("settings page to configure my extension", "options"),
        ("add a panel to developer tools", "devtools"),
        ("right click context menu without UI", "background"),
        ("read the page's JavaScript variables from the main world", "content-main-world"),
        ("three content scripts with different match patterns", "content-multi-entry"),
        ("inject a floating widget into web pages", "content"),
        ("custom start page", "newtab"),
    ];
    assert_ranked_first(Catalog::embedded(), &cases);
}

#[test]
fn no_query_lists_the_starter_first_and_pages_with_a_cursor() {
    let c = Catalog::embedded();
    let page1 = list(c, &ListArgs { limit: Some(4), ..ListArgs::default() }).unwrap();
    assert_eq!(slugs(&page1)[0], "starter");
    assert_eq!(page1["total"].as_u64().unwrap() as usize, c.templates().count());
    let mut all = slugs(&page1);
    let mut cursor = page1["nextCursor"].as_str().map(str::to_owned);
    while let Some(cur) = cursor {
        let page = list(c, &ListArgs { limit: Some(4), cursor: Some(cur), ..ListArgs::default() }).unwrap();
        all.extend(slugs(&page));
        cursor = page["nextCursor"].as_str().map(str::to_owned);
    }
    assert_eq!(all, crate::embedded_slugs());
    let default = list(c, &ListArgs::default()).unwrap();
    assert_eq!(slugs(&default).len(), 8, "the default page stays small");
}

#[test]
fn filters_narrow_the_list() {
    let c = Catalog::embedded();
    let by = |args: ListArgs| slugs(&list(c, &args).unwrap());
    let content = by(ListArgs { surface: Some("content".into()), limit: Some(50), ..ListArgs::default() });
    assert_eq!(content, ["starter", "content", "content-main-world", "content-multi-entry"]);
    assert_eq!(
        by(ListArgs { surface: Some("popup".into()), limit: Some(50), ..ListArgs::default() }),
        ["starter", "popup", "sidebar"]
    );
    assert!(by(ListArgs { framework: Some("react".into()), ..ListArgs::default() }).is_empty());
    assert_eq!(
        by(ListArgs { framework: Some("vanilla".into()), limit: Some(50), ..ListArgs::default() }).len(),
        10
    );
    assert_eq!(
        by(ListArgs { tags: vec!["main-world".into()], ..ListArgs::default() }),
        ["content-main-world"]
    );
    let featured = by(ListArgs { featured: Some(true), limit: Some(50), ..ListArgs::default() });
    assert!(featured.contains(&"sidebar".to_owned()) && !featured.contains(&"devtools".to_owned()));
    assert!(by(ListArgs { query: Some("quantum blockchain".into()), ..ListArgs::default() }).is_empty());
}

#[test]
fn every_result_is_compact_and_names_its_source() {
    let out = list(Catalog::embedded(), &ListArgs { limit: Some(50), ..ListArgs::default() }).unwrap();
    for t in out["templates"].as_array().unwrap() {
        assert_eq!(t["source"], "embedded");
        assert!(t.get("files").is_none() && t.get("aiPromptExamples").is_none(), "{t}");
    }
    let bytes =
        serde_json::to_string(&list(Catalog::embedded(), &ListArgs::default()).unwrap()).unwrap().len();
    assert!(bytes < 8 * 1024, "default page is {bytes} bytes");
}

#[test]
fn bad_arguments_are_invalid_argument_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        json!({"surface": "toolbox"}),
        json!({"limit": 0}),
        json!({"cursor": "page2"}),
        json!({"tags": "ai"}),
        json!({"qurey": "x"}),
    ] {
        let (code, out) = call(dir.path(), "extension_list_templates", args.clone());
        assert_eq!(code, 1, "{args}");
        assert_eq!(out["error"]["code"], "INVALID_ARGUMENT", "{args}: {out}");
        assert!(out["error"]["hint"].is_string(), "{args}");
    }
    let (code, out) = call(dir.path(), "extension_list_templates", json!({"query": "devtools panel"}));
    assert_eq!(code, 0);
    assert_eq!(out["templates"][0]["slug"], "devtools");
}
