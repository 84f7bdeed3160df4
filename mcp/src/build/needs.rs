//! Whether the native build can do a project, or the project's own toolchain must: files
//! that need compiling, bundler configs and framework dependencies. Each reason is a
//! finding, so `extension_build` can say why it delegated (or why it cannot build).

use std::path::Path;

use crate::manifest::{Finding, FindingCode, Json, Severity};

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
pub const FRAMEWORK_DEPENDENCIES: [&str; 12] = [
    "react",
    "react-dom",
    "preact",
    "vue",
    "svelte",
    "solid-js",
    "@angular/core",
    "wxt",
    "plasmo",
    "tailwindcss",
    "sass",
    "less",
];

/// Project-level reasons a native build is not allowed: a bundler config, an
/// `extension.config.*` key that customizes the bundler, or a framework dependency in
/// `package.json`. Also warnings (not reasons): run-time config values that cannot be read.
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
/// key that decided delegation, or a `MANIFEST_CONFIG_VALUE` warning per run-time value that
/// only running the config could tell.
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
        Decision::Native => cfg
            .unresolved
            .iter()
            .map(|u| {
                let mut f = Finding::new(
                    FindingCode::ManifestConfigValue,
                    format!(
                        "{file}: `{}` is `{}`, which only running the config could tell; dev sessions use the default",
                        u.key, u.source
                    ),
                    format!("write `{}` as a literal (a string, or a template of literals) in {file}", u.key),
                )
                .in_file(file.clone())
                .at(u.key.clone())
                .at_position(u.line, 1);
                f.severity = Severity::Warning;
                f
            })
            .collect(),
    }
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
        assert_eq!(needs_compile("a.js"), None);
        assert_eq!(needs_compile("d.d"), None);
    }
}
