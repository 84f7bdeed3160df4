//! The linker's issues in one module as findings: what is wrong, at the importing file's
//! line and column, and what to do (`npm install`, a browser API, a literal `import()`).

use crate::build::bundle::Graph;
use crate::build::bundle::link::IssueKind;
use crate::build::bundle::resolve::Unresolved;
use crate::manifest::{Finding, FindingCode, Severity};

impl Graph<'_> {
    /// An issue the linker found in module `id`, as a finding at `at` (`dependency`: the
    /// module is a package's, where some problems are only warnings).
    pub(super) fn issue(
        &mut self,
        id: usize,
        kind: &IssueKind,
        spec: Option<&str>,
        at: (usize, usize),
        dependency: bool,
    ) {
        let name = self.modules[id].name.clone();
        let spec = spec.unwrap_or("");
        let (code, message, fix, warning) = match kind {
            IssueKind::TopLevelAwait => (
                FindingCode::ManifestBundle,
                format!("`{name}` uses `await` at the top level, which a bundled script cannot"),
                "move the code into an async function (`(async () => { … })()`)".to_owned(),
                false,
            ),
            IssueKind::SelfCallRemoved => (
                FindingCode::ManifestBundle,
                format!("`{name}` calls its default export `{spec}()` itself; the call was removed, since the content script's mount contract calls it once (as Extension.js does)"),
                format!("remove the call `{spec}()`: the default export is called on injection, and what it returns on reload"),
                true,
            ),
            IssueKind::DynamicImport => (
                FindingCode::ManifestBundle,
                format!("`{name}` imports a computed specifier with import(); it is left to the browser, which resolves it against the page"),
                "import a string literal so the bundler can include the module".to_owned(),
                true,
            ),
            IssueKind::Unresolved(Unresolved::Builtin) => (
                FindingCode::ManifestUnresolvedImport,
                format!("`{name}` imports `{spec}`, a Node.js built-in that browsers do not have"),
                "use a browser API instead, or a package written for browsers".to_owned(),
                dependency,
            ),
            IssueKind::Unresolved(Unresolved::Outside(why)) => (
                FindingCode::ManifestPathOutside,
                format!("`{name}` imports `{spec}`: {why}"),
                "copy the module into the project instead of importing it from outside".to_owned(),
                false,
            ),
            IssueKind::Unresolved(Unresolved::Foreign(what)) => (
                FindingCode::ManifestNeedsCompile,
                format!("`{name}` imports `{spec}`, {what}, which the native bundler does not compile"),
                "build with the project's toolchain (Extension.js: npm i -D extension; Node.js ≥ 22.12), or import CSS/JS instead".to_owned(),
                false,
            ),
            IssueKind::Unresolved(Unresolved::Other(why)) => (
                FindingCode::ManifestUnresolvedImport,
                format!("`{name}` imports `{spec}`, which cannot be resolved: {why}"),
                "fix the import (or the package's package.json / tsconfig.json paths)".to_owned(),
                false,
            ),
            IssueKind::Unresolved(Unresolved::NotFound { package }) => {
                let installed = package.as_ref().map(|p| self.settings.project.join("node_modules").join(p).is_dir());
                match (package, installed) {
                    (Some(p), Some(false)) => (
                        FindingCode::ManifestUnresolvedImport,
                        format!("`{name}` imports `{spec}`, but the package `{p}` is not installed (no node_modules/{p})"),
                        if self.declared(p) {
                            "run npm install (or pnpm install / yarn) in the project, then build again".to_owned()
                        } else {
                            format!("npm i {p}, then build again")
                        },
                        false,
                    ),
                    (Some(p), _) => (
                        FindingCode::ManifestUnresolvedImport,
                        format!("`{name}` imports `{spec}`, which the installed package `{p}` does not provide"),
                        format!("check the path against node_modules/{p}/package.json (exports), or reinstall it"),
                        false,
                    ),
                    (None, _) => (
                        FindingCode::ManifestUnresolvedImport,
                        format!("`{name}` imports `{spec}`, which does not exist"),
                        "fix the path (relative to the importing file), or create the file".to_owned(),
                        false,
                    ),
                }
            }
        };
        let mut f = Finding::new(code, message, fix).in_file(name).at_position(at.0, at.1);
        if warning {
            f.severity = Severity::Warning;
        }
        if !self.bundle.findings.contains(&f) {
            self.bundle.findings.push(f);
        }
    }

    /// Whether package.json declares dependency `p`.
    fn declared(&self, p: &str) -> bool {
        let Ok(text) = std::fs::read_to_string(self.settings.project.join("package.json")) else {
            return false;
        };
        let Ok(json) = crate::manifest::parse_jsonc(&text) else { return false };
        ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]
            .iter()
            .any(|s| json.get(s).and_then(|d| d.get(p)).is_some())
    }
}
