//! Whether the native build can do a project, or the project's own toolchain must: files
//! that need compiling, bundler configs and framework dependencies. Each reason is a
//! finding, so `extension_build` can say why it delegated (or why it cannot build).

use std::path::Path;

use crate::manifest::{Finding, FindingCode, Json, Severity, Target};

use super::config_file::{self, Decision};

/// Files that need compiling before a browser can load them.
pub fn needs_compile(path: &str) -> Option<&'static str> {
    let lower = path.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "ts" | "mts" | "cts" => "TypeScript",
        "tsx" | "jsx" => "JSX",
        "vue" => "a Vue component",
        "svelte" => "a Svelte component",
        "scss" | "sass" => "Sass",
        "less" => "Less",
        "styl" => "Stylus",
        _ => return None,
    })
}

/// Config files that mean "this project has its own bundler". `extension.config.*` is not
/// one: it is read ([`config_file`]) and only the keys that customize the bundler count.
pub const BUNDLER_CONFIGS: [&str; 8] = [
    "wxt.config.ts",
    "wxt.config.js",
    "vite.config.js",
    "vite.config.ts",
    "vite.config.mjs",
    "webpack.config.js",
    "rspack.config.js",
    "rollup.config.js",
];

/// Dependencies that mean "the sources are not what the browser loads". `extension` itself
/// is not one: Extension.js projects whose scripts are classic build natively, identically.
/// React and Preact are not: the native bundler compiles their JSX; nor is `sass`: grass
/// compiles Sass natively (`bundle/sass.rs`), and a file it rejects delegates by itself.
pub const FRAMEWORK_DEPENDENCIES: [&str; 8] =
    ["vue", "svelte", "solid-js", "@angular/core", "wxt", "plasmo", "tailwindcss", "less"];

/// Project-level reasons a native build is not allowed: a bundler config, an
/// `extension.config.*` key that customizes the bundler, or a framework dependency in
/// `package.json`. Run-time config values that cannot be read are warnings of each target
/// ([`run_value_warnings`]).
pub fn project_findings(project: &Path, package_json: Option<&Json>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(cfg) = config_file::read(project) {
        out.extend(config_findings(&cfg));
    }
    for name in BUNDLER_CONFIGS {
        if project.join(name).is_file() {
            out.push(
                Finding::new(
                    FindingCode::ManifestBundlerConfig,
                    format!("{name} configures a bundler, so the project's own toolchain must build it"),
                    format!("build with the bundler {name} configures (npm install when package.json declares it, else add it, e.g. `npm i -D {}`), or remove the config for a plain build", name.split('.').next().unwrap_or(name)),
                )
                .in_file(name),
            );
        }
    }
    if let Some(pkg) = package_json {
        for section in ["dependencies", "devDependencies"] {
            if let Some(deps) = pkg.get(section).and_then(Json::as_object) {
                for dep in deps.keys() {
                    if FRAMEWORK_DEPENDENCIES.contains(&dep) {
                        out.push(
                            Finding::new(
                                FindingCode::ManifestFrameworkDependency,
                                format!("package.json depends on `{dep}`, which needs a bundler"),
                                "build with a bundler: Extension.js (npm i -D extension; Node.js ≥ 22.12) or a `build` script in package.json, then build again",
                            )
                            .in_file("package.json")
                            .at(format!("{section}.{dep}")),
                        );
                    }
                }
            }
        }
    }
    out
}

/// What `extension.config.*` means for the build: one `MANIFEST_BUNDLER_CONFIG` naming the
/// key that decided delegation, if any (run-time values: [`run_value_warnings`]).
pub fn config_findings(cfg: &config_file::ExtensionConfig) -> Vec<Finding> {
    let file = &cfg.file;
    match &cfg.decision {
        Decision::Delegate { key, why, line } => vec![
            Finding::new(
                FindingCode::ManifestBundlerConfig,
                format!("{file} needs Extension.js to build: {why}"),
                format!(
                    "build with Extension.js (npm i -D extension; Node.js ≥ 22.12), or keep only run-time keys (browser, commands.dev) in {file} for a native build"
                ),
            )
            .in_file(file.clone())
            .at(key.clone())
            .at_position(*line, 1),
        ],
        Decision::Native => Vec::new(),
    }
}

/// The run-time values of `extension.config.*` a build of `target` cannot read, one warning
/// per expression: keys of other browsers are left out (a Firefox build does not warn about
/// `browser.chrome.*`), and keys sharing one expression (`browserFlags: ciFlags` under
/// chrome and chromium-based) are named in one warning.
pub fn run_value_warnings(cfg: &config_file::ExtensionConfig, target: Target) -> Vec<Finding> {
    if cfg.decision != Decision::Native {
        return Vec::new();
    }
    let applies = |key: &str| match key.strip_prefix("browser.") {
        Some(rest) => {
            let name = rest.split('.').next().unwrap_or(rest);
            name == target.name || name == target.engine.any_name()
        }
        None => true,
    };
    let mut groups: Vec<(&str, Vec<&config_file::Unresolved>)> = Vec::new();
    for u in cfg.unresolved.iter().filter(|u| applies(&u.key)) {
        match groups.iter_mut().find(|(source, _)| *source == u.source) {
            Some((_, keys)) => keys.push(u),
            None => groups.push((u.source.as_str(), vec![u])),
        }
    }
    let file = &cfg.file;
    groups
        .into_iter()
        .filter_map(|(source, keys)| {
            let first = keys.first()?;
            let names = keys.iter().map(|u| format!("`{}`", u.key)).collect::<Vec<_>>().join(", ");
            let verb = if keys.len() == 1 { "is" } else { "are" };
            let mut f = Finding::new(
                FindingCode::ManifestConfigValue,
                format!(
                    "{file}: {names} {verb} `{source}`, which only running the config could tell; dev sessions use the default"
                ),
                format!("write `{}` as a literal (a string, or a template of literals) in {file}", first.key),
            )
            .in_file(file.clone())
            .at(first.key.clone())
            .at_position(first.line, 1);
            f.severity = Severity::Warning;
            Some(f)
        })
        .collect()
}

/// `CODE_A ×3, CODE_B`: each code once, in first-seen order, with how often it occurs.
pub fn code_list(findings: &[Finding]) -> String {
    let mut counts: Vec<(FindingCode, usize)> = Vec::new();
    for f in findings {
        match counts.iter_mut().find(|(c, _)| *c == f.code) {
            Some((_, n)) => *n += 1,
            None => counts.push((f.code, 1)),
        }
    }
    counts
        .iter()
        .map(|(c, n)| if *n > 1 { format!("{c} ×{n}") } else { c.to_string() })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_needing_extensions() {
        assert_eq!(needs_compile("a.ts"), Some("TypeScript"));
        assert_eq!(needs_compile("A.TSX"), Some("JSX"));
        assert_eq!(needs_compile("s.scss"), Some("Sass"));
        assert!(!FRAMEWORK_DEPENDENCIES.contains(&"sass"));
        assert_eq!(needs_compile("a.js"), None);
        assert_eq!(needs_compile("d.d"), None);
    }
}
