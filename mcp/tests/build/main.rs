//! `extension_build` end to end: the real `webext-mcp` binary on fixture projects copied into
//! temporary folders. One module per behaviour; helpers here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mcp_client.rs"]
#[allow(dead_code)]
mod mcp_client;

mod atomic;
mod bad_input;
mod build_scripts;
mod bundling;
mod busy;
mod consent;
mod corpus_shapes;
mod delegation;
mod golden;
mod mcp_tool;
mod out_dir;
mod outputs;
mod real_projects;
mod sass;
mod symlinks;
mod validate;
mod validate_trust;
mod zips;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_webext-mcp")
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/build/fixtures")
}

/// A temporary project (and a temporary home for the binary).
pub struct Project {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Project {
    pub fn empty() -> Project {
        Project { dir: tempfile::tempdir().unwrap(), home: tempfile::tempdir().unwrap() }
    }

    /// A copy of a committed fixture.
    pub fn fixture(name: &str) -> Project {
        let p = Project::empty();
        copy_dir(&fixtures().join(name), p.path());
        p
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        let f = self.path().join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, content).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Runs `webext-mcp build <project> <args…> --json`.
    pub fn build(&self, args: &[&str]) -> Run {
        self.build_env(args, &[])
    }

    pub fn build_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.build_at(self.path(), args, env)
    }

    /// Builds the project at `project` (e.g. a package inside this folder as a workspace),
    /// with the project's scripts allowed the way CI allows them
    /// (`WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS=1`): these tests are about what the toolchain does.
    pub fn build_at(&self, project: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut with_consent = vec![("WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS", "1")];
        with_consent.extend_from_slice(env);
        self.build_asking(project, args, &with_consent)
    }

    /// Builds the project at `project` with nothing allowed but what `env` (and the home's
    /// config and trust store) allow.
    pub fn build_asking(&self, project: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(bin());
        cmd.env_remove("WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS");
        cmd.arg("--home").arg(self.home.path()).arg("build").arg(project).args(args).arg("--json");
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", self.home.path().join("run")).env_remove("WEBEXT_MCP_DELEGATED");
        // No test reaches the network: npx delegation only where a test turns it on (`env`).
        cmd.env("WEBEXT_MCP_BUILD_ALLOW_NPX", "false");
        for (k, v) in env {
            cmd.env(k, v);
        }
        Run::from(cmd.output().unwrap())
    }
}

/// A finished CLI run with its JSON output.
pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Run {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{stdout}\nstderr:\n{stderr}"));
        Run { code: out.status.code().unwrap_or(-1), json, stderr }
    }

    /// The builds of a successful run.
    pub fn builds(&self) -> &Vec<Value> {
        assert_eq!(self.code, 0, "build failed: {:#}\nstderr: {}", self.json, self.stderr);
        self.json["builds"].as_array().unwrap()
    }

    pub fn build_for(&self, browser: &str) -> &Value {
        self.builds()
            .iter()
            .find(|b| b["browser"] == browser)
            .unwrap_or_else(|| panic!("no {browser} in {:#}", self.json))
    }

    /// The error of a failed run: (code, whole error object).
    pub fn error(&self) -> (&str, &Value) {
        assert_eq!(self.code, 1, "expected a tool error: {:#}", self.json);
        let e = &self.json["error"];
        (e["code"].as_str().unwrap(), e)
    }

    /// The finding codes in the error's data.
    pub fn finding_codes(&self) -> Vec<String> {
        self.error().1["data"]["findings"]
            .as_array()
            .map(|a| a.iter().map(|f| f["code"].as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    }
}

/// The marker every output folder carries (`out_dir.rs` checks it).
pub const MARKER: &str = ".webext-mcp-build";

/// Every file under `root`, relative, sorted; the build's marker left out.
pub fn tree(root: &Path) -> Vec<String> {
    let mut out = tree_all(root);
    out.retain(|f| f != MARKER);
    out
}

/// Every file under `root`, relative, sorted.
pub fn tree_all(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

pub fn zip_names(path: &Path) -> Vec<String> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut names: Vec<String> = (0..z.len()).map(|i| z.by_index(i).unwrap().name().to_owned()).collect();
    names.sort();
    names
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}
