//! The native bundler (issue 22): one manifest entry (a content script, a background script,
//! a page's script) and everything it imports become one file browsers load in any context.
//!
//! ```text
//! entry ─▶ load: read (size cap) → env injected → TypeScript/JSX compiled (transform.rs)
//!            │                      → linked: imports/exports rewritten (link.rs)
//!            └─ each import resolved (resolve.rs: relative, node_modules, tsconfig paths,
//!               never outside the project) ─▶ the same for that module, once
//!  .css → a `data:` URL of it (content scripts) or the bundle's CSS file (pages)
//!  .module.css → scoped classes + mapping   .json → value
//!  images, fonts → copied under assets/, the module is their extension URL
//! modules ─▶ emit.rs: one IIFE (no `import` left), entry = module 0, run by `$wx_r(0)` or,
//!            in a content script, by Extension.js's mount contract (mount.js)
//! ```
//!
//! Every problem is a finding with file:line:column; what only the project's own toolchain
//! can compile (Sass, Less, Vue, Svelte) is `MANIFEST_NEEDS_COMPILE`, which delegates.
//! What is supported, and what is not: docs/bundler.md.

mod cache;
pub mod css;
pub mod emit;
pub mod link;
pub mod map;
mod mount;
pub mod resolve;
pub mod sass;
pub mod transform;

mod load;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::build::boundary::Boundary;
use crate::build::env::PublicEnv;
use crate::manifest::Finding;

pub use transform::JsxConfig;

/// Most modules one bundle may hold, and most bytes it may read: a hostile project cannot
/// make a build read the disk without end.
pub const MAX_MODULES: usize = 10_000;
pub const MAX_TOTAL_BYTES: u64 = 128 * 1024 * 1024;

/// Where the bundle runs, which decides how it starts and how its CSS and asset URLs are
/// written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A content script (a manifest entry or a `scripts/` file): its default export is
    /// mounted at `run_at` (Extension.js's contract, `mount.js`); its CSS is put into the
    /// shadow root of the extension root it mounts, CSS modules also go to
    /// `content_scripts[].css` (whose `url()`s must name the extension,
    /// `chrome-extension://__MSG_@@extension_id__/…`); its assets are web-accessible.
    ContentScript { run_at: RunAt },
    /// An extension page (popup, options, a `pages/` page): CSS is linked from the page.
    Page,
    /// A background script or service worker: no document, CSS is dropped with a warning.
    Background,
}

/// When a content script's default export is called: its manifest entry's `run_at`
/// (`document_idle` when absent or unknown, and for the `scripts/` folder), as 4.1.26 reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunAt {
    DocumentStart,
    DocumentEnd,
    #[default]
    DocumentIdle,
}

impl RunAt {
    pub fn from_manifest(value: Option<&str>) -> RunAt {
        match value {
            Some("document_start") => RunAt::DocumentStart,
            Some("document_end") => RunAt::DocumentEnd,
            _ => RunAt::DocumentIdle,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            RunAt::DocumentStart => "document_start",
            RunAt::DocumentEnd => "document_end",
            RunAt::DocumentIdle => "document_idle",
        }
    }
}

/// What stays the same for every bundle of one build target.
pub struct Settings<'a> {
    pub project: &'a Path,
    pub boundary: Boundary,
    pub env: &'a PublicEnv,
    pub jsx: JsxConfig,
    /// `chrome-extension` or `moz-extension`, for URLs in content-script CSS.
    pub scheme: &'static str,
    /// Print bundles without whitespace and comments (production builds).
    pub minify: bool,
    /// Write a source map beside each bundle (dev builds).
    pub source_maps: bool,
}

/// One bundle's output.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    pub code: String,
    /// The CSS the modules imported, in import order; `None` when they imported none.
    pub css: Option<String>,
    /// Output-relative path → source, for images, fonts and other imported files.
    pub assets: BTreeMap<String, PathBuf>,
    /// Every file read (modules, stylesheets, assets): what a dev session watches.
    pub inputs: Vec<PathBuf>,
    pub findings: Vec<Finding>,
    /// The source map (JSON) for `<out>.map`, with [`Settings::source_maps`]; `code` then
    /// ends with the comment naming it.
    pub map: Option<String>,
    /// Script modules linked afresh (not taken from the process-wide cache).
    pub linked: usize,
}

