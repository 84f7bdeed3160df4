//! Where an import specifier leads, the way bundlers for the browser resolve it: relative
//! files with extension and `index` probing (and TypeScript's `./x.js` meaning `./x.ts`),
//! `tsconfig.json` `paths`/`baseUrl`, packages in `node_modules` by their `exports`
//! (conditions `browser`, `import`, `module`, `default`), else `browser`/`module`/`main`; and
//! whether the file it leads to may be read at all ([`Boundary`]: never outside the project,
//! except through `node_modules` into the workspace's package store).
//!
//! Written here rather than taken from `oxc_resolver`: that crate turns on serde_json's
//! `preserve_order` for the whole binary (changing every JSON object the server prints).
//! Not supported: the `browser` field's object form (file replacements, `false`), package
//! `imports` (`#x`), Yarn Plug'n'Play.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::build::boundary::Boundary;
use crate::manifest::{Json, parse_jsonc};

/// Extensions tried for an import without one, in this order.
const EXTENSIONS: [&str; 9] = ["ts", "tsx", "mts", "js", "jsx", "mjs", "cjs", "json", "css"];

/// Package conditions honoured in `exports`, in whatever order the package lists them.
const CONDITIONS: [&str; 4] = ["browser", "import", "module", "default"];

/// Node.js built-ins: an import of one that no installed package provides is refused.
const BUILTINS: [&str; 24] = [
    "assert",
    "buffer",
    "child_process",
    "cluster",
    "crypto",
    "dgram",
    "dns",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "module",
    "net",
    "os",
    "path",
    "process",
    "querystring",
    "readline",
    "stream",
    "tls",
    "url",
    "util",
    "zlib",
];

/// Largest package.json or tsconfig.json read.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Why a specifier leads nowhere usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// No such file or package; `package` is the package name for a bare specifier (then
    /// "npm install" is the fix when its folder is missing from `node_modules`).
    NotFound { package: Option<String> },
    /// A Node.js built-in (`fs`, `node:path`): nothing a browser can load.
    Builtin,
    /// The file exists but is outside what a build may read.
    Outside(String),
    /// The import cannot be followed (an absolute path, a package's `imports`).
    Other(String),
    /// A file only the project's toolchain compiles ("Sass", "a Vue component").
    Foreign(&'static str),
}

/// `compilerOptions.paths` of the project's tsconfig: (pattern, targets), and `baseUrl`.
#[derive(Debug, Clone, Default)]
struct TsPaths {
    base: Option<PathBuf>,
    /// Explicit `baseUrl`: bare specifiers are tried under it too.
    base_explicit: bool,
    paths: Vec<(String, Vec<String>)>,
}

/// One resolver per target: package.json reads are cached across the bundles.
pub struct ModuleResolver {
    boundary: Boundary,
    ts: TsPaths,
    /// Bare specifiers that stand for others ([`preact_aliases`]).
    aliases: &'static [(&'static str, &'static str)],
    packages: Mutex<HashMap<PathBuf, Option<Json>>>,
}

/// React's entry points served by Preact, as Extension.js 4.1 aliases them when a project
/// depends on `preact` (`maybeUsePreact`): code and JSX compiled for React's runtime
/// (tsconfig `"jsx": "react-jsx"` without `jsxImportSource`, `import { useState } from
/// "react"`) run on Preact. `react-dom/client` goes to Preact's own `compat/client`.
pub static PREACT_ALIASES: [(&str, &str); 6] = [
    ("react", "preact/compat"),
    ("react-dom", "preact/compat"),
    ("react/jsx-runtime", "preact/jsx-runtime"),
    ("react/jsx-dev-runtime", "preact/jsx-dev-runtime"),
    ("react-dom/test-utils", "preact/test-utils"),
    ("react-dom/client", "preact/compat/client"),
];

/// The aliases a project gets: Preact's when its package.json declares `preact` and not
/// `react` (a project that has React keeps it).
pub fn preact_aliases(package_json: Option<&Json>) -> &'static [(&'static str, &'static str)] {
    let declares = |name: &str| {
        ["dependencies", "devDependencies", "peerDependencies"]
            .iter()
            .any(|s| package_json.and_then(|p| p.get(s)).and_then(|d| d.get(name)).is_some())
    };
    if declares("preact") && !declares("react") { &PREACT_ALIASES[..] } else { &[] }
}

