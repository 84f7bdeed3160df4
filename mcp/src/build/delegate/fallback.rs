//! When a project's `build` script is not the way to build it, and the pinned Extension.js
//! (through npx) is:
//!
//! - the script runs `webext-mcp` itself (a generated project's `webext-mcp build …`):
//!   delegating to it would build this project again, inside itself;
//! - the script's program is not installed (`extension build` with no
//!   `node_modules/.bin/extension`, `nx build …` with no nx) in an Extension.js project: it
//!   would exit 127, where the README promises the npx route.
//!
//! Extension.js then runs where the script would have built: the folder an `extension build
//! <dir>` names, else the project when it holds the manifest, else the workspace package that
//! does. Nothing here runs anything; the caller asks for consent first.

use std::path::{Path, PathBuf};

use crate::manifest::{self, Json};

use super::{runs_word, words};

/// Shell words that are not programs to look for.
const SHELL: [&str; 12] =
    ["sh", "bash", "env", "cd", "exec", "npx", "npm", "pnpm", "yarn", "bun", "bunx", "node"];

/// `Some((dir, why))` when the pinned Extension.js should build in `dir` instead of the
/// `build` script `command`.
pub fn instead_of_script(project: &Path, pkg: Option<&Json>, command: &str) -> Option<(PathBuf, String)> {
    let w = words(command);
    let calls_us = w.iter().any(|x| {
        let base = x.rsplit('/').next().unwrap_or(x).trim_matches(['"', '\'']);
        base == "webext-mcp" || base.starts_with("webext-mcp@")
    });
    if calls_us {
        return Some((
            build_dir(project, pkg, &w),
            format!(
                "the package.json build script `{command}` runs webext-mcp itself, so delegating to it would build this project again inside itself"
            ),
        ));
    }
    let program = w.iter().find(|x| !x.is_empty() && !x.contains('='))?;
    let program = program.trim_matches(['"', '\'']);
    if SHELL.contains(&program) || program.contains('/') || installed(project, program) {
        return None;
    }
    let extension_js = runs_word(&w, "extension") || super::is_extension_js_project(project, pkg) || {
        let dir = build_dir(project, pkg, &w);
        dir.as_path() != project && super::is_extension_js_project(&dir, read_package_json(&dir).as_ref())
    };
    extension_js.then(|| {
        (
            build_dir(project, pkg, &w),
            format!(
                "the package.json build script `{command}` runs `{program}`, which is not installed (no node_modules/.bin/{program}), so it would fail with exit 127"
            ),
        )
    })
}

/// Whether `program` is in `node_modules/.bin` of the project or a folder above it (a
/// workspace root's), or on PATH.
fn installed(project: &Path, program: &str) -> bool {
    let local = project.ancestors().take(8).any(|d| d.join("node_modules/.bin").join(program).exists());
    local
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Where Extension.js builds: the folder `extension build <dir>` names (inside the project),
/// else the project when it has a manifest, else the workspace package that holds one.
fn build_dir(project: &Path, pkg: Option<&Json>, w: &[&str]) -> PathBuf {
    let named = w
        .iter()
        .skip_while(|x| **x != "build")
        .skip(1)
        .find(|x| !x.is_empty() && !x.starts_with('-'))
        .map(|x| x.trim_matches(['"', '\'']))
        .filter(|x| !x.contains("..") && !x.starts_with('/'))
        .map(|x| project.join(x))
        .filter(|d| d.is_dir());
    if let Some(dir) = named {
        return dir;
    }
    if manifest::find_manifest(project).is_some() {
        return project.to_path_buf();
    }
    super::super::workspace::extension_packages(project, pkg)
        .into_iter()
        .next()
        .unwrap_or_else(|| project.to_path_buf())
}

fn read_package_json(dir: &Path) -> Option<Json> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    manifest::parse_jsonc(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::build::test_project as project;

    #[test]
    fn a_script_running_webext_mcp_is_never_delegated_to() {
        let d = project(&[("manifest.json", "{}")]);
        let (dir, why) = instead_of_script(d.path(), None, "webext-mcp build . --browser chrome").unwrap();
        assert_eq!(dir, d.path());
        assert!(why.contains("runs webext-mcp itself"), "{why}");
        assert!(instead_of_script(d.path(), None, "npx webext-mcp@latest build").is_some());
    }

    #[test]
    fn an_uninstalled_extension_cli_falls_back_where_it_would_build() {
        let d = project(&[
            ("package.json", r#"{"workspaces":["packages/*"]}"#),
            ("packages/ext/src/manifest.json", "{}"),
            ("packages/ext/package.json", r#"{"scripts":{"build":"extension build"}}"#),
        ]);
        let (dir, why) = instead_of_script(d.path(), None, "extension build packages/ext").unwrap();
        assert_eq!(dir, d.path().join("packages/ext"));
        assert!(why.contains("exit 127"), "{why}");
        // nx is not installed either; the package it builds runs Extension.js.
        let pkg = manifest::parse_jsonc(r#"{"workspaces":["packages/*"]}"#).unwrap();
        let (dir, _) = instead_of_script(d.path(), Some(&pkg), "nx build ext").unwrap();
        assert_eq!(dir, d.path().join("packages/ext"));
        // Installed: the script runs as written.
        std::fs::create_dir_all(d.path().join("node_modules/.bin")).unwrap();
        std::fs::write(d.path().join("node_modules/.bin/extension"), "").unwrap();
        assert!(instead_of_script(d.path(), None, "extension build packages/ext").is_none());
    }

    #[test]
    fn scripts_of_their_own_run_as_written() {
        let d = project(&[("manifest.json", "{}")]);
        assert!(instead_of_script(d.path(), None, "sh ./build.sh").is_none());
        assert!(instead_of_script(d.path(), None, "make-it-so --now").is_none());
        assert!(instead_of_script(d.path(), None, "NODE_ENV=production npm run bundle").is_none());
    }
}
