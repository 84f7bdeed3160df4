//! `similarTemplates`: the catalog templates whose surfaces and permissions are closest to
//! the manifest's, as known-good examples to compare against (their manifests validate
//! clean; a test keeps them so).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::catalog::Catalog;
use crate::manifest::Json;

/// One similar template.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Similar {
    pub slug: String,
    pub title: String,
    /// 0–1: surfaces count twice as much as permissions.
    pub score: f64,
    pub shared_surfaces: Vec<String>,
    pub shared_permissions: Vec<String>,
}

/// The surfaces a manifest has, in the catalog's words (`action`, `sidebar`, `content`, …).
pub fn surfaces(m: &Json) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let has = |k: &str| m.get(k).is_some();
    let rows: [(&str, bool); 7] = [
        ("action", has("action") || has("browser_action") || has("page_action")),
        ("sidebar", has("side_panel") || has("sidebar_action")),
        ("options", has("options_ui") || has("options_page")),
        ("content", has("content_scripts")),
        ("background", has("background")),
        ("devtools", has("devtools_page")),
        ("newtab", m.get("chrome_url_overrides").and_then(|o| o.get("newtab")).is_some()),
    ];
    for (name, present) in rows {
        if present {
            out.insert(name.to_owned());
        }
    }
    out
}

/// A template's manifest resolved for Chrome, when its source can hand out the file.
fn own_manifest(catalog: &Catalog, t: &crate::catalog::Template) -> Option<Json> {
    let source = catalog.sources().find(|s| s.name() == t.source)?;
    let bytes = source.read(&t.slug, "src/manifest.json").ok()??;
    let json = crate::manifest::parse_jsonc(std::str::from_utf8(&bytes).ok()?).ok()?;
    let chrome = crate::manifest::Target::named("chrome")?;
    Some(crate::manifest::resolve(&json, chrome).manifest)
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 1.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

/// The `limit` closest templates for a resolved manifest (`m`, any target: surfaces and
/// permissions are read from it).
pub fn similar(catalog: &Catalog, m: &Json, limit: usize) -> Vec<Similar> {
    let mine = surfaces(m);
    let perms: BTreeSet<String> = ["permissions", "host_permissions"]
        .iter()
        .filter_map(|k| m.get(k).and_then(Json::as_array))
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let mut rows: Vec<Similar> = catalog
        .templates()
        .map(|t| {
            // Surfaces read from the template's own manifest the same way as ours (the
            // catalog's curated list may name them differently); the list when it has none.
            let theirs: BTreeSet<String> = own_manifest(catalog, t)
                .map_or_else(|| t.surfaces.iter().cloned().collect(), |m| surfaces(&m));
            let their_perms: BTreeSet<String> =
                t.permissions.iter().chain(&t.host_permissions).cloned().collect();
            let score = (2.0 * jaccard(&mine, &theirs) + jaccard(&perms, &their_perms)) / 3.0;
            Similar {
                slug: t.slug.clone(),
                title: t.title.clone(),
                score: (score * 100.0).round() / 100.0,
                shared_surfaces: mine.intersection(&theirs).cloned().collect(),
                shared_permissions: perms.intersection(&their_perms).cloned().collect(),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.slug.cmp(&b.slug)));
    rows.truncate(limit);
    rows
}
