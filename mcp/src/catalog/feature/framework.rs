//! Surfaces written in a UI framework. React and Preact pages and content scripts are JSX
//! that the native build bundles (issue 22): each page is the vanilla pattern's HTML shell
//! with a `#root` and a module script, its stylesheet is the vanilla one, and the component
//! keeps the vanilla script's behaviour and element ids. Both frameworks share one source
//! per surface: a framework head (imports, `mount`, `typing`) is put before it. The
//! background and the DevTools page itself have no UI, so they stay vanilla.
//!
//! Vue and Svelte need single-file-component compilers the native build does not have, so
//! their surfaces are not generated (the error says so and names the alternatives).

use std::path::Path;

use serde_json::Value;

use super::Feature;
use crate::manifest;

/// A framework `extension_add_feature` generates surfaces in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    Vanilla,
    React,
    Preact,
}

/// What `framework` names, read leniently.
pub enum Asked {
    Generated(Framework),
    /// A framework known to the catalog whose surfaces are not generated (vue, svelte).
    NotGenerated(String),
    Unknown(String),
}

/// The frameworks `framework` accepts (the last two are refused with a reason).
pub const FRAMEWORKS: [&str; 5] = ["vanilla", "react", "preact", "vue", "svelte"];

impl Framework {
    pub const fn name(self) -> &'static str {
        match self {
            Framework::Vanilla => "vanilla",
            Framework::React => "react",
            Framework::Preact => "preact",
        }
    }

    pub fn parse(name: &str) -> Asked {
        let n = name.trim().to_ascii_lowercase();
        match n.as_str() {
            "vanilla" | "none" | "javascript" | "js" | "plain" => Asked::Generated(Framework::Vanilla),
            "react" => Asked::Generated(Framework::React),
            "preact" => Asked::Generated(Framework::Preact),
            "vue" | "svelte" => Asked::NotGenerated(n),
            _ => Asked::Unknown(n),
        }
    }

    /// The UI framework a project's `package.json` depends on (Preact first: Preact projects
    /// often alias `react` to `preact/compat`).
    pub fn detect(project: &Path) -> Option<&'static str> {
        let bytes = manifest::read_capped(&project.join("package.json"), manifest::MAX_JSON_BYTES).ok()??;
        let pkg: Value = serde_json::from_slice(&bytes).ok()?;
        let has = |name: &str| {
            ["dependencies", "devDependencies"]
                .iter()
                .any(|k| pkg.get(*k).and_then(|d| d.get(name)).is_some())
        };
        ["preact", "react", "vue", "svelte"].into_iter().find(|f| has(f))
    }

    /// The packages a project needs for this framework's surfaces (`npm install` them).
    pub const fn packages(self) -> &'static [&'static str] {
        match self {
            Framework::Vanilla => &[],
            Framework::React => &["react", "react-dom"],
            Framework::Preact => &["preact"],
        }
    }

    /// The file the manifest names for `feature`: only a content script's differs (JSX).
    pub const fn entry(self, feature: Feature) -> &'static str {
        match (self, feature) {
            (Framework::React | Framework::Preact, Feature::ContentScript) => "content/content.jsx",
            _ => feature.entry(),
        }
    }

    /// The pattern's files in this framework: (path relative to the manifest's folder, or
    /// to the project for `pages/…`; contents).
    pub fn files(self, feature: Feature) -> Vec<(&'static str, String)> {
        let vanilla = || feature.files().iter().map(|(p, t)| (*p, (*t).to_owned())).collect();
        let head = match self {
            Framework::Vanilla => return vanilla(),
            Framework::React => include_str!("patterns/jsx/react.head.jsx"),
            Framework::Preact => include_str!("patterns/jsx/preact.head.jsx"),
        };
        let component = |source: &str| format!("{head}{source}");
        // (html, script, stylesheet, title, the component's source)
        let (html, jsx, css, title, source) = match feature {
            Feature::Background => return vanilla(),
            Feature::ContentScript => {
                return vec![("content/content.jsx", component(include_str!("patterns/jsx/content.jsx")))];
            }
            Feature::Popup => (
                "popup/popup.html",
                "popup/popup.jsx",
                "popup/popup.css",
                "Popup",
                include_str!("patterns/jsx/popup.jsx"),
            ),
            Feature::Options => (
                "options/options.html",
                "options/options.jsx",
                "options/options.css",
                "Options",
                include_str!("patterns/jsx/options.jsx"),
            ),
            Feature::Sidebar => (
                "sidebar/sidebar.html",
                "sidebar/sidebar.jsx",
                "sidebar/sidebar.css",
                "Sidebar",
                include_str!("patterns/jsx/sidebar.jsx"),
            ),
            Feature::Newtab => (
                "newtab/newtab.html",
                "newtab/newtab.jsx",
                "newtab/newtab.css",
                "New Tab",
                include_str!("patterns/jsx/newtab.jsx"),
            ),
            Feature::History => (
                "history/history.html",
                "history/history.jsx",
                "history/history.css",
                "History",
                include_str!("patterns/jsx/history.jsx"),
            ),
            Feature::Bookmarks => (
                "bookmarks/bookmarks.html",
                "bookmarks/bookmarks.jsx",
                "bookmarks/bookmarks.css",
                "Bookmarks",
                include_str!("patterns/jsx/bookmarks.jsx"),
            ),
            Feature::Devtools => (
                "pages/devtools-panel.html",
                "pages/devtools-panel.jsx",
                "pages/devtools-panel.css",
                "DevTools panel",
                include_str!("patterns/jsx/devtools-panel.jsx"),
            ),
        };
        let mut out: Vec<(&'static str, String)> = Vec::new();
        if feature == Feature::Devtools {
            // The DevTools page only adds the panel: the vanilla one.
            out.extend(
                feature
                    .files()
                    .iter()
                    .filter(|(p, _)| p.starts_with("devtools/"))
                    .map(|(p, t)| (*p, (*t).to_owned())),
            );
        }
        let stylesheet =
            feature.files().iter().find(|(p, _)| *p == css).map(|(_, t)| (*t).to_owned()).unwrap_or_default();
        out.push((html, shell(title, file_name(css), file_name(jsx))));
        out.push((jsx, component(source)));
        out.push((css, stylesheet));
        out
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A page's HTML: its stylesheet, a `#root` for the component and the module script.
fn shell(title: &str, css: &str, script: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"utf-8\" />\n    <title>{title}</title>\n    \
         <link rel=\"stylesheet\" href=\"{css}\" />\n  </head>\n  <body>\n    <div id=\"root\"></div>\n    \
         <script type=\"module\" src=\"{script}\"></script>\n  </body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_surface_has_its_entry_in_every_framework() {
        for fw in [Framework::Vanilla, Framework::React, Framework::Preact] {
            for f in Feature::ALL {
                let files = fw.files(f);
                assert!(files.iter().any(|(p, _)| *p == fw.entry(f)), "{} {}", fw.name(), f.name());
                assert!(
                    files.iter().all(|(_, t)| !t.is_empty()),
                    "{} {}: an empty file",
                    fw.name(),
                    f.name()
                );
            }
        }
        let popup = Framework::Preact.files(Feature::Popup);
        assert!(popup[0].1.contains("<script type=\"module\" src=\"popup.jsx\">"), "{}", popup[0].1);
        assert!(popup[1].1.starts_with("/** @jsxImportSource preact */"), "{}", popup[1].1);
        assert!(Framework::React.files(Feature::Popup)[1].1.contains("from 'react-dom/client'"));
        // The DevTools page stays vanilla and still names the panel's HTML.
        let devtools = Framework::React.files(Feature::Devtools);
        let names: Vec<&str> = devtools.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            names,
            [
                "devtools/devtools.html",
                "devtools/devtools.js",
                "pages/devtools-panel.html",
                "pages/devtools-panel.jsx",
                "pages/devtools-panel.css"
            ]
        );
    }

    #[test]
    fn names_parse_leniently() {
        assert!(matches!(Framework::parse(" React "), Asked::Generated(Framework::React)));
        assert!(matches!(Framework::parse("plain"), Asked::Generated(Framework::Vanilla)));
        assert!(matches!(Framework::parse("vue"), Asked::NotGenerated(_)));
        assert!(matches!(Framework::parse("angular"), Asked::Unknown(_)));
    }
}
