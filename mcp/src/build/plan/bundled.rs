//! Manifest entries the native bundler builds (`crate::build::bundle`): which ones, where
//! their output goes, and what the manifest and pages need to load it — the renamed script
//! (`popup.tsx` → `popup.js`), its CSS (a content script's CSS modules in
//! `content_scripts[].css` and web-accessible, a `<link>` in the page) and its assets
//! (web-accessible for content scripts).

use crate::browsers::Engine;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::build::bundle::{self, Context, JsxConfig, RunAt, Settings, resolve::ModuleResolver};
use crate::build::js;
use crate::manifest::{Json, RefKind};

use super::{Planner, set_path};

/// The bundler's per-target state: settings and the resolver with its caches.
pub(in crate::build) struct Bundler<'a> {
    settings: Settings<'a>,
    resolver: ModuleResolver,
}

/// One bundled entry, for the manifest rewrite after all entries are planned.
#[derive(Debug, Clone)]
pub(in crate::build) struct Bundled {
    /// Where the manifest names it (`content_scripts[0].js[1]`); `None` for page scripts.
    json_path: Option<String>,
    out: String,
    css: Option<String>,
    assets: Vec<String>,
}

/// Most files a module entry's relative imports may reach before it is bundled instead of
/// copied (a guard against hostile import webs, not a real limit).
const MAX_NATIVE_MODULES: usize = 2000;

impl<'a> Planner<'a> {
    /// Whether the script `rel` is built by the bundler rather than copied: TypeScript or
    /// JSX; module syntax in a classic context; a module whose imports browsers cannot load
    /// natively (a package, CSS, JSON, TypeScript).
    pub(super) fn wants_bundle(&self, src: &Path, text: &str, kind: RefKind) -> bool {
        if bundle::transform::needs_transform(src) {
            return true;
        }
        match kind {
            RefKind::ClassicScript => match crate::build::scan::find_esm(text) {
                // `import.meta.env.X` alone is replaced away by env injection: still classic.
                Some(u) if u.what == "import.meta" => {
                    let injected = crate::build::inject::inject(text, src, js::Goal::Script, self.env)
                        .ok()
                        .and_then(|i| i.text);
                    injected.is_some_and(|t| crate::build::scan::find_esm(&t).is_some())
                }
                found => found.is_some(),
            },
            RefKind::ModuleScript => !native_module_graph(&self.boundary, src, text),
            _ => false,
        }
    }

    /// Bundles the entry `rel` (source `src`), referenced at `json_path` or by the page
    /// `from`; the output replaces the copy `add_file` planned.
    pub(super) fn bundle_entry(&mut self, rel: &str, src: &Path, json_path: &str, from: Option<&str>) {
        let context = if from.is_some_and(|f| f.ends_with(".html") || f.ends_with(".htm")) {
            Context::Page
        } else if json_path.starts_with("background") {
            Context::Background
        } else if let Some(rest) = json_path.strip_prefix("content_scripts[") {
            let index = rest.split(']').next().and_then(|i| i.parse::<usize>().ok());
            Context::ContentScript {
                run_at: index.and_then(|i| self.run_at.get(i).copied()).unwrap_or_default(),
            }
        } else if json_path.starts_with("scripts/") {
            // Extension.js runs the scripts/ folder's files at idle.
            Context::ContentScript { run_at: RunAt::DocumentIdle }
        } else {
            Context::Page
        };
        let out = match rel.rsplit_once('.') {
            Some((stem, ext)) if !matches!(ext, "js" | "mjs" | "cjs") => format!("{stem}.js"),
            _ => rel.to_owned(),
        };
        let state = self.bundler.take().unwrap_or_else(|| self.new_bundler());
        let mut built = bundle::bundle(&state.settings, &state.resolver, src, &out, context);
        // Entries of one target share the resolver's caches.
        self.bundler = Some(state);
        for mut f in built.findings {
            if f.path.is_none() {
                f.path = Some(json_path.to_owned());
            }
            if !self.plan.findings.contains(&f) {
                self.plan.findings.push(f);
            }
        }
        self.plan.files.remove(rel);
        if built.code.is_empty() {
            return; // the findings say why
        }
        if let Some(map) = built.map.take() {
            self.plan.generated.insert(format!("{out}.map"), map);
        }
        self.plan.generated.insert(out.clone(), built.code);
        let css = match (built.css, context) {
            (Some(text), Context::ContentScript { .. } | Context::Page) => {
                let stem = out.strip_suffix(".js").unwrap_or(&out);
                let mut name = format!("{stem}.css");
                if self.plan.files.contains_key(&name) || self.root.join(&name).exists() {
                    name = format!("{stem}.bundle.css");
                }
                self.plan.generated.insert(name.clone(), text);
                Some(name)
            }
            _ => None,
        };
        for (rel, path) in &built.assets {
            self.plan.files.insert(rel.clone(), path.clone());
        }
        for input in built.inputs {
            let shown = self.as_given(&input);
            self.plan.inputs.insert(shown, out.clone());
        }
        if context == Context::Page
            && from.is_some()
            && let Some(c) = &css
        {
            self.pending_css.push(c.clone());
        }
        if rel != out {
            self.renamed.insert(rel.to_owned(), out.clone());
        }
        self.bundled.push(Bundled {
            json_path: from.is_none().then(|| json_path.to_owned()),
            out,
            css,
            assets: built.assets.into_keys().collect(),
        });
    }

