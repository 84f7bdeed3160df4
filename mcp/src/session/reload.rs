//! What a change means for the running extension (pure decisions), and the re-injection
//! script a session runs in the extension's service worker.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::build::scan::{HtmlRef, html_refs};

/// How much of the extension a change needs reloaded, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// An extension page or its assets: reload the open extension pages only.
    Page,
    /// Something else the extension uses: reload it and re-inject content scripts.
    Extension,
    ContentScript,
    Background,
    Manifest,
}

impl Kind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Page => "page",
            Kind::Extension => "extension",
            Kind::ContentScript => "content-script",
            Kind::Background => "background",
            Kind::Manifest => "manifest",
        }
    }
}

/// The roles of the built files, read from the built extension.
#[derive(Debug, Clone, Default)]
pub struct Roles {
    pub content: BTreeSet<String>,
    pub background: BTreeSet<String>,
    /// Scripts and styles that extension pages load.
    pub page_assets: BTreeSet<String>,
    /// Source file → output-relative path (native builds).
    pub by_source: BTreeMap<PathBuf, String>,
    /// Extension pages the manifest names → what they are (`popup`, `options`, …), as
    /// `logs.ndjson` names their console's source.
    pub surfaces: BTreeMap<String, &'static str>,
}

fn strings(v: &Value) -> impl Iterator<Item = String> + '_ {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|s| s.trim_start_matches("./").trim_start_matches('/').to_owned())
}

impl Roles {
    /// Reads the built `manifest.json` and pages in `dist`; `sources` maps output paths to
    /// their project files.
    pub fn read(dist: &Path, sources: &BTreeMap<String, PathBuf>) -> Roles {
        let mut roles = Roles {
            by_source: sources.iter().map(|(rel, src)| (src.clone(), rel.clone())).collect(),
            ..Roles::default()
        };
        let manifest: Value = std::fs::read(dist.join("manifest.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        for cs in manifest["content_scripts"].as_array().into_iter().flatten() {
            roles.content.extend(strings(&cs["js"]));
            roles.content.extend(strings(&cs["css"]));
        }
        let bg = &manifest["background"];
        if let Some(sw) = bg["service_worker"].as_str() {
            roles.background.insert(sw.trim_start_matches('/').to_owned());
        }
        roles.background.extend(strings(&bg["scripts"]));
        if let Some(page) = bg["page"].as_str() {
            roles.background.insert(page.trim_start_matches("./").trim_start_matches('/').to_owned());
        }
        for context in super::inspect::Context::PAGES {
            if let Some(path) = super::inspect::page_path(&manifest, context) {
                roles.surfaces.entry(path).or_insert(context.as_str());
            }
        }
        for rel in sources.keys().filter(|r| r.ends_with(".html") || r.ends_with(".htm")) {
            let Ok(html) = std::fs::read_to_string(dist.join(rel)) else { continue };
            let base = rel.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
            for r in html_refs(&html) {
                let src = match r {
                    HtmlRef::Script { src, .. } => src,
                    HtmlRef::Style(s) | HtmlRef::Asset(s) => s,
                };
                if src.contains("://") {
                    continue;
                }
                let joined = if let Some(abs) = src.strip_prefix('/') {
                    abs.to_owned()
                } else {
                    format!("{base}{src}")
                };
                roles.page_assets.insert(joined.trim_start_matches("./").to_owned());
            }
        }
        roles
    }

    /// What a batch of changed files needs. `None`: nothing the extension uses changed.
    /// `manifest` is the project's source manifest; `build_ok` is whether the last build
    /// worked (after a failure every change is worth a rebuild).
    /// Modules the bundler read count as the bundle they went into: an edit two imports
    /// deep re-injects the content script (or reloads the page) like an edit of the entry.
    pub fn add_bundle_inputs(&mut self, inputs: &BTreeMap<PathBuf, String>) {
        for (src, out) in inputs {
            self.by_source.entry(src.clone()).or_insert_with(|| out.clone());
        }
    }

    pub fn classify(&self, changed: &[PathBuf], manifest: Option<&Path>, build_ok: bool) -> Option<Kind> {
        let mut kind: Option<Kind> = None;
        let mut raise = |k: Kind| kind = Some(kind.map_or(k, |old| old.max(k)));
        for path in changed {
            if Some(path.as_path()) == manifest || path.components().any(|c| c.as_os_str() == "_locales") {
                raise(Kind::Manifest);
                continue;
            }
            let Some(rel) = self.by_source.get(path) else {
                if !build_ok || self.by_source.is_empty() {
                    raise(Kind::Extension);
                }
                continue;
            };
            if self.background.contains(rel) {
                raise(Kind::Background);
            } else if self.content.contains(rel) {
                raise(Kind::ContentScript);
            } else if rel.ends_with(".html") || rel.ends_with(".htm") || self.page_assets.contains(rel) {
                raise(Kind::Page);
            } else if rel.ends_with(".js")
                || rel.ends_with(".mjs")
                || rel.ends_with(".json")
                || rel.ends_with(".wasm")
            {
                // A script no page loads: the worker may import it.
                raise(Kind::Extension);
            } else {
                raise(Kind::Page);
            }
        }
        kind
    }
}

/// The function evaluated in the extension's worker around a reload (`reinject.js` says
/// what it does); it answers one row per tab.
const REINJECT_JS: &str = include_str!("reinject.js");

/// Which part of a re-injection [`reinject_script`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before a reload, in the old background: call what the old content scripts' mounts
    /// returned (the session injects the new ones afterwards).
    Unmount,
    /// Before a reload, for a browser that injects the new content scripts itself: unmount,
    /// remove the old roots and count the coming injection.
    Clean,
    /// After a reload: remove the old roots, count, and inject again.
    Inject,
}