/// A module of the graph.
struct Module {
    path: PathBuf,
    /// Display name (project-relative).
    name: String,
    function: String,
    esm: bool,
    /// Ids this module requires, in source order (for the CSS order).
    deps: Vec<usize>,
    /// CSS this module contributes (a stylesheet module), `url()`s to the extension's files
    /// written with [`emit::ROOT_PLACEHOLDER`].
    css: Option<String>,
    /// The stylesheet is a CSS module (`*.module.css`).
    css_module: bool,
    /// A script module's cache entry (its minified text and source-map tokens).
    entry: Option<Arc<cache::Entry>>,
    /// The file as read, for the source map's `sourcesContent` (dev builds).
    original: Option<String>,
}

/// The graph being built for one entry.
struct Graph<'s> {
    settings: &'s Settings<'s>,
    context: Context,
    resolver: &'s resolve::ModuleResolver,
    /// The bundle's output path (for `import.meta.url`).
    out: String,
    modules: Vec<Module>,
    ids: HashMap<PathBuf, usize>,
    queue: Vec<usize>,
    bytes: u64,
    bundle: Bundle,
    /// Big CommonJS files being renamed while the graph loads (`load/early.rs`).
    renaming: Vec<load::early::Renaming>,
    /// Modules named by `new URL("./x.css", import.meta.url)`: a stylesheet among them
    /// exports its `data:` URL in pages too.
    url_targets: std::collections::HashSet<usize>,
}

/// Bundles `entry` (an absolute path inside the project) to be written at `out`.
pub fn bundle(
    settings: &Settings<'_>,
    resolver: &resolve::ModuleResolver,
    entry: &Path,
    out: &str,
    context: Context,
) -> Bundle {
    let mut g = Graph {
        settings,
        context,
        resolver,
        out: out.to_owned(),
        modules: Vec::new(),
        ids: HashMap::new(),
        queue: Vec::new(),
        bytes: 0,
        bundle: Bundle::default(),
        renaming: Vec::new(),
        url_targets: Default::default(),
    };
    let real = std::fs::canonicalize(entry).unwrap_or_else(|_| entry.to_path_buf());
    g.add(real);
    while let Some(id) = g.queue.pop() {
        g.load(id);
    }
    g.finish()
}

