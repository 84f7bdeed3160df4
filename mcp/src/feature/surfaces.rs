//! The surfaces `extension_add_feature` adds: for each, the files of its embedded vanilla
//! pattern, where the manifest declares it, and the manifest changes that declare it.
//!
//! Manifest changes respect browser prefixes the way resolution reads them (plain <
//! family < exact browser, a prefixed key replacing the plain one): a permission for both
//! families goes into every `permissions` variant that lacks it; a Chromium-only key goes
//! under `chromium:` (or into an existing Chromium-family variant), never into the plain key
//! Firefox would warn about.

use crate::browsers::Engine;
use serde_json::{Value, json};

use crate::manifest::Target;
use crate::manifest::target::{CHROMIUM_FAMILY_PREFIXES, GECKO_FAMILY_PREFIXES};

/// A surface a project can gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Sidebar,
    Popup,
    Options,
    ContentScript,
    Background,
    Newtab,
    Devtools,
    History,
    Bookmarks,
}

impl Feature {
    pub const ALL: [Feature; 9] = [
        Feature::Sidebar,
        Feature::Popup,
        Feature::Options,
        Feature::ContentScript,
        Feature::Background,
        Feature::Newtab,
        Feature::Devtools,
        Feature::History,
        Feature::Bookmarks,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Feature::Sidebar => "sidebar",
            Feature::Popup => "popup",
            Feature::Options => "options",
            Feature::ContentScript => "content-script",
            Feature::Background => "background",
            Feature::Newtab => "newtab",
            Feature::Devtools => "devtools",
            Feature::History => "history",
            Feature::Bookmarks => "bookmarks",
        }
    }

    /// A feature by its name or a common spelling of it (`action`, `side-panel`, `content`,
    /// `new-tab`, `service-worker`, `options-page`).
    pub fn parse(name: &str) -> Option<Feature> {
        let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        if let Some(f) = Feature::ALL.into_iter().find(|f| f.name() == n) {
            return Some(f);
        }
        if matches!(n.as_str(), "history-page" | "history-override") {
            return Some(Feature::History);
        }
        if matches!(n.as_str(), "bookmarks-page" | "bookmark-manager" | "bookmark") {
            return Some(Feature::Bookmarks);
        }
        Some(match crate::catalog::search::canonical_surface(&n)? {
            "action" => Feature::Popup,
            "content" => Feature::ContentScript,
            "sidebar" => Feature::Sidebar,
            "newtab" => Feature::Newtab,
            "options" => Feature::Options,
            "background" => Feature::Background,
            "devtools" => Feature::Devtools,
            _ => return None,
        })
    }

    /// History and bookmark-manager overrides exist only in Chromium browsers.
    pub const fn chromium_only(self) -> bool {
        matches!(self, Feature::History | Feature::Bookmarks)
    }

    /// The file the manifest names for this surface (relative to the manifest's folder).
    pub const fn entry(self) -> &'static str {
        match self {
            Feature::Sidebar => "sidebar/sidebar.html",
            Feature::Popup => "popup/popup.html",
            Feature::Options => "options/options.html",
            Feature::ContentScript => "content/content.js",
            Feature::Background => "background.js",
            Feature::Newtab => "newtab/newtab.html",
            Feature::Devtools => "devtools/devtools.html",
            Feature::History => "history/history.html",
            Feature::Bookmarks => "bookmarks/bookmarks.html",
        }
    }

    /// The pattern's files: (path relative to the manifest's folder, contents); `pages/…`
    /// is relative to the project root instead (see [`destination`]).
    pub fn files(self) -> &'static [(&'static str, &'static str)] {
        macro_rules! pattern {
            ($($path:literal),+) => {
                &[$(($path, include_str!(concat!("patterns/", $path)))),+]
            };
        }
        match self {
            Feature::Sidebar => pattern!("sidebar/sidebar.html", "sidebar/sidebar.js", "sidebar/sidebar.css"),
            Feature::Popup => pattern!("popup/popup.html", "popup/popup.js", "popup/popup.css"),
            Feature::Options => pattern!("options/options.html", "options/options.js", "options/options.css"),
            // The embedded `content` template's script: the catalog's own pattern, which
            // marks its root for the inspector and is safe to inject twice.
            Feature::ContentScript => {
                &[("content/content.js", include_str!("../../templates/content/src/content/content.js"))]
            }
            Feature::Background => pattern!("background.js"),
            Feature::Newtab => pattern!("newtab/newtab.html", "newtab/newtab.js", "newtab/newtab.css"),
            // The panel is named only in JavaScript, so it lives in `pages/`, the Extension.js
            // special folder every build includes.
            Feature::Devtools => pattern!(
                "devtools/devtools.html",
                "devtools/devtools.js",
                "pages/devtools-panel.html",
                "pages/devtools-panel.js",
                "pages/devtools-panel.css"
            ),
            Feature::History => pattern!("history/history.html", "history/history.js", "history/history.css"),
            Feature::Bookmarks => {
                pattern!("bookmarks/bookmarks.html", "bookmarks/bookmarks.js", "bookmarks/bookmarks.css")
            }
        }
    }

    /// Where a resolved manifest declares this surface: (key path, file) pairs, empty when
    /// it does not. `chromium` and `gecko` are the manifest resolved for each family.
    pub fn declared(self, chromium: &Value, gecko: &Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut look = |m: &Value, path: &[&str]| {
            let mut v = m;
            for key in path {
                match v.get(key) {
                    Some(next) => v = next,
                    None => return,
                }
            }
            let file = match v {
                Value::String(s) => s.clone(),
                Value::Array(items) => items.first().and_then(Value::as_str).unwrap_or_default().to_owned(),
                _ => String::new(),
            };
            let entry = (path.join("."), file);
            if !out.contains(&entry) {
                out.push(entry);
            }
        };
        let both = [chromium, gecko];
        // (key path, for both families or Chromium alone)
        let paths: &[(&[&str], bool)] = match self {
            Feature::Popup => &[(&["action", "default_popup"], true)],
            Feature::Options => &[(&["options_ui", "page"], true), (&["options_page"], true)],
            Feature::Sidebar => &[],
            Feature::ContentScript => &[(&["content_scripts"], true)],
            Feature::Background => &[
                (&["background", "service_worker"], true),
                (&["background", "scripts"], true),
                (&["background", "page"], true),
            ],
            Feature::Newtab => &[(&["chrome_url_overrides", "newtab"], true)],
            Feature::Devtools => &[(&["devtools_page"], true)],
            Feature::History => &[(&["chrome_url_overrides", "history"], false)],
            Feature::Bookmarks => &[(&["chrome_url_overrides", "bookmarks"], false)],
        };
        for (path, in_both) in paths {
            for m in if *in_both { &both[..] } else { &both[..1] } {
                let empty_list = m.get(path[0]).and_then(Value::as_array).is_some_and(|a| a.is_empty());
                if !empty_list {
                    look(m, path);
                }
            }
        }
        if self == Feature::Sidebar {
            look(chromium, &["side_panel", "default_path"]);
            look(gecko, &["sidebar_action", "default_panel"]);
        }
        // A content script's entry is the first file of its first entry.
        for (path, file) in out.iter_mut() {
            if path == "content_scripts" {
                *file = chromium
                    .pointer("/content_scripts/0/js/0")
                    .or_else(|| gecko.pointer("/content_scripts/0/js/0"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
            }
        }
        out
    }

    /// For the page overrides: another page this manifest already overrides in Chromium,
    /// which allows one override per extension ("An extension cannot override more than
    /// one page", Chromium's `kMultipleOverrides`).
    pub fn override_conflict(self, chromium: &Value) -> Option<String> {
        let ours = match self {
            Feature::Newtab => "newtab",
            Feature::History => "history",
            Feature::Bookmarks => "bookmarks",
            _ => return None,
        };
        let overrides = chromium.get("chrome_url_overrides")?.as_object()?;
        overrides.keys().find(|k| k.as_str() != ours).cloned()
    }
}

/// Where a pattern file goes: `pages/…` (the Extension.js special folder) under the
/// project root, anything else beside the manifest. The built extension has both at its
/// root.
pub fn destination(
    project: &std::path::Path,
    manifest_root: &std::path::Path,
    path: &str,
) -> std::path::PathBuf {
    if path.starts_with("pages/") { project.join(path) } else { manifest_root.join(path) }
}

/// One change to the manifest text.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Insert `key: value` at the end of the object at `path` (`[]` = the root).
    Member { path: Vec<String>, key: String, value: Value },
    /// Append `value` to the array at `path`.
    Item { path: Vec<String>, value: Value },
}

