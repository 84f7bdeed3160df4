//! Building an extension for one or more browsers.
//!
//! ```text
//! BuildRequest ─▶ load manifest ─▶ plan per target ─┬─ eligible ──▶ native: lock, stage, copy,
//!                 + package.json                    │               write manifest, zip, swap
//!                                                   └─ needs a bundler ─▶ delegated: lock, run the
//!                                                        project's toolchain, stage its output, zip, swap
//! ```
//!
//! Synchronous by design (file copies and a child process); the MCP tool runs it on a
//! blocking thread. Collaborators that tests replace come in through [`BuildRequest`]
//! (Node.js location, whether delegation is allowed, the timeout) and the `progress` sink.

pub mod archive;
pub mod boundary;
pub mod bundle;
pub mod config_file;
pub mod consent;
pub mod delegate;
mod delegated;
pub mod dev;
pub mod env;
pub mod glob;
pub mod inject;
pub mod js;
pub mod needs;
pub mod output;
pub mod plan;
pub mod scan;
pub mod splice;
pub mod trust;
pub mod workspace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::lock::{Holder, Lock, LockError};
use crate::manifest::{self, Finding, FindingCode, Json, SourceManifest, Target};
use delegate::{DelegateError, Invocation, Toolchain};
use delegated::delegated;
use output::Staging;

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    /// The project root (holds `manifest.json` or `src/manifest.json`, maybe `package.json`).
    pub project: PathBuf,
    pub targets: Vec<Target>,
    /// Write the store zip `<out>/<name>-<version>-<browser>.zip`, beside `<out>/<browser>/`.
    pub zip: bool,
    /// Write the source zip `<out>/<name>-<version>-source.zip`.
    pub zip_source: bool,
    /// The output root (default `<project>/dist`); absolute.
    pub out_dir: PathBuf,
    /// Recorded in the build lock (a dev session's id).
    pub session: Option<String>,
    /// False inside a delegated build (`WEBEXT_MCP_DELEGATED=1`): never delegate again.
    pub allow_delegation: bool,
    /// Node.js to use for delegated builds (`WEBEXT_MCP_NODE`).
    pub node: Option<PathBuf>,
    /// An Extension.js project with no local copy may be built by `npx --yes
    /// extension@4.1.x` (config `build.allowNpx`).
    pub allow_npx: bool,
    /// Limit for one delegated toolchain run.
    pub timeout: Duration,
    /// What the user said about running the project's own code ([`consent`]).
    pub consent: consent::Consent,
    /// Set when the caller gave up (MCP `notifications/cancelled`): a delegated toolchain run
    /// is then stopped (its process group killed) and nothing in the output is replaced.
    pub cancel: Option<tokio_util::sync::CancellationToken>,
}

/// How to build, beyond what to build: what dev sessions need.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildOptions {
    /// Apply the dev-build transforms ([`dev::apply`]) to the output. Never for production.
    pub dev: bool,
    /// The caller already holds the build lock of every target (a dev session holds it for
    /// its lifetime), so the build must not take it again.
    pub lock_held: bool,
}

/// Which pipeline built a browser's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pipeline {
    Native,
    Delegated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEntry {
    pub path: String,
    pub bytes: u64,
}

/// Why and how a browser's output was built by a toolchain instead of natively.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    /// `Extension.js`, `Extension.js (through npx)`, `WXT`, `the package.json build script`.
    pub toolchain: &'static str,
    /// The command as run.
    pub command: String,
    /// What the native build could not do (the findings that sent it here), and why this
    /// toolchain.
    pub reason: String,
    /// The toolchain's last lines (its notices included).
    pub output_tail: Vec<String>,
}

/// The result for one browser.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserBuild {
    pub browser: String,
    pub pipeline: Pipeline,
    pub output_path: PathBuf,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zip_path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_zip_path: Option<PathBuf>,
    /// Total bytes of `files`.
    pub bytes: u64,
    pub files: Vec<FileEntry>,
    pub warnings: Vec<Finding>,
    /// Set for delegated builds: which toolchain, the command, why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation: Option<Delegation>,
    /// What a dev build added ([`BuildOptions::dev`]); empty for production builds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dev_changes: Vec<dev::DevChange>,
    /// Output-relative path → the project file it was copied from (native builds).
    #[serde(skip)]
    pub sources: BTreeMap<String, PathBuf>,
    /// Project file the native bundler read → the output file it went into.
    #[serde(skip)]
    pub inputs: BTreeMap<PathBuf, String>,
}