impl Graph<'_> {
    /// The id of the module at `path` (real path), queued for loading when new.
    fn add(&mut self, path: PathBuf) -> usize {
        if let Some(&id) = self.ids.get(&path) {
            return id;
        }
        let id = self.modules.len();
        let name = display(self.settings.project, &path);
        self.modules.push(Module {
            path: path.clone(),
            name,
            function: String::new(),
            esm: false,
            deps: Vec::new(),
            css: None,
            css_module: false,
            entry: None,
            original: None,
        });
        self.ids.insert(path.clone(), id);
        self.bundle.inputs.push(path);
        self.queue.push(id);
        id
    }

    fn finish(mut self) -> Bundle {
        // CSS in the order a browser would apply it: depth first, dependencies first.
        let mut order = Vec::new();
        let mut seen = vec![false; self.modules.len()];
        let mut stack = vec![(0usize, 0usize)];
        if !self.modules.is_empty() {
            seen[0] = true;
        }
        while let Some((id, next)) = stack.pop() {
            if let Some(&dep) = self.modules[id].deps.get(next) {
                stack.push((id, next + 1));
                if !seen[dep] {
                    seen[dep] = true;
                    stack.push((dep, 0));
                }
            } else {
                order.push(id);
            }
        }
        // Pages link all of it; a content script's file holds its CSS modules only (plain
        // CSS reaches its shadow root through the bundle, never the host page), as
        // Extension.js's content_scripts[].css does.
        let (in_file, root): (fn(&Module) -> bool, String) = match self.context {
            Context::ContentScript { .. } => {
                (|m: &Module| m.css_module, format!("{}://__MSG_@@extension_id__/", self.settings.scheme))
            }
            _ => (|_: &Module| true, "/".to_owned()),
        };
        let css: Vec<String> = order
            .iter()
            .map(|&i| &self.modules[i])
            .filter(|m| in_file(m))
            .filter_map(|m| m.css.as_deref())
            .map(|c| c.replace(emit::ROOT_PLACEHOLDER, &root))
            .collect();
        if !css.is_empty() {
            self.bundle.css = Some(css.join("\n"));
        }
        let css_ids: Vec<usize> = order.iter().copied().filter(|&i| self.modules[i].css.is_some()).collect();
        self.export_css_urls();
        if self.bundle.findings.iter().any(Finding::is_error) {
            return self.bundle;
        }
        let minify = self.settings.minify;
        if minify {
            let renaming = std::mem::take(&mut self.renaming);
            if !renaming.is_empty() {
                // The other modules are minified while the renamings finish.
                let renamed: Vec<usize> = renaming.iter().map(load::early::Renaming::id).collect();
                let (modules, env, out) = (&self.modules, self.settings.env, self.out.as_str());
                std::thread::scope(|s| {
                    s.spawn(|| minify_all(modules, &renamed));
                    load::early::finish(renaming, modules, env, out);
                });
            }
            // Everything else, and whatever a renaming could not take.
            minify_all(&self.modules, &[]);
        }
        let parts: Vec<emit::Part<'_>> = self
            .modules
            .iter()
            .map(|m| {
                let small = m
                    .entry
                    .as_ref()
                    .filter(|_| minify)
                    .and_then(|e| e.minified.get())
                    .and_then(Option::as_deref);
                emit::Part { name: &m.name, function: small.unwrap_or(&m.function), esm: m.esm }
            })
            .collect();
        let start = match self.context {
            Context::ContentScript { run_at } => {
                emit::Start::Mount { key: &self.out, run_at: run_at.as_str(), css: &css_ids }
            }
            _ => emit::Start::Require,
        };
        let (mut text, starts) = emit::bundle_text(&parts, minify, start);
        if self.settings.source_maps {
            let map_rel = format!("{}.map", self.out);
            let names: Vec<String> =
                self.modules.iter().map(|m| map::source_name(&map_rel, &m.name)).collect();
            let map_parts: Vec<map::Part<'_>> = self
                .modules
                .iter()
                .zip(&starts)
                .zip(&names)
                .filter_map(|((m, &start_line), source)| {
                    Some(map::Part {
                        start_line,
                        source,
                        content: m.original.as_deref()?,
                        tokens: &m.entry.as_ref()?.tokens,
                    })
                })
                .collect();
            let file = self.out.rsplit('/').next().unwrap_or(&self.out).to_owned();
            self.bundle.map = Some(map::bundle_map(&file, &map_parts));
            text.push_str(&format!("//# sourceMappingURL={file}.map\n"));
        }
        self.bundle.code = text;
        self.bundle
    }
}

/// Minifies every script module not minified yet (cached per entry), biggest first, on as
/// many threads as there are cores (at most 4): React's react-dom is most of a popup's time.
fn minify_all(modules: &[Module], skip: &[usize]) {
    let mut work: Vec<&Arc<cache::Entry>> = modules
        .iter()
        .enumerate()
        .filter(|(id, _)| !skip.contains(id))
        .filter_map(|(_, m)| m.entry.as_ref())
        .filter(|e| e.minified.get().is_none())
        .collect();
    work.sort_by_key(|e| std::cmp::Reverse(e.function.len()));
    let next = AtomicUsize::new(0);
    let run = || {
        while let Some(e) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
            e.minified.get_or_init(|| emit::minify_function(&e.function));
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4).min(work.len());
    std::thread::scope(|s| {
        for _ in 1..threads {
            // A thread that cannot start leaves its share to the others.
            let _ = std::thread::Builder::new().name("bundle-minify".into()).spawn_scoped(s, run);
        }
        run();
    });
}

/// `path` relative to the project, `/`-separated (absolute when outside it).
pub fn display(project: &Path, path: &Path) -> String {
    let real = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    path.strip_prefix(&real)
        .or_else(|_| path.strip_prefix(project))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether a manifest entry at `path`, with text `text`, needs the bundler: TypeScript or
/// JSX, or module syntax where the browser loads it as a classic script.
pub fn entry_needs_bundle(path: &Path, text: &str, classic: bool) -> bool {
    transform::needs_transform(path) || (classic && crate::build::scan::find_esm(text).is_some())
}

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod tests;