/// Which browsers a root key applies to: `None` for a plain key; the family of a prefixed
/// key; `Err(())` for a prefix of no known browser (dropped by resolution).
fn key_family(prefix: &str) -> Result<Engine, ()> {
    if CHROMIUM_FAMILY_PREFIXES.contains(&prefix) {
        return Ok(Engine::Chromium);
    }
    if GECKO_FAMILY_PREFIXES.contains(&prefix) {
        return Ok(Engine::Gecko);
    }
    Target::named(prefix).map(|t| t.engine).ok_or(())
}

/// The root keys that are `name` or `<prefix>:name`: (key, family of the prefix, whether
/// the prefix is a whole family rather than one browser).
fn variants<'a>(
    root: &'a serde_json::Map<String, Value>,
    name: &str,
) -> Vec<(&'a str, Option<Engine>, bool)> {
    root.keys()
        .filter_map(|k| match k.split_once(':') {
            None if k == name => Some((k.as_str(), None, true)),
            Some((prefix, rest)) if rest == name => key_family(prefix).ok().map(|f| {
                let whole =
                    CHROMIUM_FAMILY_PREFIXES.contains(&prefix) || GECKO_FAMILY_PREFIXES.contains(&prefix);
                (k.as_str(), Some(f), whole)
            }),
            _ => None,
        })
        .collect()
}

