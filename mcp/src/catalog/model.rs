//! One template as the catalog knows it: the Extension.js `templates-meta.json` v2 entry plus
//! the AI fields and the `source` it came from.
//!
//! Catalog files come in two shapes that differ only in where file paths point: the *staged*
//! shape (the published release asset, paths under `public/<slug>/`) and the *raw* shape (the
//! examples repository, paths under `examples/<slug>/`). Both parse into the same
//! [`Template`], with every path relative to the template's own folder (`src/manifest.json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CatalogError;

/// A catalog entry. Field names follow `templates-meta.json` v2 (camelCase, except the
/// manifest-derived `manifest_version`, `host_permissions`, `optional_permissions`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Template {
    pub slug: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub version: String,
    #[serde(rename = "manifest_version", skip_serializing_if = "Option::is_none")]
    pub manifest_version: Option<u32>,
    pub ui_context: Vec<String>,
    pub surfaces: Vec<String>,
    pub entrypoints: Vec<String>,
    /// `react`, `vue`, `svelte`, `preact`, or empty for plain JavaScript.
    pub ui_framework: String,
    pub css: String,
    pub config_files: Vec<String>,
    pub has_background: bool,
    pub has_env: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup: Option<Value>,
    pub permissions: Vec<String>,
    #[serde(rename = "host_permissions")]
    pub host_permissions: Vec<String>,
    #[serde(rename = "optional_permissions")]
    pub optional_permissions: Vec<String>,
    pub featured: bool,
    pub tags: Vec<String>,
    pub difficulty: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_first_success_minutes: Option<u32>,
    pub first_steps: Vec<String>,
    pub use_cases: Vec<String>,
    pub docs_url: String,
    /// Paths relative to the template folder (normalized from either catalog shape).
    pub files: Vec<String>,
    pub browsers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    pub repository_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downloads: Option<u64>,
    pub ai_prompt_examples: Vec<String>,
    pub ai_recommend_for: Vec<String>,
    pub pattern_explanation: String,
    pub key_files: Vec<String>,
    /// The template's own archive with its hash, when the catalog publishes one (the
    /// published Extension.js catalog does not: its templates come from the repository
    /// archive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveRef>,
    /// The catalog this entry came from (`embedded`, or a remote catalog's name). Not part
    /// of the v2 file: set by the source that loaded it.
    pub source: String,
}

/// A downloadable archive named by a catalog entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ArchiveRef {
    pub url: String,
    /// Lowercase hex SHA-256 of the archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// The file wrapper: `{ "version": "2", "templates": [...] }`.
#[derive(Debug, Deserialize)]
struct CatalogFile {
    #[serde(default)]
    version: Option<Value>,
    templates: Vec<Value>,
}

/// Parses a `templates-meta.json` v2 document (staged or raw shape) into templates tagged
/// with `source`.
pub fn parse_catalog(text: &str, source: &str) -> Result<Vec<Template>, CatalogError> {
    let bad = |message: String| CatalogError::BadCatalog { source_name: source.to_owned(), message };
    let file: CatalogFile = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let version = match &file.version {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    if version != "2" {
        return Err(bad(format!("version is `{version}`, expected 2")));
    }
    file.templates
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let mut t: Template =
                serde_json::from_value(raw).map_err(|e| bad(format!("templates[{i}]: {e}")))?;
            if t.slug.is_empty() {
                return Err(bad(format!("templates[{i}] has no slug")));
            }
            normalize_paths(&mut t);
            t.source = source.to_owned();
            Ok(t)
        })
        .collect()
}

/// Makes every path relative to the template folder: strips `public/<slug>/` (staged) or
/// `examples/<slug>/` (raw).
fn normalize_paths(t: &mut Template) {
    let prefixes = [format!("public/{}/", t.slug), format!("examples/{}/", t.slug)];
    let strip = |p: &mut String| {
        for prefix in &prefixes {
            if let Some(rest) = p.strip_prefix(prefix.as_str()) {
                *p = rest.to_owned();
                return;
            }
        }
    };
    t.files.iter_mut().for_each(strip);
    t.config_files.iter_mut().for_each(strip);
    t.key_files.iter_mut().for_each(strip);
    if let Some(p) = t.icon.as_mut() {
        strip(p);
    }
    if let Some(p) = t.screenshot.as_mut() {
        strip(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_give_the_same_paths() {
        let staged = r#"{"version":"2","templates":[{"slug":"a","files":["public/a/src/manifest.json"],"icon":"public/a/src/i.png","unknownKey":1}]}"#;
        let raw = r#"{"version":"2","templates":[{"slug":"a","files":["examples/a/src/manifest.json"],"icon":"examples/a/src/i.png"}]}"#;
        let s = parse_catalog(staged, "x").unwrap();
        let r = parse_catalog(raw, "x").unwrap();
        assert_eq!(s, r);
        assert_eq!(s[0].files, ["src/manifest.json"]);
        assert_eq!(s[0].source, "x");
    }

    #[test]
    fn wrong_version_and_missing_slug_are_refused() {
        let err = parse_catalog(r#"{"version":"1","templates":[]}"#, "x").unwrap_err();
        assert!(err.to_string().contains("expected 2"), "{err}");
        let err = parse_catalog(r#"{"version":"2","templates":[{"title":"t"}]}"#, "x").unwrap_err();
        assert!(err.to_string().contains("no slug"), "{err}");
        assert!(parse_catalog("[", "x").is_err());
    }
}