impl Phase {
    const fn as_str(self) -> &'static str {
        match self {
            Phase::Unmount => "unmount",
            Phase::Clean => "clean",
            Phase::Inject => "inject",
        }
    }
}

/// The re-injection call: [`REINJECT_JS`] applied to its arguments as JSON (the indexes of
/// the content-script entries whose tabs are reloaded instead, because the dev build could
/// not wrap them; the phase).
pub fn reinject_script(reload_entries: &[usize], phase: Phase) -> String {
    let args = serde_json::json!([reload_entries, phase.as_str()]);
    format!("({}).apply(null, {args})", REINJECT_JS.trim_end())
}

/// Whether an exception is noise a reload causes by design: the old content script's
/// connection to its extension is cut when the extension reloads.
pub fn expected_after_reload(text: &str) -> bool {
    text.contains("Extension context invalidated")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles() -> Roles {
        let mut r = Roles::default();
        r.content.insert("content.js".into());
        r.background.insert("bg.js".into());
        r.page_assets.insert("popup.js".into());
        for rel in ["content.js", "bg.js", "popup.js", "popup.html", "lib.js", "icon.png"] {
            r.by_source.insert(PathBuf::from(format!("/p/{rel}")), rel.to_owned());
        }
        r
    }

    #[test]
    fn strongest_change_wins() {
        let r = roles();
        let m = Path::new("/p/manifest.json");
        let c = |files: &[&str]| {
            let paths: Vec<PathBuf> = files.iter().map(|f| PathBuf::from(format!("/p/{f}"))).collect();
            r.classify(&paths, Some(m), true)
        };
        assert_eq!(c(&["popup.html", "icon.png"]), Some(Kind::Page));
        assert_eq!(c(&["popup.js"]), Some(Kind::Page));
        assert_eq!(c(&["lib.js"]), Some(Kind::Extension));
        assert_eq!(c(&["content.js", "popup.html"]), Some(Kind::ContentScript));
        assert_eq!(c(&["content.js", "bg.js"]), Some(Kind::Background));
        assert_eq!(c(&["manifest.json", "content.js"]), Some(Kind::Manifest));
        assert_eq!(c(&["_locales/en/messages.json"]), Some(Kind::Manifest));
        assert_eq!(c(&["README.md"]), None);
        assert_eq!(r.classify(&[PathBuf::from("/p/README.md")], Some(m), false), Some(Kind::Extension));
    }

    #[test]
    fn reinjection_script_names_the_entries_to_reload() {
        let s = reinject_script(&[1, 3], Phase::Inject);
        assert!(s.ends_with(").apply(null, [[1,3],\"inject\"])"), "{s}");
        assert!(reinject_script(&[], Phase::Clean).ends_with(").apply(null, [[],\"clean\"])"));
        assert!(reinject_script(&[], Phase::Unmount).ends_with(").apply(null, [[],\"unmount\"])"));
        assert!(s.contains("chrome.scripting.executeScript"));
        assert!(s.contains("new Set(reloadIndexes)"));
    }
}
