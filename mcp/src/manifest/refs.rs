//! Every file a resolved manifest references, with its JSON path and how it is loaded. Pure:
//! the build turns these into a file set, the validator into missing-file findings.

use super::json::Json;

/// How the browser loads a referenced file, which decides what checks apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// A script the browser runs as a classic script (content script, background script,
    /// classic service worker).
    ClassicScript,
    /// A script the manifest declares as a module (`background.type: "module"`).
    ModuleScript,
    Style,
    /// An HTML page whose own references are followed.
    Page,
    /// Any other file (icons, rule sets, schemas).
    Asset,
    /// A `web_accessible_resources` entry: a path or a glob.
    Pattern,
}

/// One reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The path as written, relative to the extension root (a leading `/` is allowed).
    pub path: String,
    /// Where in the manifest, e.g. `content_scripts[0].js[1]`.
    pub json_path: String,
    pub kind: RefKind,
}

/// Whether a manifest string is a URL or data rather than a file in the package.
pub fn is_external(path: &str) -> bool {
    let p = path.trim();
    p.is_empty()
        || p.starts_with("//")
        || p.starts_with('#')
        || p.contains("://")
        || p.starts_with("data:")
        || p.starts_with("blob:")
        || p.starts_with("javascript:")
        || p.starts_with("mailto:")
}

/// Lists the files the manifest references. Unknown keys are ignored.
pub fn file_refs(manifest: &Json) -> Vec<FileRef> {
    let mut out = Refs(Vec::new());
    let m = manifest;
    out.icons(m.get("icons"), "icons");
    for action in ["action", "browser_action", "page_action", "sidebar_action"] {
        if let Some(a) = m.get(action) {
            out.icons(a.get("default_icon"), &format!("{action}.default_icon"));
            out.one(a.get("default_popup"), &format!("{action}.default_popup"), RefKind::Page);
            out.one(a.get("default_panel"), &format!("{action}.default_panel"), RefKind::Page);
            if let Some(items) = a.get("theme_icons").and_then(Json::as_array) {
                for (i, item) in items.iter().enumerate() {
                    for side in ["light", "dark"] {
                        out.one(item.get(side), &format!("{action}.theme_icons[{i}].{side}"), RefKind::Asset);
                    }
                }
            }
        }
    }
    if let Some(bg) = m.get("background") {
        let module = bg.get("type").and_then(Json::as_str) == Some("module");
        let script = if module { RefKind::ModuleScript } else { RefKind::ClassicScript };
        out.one(bg.get("service_worker"), "background.service_worker", script);
        out.list(bg.get("scripts"), "background.scripts", script);
        out.one(bg.get("page"), "background.page", RefKind::Page);
    }
    if let Some(list) = m.get("content_scripts").and_then(Json::as_array) {
        for (i, cs) in list.iter().enumerate() {
            out.list(cs.get("js"), &format!("content_scripts[{i}].js"), RefKind::ClassicScript);
            out.list(cs.get("css"), &format!("content_scripts[{i}].css"), RefKind::Style);
        }
    }
    out.one(m.get("options_page"), "options_page", RefKind::Page);
    out.one(m.get("options_ui").and_then(|o| o.get("page")), "options_ui.page", RefKind::Page);
    out.one(m.get("devtools_page"), "devtools_page", RefKind::Page);
    out.one(
        m.get("side_panel").and_then(|o| o.get("default_path")),
        "side_panel.default_path",
        RefKind::Page,
    );
    if let Some(overrides) = m.get("chrome_url_overrides").and_then(Json::as_object) {
        for (k, v) in overrides.iter() {
            out.one(Some(v), &format!("chrome_url_overrides.{k}"), RefKind::Page);
        }
    }
    out.list(m.get("sandbox").and_then(|s| s.get("pages")), "sandbox.pages", RefKind::Page);
    if let Some(rules) =
        m.get("declarative_net_request").and_then(|d| d.get("rule_resources")).and_then(Json::as_array)
    {
        for (i, r) in rules.iter().enumerate() {
            out.one(
                r.get("path"),
                &format!("declarative_net_request.rule_resources[{i}].path"),
                RefKind::Asset,
            );
        }
    }
    out.one(m.get("storage").and_then(|s| s.get("managed_schema")), "storage.managed_schema", RefKind::Asset);
    out.one(
        m.get("user_scripts").and_then(|s| s.get("api_script")),
        "user_scripts.api_script",
        RefKind::ClassicScript,
    );
    if let Some(images) = m.get("theme").and_then(|t| t.get("images")) {
        out.one(images.get("theme_frame"), "theme.images.theme_frame", RefKind::Asset);
        out.one(images.get("headerURL"), "theme.images.headerURL", RefKind::Asset);
        out.list(images.get("additional_backgrounds"), "theme.images.additional_backgrounds", RefKind::Asset);
    }
    if let Some(war) = m.get("web_accessible_resources").and_then(Json::as_array) {
        for (i, entry) in war.iter().enumerate() {
            match entry {
                Json::String(_) => {
                    out.one(Some(entry), &format!("web_accessible_resources[{i}]"), RefKind::Pattern)
                }
                Json::Object(_) => out.list(
                    entry.get("resources"),
                    &format!("web_accessible_resources[{i}].resources"),
                    RefKind::Pattern,
                ),
                _ => {}
            }
        }
    }
    out.0
}