/// Why a build failed. Mapped to the stable error codes in `crate::error`.
#[derive(Debug)]
pub enum BuildError {
    /// The project folder does not exist.
    NotFound { message: String, hint: String },
    /// An argument is unusable (out dir inside a source folder, …).
    InvalidArgument { message: String, hint: String },
    /// Another process holds the browser's build lock.
    Busy { browser: String, lock: PathBuf, holder: Option<Holder> },
    /// The manifest or project has blocking problems, or the toolchain failed.
    Failed { message: String, hint: String, findings: Vec<Finding>, output_tail: Vec<String> },
    /// The toolchain (or the Node.js it needs) is missing.
    NotInstalled { message: String, hint: String, findings: Vec<Finding> },
    /// The toolchain did not finish in time.
    Timeout { message: String, output_tail: Vec<String> },
    /// The build would run the project's own code and the user has not allowed it; nothing
    /// ran.
    NotAllowed(Box<consent::Refusal>),
    /// Reading or writing files failed.
    Io { context: String, source: std::io::Error },
    /// The explicit `outDir`, or the folder a build would replace in it, is not ours
    /// ([`output::MARKER`]); nothing was touched.
    AlreadyExists { path: PathBuf, what: &'static str },
}

impl BuildError {
    fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
        let context = context.into();
        move |source| BuildError::Io { context, source }
    }
}

/// Builds every requested target. `progress` receives one line per step (and, for delegated
/// builds, every line the toolchain prints).
pub fn build(req: &BuildRequest, progress: &mut dyn FnMut(&str)) -> Result<Vec<BrowserBuild>, BuildError> {
    build_with(req, BuildOptions::default(), progress)
}