/// The prefix a new family-only key gets.
const fn family_prefix(f: Engine) -> &'static str {
    match f {
        Engine::Chromium => "chromium",
        Engine::Gecko => "firefox",
    }
}

/// The variants of root key `name` that `family` (`None`: every browser) reads, and
/// whether one of them covers the whole scope (the plain key for every browser; a family
/// prefix, not one browser's, for a family).
fn applicable<'a>(
    root: &'a serde_json::Map<String, Value>,
    name: &str,
    family: Option<Engine>,
) -> (Vec<&'a str>, bool) {
    let mut keys = Vec::new();
    let mut covered = false;
    for (k, fam, whole) in variants(root, name) {
        let (applies, covers) = match family {
            None => (true, fam.is_none()),
            Some(f) => (fam == Some(f), whole),
        };
        if applies {
            keys.push(k);
            covered |= covers;
        }
    }
    (keys, covered)
}

/// Makes the root object `key` hold `member: value` for `family` (`None`: every browser):
/// the member goes into each applicable variant that lacks it; without a variant covering
/// the whole scope, a new key (`key`, or `chromium:key`) holds `{member: value}`.
fn ensure_member(
    root: &serde_json::Map<String, Value>,
    key: &str,
    member: &str,
    value: &Value,
    family: Option<Engine>,
    out: &mut Vec<Change>,
) {
    let (keys, covered) = applicable(root, key, family);
    for k in keys {
        if let Some(obj) = root.get(k).and_then(Value::as_object)
            && !obj.contains_key(member)
        {
            out.push(Change::Member {
                path: vec![k.to_owned()],
                key: member.to_owned(),
                value: value.clone(),
            });
        }
    }
    if !covered {
        let new_key = match family {
            None => key.to_owned(),
            Some(f) => format!("{}:{key}", family_prefix(f)),
        };
        let mut whole = serde_json::Map::new();
        whole.insert(member.to_owned(), value.clone());
        out.push(Change::Member { path: vec![], key: new_key, value: Value::Object(whole) });
    }
}

