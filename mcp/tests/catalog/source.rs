//! `extension_get_template_source`: the listing without `files`, contents with byte caps.

use serde_json::json;
use webext_mcp::catalog::Catalog;
use webext_mcp::tools::templates::catalog::{SourceArgs, template_source};

use crate::{call, extension_js_catalog};

fn args(slug: &str, files: Option<Vec<&str>>, max: Option<usize>, total: Option<usize>) -> SourceArgs {
    SourceArgs {
        slug: slug.into(),
        files: files.map(|f| f.into_iter().map(str::to_owned).collect()),
        max_bytes: max,
        max_total_bytes: total,
    }
}

#[test]
fn without_files_lists_files_metadata_and_key_files() {
    let out = template_source(Catalog::embedded(), &args("sidebar", None, None, None)).unwrap();
    assert_eq!(out["source"], "embedded");
    assert!(out["patternExplanation"].as_str().unwrap().contains("side_panel"));
    let key: Vec<&str> = out["keyFiles"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(key.contains(&"src/manifest.json"));
    let files = out["files"].as_array().unwrap();
    assert!(files.iter().any(|f| f["path"] == "src/sidebar/sidebar.js" && f["bytes"].as_u64().unwrap() > 0));
    assert!(files.iter().all(|f| f["path"] != "template.meta.json"));
    assert!(out.get("permissions").is_some());
}

#[test]
fn key_files_come_back_whole_under_the_defaults() {
    let c = Catalog::embedded();
    for t in c.templates() {
        let files = t.key_files.iter().map(String::as_str).collect();
        let out = template_source(c, &args(&t.slug, Some(files), None, None)).unwrap();
        for f in out["files"].as_array().unwrap() {
            assert!(f.get("truncated").is_none(), "{}: {}", t.slug, f["path"]);
            assert_eq!(f["content"].as_str().unwrap().len() as u64, f["bytes"].as_u64().unwrap());
        }
    }
}

#[test]
fn per_file_and_total_caps_cut_at_character_boundaries() {
    let c = Catalog::embedded();
    let out = template_source(
        c,
        &args("starter", Some(vec!["src/background.js", "./src/manifest.json"]), Some(100), None),
    )
    .unwrap();
    let files = out["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for f in files {
        assert_eq!(f["truncated"], true);
        assert!(f["content"].as_str().unwrap().len() <= 100);
    }
    assert_eq!(files[1]["path"], "src/manifest.json");
    let out = template_source(
        c,
        &args(
            "starter",
            Some(vec!["src/background.js", "src/manifest.json", "README.md"]),
            Some(1000),
            Some(1200),
        ),
    )
    .unwrap();
    let sizes: Vec<usize> =
        out["files"].as_array().unwrap().iter().map(|f| f["content"].as_str().unwrap().len()).collect();
    assert!(sizes.iter().sum::<usize>() <= 1200, "{sizes:?}");
    assert_eq!(sizes[2], 0, "the total budget was spent: {sizes:?}");
    let out = template_source(c, &args("popup", Some(vec!["src/icons/icon-16.png"]), None, None)).unwrap();
    assert_eq!(out["files"][0]["binary"], true);
    assert!(out["files"][0].get("content").is_none());
}

#[test]
fn missing_files_unknown_templates_and_traversal_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = call(
        dir.path(),
        "extension_get_template_source",
        json!({"slug": "popup", "files": ["src/nope.js", "README.md"]}),
    );
    assert_eq!(code, 0);
    assert_eq!(out["missing"], json!(["src/nope.js"]));
    let (code, out) =
        call(dir.path(), "extension_get_template_source", json!({"slug": "popup", "files": ["src/nope.js"]}));
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("NOT_FOUND")));
    let (_, out) = call(
        dir.path(),
        "extension_get_template_source",
        json!({"slug": "popup", "files": ["../../etc/passwd"]}),
    );
    assert_eq!(out["error"]["code"], "INVALID_ARGUMENT");
    let (_, out) = call(dir.path(), "extension_get_template_source", json!({"slug": "popupp"}));
    assert_eq!(out["error"]["code"], "NOT_FOUND");
    assert_eq!(out["error"]["data"]["closest"][0], "popup");
    let (_, out) = call(dir.path(), "extension_get_template_source", json!({"slug": "embedded:content"}));
    assert_eq!(out["slug"], "content");
}

/// A catalog without files (a remote one before fetching) still lists; reading says why not.
#[test]
fn a_metadata_only_source_lists_but_cannot_read() {
    let c = extension_js_catalog();
    let out = template_source(&c, &args("extension-js:action", None, None, None)).unwrap();
    assert_eq!(out["source"], "extension-js");
    assert!(out["files"].as_array().unwrap().iter().all(|f| f["bytes"].is_null()));
    let err = template_source(&c, &args("action", Some(vec!["src/manifest.json"]), None, None)).unwrap_err();
    assert_eq!(err.code.as_str(), "UNSUPPORTED");
}
