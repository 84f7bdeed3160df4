//! The user's say before project code runs.
//!
//! Running the project's toolchain (a package manager, a `build` script, Extension.js or WXT
//! loading `extension.config.*`, PostCSS, Tailwind or Babel configs, the project's own
//! Node.js) is running code that whoever wrote the project chose. Only the user allows it:
//!
//! ```text
//! what would run ─▶ Exposure {runs, toolchain, files that run or choose what runs + sha256}
//!   env WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS=1 ─▶ allowed (CI; nothing recorded)
//!   --allow-project-scripts (CLI)          ─▶ allowed, recorded in the trust store
//!   trust store: same path, same hashes    ─▶ allowed
//!                same path, a file changed ─▶ refused, naming the changed files
//!   config build.allowProjectScripts lists the project ─▶ allowed, recorded
//!   else                                   ─▶ refused: what would run and how to allow it
//! ```
//!
//! A tool argument never grants: an agent is not the user. The store is
//! [`super::trust::Store`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::trust::Store;

/// The variable CI sets to allow every project's scripts (`1`), or a comma list of projects.
pub const ALLOW_ENV: &str = "WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS";
/// The config key: the projects whose scripts the user allows (absolute paths).
pub const CONFIG_KEY: &str = "build.allowProjectScripts";
/// The CLI flag that allows them for one run (and records the grant).
pub const FLAG: &str = "--allow-project-scripts";

/// Files that a toolchain executes or that choose what it runs, looked for in the project
/// and in its workspace root, besides `extension.config.*` ([`super::config_file::CONFIG_FILES`])
/// and the bundler configs ([`super::needs::BUNDLER_CONFIGS`]). `.yarnrc.yml`'s `yarnPath` is
/// added when it names a file.
pub const RUN_FILES: &[&str] = &[
    "package.json",
    "pnpm-workspace.yaml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    ".pnpmfile.mjs",
    "extension.config.mts",
    "postcss.config.js",
    "postcss.config.cjs",
    "postcss.config.mjs",
    "postcss.config.ts",
    ".postcssrc",
    ".postcssrc.json",
    ".postcssrc.js",
    ".postcssrc.cjs",
    "tailwind.config.js",
    "tailwind.config.cjs",
    "tailwind.config.mjs",
    "tailwind.config.ts",
    "babel.config.js",
    "babel.config.cjs",
    "babel.config.mjs",
    "babel.config.json",
    ".babelrc",
    ".babelrc.js",
    ".babelrc.cjs",
    ".babelrc.json",
    "svelte.config.js",
];

/// Files larger than this are hashed by their first bytes and their length only (a lockfile
/// of 64 MiB is already unusual).
const MAX_HASHED: u64 = 64 * 1024 * 1024;

/// How the user answered before this run: what the environment, the command line and the
/// config say. Carried into dev-session processes, so it is plain data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Consent {
    /// `WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS=1`: every project (CI).
    #[serde(default)]
    pub everywhere: bool,
    /// `--allow-project-scripts` on this command line: every project this run builds.
    #[serde(default)]
    pub flag: bool,
    /// Projects listed in `build.allowProjectScripts` (or the variable as a list).
    #[serde(default)]
    pub listed: Vec<PathBuf>,
    /// The trust store; `None` remembers nothing (tests of the pure decision).
    #[serde(default)]
    pub store: Option<PathBuf>,
}

impl Consent {
    /// What the effective configuration says ([`CONFIG_KEY`]: its values and whether they
    /// came from the command line, the environment or the file), with the store under
    /// `data_dir`.
    pub fn from_config(config: &crate::config::Config, data_dir: &Path) -> Consent {
        let source = config
            .settings
            .iter()
            .find(|s| s.key == CONFIG_KEY)
            .map_or(crate::config::Source::Default, |s| s.source);
        Consent::from_setting(&config.list(CONFIG_KEY), source, Store::path_in(data_dir))
    }

    /// From the values of [`CONFIG_KEY`] and where they came from.
    pub fn from_setting(values: &[String], source: crate::config::Source, store: PathBuf) -> Consent {
        let all = values.iter().any(|v| matches!(v.trim(), "1" | "true" | "yes" | "*"));
        let listed = values
            .iter()
            .map(|v| v.trim())
            .filter(|v| Path::new(v).is_absolute())
            .map(|v| canonical(Path::new(v)))
            .collect();
        use crate::config::Source;
        Consent {
            everywhere: all && source == Source::Env,
            flag: all && source == Source::Flag,
            listed,
            store: Some(store),
        }
    }
}