/// Makes `permission` granted for `family` (`None`: every browser).
fn ensure_permission(
    root: &serde_json::Map<String, Value>,
    permission: &str,
    family: Option<Engine>,
    out: &mut Vec<Change>,
) {
    let (keys, covered) = applicable(root, "permissions", family);
    for k in keys {
        if let Some(items) = root.get(k).and_then(Value::as_array)
            && !items.iter().any(|p| p.as_str() == Some(permission))
        {
            out.push(Change::Item { path: vec![k.to_owned()], value: json!(permission) });
        }
    }
    if !covered {
        match family {
            None => out.push(Change::Member {
                path: vec![],
                key: "permissions".into(),
                value: json!([permission]),
            }),
            Some(f) => {
                // The new family key replaces the plain list for that family: carry it over.
                let mut list: Vec<Value> =
                    root.get("permissions").and_then(Value::as_array).cloned().unwrap_or_default();
                if !list.iter().any(|p| p.as_str() == Some(permission)) {
                    list.push(json!(permission));
                }
                out.push(Change::Member {
                    path: vec![],
                    key: format!("{}:permissions", family_prefix(f)),
                    value: Value::Array(list),
                });
            }
        }
    }
}

/// The manifest changes that declare `feature` in a manifest that does not have it yet.
/// `root` is the source manifest (prefixes unresolved).
pub fn changes(feature: Feature, entry: &str, root: &serde_json::Map<String, Value>) -> Vec<Change> {
    let mut out = Vec::new();
    let mut root = root.clone();
    let root = &mut root;
    let (entry_path, entry) = (entry, json!(entry));
    match feature {
        Feature::Popup => {
            step(root, &mut out, |r, o| ensure_member(r, "action", "default_popup", &entry, None, o))
        }
        Feature::Options => {
            let has_ui = !variants(root, "options_ui").is_empty();
            if has_ui {
                step(root, &mut out, |r, o| ensure_member(r, "options_ui", "page", &entry, None, o));
            } else {
                out.push(Change::Member {
                    path: vec![],
                    key: "options_ui".into(),
                    value: json!({ "page": entry_path, "open_in_tab": false }),
                });
            }
            step(root, &mut out, |r, o| ensure_permission(r, "storage", None, o));
        }
        Feature::Sidebar => {
            step(root, &mut out, |r, o| {
                ensure_member(r, "side_panel", "default_path", &entry, Some(Engine::Chromium), o)
            });
            step(root, &mut out, |r, o| {
                ensure_member(r, "sidebar_action", "default_panel", &entry, Some(Engine::Gecko), o)
            });
            step(root, &mut out, |r, o| ensure_permission(r, "sidePanel", Some(Engine::Chromium), o));
            step(root, &mut out, |r, o| ensure_permission(r, "storage", None, o));
        }
        Feature::ContentScript => {
            let script = json!({
                "matches": ["https://*/*", "http://*/*"],
                "js": [entry_path],
                "run_at": "document_idle"
            });
            let arrays: Vec<&str> = variants(root, "content_scripts")
                .into_iter()
                .filter(|(k, _, _)| root.get(*k).is_some_and(Value::is_array))
                .map(|(k, _, _)| k)
                .collect();
            for k in &arrays {
                out.push(Change::Item { path: vec![(*k).to_owned()], value: script.clone() });
            }
            if !arrays.contains(&"content_scripts") {
                out.push(Change::Member {
                    path: vec![],
                    key: "content_scripts".into(),
                    value: json!([script]),
                });
            }
        }
        Feature::Background => out.push(Change::Member {
            path: vec![],
            key: "background".into(),
            value: json!({
                "chromium:service_worker": entry_path,
                "firefox:scripts": [entry_path]
            }),
        }),
        Feature::Newtab => {
            step(root, &mut out, |r, o| ensure_member(r, "chrome_url_overrides", "newtab", &entry, None, o))
        }
        Feature::Devtools => {
            out.push(Change::Member { path: vec![], key: "devtools_page".into(), value: entry })
        }
        Feature::History | Feature::Bookmarks => {
            let page = if feature == Feature::History { "history" } else { "bookmarks" };
            step(root, &mut out, |r, o| {
                ensure_member(r, "chrome_url_overrides", page, &entry, Some(Engine::Chromium), o)
            });
            step(root, &mut out, |r, o| ensure_permission(r, page, Some(Engine::Chromium), o));
        }
    }
    out
}

