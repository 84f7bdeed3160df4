//! The catalog compiled into the binary from `mcp/templates/<slug>/` (see `build.rs`).
//!
//! Each template folder holds `template.meta.json` (the curated v2 fields and the AI fields),
//! `README.md` and `src/` with `manifest.json`. The derived v2 fields (`files`, `version`,
//! `permissions`, `hasBackground`, `entrypoints`, …) are computed here from the files, the
//! way the Extension.js generator derives them from the examples, so they cannot drift.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::{CatalogError, EMBEDDED, Template, TemplateSource};
use crate::manifest::{self, Json, RefKind, Target};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/template_files.rs"));
}

/// The curated metadata file inside each template folder; not copied into projects.
pub const META_FILE: &str = "template.meta.json";

/// The templates of this binary.
pub struct EmbeddedSource {
    templates: Vec<Template>,
    files: Vec<&'static [(&'static str, &'static [u8])]>,
    /// Templates that could not be read (a test keeps this empty).
    pub problems: Vec<String>,
}

impl EmbeddedSource {
    /// Reads the compiled-in tables. A broken template is left out and named in `problems`.
    pub fn load() -> EmbeddedSource {
        let mut source = EmbeddedSource { templates: Vec::new(), files: Vec::new(), problems: Vec::new() };
        for (slug, files) in generated::TEMPLATES {
            match template_of(slug, files) {
                Ok(t) => {
                    source.templates.push(t);
                    source.files.push(files);
                }
                Err(problem) => {
                    tracing::error!("embedded template `{slug}`: {problem}");
                    source.problems.push(format!("{slug}: {problem}"));
                }
            }
        }
        // The starter first, then featured ones, then the rest by slug: the order a listing
        // without a query shows.
        let mut order: Vec<usize> = (0..source.templates.len()).collect();
        order.sort_by_key(|&i| {
            let t = &source.templates[i];
            (t.slug != super::DEFAULT_TEMPLATE, !t.featured, t.slug.clone())
        });
        source.templates = order.iter().map(|&i| source.templates[i].clone()).collect();
        source.files = order.iter().map(|&i| source.files[i]).collect();
        source
    }

    fn files_of(&self, slug: &str) -> Option<&'static [(&'static str, &'static [u8])]> {
        let i = self.templates.iter().position(|t| t.slug == slug)?;
        self.files.get(i).copied()
    }
}

impl TemplateSource for EmbeddedSource {
    fn name(&self) -> &str {
        EMBEDDED
    }

    fn templates(&self) -> &[Template] {
        &self.templates
    }

    fn read(&self, slug: &str, path: &str) -> Result<Option<Cow<'static, [u8]>>, CatalogError> {
        let Some(files) = self.files_of(slug) else {
            return Err(CatalogError::UnknownTemplate { name: slug.to_owned(), closest: Vec::new() });
        };
        if path == META_FILE {
            return Ok(None);
        }
        Ok(files.iter().find(|(p, _)| *p == path).map(|(_, bytes)| Cow::Borrowed(*bytes)))
    }
}

