//! Scripts in a native build: env values injected ([`inject`]), classic scripts checked for
//! module syntax, and module scripts (a `"type": "module"` background, `<script
//! type="module">`) followed through their relative static imports, which Chrome and Firefox
//! load natively. Only what browsers cannot load (a package import, a CSS or JSON import,
//! module syntax in a classic context) needs the project's toolchain.

use std::path::Path;

use crate::build::inject::{self, Leftover};
use crate::build::js::{self, Goal};
use crate::build::scan::find_esm;
use crate::manifest::{self, Finding, FindingCode, RefKind};

use super::{Planner, normalize};

impl Planner<'_> {
    /// Injects env values into the script `rel` (copied from `src`) and checks that it can be
    /// loaded the way it is referenced. `from` is the page or module that loads it.
    pub(super) fn check_script(
        &mut self,
        rel: &str,
        src: &Path,
        kind: RefKind,
        json_path: &str,
        from: Option<&str>,
    ) {
        if !self.seen.insert(format!("script:{rel}")) {
            return;
        }
        let Ok(bytes) = std::fs::read(src) else { return };
        let original = String::from_utf8_lossy(&bytes).into_owned();
        if self.wants_bundle(src, &original, kind) {
            self.bundle_entry(rel, src, json_path, from);
            return;
        }
        let goal = if kind == RefKind::ModuleScript { Goal::Module } else { Goal::Script };
        let text = match inject::inject(&original, src, goal, self.env) {
            Ok(done) => {
                for l in &done.leftovers {
                    let f = self.leftover_finding(src, l);
                    self.plan.findings.push(f);
                }
                match done.text {
                    Some(new) => {
                        self.plan.generated.insert(rel.to_owned(), new.clone());
                        new
                    }
                    None => original,
                }
            }
            Err(e) => {
                if original.contains("process.env") {
                    self.plan.findings.push(
                        Finding::new(
                            FindingCode::ManifestProcessEnv,
                            format!(
                                "`{rel}` cannot be parsed ({}), so its process.env references cannot be replaced",
                                e.message
                            ),
                            format!("fix the syntax error at {}:{}", e.line, e.column),
                        )
                        .in_file(self.display(src))
                        .at_position(e.line, e.column),
                    );
                }
                original
            }
        };
        if kind == RefKind::ModuleScript {
            self.follow_imports(rel, src, &text, json_path);
            return;
        }
        if let Some(esm) = find_esm(&text) {
            let how = match from {
                Some(page) => format!("is loaded by {page} as a classic script and"),
                None => "runs as a classic script but".to_owned(),
            };
            self.plan.findings.push(
                Finding::new(
                    FindingCode::ManifestEsmInClassicScript,
                    format!("`{rel}` {how} uses `{}` (line {}), so it needs a bundler", esm.what, esm.line),
                    "build with Extension.js (npm i -D extension; Node.js ≥ 22.12), or load it as a module where browsers allow (\"type\": \"module\" for the background, <script type=\"module\"> in pages), or remove import/export",
                )
                .at(json_path)
                .in_file(self.display(src))
                .at_position(esm.line, esm.column),
            );
        }
    }

    fn leftover_finding(&self, src: &Path, l: &Leftover) -> Finding {
        let name = l
            .what
            .strip_prefix("process.env.")
            .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let fix = match name {
            Some(n) if n.starts_with(crate::build::env::PUBLIC_PREFIX) => {
                format!("set {n} in .env (or .env.<browser>, .env.defaults) next to package.json")
            }
            Some(n) => format!(
                "if the value may ship inside the extension, name it EXTENSION_PUBLIC_{n} in .env and in the code; otherwise remove the reference (secrets never reach extension code)"
            ),
            None => {
                "read single variables by name (process.env.EXTENSION_PUBLIC_X), which the build replaces"
                    .into()
            }
        };
        Finding::new(
            FindingCode::ManifestProcessEnv,
            format!("`{}` would stay in the output, where browsers have no `process`: {}", l.what, l.why),
            fix,
        )
        .in_file(self.display(src))
        .at_position(l.line, l.column)
    }

    /// Copies what a module script imports statically (relative paths only) and checks it.
    fn follow_imports(&mut self, rel: &str, src: &Path, text: &str, json_path: &str) {
        let imports = match js::module_imports(text, src) {
            Ok(list) => list,
            Err(e) => {
                self.plan.findings.push(
                    Finding::new(
                        FindingCode::ManifestEsmInClassicScript,
                        format!("`{rel}` is loaded as a module but cannot be parsed: {}", e.message),
                        format!("fix the syntax error at {}:{}", e.line, e.column),
                    )
                    .at(json_path)
                    .in_file(self.display(src))
                    .at_position(e.line, e.column),
                );
                return;
            }
        };
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for imp in imports {
            let spec = imp.specifier.as_str();
            if manifest::is_external(spec) {
                continue;
            }
            let relative = spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/');
            let lower = spec.to_ascii_lowercase();
            let loadable = lower.ends_with(".js") || lower.ends_with(".mjs");
            if !relative || (!loadable && crate::build::needs::needs_compile(spec).is_none()) {
                let what = if relative {
                    format!("imports `{spec}`, a file browsers do not load as a module")
                } else {
                    format!("imports the package `{spec}`, which browsers cannot resolve")
                };
                self.plan.findings.push(
                    Finding::new(
                        FindingCode::ManifestNeedsCompile,
                        format!("`{rel}` {what} (line {}), so it needs a bundler", imp.line),
                        "build with Extension.js (npm i -D extension; Node.js ≥ 22.12), or import a relative .js file",
                    )
                    .at(json_path)
                    .in_file(self.display(src))
                    .at_position(imp.line, imp.column),
                );
                continue;
            }
            let joined = if spec.starts_with('/') || dir.is_empty() {
                spec.to_owned()
            } else {
                format!("{dir}/{spec}")
            };
            match normalize(&joined) {
                Some(target) => self.add_file(&target, RefKind::ModuleScript, json_path, Some(rel)),
                None => self.plan.findings.push(
                    Finding::new(
                        FindingCode::ManifestPathOutside,
                        format!("{rel} imports `{spec}`, outside the extension folder"),
                        "move the file inside the folder that holds manifest.json",
                    )
                    .in_file(rel.to_owned()),
                ),
            }
        }
    }
}
