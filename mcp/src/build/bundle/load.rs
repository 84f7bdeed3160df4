//! Loading one module of the graph by what it is (script, stylesheet, CSS module, JSON,
//! asset, or something only the project's toolchain compiles), and every problem on the way
//! as a finding with the file and position.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::link;
use super::map::{self, Token};
use super::resolve::ModuleResolver;
use super::resolve::Unresolved;
use super::{Context, Graph, MAX_MODULES, MAX_TOTAL_BYTES, cache, transform};
use crate::build::inject::{self, Leftover};
use crate::build::js::{self, Goal};
use crate::build::needs::needs_compile;
use crate::build::splice::Segment;
use crate::manifest::{Finding, FindingCode, Severity};

pub(super) mod early;
mod issues;
mod styles;

/// What a module file is, by its extension.
enum Kind {
    Script,
    Css {
        module: bool,
    },
    /// `.scss` / `.sass`, compiled by grass ([`super::sass`]), then CSS like any other.
    Sass {
        module: bool,
    },
    Json,
    Asset,
    /// Needs the project's toolchain (the description: "Sass", "a Vue component").
    Foreign(&'static str),
}

fn kind(path: &Path) -> Kind {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "tsx" | "jsx" | "" => Kind::Script,
        "css" => Kind::Css { module: name.ends_with(".module.css") },
        "scss" | "sass" => {
            Kind::Sass { module: name.ends_with(".module.scss") || name.ends_with(".module.sass") }
        }
        "json" => Kind::Json,
        _ => match needs_compile(&name) {
            Some(what) => Kind::Foreign(what),
            None => Kind::Asset,
        },
    }
}

/// Files larger than this are refused as modules (the parser's own cap, for every kind).
const MAX_MODULE_BYTES: u64 = js::MAX_PARSE_BYTES as u64;

