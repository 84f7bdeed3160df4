//! Sass (`.scss`, `.sass`) to CSS in-process, with `grass` (pure Rust, near dart-sass
//! parity): no Node.js, no `sass` package run.
//!
//! ```text
//! x.scss ──grass (load paths: its folder, <project>/node_modules, <workspace>/node_modules)──▶ CSS
//!           every file grass opens goes through `Guarded`: inside the project (or, reached
//!           through node_modules, the workspace's package store), ≤ 2 MiB each, ≤ 1000 files
//!           and 32 MiB in all — else it is "not found" to grass and the compile fails
//! ```
//!
//! A file grass rejects comes back as the error text, which the build turns into the reason
//! to delegate to the project's toolchain. The compile runs on the parser's guarded thread
//! (a large stack, panics caught), so a hostile stylesheet cannot take the server down.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::build::boundary::Boundary;
use crate::build::js;

/// Largest stylesheet grass may read, like every module the bundler reads.
const MAX_FILE_BYTES: u64 = js::MAX_PARSE_BYTES as u64;
/// Files and bytes one compile may read in all.
const MAX_FILES: usize = 1000;
const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;

/// A compiled stylesheet and every file it read (the entry first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub css: String,
    pub inputs: Vec<PathBuf>,
}

/// Whether `path` is a Sass file, and in which syntax (`.sass` is the indented one).
pub fn is_sass(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(),
        Some("scss" | "sass")
    )
}

/// Compiles the Sass file `path` of `project`. `Err` is grass's own message (with the file,
/// line and column it names), or why a file was refused.
pub fn compile(path: &Path, project: &Path, boundary: &Boundary) -> Result<Compiled, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut load_paths = vec![project.join("node_modules")];
    let store = boundary.workspace().join("node_modules");
    if !load_paths.contains(&store) {
        load_paths.push(store);
    }
    // Built on the guarded thread: grass's options hold the file system as a `&dyn Fs`.
    let (css, reads) = js::guarded(&text, || {
        let fs = Guarded { boundary, project, read: Mutex::new(Reads::default()) };
        let options = grass::Options::default()
            .fs(&fs)
            .style(grass::OutputStyle::Expanded)
            .load_paths(&load_paths)
            .quiet(true);
        let css = grass::from_path(path, &options).map_err(|e| js::SyntaxError {
            message: e.to_string(),
            line: 1,
            column: 1,
        });
        drop(options);
        let reads = fs.read.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok((css, reads))
    })
    .map_err(|e| e.message)?;
    if let Some(why) = reads.refused {
        return Err(why);
    }
    let css = css.map_err(|e| e.message)?;
    Ok(Compiled { css, inputs: reads.files })
}

#[derive(Debug, Default)]
struct Reads {
    files: Vec<PathBuf>,
    bytes: u64,
    /// The first file refused, and why: a compile that met one fails with it, even when the
    /// stylesheet went on without it.
    refused: Option<String>,
}

/// grass's view of the disk: only what a build may read.
#[derive(Debug)]
struct Guarded<'a> {
    boundary: &'a Boundary,
    project: &'a Path,
    read: Mutex<Reads>,
}

impl Guarded<'_> {
    /// Whether the file at `path` may be read: its real path inside the project, or in the
    /// workspace's package store when it is reached as a package.
    fn allowed(&self, path: &Path) -> bool {
        let Ok(real) = std::fs::canonicalize(path) else { return false };
        let via_package = path.components().any(|c| c.as_os_str() == "node_modules");
        self.boundary.allows_module(&real, via_package)
    }

    fn refuse(&self, why: String) -> std::io::Error {
        if let Ok(mut r) = self.read.lock()
            && r.refused.is_none()
        {
            r.refused = Some(why.clone());
        }
        std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
    }

    fn outside(&self, path: &Path) -> String {
        format!(
            "`{}` leads outside the project (and the workspace's node_modules), and a build never reads files from outside it",
            self.shown(path)
        )
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.project).unwrap_or(path).to_string_lossy().replace('\\', "/")
    }
}

impl grass::Fs for Guarded<'_> {
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn is_file(&self, path: &Path) -> bool {
        if !path.is_file() {
            return false;
        }
        if self.allowed(path) {
            return true;
        }
        // grass then says "can't find"; the compile fails with why instead.
        self.refuse(self.outside(path));
        false
    }

    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let shown = self.shown(path);
        if !self.allowed(path) {
            return Err(self.refuse(self.outside(path)));
        }
        let size = std::fs::metadata(path)?.len();
        {
            let mut r = self.read.lock().map_err(|_| std::io::Error::other("poisoned"))?;
            r.bytes += size;
            if size > MAX_FILE_BYTES || r.bytes > MAX_TOTAL_BYTES || r.files.len() >= MAX_FILES {
                drop(r);
                return Err(self.refuse(format!(
                    "`{shown}` would take the stylesheet past what a build reads (2 MiB a file, {MAX_FILES} files and 32 MiB in all)"
                )));
            }
            r.files.push(path.to_path_buf());
        }
        std::fs::read(path)
    }

    fn canonicalize(&self, path: &Path) -> std::io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::build::test_project as project;

    fn run(d: &tempfile::TempDir, entry: &str) -> Result<Compiled, String> {
        compile(&d.path().join(entry), d.path(), &Boundary::new(d.path()))
    }

    #[test]
    fn scss_sass_partials_and_packages_compile() {
        let d = project(&[
            (
                "a.scss",
                "@use 'sub/colors';\n@use 'theme-kit/tokens' as t;\n.card { color: colors.$ink; border-color: t.$line; .x { margin: 1px + 2px; } }\n",
            ),
            ("sub/_colors.scss", "$ink: #0a141e;\n"),
            ("node_modules/theme-kit/_tokens.scss", "$line: rgb(40, 50, 60);\n"),
            ("b.sass", "$c: red\n.b\n  color: $c\n"),
        ]);
        let out = run(&d, "a.scss").unwrap();
        assert!(out.css.contains(".card .x {") && out.css.contains("margin: 3px"), "{}", out.css);
        assert!(out.css.contains("#0a141e") && out.css.contains("rgb(40, 50, 60)"), "{}", out.css);
        assert_eq!(out.inputs.len(), 3, "{:?}", out.inputs);
        assert!(run(&d, "b.sass").unwrap().css.contains("color: red"));
    }

    #[test]
    fn what_grass_rejects_is_its_own_message() {
        let d = project(&[("bad.scss", ".a { color: $missing; }\n")]);
        let e = run(&d, "bad.scss").unwrap_err();
        assert!(e.contains("Undefined variable"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_partial_linked_out_of_the_project_is_refused() {
        let outside = project(&[("_secret.scss", "$s: 1;\n")]);
        let d = project(&[("a.scss", "@use 'secret';\n.a { b: secret.$s; }\n")]);
        std::os::unix::fs::symlink(outside.path().join("_secret.scss"), d.path().join("_secret.scss"))
            .unwrap();
        let e = run(&d, "a.scss").unwrap_err();
        assert!(e.contains("secret"), "{e}");
    }
}
