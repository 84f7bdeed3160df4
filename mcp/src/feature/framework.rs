//! Surfaces written in a UI framework. Each page is the vanilla pattern's HTML shell with a
//! `#root` and a module script, its stylesheet the vanilla one; each component keeps the
//! vanilla script's behaviour and element ids. The background and the DevTools page itself
//! have no UI, so they stay vanilla.
//!
//! - React and Preact: JSX the native build bundles (issue 22). Both share one source per
//!   surface; a framework head (imports, `mount`, `typing`) is put before it.
//! - Vue and Svelte: a single-file component per surface and a small module that mounts it.
//!   Their compilers are the project's toolchain (Extension.js): a project depending on
//!   them is built by it, so the result says so and names the packages to install.
//!
//! Content scripts in every framework share the host (`patterns/content-host.js`): an open
//! shadow root on a `data-extension-root` element, replaced on re-injection.

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
    Vue,
    Svelte,
}

/// The frameworks `framework` accepts.
pub const FRAMEWORKS: [&str; 5] = ["vanilla", "react", "preact", "vue", "svelte"];

/// A page surface: where it goes and its component in each framework.
struct Page {
    /// `popup/popup` (the html, the script and the stylesheet share it).
    base: &'static str,
    title: &'static str,
    /// The Vue/Svelte component's file name (without extension).
    component: &'static str,
    jsx: &'static str,
    vue: &'static str,
    svelte: &'static str,
}

macro_rules! page {
    ($base:literal, $title:literal, $component:literal, $stem:literal) => {
        Page {
            base: $base,
            title: $title,
            component: $component,
            jsx: include_str!(concat!("patterns/jsx/", $stem, ".jsx")),
            vue: include_str!(concat!("patterns/vue/", $component, ".vue")),
            svelte: include_str!(concat!("patterns/svelte/", $component, ".svelte")),
        }
    };
}

fn page(feature: Feature) -> Option<Page> {
    Some(match feature {
        Feature::Popup => page!("popup/popup", "Popup", "Popup", "popup"),
        Feature::Options => page!("options/options", "Options", "Options", "options"),
        Feature::Sidebar => page!("sidebar/sidebar", "Sidebar", "Sidebar", "sidebar"),
        Feature::Newtab => page!("newtab/newtab", "New Tab", "Newtab", "newtab"),
        Feature::History => page!("history/history", "History", "History", "history"),
        Feature::Bookmarks => page!("bookmarks/bookmarks", "Bookmarks", "Bookmarks", "bookmarks"),
        Feature::Devtools => page!("pages/devtools-panel", "DevTools panel", "Panel", "devtools-panel"),
        Feature::ContentScript | Feature::Background => return None,
    })
}

