//! What a native build copies (whether a native build is allowed at all is `needs.rs`).
//!
//! ```text
//! resolved manifest ─file_refs─▶ refs ─┬─ pages: follow <script>/<link>/<img>
//!                                      ├─ styles: follow url()/@import
//!                                      ├─ scripts: must be classic (find_esm)
//!                                      └─ patterns: expand globs
//! + public/ (copied to the root) + _locales/ + pages/ and scripts/ (Extension.js special
//!   folders)  ──▶ Plan { files: dest → source, findings }
//! ```
//!
//! Never taken: `node_modules`, `.git`, the output folder, `.env*` (when walking folders or
//! expanding globs). An explicit reference into `node_modules` (a vendored polyfill) is kept.
//! Nothing whose real path is outside the project ([`Boundary`]) is copied or read: it is a
//! `MANIFEST_PATH_OUTSIDE` error instead.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::manifest::{self, FileRef, Finding, FindingCode, Json, RefKind, Severity, SourceManifest, Target};

use super::boundary::Boundary;
use super::env::PublicEnv;
use super::glob::{glob_match, has_glob_chars};
use super::needs::needs_compile;
use super::scan::{HtmlRef, css_refs, html_refs};

mod bundled;
mod sass;
mod scripts;

/// The native build of one target: the manifest to write and the files to copy.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: Target,
    pub manifest: Json,
    /// Output-relative path → source file.
    pub files: BTreeMap<String, PathBuf>,
    /// Generated files: output-relative path → content.
    pub generated: BTreeMap<String, String>,
    /// Files the bundler read → the bundle they went into (dev sessions map a changed module
    /// to the entry it belongs to).
    pub inputs: BTreeMap<PathBuf, String>,
    pub findings: Vec<Finding>,
}

impl Plan {
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.is_error())
    }
}

/// Folder names never walked into.
fn skipped_dir(name: &str) -> bool {
    matches!(name, "node_modules" | ".git" | ".extension-js") || name.starts_with(".webext-mcp-")
}

fn skipped_file(name: &str) -> bool {
    name.starts_with(".env") || name.ends_with(".pem")
}

