//! Stylesheets in Sass that the manifest or a page names: compiled by grass
//! ([`crate::build::bundle::sass`]) into CSS beside them.

use crate::manifest::{Finding, FindingCode};

use super::Planner;

impl Planner<'_> {
    /// A stylesheet in Sass named by the manifest or a page: compiled by grass into
    /// `<stem>.css` beside it (the manifest entry and the page's link renamed); a file grass
    /// rejects is `MANIFEST_NEEDS_COMPILE` with grass's message, so the project's toolchain
    /// builds it.
    pub(super) fn add_sass(&mut self, rel: &str, json_path: &str, from: Option<&str>) {
        if !self.seen.insert(rel.to_owned()) {
            return;
        }
        let at = |f: Finding| match from {
            Some(page) => f.in_file(page),
            None => f.at(json_path),
        };
        let Some(src) = self.locate(rel) else {
            let f = Finding::new(
                FindingCode::ManifestMissingFile,
                format!("`{rel}` does not exist"),
                format!("create {rel} next to manifest.json, or fix the path"),
            );
            self.plan.findings.push(at(f));
            return;
        };
        if !self.admit(&src, from.is_none().then_some(json_path)) {
            return;
        }
        match crate::build::bundle::sass::compile(&src, self.project, &self.boundary) {
            Ok(compiled) => {
                let out = format!("{}.css", rel.rsplit_once('.').map_or(rel, |(stem, _)| stem));
                for input in &compiled.inputs {
                    self.plan.inputs.insert(input.clone(), out.clone());
                }
                self.plan.generated.insert(out.clone(), compiled.css);
                self.renamed.insert(rel.to_owned(), out);
            }
            Err(why) => {
                let f = Finding::new(
                    FindingCode::ManifestNeedsCompile,
                    format!("`{rel}` is Sass that the native compiler (grass) rejects: {why}"),
                    "fix the stylesheet, or build with the project's toolchain (Extension.js with the sass package: npm i -D extension sass; Node.js ≥ 22.12)",
                );
                self.plan.findings.push(at(f));
            }
        }
    }
}