impl ModuleResolver {
    pub fn new(project: &Path, boundary: Boundary) -> ModuleResolver {
        let pkg = std::fs::metadata(project.join("package.json"))
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_CONFIG_BYTES)
            .and_then(|_| std::fs::read_to_string(project.join("package.json")).ok())
            .and_then(|t| parse_jsonc(&t).ok());
        ModuleResolver {
            boundary,
            ts: ts_paths(project),
            aliases: preact_aliases(pkg.as_ref()),
            packages: Mutex::new(HashMap::new()),
        }
    }

    /// The real path of the file `specifier`, imported by the file `from`, leads to.
    pub fn resolve(&self, from: &Path, specifier: &str) -> Result<PathBuf, Unresolved> {
        let spec = specifier.split(['?', '#']).next().unwrap_or(specifier);
        if spec.starts_with('/') || spec.contains('\0') {
            return Err(Unresolved::Other(format!(
                "`{specifier}` is an absolute path; import files by a path relative to the importing file"
            )));
        }
        let dir = from.parent().unwrap_or(from);
        let relative = spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        let found = if relative {
            self.file_or_dir(&dir.join(spec)).ok_or(Unresolved::NotFound { package: None })?
        } else if spec.starts_with('#') {
            return Err(Unresolved::Other(
                "package imports (`#name`) are not supported by the native bundler".into(),
            ));
        } else if let Some(p) = self.ts_path(spec) {
            p
        } else {
            self.bare(dir, spec)?
        };
        let real = std::fs::canonicalize(&found).unwrap_or(found);
        let from_real = std::fs::canonicalize(from).unwrap_or_else(|_| from.to_path_buf());
        let via_package = !relative || self.boundary.in_store(&from_real);
        if !self.boundary.allows_module(&real, via_package) {
            return Err(Unresolved::Outside(format!(
                "it resolves to {}, outside the project{}, and a build never reads files from outside it",
                real.display(),
                if via_package { " and the workspace's node_modules" } else { "" }
            )));
        }
        Ok(real)
    }

    fn ts_path(&self, spec: &str) -> Option<PathBuf> {
        let base = self.ts.base.as_ref()?;
        for (pattern, targets) in &self.ts.paths {
            let star = match pattern.split_once('*') {
                Some((pre, post))
                    if spec.starts_with(pre)
                        && spec.ends_with(post)
                        && spec.len() >= pre.len() + post.len() =>
                {
                    &spec[pre.len()..spec.len() - post.len()]
                }
                None if pattern == spec => "",
                _ => continue,
            };
            for t in targets {
                if let Some(p) = self.file_or_dir(&base.join(t.replacen('*', star, 1))) {
                    return Some(p);
                }
            }
        }
        if self.ts.base_explicit {
            return self.file_or_dir(&base.join(spec));
        }
        None
    }

    fn bare(&self, dir: &Path, spec: &str) -> Result<PathBuf, Unresolved> {
        let spec = self.aliases.iter().find(|(from, _)| *from == spec).map_or(spec, |(_, to)| *to);
        let name = spec.strip_prefix("node:").unwrap_or(spec);
        let Some(package) = bare_package(name) else { return Err(Unresolved::NotFound { package: None }) };
        let sub = &name[package.len()..];
        let subpath = if sub.is_empty() { ".".to_owned() } else { format!(".{sub}") };
        let mut at = Some(dir);
        // Never above the workspace root: a `node_modules` in `~` or `/` is not the project's.
        let top = self.boundary.workspace().to_path_buf();
        while let Some(d) = at.filter(|d| d.starts_with(&top)) {
            let pkg_dir = d.join("node_modules").join(&package);
            if pkg_dir.is_dir() && !spec.starts_with("node:") {
                return self
                    .in_package(&pkg_dir, &subpath)
                    .ok_or(Unresolved::NotFound { package: Some(package) });
            }
            at = d.parent();
        }
        if spec.starts_with("node:") || BUILTINS.contains(&package.as_str()) {
            return Err(Unresolved::Builtin);
        }
        Err(Unresolved::NotFound { package: Some(package) })
    }

    fn package_json(&self, dir: &Path) -> Option<Json> {
        let path = dir.join("package.json");
        if let Ok(cache) = self.packages.lock()
            && let Some(hit) = cache.get(&path)
        {
            return hit.clone();
        }
        let read = std::fs::metadata(&path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_CONFIG_BYTES)
            .and_then(|_| std::fs::read_to_string(&path).ok())
            .and_then(|t| parse_jsonc(&t).ok());
        if let Ok(mut cache) = self.packages.lock() {
            cache.insert(path, read.clone());
        }
        read
    }

    /// `subpath` (`.` or `./x`) of the package installed at `dir`.
    fn in_package(&self, dir: &Path, subpath: &str) -> Option<PathBuf> {
        let pkg = self.package_json(dir);
        if let Some(exports) = pkg.as_ref().and_then(|p| p.get("exports")) {
            let target = export_target(exports, subpath)?;
            return self.file_or_dir(&dir.join(target));
        }
        if subpath == "." { self.dir_entry(dir) } else { self.file_or_dir(&dir.join(subpath)) }
    }

    /// A file as named, with an extension added, or a folder's entry.
    fn file_or_dir(&self, p: &Path) -> Option<PathBuf> {
        if p.is_file() {
            return Some(p.to_path_buf());
        }
        let name = p.file_name()?.to_str()?;
        // TypeScript sources import each other by their output name: `./x.js` is `./x.ts`.
        for (js, ts) in [(".js", ["ts", "tsx"]), (".jsx", ["tsx", "tsx"]), (".mjs", ["mts", "mts"])] {
            if let Some(stem) = name.strip_suffix(js) {
                for ext in ts {
                    let q = p.with_file_name(format!("{stem}.{ext}"));
                    if q.is_file() {
                        return Some(q);
                    }
                }
            }
        }
        for ext in EXTENSIONS {
            let q = p.with_file_name(format!("{name}.{ext}"));
            if q.is_file() {
                return Some(q);
            }
        }
        if p.is_dir() { self.dir_entry(p) } else { None }
    }

    /// A folder imported as a module: its package.json's `browser` (a string), `module` or
    /// `main`, else `index.*`.
    fn dir_entry(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(pkg) = self.package_json(dir) {
            for field in ["browser", "module", "main"] {
                if let Some(main) = pkg.get(field).and_then(Json::as_str)
                    && let Some(p) = self.file_or_dir_no_dir(&dir.join(main))
                {
                    return Some(p);
                }
            }
        }
        EXTENSIONS.iter().map(|e| dir.join(format!("index.{e}"))).find(|p| p.is_file())
    }

    /// [`file_or_dir`] where a folder may only give its `index.*` (no second package.json).
    fn file_or_dir_no_dir(&self, p: &Path) -> Option<PathBuf> {
        if p.is_dir() {
            return EXTENSIONS.iter().map(|e| p.join(format!("index.{e}"))).find(|q| q.is_file());
        }
        self.file_or_dir(p)
    }
}