/// Normalizes a manifest path (leading `/` and `./` allowed) into an output-relative path.
/// `None` when it leaves the extension root.
pub fn normalize(path: &str) -> Option<String> {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let mut parts: Vec<&str> = Vec::new();
    for comp in Path::new(path.trim_start_matches('/')).components() {
        match comp {
            Component::Normal(s) => parts.push(s.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    if parts.is_empty() { None } else { Some(parts.join("/")) }
}

struct Planner<'a> {
    root: &'a Path,
    public: Option<PathBuf>,
    project: &'a Path,
    out_dir: &'a Path,
    boundary: Boundary,
    /// What `process.env.X` / `import.meta.env.X` become in this target's scripts.
    env: &'a PublicEnv,
    plan: Plan,
    /// Pages, styles and scripts already followed.
    seen: std::collections::HashSet<String>,
    /// The native bundler, made on first use.
    bundler: Option<bundled::Bundler<'a>>,
    bundled: Vec<bundled::Bundled>,
    /// Bundled sources whose output has another name (`popup.tsx` → `popup.js`).
    renamed: std::collections::HashMap<String, String>,
    /// CSS of a page's bundled scripts, to link from the page being followed.
    pending_css: Vec<String>,
    /// Each `content_scripts` entry's `run_at`, for the mount contract of its bundles.
    run_at: Vec<crate::build::bundle::RunAt>,
}

/// Plans the native build of `source` for `target`, injecting `env` into its scripts.
pub fn plan(
    project: &Path,
    source: &SourceManifest,
    target: Target,
    out_dir: &Path,
    env: &PublicEnv,
) -> Plan {
    let resolved = manifest::resolve(&source.json, target);
    let mut manifest = resolved.manifest;
    let mut findings = resolved.findings;
    findings.extend(manifest::mv2::convert(&mut manifest));
    findings.extend(source.findings.iter().cloned());
    let public = Some(project.join("public")).filter(|p| p.is_dir());
    let mut p = Planner {
        root: &source.root,
        public,
        project,
        out_dir,
        boundary: Boundary::new(project),
        env,
        plan: Plan {
            target,
            manifest: Json::Null,
            files: BTreeMap::new(),
            generated: BTreeMap::new(),
            inputs: BTreeMap::new(),
            findings,
        },
        seen: Default::default(),
        bundler: None,
        bundled: Vec::new(),
        renamed: Default::default(),
        pending_css: Vec::new(),
        run_at: manifest
            .get("content_scripts")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .map(|cs| crate::build::bundle::RunAt::from_manifest(cs.get("run_at").and_then(Json::as_str)))
            .collect(),
    };
    p.check_basics(&manifest);
    p.admit(&source.path, None);
    if let Some(dir) = p.public.clone() {
        p.add_tree(&dir, "");
    }
    if source.locales.is_dir() {
        p.add_tree(&source.locales, "_locales");
    }
    for r in manifest::file_refs(&manifest) {
        p.add_ref(&r);
        // The output manifest names files the way the output has them (no `./`, no `/`; a
        // compiled stylesheet by its CSS name).
        if r.kind != RefKind::Pattern
            && let Some(n) = normalize(&r.path)
        {
            let out = p.renamed.get(&n).cloned().unwrap_or(n);
            if out != r.path {
                set_path(&mut manifest, &r.json_path, Json::String(out));
            }
        }
    }
    p.add_special_folders();
    p.join_background_scripts(&mut manifest, &resolved.dropped_background_scripts);
    p.apply_bundles(&mut manifest);
    p.plan.manifest = manifest;
    p.plan
}

impl Planner<'_> {
    /// The manifest rules a browser enforces at load time: the same rules and codes as
    /// `extension_manifest_validate`, its blocking subset.
    fn check_basics(&mut self, m: &Json) {
        self.plan.findings.extend(crate::manifest::rules::blocking(m, self.plan.target));
    }

    fn locate(&self, rel: &str) -> Option<PathBuf> {
        locate(self.root, self.public.as_deref(), self.project, rel)
    }

    /// Extension.js special folders: every `pages/**/*.html` and `scripts/**/*.js` at the
    /// project root is part of the extension even when the manifest does not name it.
    fn add_special_folders(&mut self) {
        for (folder, ext, kind) in
            [("pages", ".html", RefKind::Page), ("scripts", ".js", RefKind::ClassicScript)]
        {
            let dir = self.project.join(folder);
            if !dir.is_dir() {
                continue;
            }
            let mut found = Vec::new();
            walk(&dir, folder, self.out_dir, &mut |rel, _| {
                if rel.ends_with(ext) {
                    found.push(rel.to_owned());
                }
            });
            found.sort();
            for rel in found {
                self.add_file(&rel, kind, &format!("{folder}/"), None);
            }
        }
    }

    /// Whether `src` may be read and copied: false (with the finding recorded once) when its
    /// real path is outside the project.
    fn admit(&mut self, src: &Path, json_path: Option<&str>) -> bool {
        let Some(mut f) = self.boundary.check(src) else { return true };
        if let Some(at) = json_path {
            f = f.at(at);
        }
        if !self.plan.findings.iter().any(|g| g.code == f.code && g.file == f.file) {
            self.plan.findings.push(f);
        }
        false
    }

    fn display(&self, p: &Path) -> String {
        p.strip_prefix(self.project).unwrap_or(p).to_string_lossy().replace('\\', "/")
    }

    fn add_tree(&mut self, dir: &Path, dest_prefix: &str) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if path == self.out_dir {
                continue;
            }
            let dest = if dest_prefix.is_empty() { name.clone() } else { format!("{dest_prefix}/{name}") };
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                if !skipped_dir(&name) {
                    self.add_tree(&path, &dest);
                }
            } else if (ft.is_file() || ft.is_symlink()) && path.is_file() && !skipped_file(&name) {
                if dest == "manifest.json" || !self.admit(&path, None) {
                    continue;
                }
                self.plan.files.insert(dest, path);
            }
        }
    }

    fn add_ref(&mut self, r: &FileRef) {
        if r.kind == RefKind::Pattern {
            self.add_pattern(r);
            return;
        }
        let Some(rel) = normalize(&r.path) else {
            self.plan.findings.push(outside(r));
            return;
        };
        self.add_file(&rel, r.kind, &r.json_path, None);
    }

    /// Adds one referenced file and follows what it references. `from` is the page or
    /// stylesheet that referenced it (for messages).
    fn add_file(&mut self, rel: &str, kind: RefKind, json_path: &str, from: Option<&str>) {
        let bundled_script = matches!(kind, RefKind::ClassicScript | RefKind::ModuleScript)
            && crate::build::bundle::transform::needs_transform(Path::new(rel));
        if kind == RefKind::Style && crate::build::bundle::sass::is_sass(Path::new(rel)) {
            self.add_sass(rel, json_path, from);
            return;
        }
        if let Some(what) = needs_compile(rel).filter(|_| !bundled_script) {
            let mut f = Finding::new(
                FindingCode::ManifestNeedsCompile,
                format!("`{rel}` is {what}, which browsers cannot load before it is compiled"),
                "build with the project's toolchain (Extension.js, WXT or its build script)",
            );
            f = match from {
                Some(page) => f.in_file(page),
                None => f.at(json_path),
            };
            self.plan.findings.push(f);
            return;
        }
        let Some(src) = self.locate(rel) else {
            let mut f = Finding::new(
                FindingCode::ManifestMissingFile,
                match from {
                    Some(page) => format!("{page} references `{rel}`, which does not exist"),
                    None => format!("`{rel}` does not exist"),
                },
                format!("create {rel} next to manifest.json (or in public/), or fix the path"),
            );
            f = match from {
                Some(page) => f.in_file(page),
                None => f.at(json_path),
            };
            if kind == RefKind::Asset && from.is_some_and(|p| p.ends_with(".css")) {
                f.severity = Severity::Warning;
            }
            self.plan.findings.push(f);
            return;
        };
        if skipped_file(rel.rsplit('/').next().unwrap_or(rel)) || rel.split('/').any(|s| s == ".git") {
            self.plan.findings.push(
                Finding::new(
                    FindingCode::ManifestPathOutside,
                    format!("`{rel}` is a secret or repository file and is never packaged"),
                    "reference another file",
                )
                .at(json_path),
            );
            return;
        }
        if !self.admit(&src, from.is_none().then_some(json_path)) {
            return;
        }
        self.plan.files.insert(rel.to_owned(), src.clone());
        match kind {
            RefKind::ClassicScript | RefKind::ModuleScript => {
                self.check_script(rel, &src, kind, json_path, from)
            }
            RefKind::Page => self.follow_page(rel, &src),
            RefKind::Style => self.follow_style(rel, &src),
            RefKind::Asset | RefKind::Pattern => {}
        }
    }

    fn follow_page(&mut self, rel: &str, src: &Path) {
        if !self.seen.insert(rel.to_owned()) {
            return;
        }
        let Ok(bytes) = std::fs::read(src) else { return };
        let html = String::from_utf8_lossy(&bytes);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let mut rewrites = Vec::new();
        for r in html_refs(&html) {
            let (raw, kind) = match r {
                HtmlRef::Script { src, module } => {
                    (src, if module { RefKind::ModuleScript } else { RefKind::ClassicScript })
                }
                HtmlRef::Style(href) => (href, RefKind::Style),
                HtmlRef::Asset(href) => (href, RefKind::Asset),
            };
            if let Some(to) = self.follow_relative(rel, dir, &raw, kind) {
                rewrites.push((raw, to));
            }
        }
        let mut linked = html.clone().into_owned();
        if self.link_pending_css(&mut linked) || !rewrites.is_empty() {
            let mut text = linked;
            for (raw, to) in rewrites {
                for q in ["\"", "'"] {
                    text = text.replace(&format!("={q}{raw}{q}"), &format!("={q}{to}{q}"));
                }
            }
            self.plan.generated.insert(rel.to_owned(), text);
        }
    }

    fn follow_style(&mut self, rel: &str, src: &Path) {
        if !self.seen.insert(rel.to_owned()) {
            return;
        }
        let Ok(bytes) = std::fs::read(src) else { return };
        let css = String::from_utf8_lossy(&bytes);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let mut text: Option<String> = None;
        for raw in css_refs(&css) {
            let kind =
                if raw.to_ascii_lowercase().split(['?', '#']).next().is_some_and(|p| p.ends_with(".css")) {
                    RefKind::Style
                } else {
                    RefKind::Asset
                };
            if let Some(to) = self.follow_relative(rel, dir, &raw, kind) {
                let t = text.get_or_insert_with(|| css.clone().into_owned());
                *t = t.replace(&raw, &to);
            }
        }
        if let Some(t) = text {
            self.plan.generated.insert(rel.to_owned(), t);
        }
    }

    /// Follows one link of page or stylesheet `from`. A link into `public/` (Extension.js:
    /// `../public/css/a.css`, `/public/a.png`) means the file `public/` puts at the output
    /// root; the new link (`/css/a.css`) is returned for the page to be rewritten.
    fn follow_relative(&mut self, from: &str, dir: &str, raw: &str, kind: RefKind) -> Option<String> {
        if manifest::is_external(raw)
            || raw.starts_with("chrome-extension:")
            || raw.starts_with("moz-extension:")
        {
            return None;
        }
        let joined =
            if raw.starts_with('/') || dir.is_empty() { raw.to_owned() } else { format!("{dir}/{raw}") };
        match normalize(&joined) {
            Some(rel) => {
                if let Some(rest) = rel.strip_prefix("public/")
                    && self.public.as_ref().is_some_and(|p| p.join(rest).is_file())
                {
                    let rest = rest.to_owned();
                    self.add_file(&rest, kind, from, Some(from));
                    return Some(format!("/{rest}"));
                }
                self.add_file(&rel, kind, from, Some(from));
                return self.renamed_to(&rel);
            }
            None => self.plan.findings.push(
                Finding::new(
                    FindingCode::ManifestPathOutside,
                    format!("{from} references `{raw}`, outside the extension folder"),
                    "move the file inside the folder that holds manifest.json",
                )
                .in_file(from),
            ),
        }
        None
    }

    fn add_pattern(&mut self, r: &FileRef) {
        let pattern = r.path.trim_start_matches('/');
        if !has_glob_chars(pattern) {
            match normalize(pattern) {
                Some(rel) if self.locate(&rel).is_some() => {
                    self.add_file(&rel, RefKind::Asset, &r.json_path, None)
                }
                Some(rel) if self.root.join(&rel).is_dir() => {
                    let dir = self.root.join(&rel);
                    self.add_tree(&dir, &rel);
                }
                _ => {
                    let mut f = Finding::new(
                        FindingCode::ManifestMissingFile,
                        format!("web-accessible resource `{}` does not exist", r.path),
                        "create the file or remove it from web_accessible_resources",
                    )
                    .at(&r.json_path);
                    f.severity = Severity::Warning;
                    self.plan.findings.push(f);
                }
            }
            return;
        }
        let mut matches = Vec::new();
        for base in std::iter::once(self.root.to_path_buf()).chain(self.public.clone()) {
            walk(&base, "", self.out_dir, &mut |rel, path| {
                if glob_match(pattern, rel) {
                    matches.push((rel.to_owned(), path.to_path_buf()));
                }
            });
        }
        for (rel, path) in matches {
            if rel != "manifest.json" && self.admit(&path, Some(&r.json_path)) {
                self.plan.files.entry(rel).or_insert(path);
            }
        }
    }

    /// Chromium MV3 with several background scripts and no worker: Extension.js bundles them
    /// into one; natively they are joined by a generated classic worker that imports each.
    fn join_background_scripts(&mut self, manifest: &mut Json, dropped: &[String]) {
        if dropped.len() < 2 {
            return;
        }
        let Some(bg) =
            manifest.as_object_mut().and_then(|m| m.get_mut("background")).and_then(Json::as_object_mut)
        else {
            return;
        };
        if bg.get("service_worker").and_then(Json::as_str) != Some(dropped[0].as_str()) {
            return;
        }
        let worker = "webext-mcp-background.js";
        let mut body =
            String::from("// Generated by webext-mcp: Chromium MV3 runs one service worker.\nimportScripts(");
        let list: Vec<String> =
            dropped.iter().filter_map(|s| normalize(s)).map(|s| format!("{:?}", format!("/{s}"))).collect();
        body.push_str(&list.join(", "));
        body.push_str(");\n");
        bg.insert("service_worker", Json::String(worker.to_owned()));
        self.plan.generated.insert(worker.to_owned(), body);
        for (i, s) in dropped.iter().enumerate() {
            if let Some(rel) = normalize(s)
                && let Some(src) = self.locate(&rel)
                && self.admit(&src, Some(&format!("background.scripts[{i}]")))
            {
                self.plan.files.insert(rel.clone(), src.clone());
                self.check_script(
                    &rel,
                    &src,
                    RefKind::ClassicScript,
                    &format!("background.scripts[{i}]"),
                    None,
                );
            }
        }
        self.plan.findings.push(
            Finding::new(
                FindingCode::ManifestBackgroundScriptsJoined,
                format!(
                    "{} background scripts were joined by a generated {worker} for {}",
                    dropped.len(),
                    self.plan.target.name
                ),
                "give Chromium one script with \"chromium:service_worker\" to control this yourself",
            )
            .at("background.scripts"),
        );
    }
}

