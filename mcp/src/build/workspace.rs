//! Monorepos (npm/Yarn/Bun `workspaces`, `pnpm-workspace.yaml`): built from the root, the
//! extension lives in one of the workspace's packages. The root's build script (turbo, nx, a
//! plain `npm run build -w …`) builds it, and its output is in that package, not at the root.

use std::path::{Path, PathBuf};

use crate::manifest::{self, Finding, FindingCode, Json};

/// The package folders of the workspace rooted at `root` (globs `dir/*` and exact paths;
/// `!` exclusions and deeper globs are skipped), sorted.
pub fn packages(root: &Path, pkg: Option<&Json>) -> Vec<PathBuf> {
    let mut patterns: Vec<String> = Vec::new();
    if let Some(ws) = pkg.and_then(|p| p.get("workspaces")) {
        let list = ws.as_array().or_else(|| ws.get("packages").and_then(Json::as_array)).unwrap_or(&[]);
        patterns.extend(list.iter().filter_map(Json::as_str).map(str::to_owned));
    }
    if let Ok(text) = std::fs::read_to_string(root.join("pnpm-workspace.yaml")) {
        patterns.extend(pnpm_patterns(&text));
    }
    let mut out = Vec::new();
    for pat in patterns {
        let pat = pat.trim_end_matches('/');
        if pat.starts_with('!') || pat.contains("..") || pat.starts_with('/') {
            continue;
        }
        match pat.strip_suffix("/*").or_else(|| pat.strip_suffix("/**")) {
            Some(dir) if !dir.contains('*') => {
                if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
                    out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
                }
            }
            None if !pat.contains('*') && root.join(pat).is_dir() => out.push(root.join(pat)),
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The workspace root whose packages include `project` (its nearest folder above with
/// `workspaces` in package.json or a `pnpm-workspace.yaml` naming it), if any.
pub fn root_above(project: &Path) -> Option<PathBuf> {
    let project = std::fs::canonicalize(project).ok()?;
    project.ancestors().skip(1).take(12).find_map(|dir| {
        let pkg = std::fs::read_to_string(dir.join("package.json"))
            .ok()
            .and_then(|t| manifest::parse_jsonc(&t).ok());
        let declares = pkg.as_ref().is_some_and(|p| p.get("workspaces").is_some())
            || dir.join("pnpm-workspace.yaml").is_file();
        if !declares {
            return None;
        }
        let inside =
            packages(dir, pkg.as_ref()).iter().any(|p| std::fs::canonicalize(p).is_ok_and(|p| p == project));
        inside.then(|| dir.to_path_buf())
    })
}

/// `packages:` entries of `pnpm-workspace.yaml` (the list form, quoted or not).
fn pnpm_patterns(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if !line.starts_with([' ', '\t', '-']) && !t.is_empty() {
            inside = t.starts_with("packages:");
            if let Some(inline) = t.strip_prefix("packages:").map(str::trim).filter(|s| s.starts_with('[')) {
                out.extend(
                    inline
                        .trim_matches(['[', ']'])
                        .split(',')
                        .map(|s| s.trim().trim_matches(['\'', '"']).to_owned())
                        .filter(|s| !s.is_empty()),
                );
                inside = false;
            }
            continue;
        }
        if inside && let Some(item) = t.strip_prefix('-') {
            let item = item.trim().trim_matches(['\'', '"']);
            if !item.is_empty() {
                out.push(item.to_owned());
            }
        }
    }
    out
}

/// The workspace packages that hold a `manifest.json` (or `src/manifest.json`); those the
/// root's `build` script names come first (by folder, `packages/extension`, or by package
/// name, as in `pnpm --filter @acme/extension build`, `turbo run build --filter=extension`,
/// `npm run build -w packages/extension`, `nx build extension`), so that when several
/// packages are extensions, the output looked for is the one the script builds.
pub fn extension_packages(root: &Path, pkg: Option<&Json>) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        packages(root, pkg).into_iter().filter(|p| manifest::find_manifest(p).is_some()).collect();
    let script = pkg.and_then(|p| p.get("scripts")).and_then(|s| s.get("build")).and_then(Json::as_str);
    if let Some(script) = script {
        // A stable sort: named packages first, each group in folder order.
        found.sort_by_key(|p| !names_package(script, root, p));
    }
    found
}

/// Whether a script's words name the package at `dir` (its folder relative to `root`, or
/// the `name` of its package.json, bare or after `=`).
fn names_package(script: &str, root: &Path, dir: &Path) -> bool {
    let rel = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy().replace('\\', "/");
    let name = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| manifest::parse_jsonc(&t).ok())
        .and_then(|p| p.get("name").and_then(Json::as_str).map(str::to_owned));
    script.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|').any(|word| {
        let value = word.rsplit('=').next().unwrap_or(word).trim_matches(['\'', '"']);
        let value = value.trim_start_matches("./").trim_end_matches('/');
        !value.is_empty() && (value == rel || name.as_deref() == Some(value))
    })
}