    fn new_bundler(&self) -> Bundler<'a> {
        let development = self.env.get("EXTENSION_PUBLIC_MODE") == Some("development");
        let scheme =
            if self.plan.target.engine == Engine::Gecko { "moz-extension" } else { "chrome-extension" };
        Bundler {
            settings: Settings {
                project: self.project,
                boundary: self.boundary.clone(),
                env: self.env,
                jsx: JsxConfig::from_project(self.project),
                scheme,
                // Extension.js minifies production builds; dev builds stay readable and get
                // source maps (errors then name the module's file and line).
                minify: !development,
                source_maps: development,
            },
            resolver: ModuleResolver::new(self.project, self.boundary.clone()),
        }
    }

    /// `path` (a real path) under the project folder as the caller named it, which is how
    /// dev sessions see changed files.
    fn as_given(&self, path: &Path) -> PathBuf {
        let real = std::fs::canonicalize(self.project).unwrap_or_else(|_| self.project.to_path_buf());
        match path.strip_prefix(&real) {
            Ok(rel) => self.project.join(rel),
            Err(_) => path.to_path_buf(),
        }
    }

    /// After every entry is planned: the manifest names the bundles' outputs, content
    /// scripts list their CSS, and their assets are web-accessible where they run.
    pub(super) fn apply_bundles(&mut self, manifest: &mut Json) {
        let bundled = std::mem::take(&mut self.bundled);
        let mv2 = manifest.get("manifest_version").and_then(Json::as_f64) == Some(2.0);
        for b in &bundled {
            let Some(at) = &b.json_path else { continue };
            set_path(manifest, at, Json::String(b.out.clone()));
            let Some(rest) = at.strip_prefix("content_scripts[") else { continue };
            let Some(index) = rest.split(']').next().and_then(|i| i.parse::<usize>().ok()) else { continue };
            let Some(cs) = manifest
                .as_object_mut()
                .and_then(|m| m.get_mut("content_scripts"))
                .and_then(|a| match a {
                    Json::Array(items) => items.get_mut(index),
                    _ => None,
                })
                .and_then(Json::as_object_mut)
            else {
                continue;
            };
            if let Some(css) = &b.css {
                if !matches!(cs.get("css"), Some(Json::Array(_))) {
                    cs.insert("css", Json::Array(Vec::new()));
                }
                if let Some(Json::Array(items)) = cs.get_mut("css")
                    && !items.iter().any(|i| i.as_str() == Some(css))
                {
                    items.push(Json::String(css.clone()));
                }
            }
            if b.assets.is_empty() {
                continue;
            }
            let mut matches: Vec<String> = cs
                .get("matches")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .filter_map(origin_pattern)
                .collect();
            matches.sort();
            matches.dedup();
            let assets: Vec<Json> = b.assets.iter().cloned().map(Json::String).collect();
            let Some(m) = manifest.as_object_mut() else { continue };
            if !matches!(m.get("web_accessible_resources"), Some(Json::Array(_))) {
                m.insert("web_accessible_resources", Json::Array(Vec::new()));
            }
            let Some(Json::Array(items)) = m.get_mut("web_accessible_resources") else { continue };
            if mv2 {
                items.extend(assets);
            } else {
                let entry: crate::manifest::object::Object = [
                    ("resources".to_owned(), Json::Array(assets)),
                    ("matches".to_owned(), Json::Array(matches.into_iter().map(Json::String).collect())),
                ]
                .into_iter()
                .collect();
                items.push(Json::Object(entry));
            }
        }
    }

    /// The page's link to bundled CSS, inserted before `</head>` (or first).
    pub(super) fn link_pending_css(&mut self, html: &mut String) -> bool {
        if self.pending_css.is_empty() {
            return false;
        }
        let links: String = std::mem::take(&mut self.pending_css)
            .iter()
            .map(|c| format!("<link rel=\"stylesheet\" href=\"/{c}\">\n"))
            .collect();
        match html.to_ascii_lowercase().find("</head>") {
            Some(i) => html.insert_str(i, &links),
            None => html.insert_str(0, &links),
        }
        true
    }

    /// The output path a bundled source was renamed to (`popup.tsx` → `popup.js`).
    pub(super) fn renamed_to(&self, rel: &str) -> Option<String> {
        self.renamed.get(rel).map(|r| format!("/{r}"))
    }
}

/// `https://example.com/*` for a content script's match pattern (web-accessible resources
/// take origins only); `<all_urls>` as is.
fn origin_pattern(m: &str) -> Option<String> {
    if m == "<all_urls>" {
        return Some(m.to_owned());
    }
    let (scheme, rest) = m.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}/*"))
}

/// Whether the module `src` and its relative imports load in a browser as they are: every
/// static import relative and ending in `.js`/`.mjs` (issue 21's native module path).
fn native_module_graph(boundary: &crate::build::boundary::Boundary, src: &Path, text: &str) -> bool {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut queue: Vec<(PathBuf, Option<String>)> = vec![(src.to_path_buf(), Some(text.to_owned()))];
    while let Some((path, text)) = queue.pop() {
        if !seen.insert(path.clone()) || seen.len() > MAX_NATIVE_MODULES {
            continue;
        }
        let Some(text) = text.or_else(|| std::fs::read_to_string(&path).ok()) else { continue };
        // A file that does not parse is reported by the native path with its position.
        let Ok(imports) = js::module_imports(&text, &path) else { continue };
        for imp in imports {
            let spec = imp.specifier.as_str();
            if crate::manifest::is_external(spec) {
                continue;
            }
            let relative = spec.starts_with("./") || spec.starts_with("../");
            let lower = spec.to_ascii_lowercase();
            if !relative || !(lower.ends_with(".js") || lower.ends_with(".mjs")) {
                return false;
            }
            // Never read outside the project (the native path reports such an import).
            if let Some(next) = path.parent().map(|d| d.join(spec))
                && boundary.check(&next).is_none()
            {
                queue.push((next, None));
            }
        }
    }
    true
}