/// The target `exports` gives `subpath`, with the browser conditions.
fn export_target(exports: &Json, subpath: &str) -> Option<String> {
    let sugar = match exports {
        Json::Object(o) => !o.keys().any(|k| k.starts_with('.')),
        _ => true,
    };
    if sugar {
        return if subpath == "." { condition(exports) } else { None };
    }
    let Json::Object(map) = exports else { return None };
    if let Some(v) = map.get(subpath) {
        return condition(v);
    }
    // Patterns (`./features/*.js`) and folder mappings (`./lib/`): the longest prefix wins.
    let mut best: Option<(usize, &Json, String)> = None;
    for (key, value) in map.iter() {
        let matched = match key.split_once('*') {
            Some((pre, post))
                if subpath.starts_with(pre)
                    && subpath.ends_with(post)
                    && subpath.len() >= pre.len() + post.len() =>
            {
                Some((pre.len(), subpath[pre.len()..subpath.len() - post.len()].to_owned()))
            }
            None if key.ends_with('/') && subpath.starts_with(key) => Some((key.len(), String::new())),
            _ => None,
        };
        if let Some((len, star)) = matched
            && best.as_ref().is_none_or(|(l, _, _)| len > *l)
        {
            let star = if key.contains('*') { star } else { subpath[key.len()..].to_owned() };
            best = Some((len, value, star));
        }
    }
    let (_, value, star) = best?;
    let target = condition(value)?;
    Some(if target.contains('*') {
        target.replace('*', &star)
    } else if target.ends_with('/') {
        format!("{target}{star}")
    } else {
        target
    })
}

/// The first usable target of a conditions value (string, list, or object of conditions).
fn condition(v: &Json) -> Option<String> {
    match v {
        Json::String(s) if s.starts_with("./") => Some(s.clone()),
        Json::Array(items) => items.iter().find_map(condition),
        Json::Object(o) => o.iter().filter(|(k, _)| CONDITIONS.contains(k)).find_map(|(_, v)| condition(v)),
        _ => None,
    }
}

