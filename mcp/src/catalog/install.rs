//! Installing a new project's dependencies, when asked: never with lifecycle scripts.
//!
//! ```text
//! install asked? no ─▶ the next step names the command (`npm install --ignore-scripts`)
//!   yes ─▶ the user allowed the template's files to steer a package manager? (embedded
//!          templates are ours; others go through build::consent)
//!            no  ─▶ not installed; the refusal and how to allow it are a warning
//!            yes ─▶ `<pm> install --ignore-scripts` ─▶ name every package whose
//!                   preinstall/install/postinstall (or binding.gyp) was skipped
//! ```
//!
//! A package manager run with lifecycle scripts would run whatever a template or any of its
//! dependencies put in `preinstall`/`postinstall`, as the user (as root on a root machine).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;
use serde_json::Value;

use crate::build::consent::{self, Consent};

/// The lifecycle scripts a package manager runs on install.
pub const INSTALL_SCRIPTS: [&str; 4] = ["preinstall", "install", "postinstall", "prepare"];

/// Most `package.json` files looked at in `node_modules`.
const MAX_PACKAGES: usize = 20_000;

/// A package whose install scripts were not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// `name@version`, or `name (this project)` for the project itself.
    pub package: String,
    /// Script name → its text (`node-gyp rebuild` for a `binding.gyp` without `install`).
    pub scripts: BTreeMap<String, String>,
}

/// What installing did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Installed { skipped: Vec<Skipped> },
    Failed { command: String },
    NotAllowed { message: String, hint: String },
}

/// The install command for `manager`, lifecycle scripts off.
pub fn command_line(manager: &str) -> String {
    format!("{manager} install --ignore-scripts")
}

/// Installs `project`'s dependencies with `manager` (scripts off), once the user allowed it
/// (`trusted`: the files are our own embedded template's).
pub fn install(project: &Path, manager: &str, trusted: bool, consent: &Consent) -> Outcome {
    if !trusted {
        let runs = format!(
            "`{}` in the new project: the package manager reads the template's .npmrc, .yarnrc.yml (and runs its yarnPath) and .pnpmfile.cjs",
            command_line(manager)
        );
        if let Err(r) = consent::check(consent, consent::exposure(project, runs, vec![manager.into()])) {
            let hint = format!(
                "run `{}` in {} yourself after reading those files, or allow it: {}",
                command_line(manager),
                project.display(),
                r.hint()
            );
            return Outcome::NotAllowed { message: r.message(), hint };
        }
    }
    let mut cmd = Command::new(manager);
    cmd.args(["install", "--ignore-scripts"])
        // Belt and braces: a project `.npmrc` cannot turn scripts back on over the
        // environment, and Yarn 2+ reads its own variable.
        .env("npm_config_ignore_scripts", "true")
        .env("YARN_ENABLE_SCRIPTS", "0")
        .current_dir(project)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if !cmd.status().is_ok_and(|s| s.success()) {
        return Outcome::Failed { command: command_line(manager) };
    }
    Outcome::Installed { skipped: skipped_scripts(project) }
}

/// The project's own install scripts and every installed package's, by reading
/// `node_modules/**/package.json` (npm, Yarn and Bun layouts, pnpm's `.pnpm/*/node_modules`).
pub fn skipped_scripts(project: &Path) -> Vec<Skipped> {
    let mut out = Vec::new();
    if let Some((name, _, scripts)) = scripts_of(&project.join("package.json"), project) {
        out.push(Skipped { package: format!("{name} (this project)"), scripts });
    }
    let mut seen = 0usize;
    let mut stack = vec![project.join("node_modules")];
    let mut found = BTreeMap::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            seen += 1;
            if seen > MAX_PACKAGES {
                break;
            }
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if name == ".bin" {
                continue;
            }
            if name.starts_with('@') || name == ".pnpm" {
                if is_dir {
                    stack.push(path);
                }
                continue;
            }
            if dir.file_name().is_some_and(|n| n == ".pnpm") {
                if is_dir {
                    stack.push(path.join("node_modules"));
                }
                continue;
            }
            if let Some((name, version, scripts)) = scripts_of(&path.join("package.json"), &path) {
                let package = format!("{name}@{version}");
                found.entry(package.clone()).or_insert(Skipped { package, scripts });
            }
            // Nested copies (a real folder, never through a link: no loops).
            if is_dir {
                stack.push(path.join("node_modules"));
            }
        }
    }
    out.extend(found.into_values());
    out
}

/// The name, version and install scripts `package.json` declares (and the implicit
/// `node-gyp rebuild`).
fn scripts_of(package_json: &Path, dir: &Path) -> Option<(String, String, BTreeMap<String, String>)> {
    let bytes = crate::manifest::read_capped(package_json, 1024 * 1024).ok().flatten()?;
    let pkg: Value = serde_json::from_slice(&bytes).ok()?;
    let mut scripts = BTreeMap::new();
    if let Some(s) = pkg.get("scripts").and_then(Value::as_object) {
        for name in INSTALL_SCRIPTS {
            if let Some(text) = s.get(name).and_then(Value::as_str) {
                scripts.insert(name.to_owned(), text.to_owned());
            }
        }
    }
    if !scripts.contains_key("install") && dir.join("binding.gyp").is_file() {
        scripts.insert("install".to_owned(), "node-gyp rebuild (binding.gyp)".to_owned());
    }
    if scripts.is_empty() {
        return None;
    }
    let name = pkg.get("name").and_then(Value::as_str).unwrap_or("?").to_owned();
    let version = pkg.get("version").and_then(Value::as_str).unwrap_or("?").to_owned();
    Some((name, version, scripts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_scripts_are_read_from_every_layout() {
        let d = tempfile::tempdir().unwrap();
        let write = |rel: &str, body: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        };
        write(
            "package.json",
            r#"{"name":"me","version":"1.0.0","scripts":{"postinstall":"evil","build":"x"}}"#,
        );
        write("node_modules/a/package.json", r#"{"name":"a","version":"1","scripts":{"preinstall":"p"}}"#);
        write("node_modules/@s/b/package.json", r#"{"name":"@s/b","version":"2"}"#);
        write("node_modules/@s/b/binding.gyp", "{}");
        write("node_modules/c/package.json", r#"{"name":"c","version":"3","scripts":{"test":"t"}}"#);
        write(
            "node_modules/.pnpm/d@4/node_modules/d/package.json",
            r#"{"name":"d","version":"4","scripts":{"install":"i"}}"#,
        );
        let names: Vec<String> = skipped_scripts(d.path()).into_iter().map(|s| s.package).collect();
        assert_eq!(names, ["me (this project)", "@s/b@2", "a@1", "d@4"]);
    }
}