/// What running the project's toolchain would run, and the files that decide it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exposure {
    /// The project, symlinks resolved.
    pub project: PathBuf,
    /// The workspace root above it (monorepos), symlinks resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<PathBuf>,
    /// What would run, in words (`the package.json build script: sass … && …`).
    pub runs: String,
    /// The program that would start (`node_modules/.bin/extension`, `npm`, the project's Node).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub toolchain: Vec<PathBuf>,
    /// Absolute path → sha256 of each file that runs or chooses what runs.
    pub files: BTreeMap<PathBuf, String>,
}

/// Why the toolchain did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub exposure: Exposure,
    /// Files that differ from the recorded grant (empty: never granted).
    pub changed: Vec<PathBuf>,
}

impl Refusal {
    /// One message: what would run, from which files.
    pub fn message(&self) -> String {
        let e = &self.exposure;
        let files: Vec<String> = e.files.keys().map(|p| p.display().to_string()).collect();
        let mut text = if self.changed.is_empty() {
            format!(
                "building {} would run its own code, which you have not allowed: {}",
                e.project.display(),
                e.runs
            )
        } else {
            let changed: Vec<String> = self.changed.iter().map(|p| p.display().to_string()).collect();
            format!(
                "the files that choose what {} runs changed since you allowed it ({}), so it asks again: {}",
                e.project.display(),
                changed.join(", "),
                e.runs
            )
        };
        if !e.toolchain.is_empty() {
            let t: Vec<String> = e.toolchain.iter().map(|p| p.display().to_string()).collect();
            text.push_str(&format!("; program: {}", t.join(", ")));
        }
        if !files.is_empty() {
            text.push_str(&format!("; files it reads and runs: {}", files.join(", ")));
        }
        text
    }

    /// The exact ways the user can allow it.
    pub fn hint(&self) -> String {
        let p = self.exposure.project.display();
        format!(
            "only the user can allow this (an agent's argument cannot): read what would run, then either run `webext-mcp build {p} {FLAG}` once (remembered until one of those files changes), or add \"{p}\" to {CONFIG_KEY} in the config file (`webext-mcp config` names it), or set {ALLOW_ENV}=1 in CI"
        )
    }
}

/// Whether `exposure` may run. A grant by flag or config is recorded in the store.
pub fn check(consent: &Consent, exposure: Exposure) -> Result<(), Box<Refusal>> {
    if consent.everywhere {
        return Ok(());
    }
    let store = consent.store.as_deref().map(Store::open);
    let remember = |by: &str| {
        if let Some(s) = &store
            && let Err(e) = s.record(&exposure.project, by, &exposure.files)
        {
            tracing::warn!(error = %e, "cannot record the grant in the trust store");
        }
    };
    if consent.flag {
        remember("flag");
        return Ok(());
    }
    if let Some(recorded) = store.as_ref().and_then(|s| s.files_of(&exposure.project)) {
        let changed = changed_files(&recorded, &exposure.files);
        if changed.is_empty() {
            return Ok(());
        }
        return Err(Box::new(Refusal { exposure, changed }));
    }
    if consent.listed.contains(&exposure.project) {
        remember("config");
        return Ok(());
    }
    Err(Box::new(Refusal { exposure, changed: Vec::new() }))
}

/// Files added, removed or changed between a grant and now, sorted.
pub fn changed_files(was: &BTreeMap<PathBuf, String>, now: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        now.iter().filter(|(p, h)| was.get(*p) != Some(*h)).map(|(p, _)| p.clone()).collect();
    out.extend(was.keys().filter(|p| !now.contains_key(*p)).cloned());
    out.sort();
    out
}

/// The path with symlinks resolved, or as given when it cannot be.
pub fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What running the toolchain in `project` would run: `runs` in words, `toolchain` the
/// programs, and the hashes of [`RUN_FILES`] in the project and its workspace root.
pub fn exposure(project: &Path, runs: String, toolchain: Vec<PathBuf>) -> Exposure {
    let project = canonical(project);
    let workspace_root = super::workspace::root_above(&project).map(|r| canonical(&r));
    let mut files = BTreeMap::new();
    // Programs inside the project (its Extension.js, its Node.js, a script its `build` names)
    // are hashed too: a changed one asks again.
    for program in &toolchain {
        if program.is_absolute() && canonical(program).starts_with(&project) {
            hash_into(program, &mut files);
        }
    }
    for dir in std::iter::once(&project).chain(workspace_root.as_ref()) {
        let names =
            RUN_FILES.iter().chain(&super::config_file::CONFIG_FILES).chain(&super::needs::BUNDLER_CONFIGS);
        for name in names {
            hash_into(&dir.join(name), &mut files);
        }
        if let Some(yarn) = yarn_path(dir) {
            hash_into(&yarn, &mut files);
        }
    }
    Exposure { project, workspace_root, runs, toolchain, files }
}