/// [`build`] with options (dev sessions).
pub fn build_with(
    req: &BuildRequest,
    opts: BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BrowserBuild>, BuildError> {
    let project = req.project.as_path();
    if !project.is_dir() {
        return Err(BuildError::NotFound {
            message: format!("project folder {} does not exist", project.display()),
            hint: "pass projectPath: the folder that holds manifest.json (or src/manifest.json)".into(),
        });
    }
    if req.out_dir == project || project.starts_with(&req.out_dir) {
        return Err(BuildError::InvalidArgument {
            message: format!("outDir {} would contain the project itself", req.out_dir.display()),
            hint: "use a folder inside the project such as dist, or one outside it".into(),
        });
    }
    check_replaceable(req, &req.out_dir)?;
    for t in &req.targets {
        check_replaceable(req, &req.out_dir.join(t.name))?;
    }
    // Before reading it: a manifest linked out of the project (or to /dev/zero) is refused.
    if let Some(path) = manifest::find_manifest(project)
        && let Some(f) = boundary::Boundary::new(project).check(&path)
    {
        return Err(failed(vec![f]));
    }
    let pkg = read_package_json(project);
    let (mut toolchain_findings, project_warnings): (Vec<Finding>, Vec<Finding>) =
        needs::project_findings(project, pkg.as_ref()).into_iter().partition(|f| f.code.needs_toolchain());
    if manifest::find_manifest(project).is_none()
        && let Some(ext) = workspace::extension_packages(project, pkg.as_ref()).first()
    {
        toolchain_findings.push(workspace::finding(project, ext));
    }

    let source = match manifest::load(project) {
        Ok(s) => Some(s),
        Err(f) if f.code == FindingCode::ManifestNotFound && !toolchain_findings.is_empty() => None,
        Err(f) => return Err(failed(vec![*f])),
    };
    let mut plans = Vec::new();
    // How long each target's plan took (reading, bundling, minifying): part of its build.
    let mut planned: Vec<Duration> = Vec::new();
    let config = config_file::read(project);
    if let Some(source) = &source {
        let system = env::system();
        for &t in &req.targets {
            let planning = Instant::now();
            let public = env::load(project, t.name, env::mode(opts.dev), &system);
            let mut p = plan::plan(project, source, t, &req.out_dir, &public);
            planned.push(planning.elapsed());
            p.findings.extend(project_warnings.iter().cloned());
            if let Some(cfg) = &config {
                p.findings.extend(needs::run_value_warnings(cfg, t));
            }
            for f in p.findings.iter().filter(|f| f.code.needs_toolchain()) {
                if !toolchain_findings.contains(f) {
                    toolchain_findings.push(f.clone());
                }
            }
            plans.push(p);
        }
    }
    if !toolchain_findings.is_empty() {
        return delegated(req, opts, pkg.as_ref(), toolchain_findings, progress);
    }
    let errors: Vec<Finding> =
        plans.iter().flat_map(|p| p.errors().cloned()).fold(Vec::new(), |mut acc, f| {
            if !acc.contains(&f) {
                acc.push(f);
            }
            acc
        });
    if !errors.is_empty() {
        return Err(failed(errors));
    }
    let Some(source) = source else {
        return Err(BuildError::Failed {
            message: "no manifest.json".into(),
            hint: "create manifest.json".into(),
            findings: Vec::new(),
            output_tail: Vec::new(),
        });
    };
    let mut results = Vec::new();
    for (p, spent) in plans.iter().zip(planned) {
        tracing::debug!(browser = p.target.name, files = p.files.len(), "native build");
        let mut built = native(req, opts, &source, p)?;
        built.duration_ms = built.duration_ms.saturating_add(millis(spent));
        results.push(built);
    }
    finish_source_zip(req, &source.json, source.messages.as_ref(), &mut results)?;
    Ok(results)
}

/// Whether the build may write into (the output root) or replace (`<root>/<browser>/`)
/// `dest`. The default output root `<project>/dist` is ours by convention (DESIGN: "Output
/// `dist/<browser>/`"; older builds wrote no marker), so it is always used. Under an explicit
/// `outDir` only a folder that is absent, empty or carries [`output::MARKER`] is.
fn check_replaceable(req: &BuildRequest, dest: &Path) -> Result<(), BuildError> {
    if req.out_dir == req.project.join("dist") {
        return Ok(());
    }
    let ownership = output::ownership(dest)
        .map_err(BuildError::io(format!("cannot look at the output folder {}", dest.display())))?;
    match ownership {
        output::Ownership::Foreign(what) => Err(BuildError::AlreadyExists { path: dest.to_path_buf(), what }),
        _ => Ok(()),
    }
}

fn failed(findings: Vec<Finding>) -> BuildError {
    let message = match findings.as_slice() {
        [one] => one.line_text(),
        many => format!("{} blocking problems: {}", many.len(), needs::code_list(many)),
    };
    let hint = findings.first().map(|f| f.fix.clone()).unwrap_or_default();
    BuildError::Failed { message, hint, findings, output_tail: Vec::new() }
}

fn read_package_json(project: &Path) -> Option<Json> {
    let text = std::fs::read_to_string(project.join("package.json")).ok()?;
    manifest::parse_jsonc(&text).ok()
}

fn take_lock(req: &BuildRequest, opts: BuildOptions, browser: &str) -> Result<Option<Lock>, BuildError> {
    if opts.lock_held {
        return Ok(None);
    }
    Lock::acquire(&req.out_dir, browser, req.session.as_deref())
        .map_err(|e| match e {
            LockError::Busy { path, holder } => {
                BuildError::Busy { browser: browser.to_owned(), lock: path, holder }
            }
            LockError::Io { path, source } => {
                BuildError::Io { context: format!("cannot take the lock {}", path.display()), source }
            }
        })
        .map(Some)
}

fn native(
    req: &BuildRequest,
    opts: BuildOptions,
    source: &SourceManifest,
    p: &plan::Plan,
) -> Result<BrowserBuild, BuildError> {
    let started = Instant::now();
    let browser = p.target.name;
    let _lock = take_lock(req, opts, browser)?;
    let staging =
        Staging::create(&req.out_dir, browser).map_err(BuildError::io("cannot create the staging folder"))?;
    output::make_parents(&staging.dir, p.files.keys().chain(p.generated.keys()).map(String::as_str))
        .map_err(BuildError::io("cannot create folders in the staging folder"))?;
    for (rel, src) in &p.files {
        std::fs::copy(src, staging.dir.join(rel))
            .map_err(BuildError::io(format!("cannot copy {}", src.display())))?;
    }
    for (rel, body) in &p.generated {
        output::write_into(&staging.dir, rel, body.as_bytes())
            .map_err(BuildError::io(format!("cannot write {rel}")))?;
    }
    let mut text = p.manifest.to_pretty();
    text.push('\n');
    output::write_into(&staging.dir, "manifest.json", text.as_bytes())
        .map_err(BuildError::io("cannot write manifest.json"))?;
    let stem = output::artifact_stem(&p.manifest, source.messages.as_ref(), &req.project);
    let warnings: Vec<Finding> = p.findings.iter().filter(|f| !f.is_error()).cloned().collect();
    let mut built = finish(req, opts, p.target, Pipeline::Native, staging, &stem, warnings, started)?;
    built.sources = p.files.clone();
    built.inputs = p.inputs.clone();
    Ok(built)
}

/// Lists the staged files, writes the store zip beside the output folder, swaps into place.
#[allow(clippy::too_many_arguments)]
fn finish(
    req: &BuildRequest,
    opts: BuildOptions,
    target: Target,
    pipeline: Pipeline,
    staging: Staging,
    stem: &str,
    warnings: Vec<Finding>,
    started: Instant,
) -> Result<BrowserBuild, BuildError> {
    let browser = target.name;
    let dev_changes = if opts.dev {
        dev::apply(&staging.dir, target.engine).map_err(|e| BuildError::Failed {
            message: format!("the dev-build transform failed: {e}"),
            hint: "check the built manifest.json; production builds are not affected".into(),
            findings: Vec::new(),
            output_tail: Vec::new(),
        })?
    } else {
        Vec::new()
    };
    let mut files = list_files(&staging.dir).map_err(BuildError::io("cannot list the built files"))?;
    // A toolchain that wrote into dist/<browser> itself copies our old marker along.
    files.retain(|f| f.path != output::MARKER);
    output::write_into(&staging.dir, output::MARKER, output::marker_text(Some(browser)).as_bytes())
        .map_err(BuildError::io(format!("cannot write {}", output::MARKER)))?;
    let dest = req.out_dir.join(browser);
    // Checked again under the lock, just before the swap.
    check_replaceable(req, &dest)?;
    // The store zip sits beside the folder users load (never inside it, which would then
    // hold its own zip), one per browser: `dist/<name>-<version>-<browser>.zip`. Written
    // aside and renamed once the folder is in place.
    let zip_path = req.out_dir.join(store_zip_name(stem, browser));
    let zip_part = req.out_dir.join(format!(".{stem}-{browser}.zip.part"));
    if req.zip {
        let entries: Vec<(String, PathBuf)> =
            files.iter().map(|f| (f.path.clone(), staging.dir.join(&f.path))).collect();
        archive::write_zip(&zip_part, &entries).map_err(BuildError::io("cannot write the store zip"))?;
    }
    let swapped = staging.swap_into(&dest);
    if req.zip {
        match &swapped {
            Ok(()) => {
                std::fs::rename(&zip_part, &zip_path).map_err(BuildError::io("cannot write the store zip"))?
            }
            Err(_) => {
                let _ = std::fs::remove_file(&zip_part);
            }
        }
    }
    swapped.map_err(BuildError::io(format!("cannot move the build into {}", dest.display())))?;
    Ok(BrowserBuild {
        browser: browser.to_owned(),
        pipeline,
        zip_path: req.zip.then_some(zip_path),
        output_path: dest,
        duration_ms: millis(started.elapsed()),
        source_zip_path: None,
        bytes: files.iter().map(|f| f.bytes).sum(),
        files,
        warnings,
        dev_changes,
        delegation: None,
        sources: BTreeMap::new(),
        inputs: BTreeMap::new(),
    })
}

/// A temporary project holding `files` (relative path, text), for unit tests.
#[cfg(test)]
pub(crate) fn test_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (rel, text) in files {
        let f = d.path().join(rel);
        if let Some(dir) = f.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(f, text).unwrap_or_else(|e| panic!("{e}"));
    }
    d
}