struct Refs(Vec<FileRef>);

impl Refs {
    fn one(&mut self, v: Option<&Json>, json_path: &str, kind: RefKind) {
        if let Some(Json::String(s)) = v
            && !is_external(s)
        {
            self.0.push(FileRef { path: s.clone(), json_path: json_path.to_owned(), kind });
        }
    }

    fn list(&mut self, v: Option<&Json>, json_path: &str, kind: RefKind) {
        match v {
            Some(Json::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.one(Some(item), &format!("{json_path}[{i}]"), kind);
                }
            }
            // A single string where a list is expected still names a file.
            Some(Json::String(_)) => self.one(v, json_path, kind),
            _ => {}
        }
    }

    fn icons(&mut self, v: Option<&Json>, json_path: &str) {
        match v {
            Some(Json::String(_)) => self.one(v, json_path, RefKind::Asset),
            Some(Json::Object(o)) => {
                for (size, icon) in o.iter() {
                    self.one(Some(icon), &format!("{json_path}.{size}"), RefKind::Asset);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::json::parse_jsonc;
    use super::*;

    #[test]
    fn references_are_listed_with_paths_and_kinds() {
        let m = parse_jsonc(
            r#"{
              "icons": {"16": "icons/16.png", "48": "icons/48.png"},
              "action": {"default_popup": "popup.html", "default_icon": "icons/a.png"},
              "background": {"service_worker": "sw.js", "type": "module"},
              "content_scripts": [{"js": ["a.js", "https://cdn/x.js"], "css": ["a.css"]}],
              "options_ui": {"page": "options.html"},
              "chrome_url_overrides": {"newtab": "newtab.html"},
              "web_accessible_resources": [{"resources": ["img/*.png"], "matches": ["<all_urls>"]}],
              "declarative_net_request": {"rule_resources": [{"id": "r", "path": "rules.json"}]}
            }"#,
        )
        .unwrap();
        let refs = file_refs(&m);
        let rows: Vec<(&str, &str, RefKind)> =
            refs.iter().map(|r| (r.path.as_str(), r.json_path.as_str(), r.kind)).collect();
        assert_eq!(
            rows,
            [
                ("icons/16.png", "icons.16", RefKind::Asset),
                ("icons/48.png", "icons.48", RefKind::Asset),
                ("icons/a.png", "action.default_icon", RefKind::Asset),
                ("popup.html", "action.default_popup", RefKind::Page),
                ("sw.js", "background.service_worker", RefKind::ModuleScript),
                ("a.js", "content_scripts[0].js[0]", RefKind::ClassicScript),
                ("a.css", "content_scripts[0].css[0]", RefKind::Style),
                ("options.html", "options_ui.page", RefKind::Page),
                ("newtab.html", "chrome_url_overrides.newtab", RefKind::Page),
                ("rules.json", "declarative_net_request.rule_resources[0].path", RefKind::Asset),
                ("img/*.png", "web_accessible_resources[0].resources[0]", RefKind::Pattern),
            ]
        );
    }

    #[test]
    fn external_urls_are_not_files() {
        for p in ["https://a/b.js", "//cdn/x", "data:image/png;base64,AA", "#top", ""] {
            assert!(is_external(p), "{p}");
        }
        for p in ["a.js", "/icons/x.png", "./a.js", "../x"] {
            assert!(!is_external(p), "{p}");
        }
    }
}