/// The finding for a manifest path that leaves the extension folder (`../x.js`, `/abs`).
pub fn outside(r: &FileRef) -> Finding {
    Finding::new(
        FindingCode::ManifestPathOutside,
        format!("`{}` points outside the extension folder", r.path),
        "reference files inside the folder that holds manifest.json",
    )
    .at(&r.json_path)
}

/// Where a normalized manifest path is found: the extension root first, then `public/`,
/// then the special folders (`pages/`, `scripts/`), which live at the project root (not the
/// extension root when the manifest is in `src/`). Shared with the validator.
pub fn locate(root: &Path, public: Option<&Path>, project: &Path, rel: &str) -> Option<PathBuf> {
    let p = root.join(rel);
    if p.is_file() {
        return Some(p);
    }
    if let Some(q) = public.map(|d| d.join(rel)).filter(|q| q.is_file()) {
        return Some(q);
    }
    let special = rel.starts_with("pages/") || rel.starts_with("scripts/");
    let r = project.join(rel);
    (special && r.is_file()).then_some(r)
}

/// Sets the manifest value at `path` (`a.b[2].c`), when every step exists.
fn set_path(json: &mut Json, path: &str, value: Json) {
    let mut cur = json;
    for seg in path.split('.') {
        let (name, indexes) = seg.split_once('[').map_or((seg, ""), |(n, rest)| (n, rest));
        let Some(next) = cur.as_object_mut().and_then(|o| o.get_mut(name)) else { return };
        cur = next;
        for idx in indexes.split('[').filter(|s| !s.is_empty()) {
            let Ok(i) = idx.trim_end_matches(']').parse::<usize>() else { return };
            let Json::Array(items) = cur else { return };
            let Some(next) = items.get_mut(i) else { return };
            cur = next;
        }
    }
    *cur = value;
}

/// Walks `dir` (skipping dependency, repository and output folders and secrets), calling
/// `f(relative path, path)` for every file.
fn walk(dir: &Path, prefix: &str, out_dir: &Path, f: &mut dyn FnMut(&str, &Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path == out_dir {
            continue;
        }
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            if !skipped_dir(&name) && name != "dist" {
                walk(&path, &rel, out_dir, f);
            }
        } else if path.is_file() && !skipped_file(&name) {
            f(&rel, &path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_table() {
        for (input, want) in [
            ("a.js", Some("a.js")),
            ("./a.js", Some("a.js")),
            ("/icons/x.png", Some("icons/x.png")),
            ("pages/../popup.html", Some("popup.html")),
            ("popup.html?x=1#y", Some("popup.html")),
            ("../outside.js", None),
            ("a/../../b", None),
            ("", None),
        ] {
            assert_eq!(normalize(input).as_deref(), want, "{input}");
        }
    }
}