impl Framework {
    pub const fn name(self) -> &'static str {
        match self {
            Framework::Vanilla => "vanilla",
            Framework::React => "react",
            Framework::Preact => "preact",
            Framework::Vue => "vue",
            Framework::Svelte => "svelte",
        }
    }

    /// A framework by name (`none`, `js`, `plain`, `javascript` mean vanilla).
    pub fn parse(name: &str) -> Option<Framework> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "vanilla" | "none" | "javascript" | "js" | "plain" => Framework::Vanilla,
            "react" => Framework::React,
            "preact" => Framework::Preact,
            "vue" => Framework::Vue,
            "svelte" => Framework::Svelte,
            _ => return None,
        })
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
            Framework::Vue => &["vue"],
            Framework::Svelte => &["svelte"],
        }
    }

    /// Whether the native build compiles this framework's files (else the project's
    /// toolchain does).
    pub const fn native(self) -> bool {
        !matches!(self, Framework::Vue | Framework::Svelte)
    }

    const fn jsx(self) -> bool {
        matches!(self, Framework::React | Framework::Preact)
    }

    /// The file the manifest names for `feature`: only a JSX content script's differs.
    pub const fn entry(self, feature: Feature) -> &'static str {
        match feature {
            Feature::ContentScript if self.jsx() => "content/content.jsx",
            _ => feature.entry(),
        }
    }

    /// The pattern's files in this framework: (path relative to the manifest's folder, or
    /// to the project for `pages/…`; contents).
    pub fn files(self, feature: Feature) -> Vec<(String, String)> {
        let vanilla = |keep: &dyn Fn(&str) -> bool| -> Vec<(String, String)> {
            feature
                .files()
                .iter()
                .filter(|(p, _)| keep(p))
                .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
                .collect()
        };
        if self == Framework::Vanilla || feature == Feature::Background {
            return vanilla(&|_| true);
        }
        if feature == Feature::ContentScript {
            return self.content_script();
        }
        let Some(page) = page(feature) else { return vanilla(&|_| true) };
        // The DevTools page only adds the panel: the vanilla one.
        let mut out = vanilla(&|p| p.starts_with("devtools/"));
        let css = format!("{}.css", page.base);
        let stylesheet = feature
            .files()
            .iter()
            .find(|(p, _)| **p == css)
            .map(|(_, t)| (*t).to_owned())
            .unwrap_or_default();
        let dir = page.base.rsplit_once('/').map_or("", |(d, _)| d);
        let script = if self.jsx() { format!("{}.jsx", page.base) } else { format!("{}.js", page.base) };
        out.push((format!("{}.html", page.base), shell(page.title, file_name(&css), file_name(&script))));
        match self {
            Framework::React | Framework::Preact => {
                out.push((script, format!("{}{}", self.jsx_head(), page.jsx)))
            }
            Framework::Vue | Framework::Svelte => {
                let (ext, source) =
                    if self == Framework::Vue { ("vue", page.vue) } else { ("svelte", page.svelte) };
                let component = format!("{}.{ext}", page.component);
                out.push((script, self.mount_module(page.title, page.component, &component)));
                out.push((format!("{dir}/{component}"), source.to_owned()));
            }
            Framework::Vanilla => {}
        }
        out.push((css, stylesheet));
        out
    }

    fn jsx_head(self) -> &'static str {
        match self {
            Framework::Preact => include_str!("patterns/jsx/preact.head.jsx"),
            _ => include_str!("patterns/jsx/react.head.jsx"),
        }
    }

    /// A Vue or Svelte page's module: mounts its component on `#root`.
    fn mount_module(self, title: &str, name: &str, file: &str) -> String {
        let (import, mount) = if self == Framework::Vue {
            ("import { createApp } from 'vue';", format!("createApp({name}).mount('#root');"))
        } else {
            (
                "import { mount } from 'svelte';",
                format!("mount({name}, {{ target: document.getElementById('root') }});"),
            )
        };
        format!(
            "// The {title} page: mounts its component. Added by extension_add_feature.\n{import}\nimport {name} from './{file}';\n\n{mount}\n"
        )
    }

    /// The content script: the shared host, with the panel component mounted in its
    /// shadow root.
    fn content_script(self) -> Vec<(String, String)> {
        const HOST: &str = include_str!("patterns/content-host.js");
        const TELL: &str = "\napi.runtime.sendMessage({ type: 'words', count: words }).catch(() => {});\n";
        let (head, mount) = match self {
            Framework::Vue => (
                "import { createApp } from 'vue';\nimport Content from './Content.vue';\n\n".to_owned(),
                "createApp(Content, { words, onClose: () => root.remove() }).mount(container);\n",
            ),
            Framework::Svelte => (
                "import { mount } from 'svelte';\nimport Content from './Content.svelte';\n\n".to_owned(),
                "mount(Content, { target: container, props: { words, onclose: () => root.remove() } });\n",
            ),
            _ => (
                format!("{}{}", self.jsx_head(), include_str!("patterns/jsx/content.jsx")),
                "mount(<Panel words={words} onClose={() => root.remove()} />, container);\n",
            ),
        };
        let script = (self.entry(Feature::ContentScript).to_owned(), format!("{head}{HOST}{mount}{TELL}"));
        match self {
            Framework::Vue => {
                vec![script, ("content/Content.vue".into(), include_str!("patterns/vue/Content.vue").into())]
            }
            Framework::Svelte => {
                vec![
                    script,
                    ("content/Content.svelte".into(), include_str!("patterns/svelte/Content.svelte").into()),
                ]
            }
            _ => vec![script],
        }
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

    const ALL: [Framework; 5] =
        [Framework::Vanilla, Framework::React, Framework::Preact, Framework::Vue, Framework::Svelte];

    #[test]
    fn every_surface_has_its_entry_in_every_framework() {
        for fw in ALL {
            assert_eq!(Framework::parse(fw.name()), Some(fw));
            for f in Feature::ALL {
                let files = fw.files(f);
                assert!(files.iter().any(|(p, _)| p == fw.entry(f)), "{} {}", fw.name(), f.name());
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
        let vue = Framework::Vue.files(Feature::Popup);
        let names: Vec<&str> = vue.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["popup/popup.html", "popup/popup.js", "popup/Popup.vue", "popup/popup.css"]);
        assert!(
            vue[1].1.contains("import Popup from './Popup.vue';")
                && vue[1].1.contains("createApp(Popup).mount('#root')")
        );
        let svelte = Framework::Svelte.files(Feature::ContentScript);
        assert_eq!(svelte[0].0, "content/content.js");
        assert!(
            svelte[0].1.starts_with("import { mount } from 'svelte';")
                && svelte[0].1.contains("'data-extension-root'")
        );
        // The DevTools page stays vanilla and still names the panel's HTML.
        let devtools = Framework::React.files(Feature::Devtools);
        let names: Vec<&str> = devtools.iter().map(|(p, _)| p.as_str()).collect();
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
        assert_eq!(Framework::parse(" React "), Some(Framework::React));
        assert_eq!(Framework::parse("plain"), Some(Framework::Vanilla));
        assert_eq!(Framework::parse("angular"), None);
    }
}