/// Why a root without a manifest is delegated: the extension is a workspace package.
pub fn finding(root: &Path, package: &Path) -> Finding {
    let rel = package.strip_prefix(root).unwrap_or(package).to_string_lossy().replace('\\', "/");
    Finding::new(
        FindingCode::ManifestBundlerConfig,
        format!("this is a monorepo: the extension is the workspace package {rel}, which the root's build script builds"),
        format!("give the root package.json a `build` script that builds {rel} (or build {rel} itself)"),
    )
    .in_file("package.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_and_pnpm_workspace_patterns() {
        let d = tempfile::tempdir().unwrap();
        for p in ["packages/ext", "packages/ui", "apps/web", "tools/cli"] {
            std::fs::create_dir_all(d.path().join(p)).unwrap();
        }
        std::fs::write(d.path().join("packages/ext/manifest.json"), "{}").unwrap();
        let pkg =
            manifest::parse_jsonc(r#"{"workspaces": ["packages/*", "!packages/ui", "../out"]}"#).unwrap();
        let names: Vec<_> = packages(d.path(), Some(&pkg))
            .iter()
            .map(|p| p.strip_prefix(d.path()).unwrap().to_owned())
            .collect();
        assert_eq!(names, [Path::new("packages/ext"), Path::new("packages/ui")]);
        assert_eq!(extension_packages(d.path(), Some(&pkg)), [d.path().join("packages/ext")]);
        std::fs::write(
            d.path().join("pnpm-workspace.yaml"),
            "packages:\n  - 'apps/*'\n  - \"tools/cli\"\ncatalog:\n  - nope/*\n",
        )
        .unwrap();
        assert_eq!(packages(d.path(), None), [d.path().join("apps/web"), d.path().join("tools/cli")]);
        assert_eq!(pnpm_patterns("packages: ['a/*', \"b\"]\n"), ["a/*", "b"]);
    }

    #[test]
    fn the_package_the_build_script_names_comes_first() {
        let d = tempfile::tempdir().unwrap();
        for (dir, name) in [("packages/aaa-demo", "demo"), ("packages/ext", "@acme/ext")] {
            std::fs::create_dir_all(d.path().join(dir)).unwrap();
            std::fs::write(d.path().join(dir).join("manifest.json"), "{}").unwrap();
            std::fs::write(d.path().join(dir).join("package.json"), format!(r#"{{"name":"{name}"}}"#))
                .unwrap();
        }
        let ordered = |script: &str| {
            let pkg = manifest::parse_jsonc(&format!(
                r#"{{"workspaces":["packages/*"],"scripts":{{"build":"{script}"}}}}"#
            ))
            .unwrap();
            extension_packages(d.path(), Some(&pkg))
                .iter()
                .map(|p| p.strip_prefix(d.path()).unwrap().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(ordered("turbo run build"), ["packages/aaa-demo", "packages/ext"]);
        assert_eq!(ordered("pnpm --filter @acme/ext build"), ["packages/ext", "packages/aaa-demo"]);
        assert_eq!(ordered("turbo run build --filter=@acme/ext"), ["packages/ext", "packages/aaa-demo"]);
        assert_eq!(ordered("npm run build -w ./packages/ext/"), ["packages/ext", "packages/aaa-demo"]);
    }
}