/// Runs one decision on `root` and applies its changes to it, so the next decision sees
/// them (a `chromium:permissions` created for one permission must get the next one too).
fn step(
    root: &mut serde_json::Map<String, Value>,
    out: &mut Vec<Change>,
    decide: impl FnOnce(&serde_json::Map<String, Value>, &mut Vec<Change>),
) {
    let from = out.len();
    decide(root, out);
    for change in &out[from..] {
        match change {
            Change::Member { path, key, value } => {
                let object = match path.first() {
                    None => Some(&mut *root),
                    Some(k) => root.get_mut(k).and_then(Value::as_object_mut),
                };
                if let Some(o) = object {
                    o.insert(key.clone(), value.clone());
                }
            }
            Change::Item { path, value } => {
                if let Some(items) = path.first().and_then(|k| root.get_mut(k)).and_then(Value::as_array_mut)
                {
                    items.push(value.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn names_and_spellings_parse() {
        for f in Feature::ALL {
            assert_eq!(Feature::parse(f.name()), Some(f));
            assert!(!f.files().is_empty());
            assert!(f.files().iter().any(|(p, _)| *p == f.entry()));
        }
        assert_eq!(Feature::parse("side_panel"), Some(Feature::Sidebar));
        assert_eq!(Feature::parse("Action"), Some(Feature::Popup));
        assert_eq!(Feature::parse("content"), Some(Feature::ContentScript));
        assert_eq!(Feature::parse("New Tab"), Some(Feature::Newtab));
        assert_eq!(Feature::parse("toolbar-thing"), None);
    }

    /// The content-script pattern is the embedded `content` template's script, whose
    /// injection twice into a real page `e2e::catalog_load` checks.
    #[test]
    fn the_content_script_pattern_is_the_content_templates_script() {
        let source = crate::catalog::Catalog::embedded().sources().next().unwrap();
        let script = source.read("content", "src/content/content.js").unwrap().unwrap();
        assert_eq!(Feature::ContentScript.files()[0].1.as_bytes(), &*script);
        assert!(Feature::ContentScript.files()[0].1.contains("'data-extension-root'"));
    }

    #[test]
    fn chromium_only_permissions_carry_the_plain_list_over() {
        let root = object(json!({"permissions": ["storage", "tabs"]}));
        let mut out = Vec::new();
        ensure_permission(&root, "sidePanel", Some(Engine::Chromium), &mut out);
        assert_eq!(
            out,
            [Change::Member {
                path: vec![],
                key: "chromium:permissions".into(),
                value: json!(["storage", "tabs", "sidePanel"])
            }]
        );
        let root =
            object(json!({"permissions": ["tabs"], "chrome:permissions": ["tabs"], "brave:permissions": []}));
        let mut out = Vec::new();
        ensure_permission(&root, "storage", None, &mut out);
        assert_eq!(out.len(), 3, "{out:?}");
        let mut out = Vec::new();
        ensure_permission(&root, "sidePanel", Some(Engine::Chromium), &mut out);
        assert_eq!(out.len(), 2, "chrome: and brave: lists, no new key: {out:?}");
    }

    #[test]
    fn members_go_into_every_variant_that_lacks_them() {
        let root = object(json!({"chromium:action": {"default_title": "x"}}));
        let out = changes(Feature::Popup, Feature::Popup.entry(), &root);
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(&out[1], Change::Member { key, .. } if key == "action"));
        let out =
            changes(Feature::History, Feature::History.entry(), &object(json!({"chrome_url_overrides": {}})));
        assert!(
            matches!(&out[0], Change::Member { path, key, .. } if path.is_empty() && key == "chromium:chrome_url_overrides"),
            "{out:?}"
        );
    }
}