/// Whole milliseconds, rounded up: a build that took 0.3 ms took time, and says so.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_micros().div_ceil(1000)).unwrap_or(u64::MAX)
}

/// The store zip's file name: the artifact stem (`<name>-<version>`) and the browser, since
/// every browser's zip sits in the same output root.
pub fn store_zip_name(stem: &str, browser: &str) -> String {
    format!("{stem}-{browser}.zip")
}

fn list_files(root: &Path) -> std::io::Result<Vec<FileEntry>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push((entry.path(), rel));
            } else {
                out.push(FileEntry { path: rel, bytes: meta.len() });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn finish_source_zip(
    req: &BuildRequest,
    manifest: &Json,
    messages: Option<&manifest::Messages>,
    results: &mut [BrowserBuild],
) -> Result<(), BuildError> {
    if !req.zip_source {
        return Ok(());
    }
    let stem = output::artifact_stem(manifest, messages, &req.project);
    let dest = req.out_dir.join(format!("{stem}-source.zip"));
    let out_rel = req.out_dir.strip_prefix(&req.project).ok().map(|p| p.to_string_lossy().replace('\\', "/"));
    let files = archive::source_files(&req.project, out_rel.as_deref())
        .map_err(BuildError::io("cannot list the project's source files"))?;
    let entries: Vec<(String, PathBuf)> =
        files.into_iter().map(|f| (f.clone(), req.project.join(&f))).collect();
    std::fs::create_dir_all(&req.out_dir).map_err(BuildError::io("cannot create the output folder"))?;
    archive::write_zip(&dest, &entries).map_err(BuildError::io("cannot write the source zip"))?;
    for r in results {
        r.source_zip_path = Some(dest.clone());
    }
    Ok(())
}
