//! Stylesheets of the graph: Sass compiled by grass, CSS and CSS modules with their
//! `@import`s inlined and `url()`s copied as content-addressed assets.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::super::{Graph, css};
use super::*;

impl Graph<'_> {
    /// A Sass module: compiled, then loaded as its CSS. A file grass rejects is
    /// `MANIFEST_NEEDS_COMPILE` with grass's message: the project's toolchain builds it.
    pub(super) fn load_sass(&mut self, id: usize, path: &Path, module: bool) {
        match super::super::sass::compile(path, self.settings.project, &self.settings.boundary) {
            Ok(compiled) => {
                for input in compiled.inputs.iter().skip(1) {
                    if !self.bundle.inputs.contains(input) {
                        self.bundle.inputs.push(input.clone());
                    }
                }
                self.load_css(id, path, compiled.css, module);
            }
            Err(why) => {
                let name = self.modules[id].name.clone();
                self.finding(
                    FindingCode::ManifestNeedsCompile,
                    id,
                    format!("`{name}` is Sass that the native compiler (grass) rejects: {why}"),
                    "fix the stylesheet, or build with the project's toolchain (Extension.js with the sass package: npm i -D extension sass; Node.js ≥ 22.12)".into(),
                    None,
                );
            }
        }
    }

    pub(super) fn load_css(&mut self, id: usize, path: &Path, text: String, module: bool) {
        let (text, map) = if module {
            let digest = Sha256::digest(self.modules[id].name.as_bytes());
            let suffix: String = digest.iter().take(3).map(|b| format!("{b:02x}")).collect();
            let (t, m) = css::scope_classes(&text, &suffix);
            (t, Some(m))
        } else {
            (text, None)
        };
        let text = self.css_references(path, &text, 0);
        // A content script's stylesheets reach its shadow root through the bundle (a plain
        // one's export is its `data:` URL, as Extension.js's `asset/inline`); a page's are
        // linked, and export their URL only when `new URL(…)` asks (`export_css_urls`).
        let content = matches!(self.context, Context::ContentScript { .. });
        let body = match map {
            Some(m) => {
                let map = serde_json::to_string(&m).unwrap_or_else(|_| "{}".into());
                if content {
                    format!(
                        "module.exports = {map};\nObject.defineProperty(module.exports, \"$wx_css\", {{ value: require.c({}) }});",
                        quote(&text)
                    )
                } else {
                    format!("module.exports = {map};")
                }
            }
            None if content => format!("module.exports = require.c({});", quote(&text)),
            None => String::new(),
        };
        self.modules[id].function = format!("function (module, exports, require) {{\n{body}\n}}");
        self.modules[id].css = Some(text);
        self.modules[id].css_module = module;
        if self.context == Context::Background {
            let name = self.modules[id].name.clone();
            let mut f = Finding::new(
                FindingCode::ManifestBundle,
                format!("`{name}` is CSS imported by a background script, which has no page to style; it is left out"),
                "import the CSS from a content script or a page instead",
            )
            .in_file(name);
            f.severity = Severity::Warning;
            self.bundle.findings.push(f);
        }
    }

    /// Outside content scripts, a plain stylesheet that `new URL("./x.css",
    /// import.meta.url)` names exports its `data:` URL (Extension.js inlines it so), which
    /// exists wherever the script runs.
    pub(in crate::build::bundle) fn export_css_urls(&mut self) {
        if matches!(self.context, Context::ContentScript { .. }) {
            return;
        }
        for &id in &self.url_targets {
            let m = &mut self.modules[id];
            if let (Some(text), false) = (&m.css, m.css_module) {
                m.function = format!(
                    "function (module, exports, require) {{\nmodule.exports = require.c({});\n}}",
                    quote(text)
                );
            }
        }
    }

    /// `css` with relative `@import`s inlined (depth-limited) and `url()`s pointing at copied
    /// assets.
    pub(super) fn css_references(&mut self, path: &Path, css: &str, depth: usize) -> String {
        let mut out = String::with_capacity(css.len());
        let mut at = 0usize;
        for (range, raw, import) in css::references(css) {
            let clean = raw.split(['?', '#']).next().unwrap_or(&raw).to_owned();
            let target = match self.resolver.resolve(path, &relative(&clean)) {
                Ok(p) => p,
                Err(_) => continue, // left as written (a browser ignores a missing url())
            };
            if import {
                if depth > 16 || target == path {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&target) else { continue };
                if text.len() as u64 > MAX_MODULE_BYTES {
                    continue;
                }
                self.bundle.inputs.push(target.clone());
                let inner = self.css_references(&target, &text, depth + 1);
                // Replace the whole `@import …;` rule with the imported text.
                let rule_start = css[..range.start].rfind('@').unwrap_or(range.start);
                let rule_end = css[range.end..].find(';').map_or(css.len(), |e| range.end + e + 1);
                if rule_start < at {
                    continue;
                }
                out.push_str(&css[at..rule_start]);
                out.push_str(&inner);
                at = rule_end;
            } else {
                // The extension's root is filled in where the text goes (`Graph::finish`,
                // `$wx_r.c`).
                let full = format!("{}{}", super::super::emit::ROOT_PLACEHOLDER, self.asset(&target));
                if range.start < at {
                    continue;
                }
                out.push_str(&css[at..range.start]);
                out.push_str(&full);
                at = range.end;
            }
        }
        out.push_str(&css[at..]);
        out
    }

    /// Copies `path` as an asset: `assets/<stem>-<hash>.<ext>` (content-addressed, so the
    /// same file imported twice is one file).
    pub(super) fn asset(&mut self, path: &Path) -> String {
        let bytes = std::fs::read(path).unwrap_or_default();
        let digest = Sha256::digest(&bytes);
        let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("asset");
        let stem: String =
            stem.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        let ext = path.extension().and_then(|s| s.to_str()).map(|e| format!(".{e}")).unwrap_or_default();
        let rel = format!("assets/{stem}-{hash}{ext}");
        self.bundle.assets.insert(rel.clone(), path.to_path_buf());
        if !self.bundle.inputs.iter().any(|p| p == path) {
            self.bundle.inputs.push(path.to_path_buf());
        }
        rel
    }
}