impl Graph<'_> {
    fn finding(
        &mut self,
        code: FindingCode,
        id: usize,
        message: String,
        fix: String,
        at: Option<(usize, usize)>,
    ) {
        let file = self.modules[id].name.clone();
        let mut f = Finding::new(code, message, fix).in_file(file);
        if let Some((line, column)) = at {
            f = f.at_position(line, column);
        }
        if !self.bundle.findings.contains(&f) {
            self.bundle.findings.push(f);
        }
    }

    fn in_node_modules(&self, id: usize) -> bool {
        self.modules[id].path.components().any(|c| c.as_os_str() == "node_modules")
    }

    pub(super) fn load(&mut self, id: usize) {
        let path = self.modules[id].path.clone();
        let name = self.modules[id].name.clone();
        if self.modules.len() > MAX_MODULES {
            self.finding(
                FindingCode::ManifestBundle,
                id,
                format!("the bundle would hold more than {MAX_MODULES} modules; `{name}` was not read"),
                "import fewer modules (a package's single entry instead of its files)".into(),
                None,
            );
            return;
        }
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        self.bytes += size;
        if size > MAX_MODULE_BYTES || self.bytes > MAX_TOTAL_BYTES {
            self.finding(
                FindingCode::ManifestBundle,
                id,
                format!("`{name}` is {size} bytes, more than a bundled module may be (2 MiB each, 128 MiB in all)"),
                "import a smaller file, or copy it as a file of the extension (web_accessible_resources) and fetch it".into(),
                None,
            );
            return;
        }
        match kind(&path) {
            Kind::Script => self.load_script(id, &path),
            Kind::Css { module } => {
                if let Some(text) = self.read_text(id, &path) {
                    self.load_css(id, &path, text, module);
                }
            }
            Kind::Sass { module } => self.load_sass(id, &path, module),
            Kind::Json => self.load_json(id, &path),
            Kind::Asset => {
                let url = self.asset(&path);
                self.modules[id].function =
                    format!("function (module, exports, require) {{\nmodule.exports = require.u({});\n}}", quote(&url));
            }
            Kind::Foreign(what) => self.finding(
                FindingCode::ManifestNeedsCompile,
                id,
                format!("`{name}` is {what}, which the native bundler does not compile"),
                "build with the project's toolchain (Extension.js: npm i -D extension; Node.js ≥ 22.12), or import CSS/JS instead".into(),
                None,
            ),
        }
    }

    fn read_text(&mut self, id: usize, path: &Path) -> Option<String> {
        match std::fs::read(path) {
            // Valid UTF-8 (nearly always) is taken as it is, without a lossy copy.
            Ok(bytes) => Some(
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
            Err(e) => {
                let name = self.modules[id].name.clone();
                self.finding(
                    FindingCode::ManifestBundle,
                    id,
                    format!("`{name}` cannot be read: {e}"),
                    "check the file's permissions".into(),
                    None,
                );
                None
            }
        }
    }

    /// A `process.env` use that stays: an error in project files, a warning in packages
    /// (which guard their own accesses).
    fn leftover(&mut self, id: usize, l: &Leftover, dependency: bool) {
        let (sev, fix) = if dependency {
            (
                Severity::Warning,
                "the package reads it at run time; check that it guards the access (typeof process)"
                    .to_owned(),
            )
        } else {
            (Severity::Error, "read EXTENSION_PUBLIC_* variables by name (process.env.EXTENSION_PUBLIC_X), set in .env; other names never reach extension code".to_owned())
        };
        let mut f = Finding::new(
            FindingCode::ManifestProcessEnv,
            format!("`{}` would stay in the output, where browsers have no `process`: {}", l.what, l.why),
            fix,
        )
        .in_file(self.modules[id].name.clone())
        .at_position(l.line, l.column);
        f.severity = sev;
        if !self.bundle.findings.contains(&f) {
            self.bundle.findings.push(f);
        }
    }

    /// A script module: from the cache when nothing it depends on changed, else env
    /// injected, compiled (TypeScript/JSX) and linked. A `.js` module gets its env values on
    /// the linker's own parse; TypeScript/JSX gets them on the source as written, before
    /// compiling (positions stay the author's).
    fn load_script(&mut self, id: usize, path: &Path) {
        let Some(original) = self.read_text(id, path) else { return };
        let dependency = self.in_node_modules(id);
        let compiled = transform::needs_transform(path);
        let env = self.settings.env;
        let maps = self.settings.source_maps;
        let url = format!("$wx_r.u({})", quote(&self.out));
        // A content script's entry loses calls of its own default export (the contract
        // mounts it): another text from the same file.
        let mounted = id == 0 && matches!(self.context, Context::ContentScript { .. });
        let compile = format!("{compiled} {:?} maps={maps} mounted={mounted}", self.settings.jsx);
        let key = cache::key(path, &original, &compile, &url);
        if maps {
            self.modules[id].original = Some(original.clone());
        }
        if let Some(hit) = cache::get(key, env)
            && self.reuse(id, &hit)
        {
            for l in &hit.leftovers {
                self.leftover(id, l, dependency);
            }
            for issue in &hit.issues {
                let at = position(&original, &original, compiled, issue.offset, issue.specifier.as_deref());
                self.issue(id, &issue.kind, issue.specifier.as_deref(), at, dependency);
            }
            return;
        }
        self.bundle.linked += 1;
        if !compiled {
            self.start_renaming(id, &original);
        }
        let mut leftovers = Vec::new();
        let mut env_names = Vec::new();
        let mut injected: Option<(String, Vec<Segment>)> = None;
        let mut js_text: Option<(String, Vec<Token>)> = None;
        if compiled {
            if let Ok(done) = inject::inject(&original, path, Goal::Script, env) {
                leftovers = done.leftovers;
                env_names = done.names;
                if let Some(text) = done.text {
                    injected = Some((text, done.edits));
                }
            }
            let source = injected.as_ref().map_or(original.as_str(), |(t, _)| t.as_str());
            match transform::to_js(source, path, &self.settings.jsx, maps) {
                Ok(js) => js_text = Some(js),
                Err(e) => {
                    let name = self.modules[id].name.clone();
                    self.finding(
                        FindingCode::ManifestBundle,
                        id,
                        format!("`{name}` cannot be compiled: {}", e.message),
                        format!("fix the error at {name}:{}:{}", e.line, e.column),
                        Some((e.line, e.column)),
                    );
                    return;
                }
            }
        }
        let text = js_text.as_ref().map_or(original.as_str(), |(t, _)| t.as_str());
        let self_calls = if mounted { super::mount::self_calls(text) } else { None };
        let text = self_calls.as_ref().map_or(text, |(t, _)| t.as_str());
        let resolver = self.resolver;
        let mut deps: Vec<usize> = Vec::new();
        let mut calls = Vec::new();
        let linked = {
            let mut resolve = |spec: &str| -> Result<usize, Unresolved> {
                let found = resolve_kind(resolver, path, spec);
                let dep = found.clone().map(|p| self.add(p));
                calls.push((spec.to_owned(), found, dep.as_ref().ok().copied()));
                let dep = dep?;
                if !deps.contains(&dep) {
                    deps.push(dep);
                }
                Ok(dep)
            };
            link::link(text, path, &url, (!compiled).then_some(env), &mut resolve)
        };
        let linked = match linked {
            Ok(l) => l,
            Err(e) => {
                let name = self.modules[id].name.clone();
                self.finding(
                    FindingCode::ManifestBundle,
                    id,
                    format!("`{name}` cannot be parsed: {}", e.message),
                    format!("fix the syntax error at {name}:{}:{}", e.line, e.column),
                    (!compiled).then_some((e.line, e.column)),
                );
                return;
            }
        };
        let mut linked = linked;
        for (offset, name) in self_calls.iter().flat_map(|(_, calls)| calls) {
            linked.issues.push(link::Issue {
                offset: *offset,
                specifier: Some(name.clone()),
                kind: link::IssueKind::SelfCallRemoved,
            });
        }
        self.url_deps(&linked.urls, &linked.url_only, &calls, &mut deps);
        if !compiled {
            self.send_require_ids(id, &linked);
            leftovers = linked.leftovers.clone();
            env_names = linked.env_names.clone();
        }
        for l in &leftovers {
            self.leftover(id, l, dependency);
        }
        for issue in &linked.issues {
            let at = position(&original, text, compiled, issue.offset, issue.specifier.as_deref());
            self.issue(id, &issue.kind, issue.specifier.as_deref(), at, dependency);
        }
        let tokens = if maps {
            let steps = js_text.as_ref().map(|(js, tokens)| map::Compiled {
                js,
                tokens,
                injected: injected.as_ref().map_or(original.as_str(), |(t, _)| t.as_str()),
                injected_from: injected.as_ref().map_or(&[][..], |(_, s)| s.as_slice()),
            });
            map::module_tokens(
                &linked.function,
                linked.body_start,
                &linked.segments,
                &original,
                steps.as_ref(),
                !dependency,
            )
        } else {
            Vec::new()
        };
        self.modules[id].function = linked.function.clone();
        self.modules[id].esm = linked.esm;
        self.modules[id].deps = deps;
        let env = env_names.into_iter().map(|n| {
            let v = env.get(&n).map(str::to_owned);
            (n, v)
        });
        let entry = cache::put(
            key,
            cache::Entry {
                function: linked.function,
                esm: linked.esm,
                issues: linked.issues,
                leftovers,
                urls: linked.urls,
                url_only: linked.url_only,
                calls,
                env: env.collect(),
                tokens,
                minified: std::sync::OnceLock::new(),
            },
        );
        self.modules[id].entry = Some(entry);
    }

    /// Takes a cached link of module `id` when its imports resolve as they did and would get
    /// the same ids in this graph; `false` (nothing changed) otherwise.
    fn reuse(&mut self, id: usize, hit: &Arc<cache::Entry>) -> bool {
        let path = self.modules[id].path.clone();
        let mut next = self.modules.len();
        let mut fresh: Vec<&PathBuf> = Vec::new();
        for (spec, was, was_id) in &hit.calls {
            if &resolve_kind(self.resolver, &path, spec) != was {
                return false;
            }
            let Ok(p) = was else { continue };
            let now = match self.ids.get(p) {
                Some(&i) => i,
                None => match fresh.iter().position(|q| *q == p) {
                    Some(k) => self.modules.len() + k,
                    None => {
                        fresh.push(p);
                        next += 1;
                        next - 1
                    }
                },
            };
            if Some(now) != *was_id {
                return false;
            }
        }
        let mut deps = Vec::new();
        let mut calls = Vec::new();
        for (spec, was, _) in &hit.calls {
            if let Ok(p) = was {
                let dep = self.add(p.clone());
                calls.push((spec.clone(), was.clone(), Some(dep)));
                if !deps.contains(&dep) {
                    deps.push(dep);
                }
            }
        }
        self.url_deps(&hit.urls, &hit.url_only, &calls, &mut deps);
        self.modules[id].function = hit.function.clone();
        self.modules[id].esm = hit.esm;
        self.modules[id].deps = deps;
        self.modules[id].entry = Some(Arc::clone(hit));
        true
    }

    /// The modules `new URL(…)` names become URL targets; those only named so are not
    /// dependencies of the module (`calls`: what each of its specifiers resolved to).
    fn url_deps(
        &mut self,
        urls: &[String],
        url_only: &[String],
        calls: &[(String, Result<PathBuf, Unresolved>, Option<usize>)],
        deps: &mut Vec<usize>,
    ) {
        for (spec, _, dep) in calls {
            let Some(dep) = *dep else { continue };
            if urls.contains(spec) {
                self.url_targets.insert(dep);
            }
            if url_only.contains(spec) {
                deps.retain(|d| *d != dep);
            }
        }
    }

    fn load_json(&mut self, id: usize, path: &Path) {
        let Some(text) = self.read_text(id, path) else { return };
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) => {
                let body = serde_json::to_string(&v).unwrap_or_else(|_| "null".into());
                self.modules[id].function =
                    format!("function (module, exports, require) {{\nmodule.exports = {body};\n}}");
            }
            Err(e) => {
                let name = self.modules[id].name.clone();
                self.finding(
                    FindingCode::ManifestBundle,
                    id,
                    format!("`{name}` is not valid JSON: {e}"),
                    format!("fix the JSON at {name}:{}:{}", e.line(), e.column()),
                    Some((e.line(), e.column())),
                );
            }
        }
    }
}