/// Builds one template from its folder's files.
fn template_of(slug: &str, files: &[(&str, &[u8])]) -> Result<Template, String> {
    let find = |name: &str| files.iter().find(|(p, _)| *p == name).map(|(_, b)| *b);
    let meta = find(META_FILE).ok_or(format!("no {META_FILE}"))?;
    let mut t: Template = serde_json::from_slice(meta).map_err(|e| format!("{META_FILE}: {e}"))?;
    let manifest_bytes = find("src/manifest.json").ok_or("no src/manifest.json")?;
    let text = std::str::from_utf8(manifest_bytes).map_err(|_| "src/manifest.json is not UTF-8")?;
    let source = manifest::parse_jsonc(text).map_err(|e| format!("src/manifest.json: {e}"))?;

    t.slug = slug.to_owned();
    t.name = slug.to_owned();
    t.source = EMBEDDED.to_owned();
    t.version = source.get("version").and_then(Json::as_str).unwrap_or("0.0.0").to_owned();
    t.manifest_version = source.get("manifest_version").and_then(Json::as_f64).map(|v| v as u32);
    t.files = files.iter().map(|(p, _)| (*p).to_owned()).filter(|p| p != META_FILE).collect();
    t.browsers = vec!["chrome".into(), "edge".into(), "firefox".into()];
    if t.ui_context.is_empty() {
        t.ui_context = t.surfaces.clone();
    }
    if t.css.is_empty() {
        t.css = "css".into();
    }
    t.icon = t.files.iter().find(|p| p.ends_with("icon-128.png")).cloned();

    let mut permissions = BTreeSet::new();
    let mut host_permissions = BTreeSet::new();
    let mut optional = BTreeSet::new();
    let mut entrypoints = BTreeSet::new();
    let mut background = false;
    for target in [
        Target { name: "chrome", engine: crate::browsers::Engine::Chromium },
        Target { name: "firefox", engine: crate::browsers::Engine::Gecko },
    ] {
        let resolved = manifest::resolve(&source, target).manifest;
        let strings = |key: &str| -> Vec<String> {
            resolved
                .get(key)
                .and_then(Json::as_array)
                .map(|a| a.iter().filter_map(Json::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        permissions.extend(strings("permissions"));
        host_permissions.extend(strings("host_permissions"));
        optional.extend(strings("optional_permissions"));
        background |= resolved.get("background").is_some();
        for r in manifest::file_refs(&resolved) {
            if matches!(r.kind, RefKind::Page | RefKind::ClassicScript | RefKind::ModuleScript) {
                entrypoints.insert(r.path.trim_start_matches('/').to_owned());
            }
        }
    }
    t.permissions = permissions.into_iter().collect();
    t.host_permissions = host_permissions.into_iter().collect();
    t.optional_permissions = optional.into_iter().collect();
    t.entrypoints = entrypoints.into_iter().collect();
    t.has_background = background;

    for key in &t.key_files {
        if !t.files.contains(key) {
            return Err(format!("keyFiles names {key}, which the template does not have"));
        }
    }
    if t.title.is_empty() || t.description.is_empty() || t.surfaces.is_empty() {
        return Err(format!("{META_FILE} needs title, description and surfaces"));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_template_loads_with_ai_fields() {
        let source = EmbeddedSource::load();
        assert!(source.problems.is_empty(), "{:?}", source.problems);
        assert!(source.templates.len() >= 10);
        assert_eq!(source.templates[0].slug, super::super::DEFAULT_TEMPLATE);
        for t in &source.templates {
            assert!(!t.ai_prompt_examples.is_empty(), "{}", t.slug);
            assert!(!t.ai_recommend_for.is_empty(), "{}", t.slug);
            assert!(!t.pattern_explanation.is_empty(), "{}", t.slug);
            assert!(t.key_files.contains(&"src/manifest.json".to_owned()), "{}", t.slug);
            assert!(t.files.contains(&"README.md".to_owned()), "{}", t.slug);
            assert_eq!(t.manifest_version, Some(3), "{}", t.slug);
            assert!(t.ui_framework.is_empty(), "{}: classic scripts only", t.slug);
        }
    }

    #[test]
    fn derived_fields_come_from_the_manifest() {
        let source = EmbeddedSource::load();
        let sidebar = source.templates.iter().find(|t| t.slug == "sidebar").unwrap();
        assert!(sidebar.permissions.contains(&"sidePanel".to_owned()));
        assert!(sidebar.entrypoints.contains(&"sidebar/sidebar.html".to_owned()));
        assert!(sidebar.has_background);
        let newtab = source.templates.iter().find(|t| t.slug == "newtab").unwrap();
        assert!(!newtab.has_background);
        assert!(source.read("popup", META_FILE).unwrap().is_none());
        assert!(source.read("popup", "src/manifest.json").unwrap().is_some());
    }
}