fn hash_into(path: &Path, files: &mut BTreeMap<PathBuf, String>) {
    if !path.is_file() {
        return;
    }
    if let Some(h) = hash_file(path) {
        files.insert(path.to_path_buf(), h);
    }
}

/// sha256 of a file (of its first [`MAX_HASHED`] bytes and its length when larger).
fn hash_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut bytes = Vec::new();
    file.take(MAX_HASHED).read_to_end(&mut bytes).ok()?;
    if len > MAX_HASHED {
        bytes.extend_from_slice(len.to_string().as_bytes());
    }
    Some(webext_mcp_host::digest::sha256_hex(&bytes))
}

/// The file `.yarnrc.yml` names as `yarnPath` (Yarn runs it), resolved against `dir`.
fn yarn_path(dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dir.join(".yarnrc.yml")).ok()?;
    text.lines().find_map(|l| {
        let v = l.trim().strip_prefix("yarnPath:")?.trim().trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| dir.join(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (name, body) in files {
            let p = d.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        d
    }

    #[test]
    fn nothing_granted_is_refused_and_the_env_allows_without_recording() {
        let d = project_with(&[("package.json", r#"{"scripts":{"build":"make"}}"#)]);
        let state = tempfile::tempdir().unwrap();
        let store = state.path().join("trust.json");
        let e = || exposure(d.path(), "the build script: make".into(), vec![]);
        let none = Consent { store: Some(store.clone()), ..Consent::default() };
        let r = check(&none, e()).unwrap_err();
        assert!(r.changed.is_empty());
        assert!(r.message().contains("make") && r.message().contains("package.json"), "{}", r.message());
        assert!(r.hint().contains(FLAG) && r.hint().contains(CONFIG_KEY) && r.hint().contains(ALLOW_ENV));
        let env = Consent { everywhere: true, store: Some(store.clone()), ..Consent::default() };
        assert!(check(&env, e()).is_ok());
        assert!(!store.exists(), "the CI grant is not remembered");
    }

    #[test]
    fn a_flag_grant_is_remembered_until_a_file_changes() {
        let d = project_with(&[("package.json", r#"{"scripts":{"build":"make"}}"#), (".npmrc", "x=1\n")]);
        let state = tempfile::tempdir().unwrap();
        let store = Some(state.path().join("trust.json"));
        let e = || exposure(d.path(), "make".into(), vec![]);
        assert!(check(&Consent { flag: true, store: store.clone(), ..Consent::default() }, e()).is_ok());
        let later = Consent { store: store.clone(), ..Consent::default() };
        assert!(check(&later, e()).is_ok());
        std::fs::write(d.path().join(".npmrc"), "x=2\n").unwrap();
        let r = check(&later, e()).unwrap_err();
        assert_eq!(r.changed, [canonical(d.path()).join(".npmrc")]);
        // A listed project whose files changed since the grant asks again too.
        let listed = Consent { listed: vec![canonical(d.path())], store, ..Consent::default() };
        assert!(check(&listed, e()).is_err());
    }

    #[test]
    fn a_fifo_or_device_in_place_of_a_run_file_is_skipped_without_blocking() {
        let d = project_with(&[("package.json", "{}")]);
        let fifo = d.path().join(".npmrc");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        std::os::unix::fs::symlink("/dev/zero", d.path().join(".pnpmfile.cjs")).unwrap();
        // A reader of the FIFO would block until a writer came; the exposure does not open it.
        let e = exposure(d.path(), "x".into(), vec![]);
        let names: Vec<_> = e.files.keys().map(|p| p.file_name().unwrap().to_owned()).collect();
        assert_eq!(names, ["package.json"]);
    }

    #[test]
    fn the_yarn_path_and_the_workspace_root_are_hashed() {
        let d = project_with(&[
            ("package.json", r#"{"workspaces":["packages/*"]}"#),
            (".yarnrc.yml", "yarnPath: .yarn/releases/yarn.cjs\n"),
            (".yarn/releases/yarn.cjs", "evil()"),
            ("packages/ext/package.json", "{}"),
            ("packages/ext/postcss.config.js", "module.exports={}"),
        ]);
        let e = exposure(&d.path().join("packages/ext"), "x".into(), vec![]);
        let root = canonical(d.path());
        assert_eq!(e.workspace_root.as_deref(), Some(root.as_path()));
        for f in ["package.json", ".yarnrc.yml", ".yarn/releases/yarn.cjs", "packages/ext/postcss.config.js"]
        {
            assert!(e.files.contains_key(&root.join(f)), "{f}: {:?}", e.files.keys());
        }
    }
}