/// What `spec` imported from `path` leads to, with files only the project's toolchain
/// compiles refused as such.
fn resolve_kind(resolver: &ModuleResolver, path: &Path, spec: &str) -> Result<PathBuf, Unresolved> {
    let found = resolver.resolve(path, spec)?;
    match kind(&found) {
        Kind::Foreign(what) => Err(Unresolved::Foreign(what)),
        _ => Ok(found),
    }
}

/// A CSS reference as a relative module specifier (`img/x.png` → `./img/x.png`).
fn relative(raw: &str) -> String {
    if raw.starts_with("./") || raw.starts_with("../") { raw.to_owned() } else { format!("./{raw}") }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Line and column for an issue: in the original text when it was compiled (found by the
/// specifier in quotes), else at the offset of the linked text.
fn position(original: &str, text: &str, compiled: bool, offset: u32, spec: Option<&str>) -> (usize, usize) {
    if compiled {
        if let Some(s) = spec {
            for q in ['\'', '"', '`'] {
                if let Some(i) = original.find(&format!("{q}{s}{q}")) {
                    return js::line_column(original, i);
                }
            }
        }
        return (1, 1);
    }
    js::line_column(text, offset as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        assert!(matches!(kind(Path::new("a.tsx")), Kind::Script));
        assert!(matches!(kind(Path::new("a.module.css")), Kind::Css { module: true }));
        assert!(matches!(kind(Path::new("a.css")), Kind::Css { module: false }));
        assert!(matches!(kind(Path::new("a.scss")), Kind::Sass { module: false }));
        assert!(matches!(kind(Path::new("a.module.sass")), Kind::Sass { module: true }));
        assert!(matches!(kind(Path::new("a.less")), Kind::Foreign("Less")));
        assert!(matches!(kind(Path::new("logo.PNG")), Kind::Asset));
        assert_eq!(relative("img/x.png"), "./img/x.png");
    }
}
