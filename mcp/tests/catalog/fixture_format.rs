//! The real Extension.js catalog (staged shape) and a raw-shape copy of it parse into the
//! same model as the embedded catalog.

use serde_json::Value;
use webext_mcp::catalog::{Catalog, parse_catalog};

use crate::fixture_path;

#[test]
fn real_v2_catalog_parses_into_the_model() {
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    let templates = parse_catalog(&text, "extension-js").unwrap();
    assert_eq!(templates.len(), 53);
    let action = templates.iter().find(|t| t.slug == "action").unwrap();
    assert_eq!(action.title, "Action (Popup)");
    assert_eq!(action.surfaces, ["action", "background"]);
    assert!(action.featured && action.has_background);
    assert_eq!(action.manifest_version, Some(3));
    assert!(action.files.contains(&"src/manifest.json".to_owned()), "{:?}", action.files);
    assert_eq!(action.icon.as_deref(), Some("src/images/icon.png"));
    assert_eq!(action.source, "extension-js");
    for t in &templates {
        let staged = format!("public/{}/", t.slug);
        assert!(t.files.iter().all(|f| !f.starts_with(&staged)), "{}: {:?}", t.slug, t.files);
    }
    let claude = templates.iter().find(|t| t.slug == "ai-claude").unwrap();
    assert_eq!(claude.ui_framework, "react");
}

/// The raw shape (the examples repository: paths under `examples/<slug>/`) gives the same
/// templates as the staged shape (release asset: `public/<slug>/`).
#[test]
fn raw_shape_parses_to_the_same_templates() {
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    for t in doc["templates"].as_array_mut().unwrap() {
        let slug = t["slug"].as_str().unwrap().to_owned();
        let staged = format!("public/{slug}/");
        let raw = format!("examples/{slug}/");
        for key in ["files", "configFiles"] {
            if let Some(items) = t[key].as_array_mut() {
                for item in items {
                    *item = Value::String(item.as_str().unwrap().replacen(&staged, &raw, 1));
                }
            }
        }
        for key in ["icon", "screenshot"] {
            if let Some(s) = t[key].as_str() {
                t[key] = Value::String(s.replacen(&staged, &raw, 1));
            }
        }
    }
    let raw_text = serde_json::to_string(&doc).unwrap();
    assert!(raw_text.contains("examples/action/src/manifest.json"));
    let staged = parse_catalog(&text, "x").unwrap();
    let raw = parse_catalog(&raw_text, "x").unwrap();
    assert_eq!(staged, raw);
}

/// The embedded templates serialize to the v2 field names, so a v2 reader (and our own
/// parser) reads them back unchanged.
#[test]
fn embedded_templates_round_trip_through_the_v2_format() {
    let templates: Vec<_> = Catalog::embedded().templates().cloned().collect();
    let doc = serde_json::json!({ "version": "2", "templates": templates });
    let v = &doc["templates"][0];
    for key in [
        "slug",
        "title",
        "surfaces",
        "uiFramework",
        "hasBackground",
        "manifest_version",
        "host_permissions",
        "aiPromptExamples",
        "keyFiles",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let back = parse_catalog(&doc.to_string(), "embedded").unwrap();
    assert_eq!(back, templates);
}