/// `compilerOptions.baseUrl` and `paths` of `<project>/tsconfig.json` (or jsconfig.json),
/// following relative `extends` a few levels.
fn ts_paths(project: &Path) -> TsPaths {
    let mut out = TsPaths::default();
    let Some(mut file) =
        ["tsconfig.json", "jsconfig.json"].iter().map(|n| project.join(n)).find(|p| p.is_file())
    else {
        return out;
    };
    for _ in 0..5 {
        let Some(json) = std::fs::metadata(&file)
            .ok()
            .filter(|m| m.len() <= MAX_CONFIG_BYTES)
            .and_then(|_| std::fs::read_to_string(&file).ok())
            .and_then(|t| parse_jsonc(&t).ok())
        else {
            break;
        };
        let dir = file.parent().unwrap_or(project).to_path_buf();
        let opts = json.get("compilerOptions");
        if out.base.is_none()
            && let Some(b) = opts.and_then(|o| o.get("baseUrl")).and_then(Json::as_str)
        {
            out.base = Some(dir.join(b));
            out.base_explicit = true;
        }
        if out.paths.is_empty()
            && let Some(Json::Object(paths)) = opts.and_then(|o| o.get("paths"))
        {
            for (k, v) in paths.iter() {
                let targets =
                    v.as_array().into_iter().flatten().filter_map(Json::as_str).map(str::to_owned).collect();
                out.paths.push((k.to_owned(), targets));
            }
            if out.base.is_none() {
                out.base = Some(dir.clone());
            }
        }
        match json.get("extends").and_then(Json::as_str) {
            Some(e) if e.starts_with('.') => {
                let next = dir.join(e);
                file = if next.extension().is_some() { next } else { next.with_extension("json") };
            }
            _ => break,
        }
    }
    out
}

/// `react` for `react/jsx-runtime`, `@scope/pkg` for `@scope/pkg/x`; `None` for paths.
pub fn bare_package(specifier: &str) -> Option<String> {
    if specifier.starts_with('.')
        || specifier.starts_with('/')
        || specifier.starts_with('#')
        || specifier.is_empty()
    {
        return None;
    }
    let mut parts = specifier.split('/');
    let first = parts.next()?;
    if first.starts_with('@') { Some(format!("{first}/{}", parts.next()?)) } else { Some(first.to_owned()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preact_stands_for_react_only_when_react_is_not_declared() {
        let pkg = |s: &str| parse_jsonc(s).unwrap();
        let only = pkg(r#"{"dependencies":{"preact":"^10"}}"#);
        assert_eq!(preact_aliases(Some(&only)).len(), PREACT_ALIASES.len());
        let both = pkg(r#"{"dependencies":{"preact":"^10"},"devDependencies":{"react":"^19"}}"#);
        assert!(preact_aliases(Some(&both)).is_empty());
        assert!(preact_aliases(None).is_empty());
    }

    #[test]
    fn package_names() {
        assert_eq!(bare_package("react/jsx-runtime").as_deref(), Some("react"));
        assert_eq!(bare_package("@preact/signals/x").as_deref(), Some("@preact/signals"));
        assert_eq!(bare_package("./a"), None);
        assert_eq!(bare_package("#internal"), None);
    }

    #[test]
    fn exports_with_conditions_and_patterns() {
        let exports = parse_jsonc(
            r#"{".": {"types": "./x.d.ts", "require": "./x.cjs", "import": "./x.mjs"},
                "./jsx-runtime": {"browser": {"import": "./jsx.browser.mjs"}, "default": "./jsx.js"},
                "./features/*": "./dist/features/*.js",
                "./package.json": "./package.json",
                "./internal/*": null}"#,
        )
        .unwrap();
        assert_eq!(export_target(&exports, ".").as_deref(), Some("./x.mjs"));
        assert_eq!(export_target(&exports, "./jsx-runtime").as_deref(), Some("./jsx.browser.mjs"));
        assert_eq!(export_target(&exports, "./features/a/b").as_deref(), Some("./dist/features/a/b.js"));
        assert_eq!(export_target(&exports, "./internal/x"), None);
        assert_eq!(export_target(&exports, "./nope"), None);
        let sugar = parse_jsonc(r#"{"import": "./m.js", "require": "./c.js"}"#).unwrap();
        assert_eq!(export_target(&sugar, ".").as_deref(), Some("./m.js"));
    }
}
