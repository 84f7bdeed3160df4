//! `extension_add_feature`: a new surface (sidebar, popup, options, content script,
//! background, new tab, DevTools, history or bookmarks page) in an existing project.
//!
//! ```text
//! load manifest ─▶ resolve for Chromium and Firefox ─▶ surface declared?
//!    ├─ yes, as this pattern made it (same entry, same files) ─▶ changed: false
//!    ├─ yes, otherwise / another page override / a file in the way ─▶ ALREADY_EXISTS
//!    └─ no ─▶ pattern files + manifest changes (text edits: comments and prefixes kept)
//!              ─▶ check: the edited manifest declares the surface for each browser
//!              ─▶ dry run? return files + diff
//!              ─▶ write files (create-new only) ─▶ manifest aside + rename ─▶ validate
//! ```
//!
//! Nothing existing is overwritten: new files are created with `create_new`, and the
//! manifest is replaced by rename only if it still holds the text that was planned on. Any
//! failure removes what this call created.

pub mod diff;
pub mod framework;
pub mod surfaces;

use crate::browsers::Engine;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub use framework::{FRAMEWORKS, Framework};
pub use surfaces::{Change, Feature};

use crate::manifest::{self, Finding, Json, Target, edit};

/// What to add.
#[derive(Debug, Clone)]
pub struct AddRequest {
    /// The project root (absolute).
    pub project: PathBuf,
    pub feature: Feature,
    /// `vanilla`, `react`, `preact`, `vue`, `svelte`; `None`: what the project uses.
    pub framework: Option<String>,
    /// Return the files and the manifest diff; write nothing.
    pub dry_run: bool,
}

/// What was added (or would be, or already was).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub project_path: PathBuf,
    /// Project-relative.
    pub manifest_path: String,
    pub feature: &'static str,
    pub framework: &'static str,
    /// False when the surface was already there exactly as this call would add it.
    pub changed: bool,
    pub dry_run: bool,
    /// Project-relative paths of the surface's files (created, to create, or present).
    pub files: Vec<String>,
    /// Unified diff of the manifest; empty when it does not change.
    pub manifest_diff: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub next_steps: Vec<String>,
    /// `extension_manifest_validate` on the result (not for dry runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
}

/// The validator's verdict on the project after the change.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    pub valid: bool,
    /// `CODE: message` of each error.
    pub errors: Vec<String>,
    pub warnings: usize,
}

/// Why a feature could not be added. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    /// Not one of the features.
    #[error("unknown feature `{0}`")]
    UnknownFeature(String),
    /// A framework this version does not know.
    #[error("unknown framework `{name}`; use one of: {}", FRAMEWORKS.join(", "))]
    Framework { name: String },
    /// The manifest is missing, too large or not JSON.
    #[error("{}", finding_message(.0))]
    Manifest(Box<Finding>),
    /// A manifest this tool does not edit (MV2) or a text it cannot place the change in.
    #[error("{0}")]
    Unsupported(String),
    /// The surface, the page-override slot or one of the files is already there.
    #[error("{message}")]
    Exists { message: String, declared: Vec<(String, String)>, file: Option<String> },
    /// The manifest changed between reading and writing it.
    #[error("the manifest changed while the feature was being added; nothing was written")]
    Changed,
    /// A path that leads out of the project through a symlink.
    #[error("{0} leads out of the project through a symlink; nothing was written")]
    OutsideProject(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The edit did not declare the surface as planned (a bug).
    #[error("{0}")]
    Internal(String),
}

fn finding_message(f: &Finding) -> &str {
    &f.message
}

const CHROME: Target = Target { name: "chrome", engine: Engine::Chromium };
const FIREFOX: Target = Target { name: "firefox", engine: Engine::Gecko };

/// Adds the feature (or, for a dry run, says what it would write).
pub fn add(req: &AddRequest) -> Result<Added, FeatureError> {
    let framework = framework(&req.project, req.framework.as_deref())?;
    let entry = framework.entry(req.feature);
    let source = manifest::load(&req.project).map_err(FeatureError::Manifest)?;
    let manifest_rel = rel(&req.project, &source.path);
    if let Some(f) = crate::build::boundary::Boundary::new(&req.project).check(&source.path) {
        return Err(FeatureError::OutsideProject(f.message));
    }
    let old = match manifest::read_capped(&source.path, manifest::MAX_JSON_BYTES) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| {
            FeatureError::Unsupported(format!("{manifest_rel} is not UTF-8; save it as UTF-8"))
        })?,
        Ok(None) => return Err(FeatureError::Unsupported(format!("{manifest_rel} is larger than 1 MiB"))),
        Err(e) => return Err(io(format!("cannot read {manifest_rel}"), e)),
    };
    if source.json.get("manifest_version").and_then(Json::as_f64) != Some(3.0) {
        return Err(FeatureError::Unsupported(format!(
            "{manifest_rel} is not a Manifest V3 manifest; extension_add_feature writes MV3 keys only"
        )));
    }
    let (chromium, gecko) = resolved(&source.json);
    let files = pattern_files(req.feature, framework, &chromium);
    let place = |p: &str| surfaces::destination(&req.project, &source.root, p);
    let project_files: Vec<String> = files.iter().map(|(p, _)| rel(&req.project, &place(p))).collect();
    let mut added = Added {
        project_path: req.project.clone(),
        manifest_path: manifest_rel.clone(),
        feature: req.feature.name(),
        framework: framework.name(),
        changed: true,
        dry_run: req.dry_run,
        files: project_files,
        manifest_diff: String::new(),
        warnings: warnings(req.feature),
        next_steps: next_steps(&req.project, req.feature, framework),
        validation: None,
    };

    let declared = req.feature.declared(&chromium, &gecko);
    if !declared.is_empty() {
        let ours = declared.iter().all(|(_, file)| same_path(file, entry))
            && files.iter().all(|(p, bytes)| std::fs::read(place(p)).is_ok_and(|have| have == *bytes));
        if ours {
            added.changed = false;
            return Ok(added);
        }
        let list: Vec<String> = declared.iter().map(|(k, f)| format!("{k} → {f}")).collect();
        return Err(FeatureError::Exists {
            message: format!(
                "{manifest_rel} already declares {} ({}); nothing was changed",
                req.feature.name(),
                list.join(", ")
            ),
            declared,
            file: None,
        });
    }
    if let Some(other) = req.feature.override_conflict(&chromium) {
        return Err(FeatureError::Exists {
            message: format!(
                "{manifest_rel} already overrides the {other} page, and Chromium lets an extension override only one page; nothing was changed"
            ),
            declared: vec![(format!("chrome_url_overrides.{other}"), String::new())],
            file: None,
        });
    }
    let real_project =
        std::fs::canonicalize(&req.project).map_err(|e| io("cannot read the project folder".into(), e))?;
    for (path, _) in &files {
        let dest = place(path);
        if std::fs::symlink_metadata(&dest).is_ok() {
            let shown = rel(&req.project, &dest);
            return Err(FeatureError::Exists {
                message: format!("{shown} already exists and is not overwritten; nothing was changed"),
                declared: Vec::new(),
                file: Some(shown),
            });
        }
        if !inside(&real_project, &dest) {
            return Err(FeatureError::OutsideProject(rel(&req.project, &dest)));
        }
    }

    let root_object = source.json.to_serde();
    let root_object = root_object.as_object().cloned().unwrap_or_default();
    let mut new = old.clone();
    for change in surfaces::changes(req.feature, entry, &root_object) {
        new = apply(&new, &change).map_err(|e| FeatureError::Unsupported(format!("{manifest_rel}: {e}")))?;
    }
    check_declares(req.feature, entry, &new)?;
    added.manifest_diff = diff::unified(&manifest_rel, &old, &new);
    if req.dry_run {
        return Ok(added);
    }

    let mut made = Made::default();
    let placed: Vec<(PathBuf, Vec<u8>)> = files.into_iter().map(|(p, bytes)| (place(&p), bytes)).collect();
    if let Err(e) = write_all(&source.path, &old, &new, &placed, &mut made) {
        made.undo();
        return Err(e);
    }
    added.validation = Some(validate(&req.project, &source.path));
    Ok(added)
}

/// The framework to generate for: the one asked for, else the project's (from
/// `package.json`), else vanilla.
fn framework(project: &Path, asked: Option<&str>) -> Result<Framework, FeatureError> {
    let name = match asked.map(str::trim) {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => Framework::detect(project).unwrap_or("vanilla").to_owned(),
    };
    Framework::parse(&name).ok_or(FeatureError::Framework { name })
}

fn resolved(json: &Json) -> (Value, Value) {
    (
        manifest::resolve(json, CHROME).manifest.to_serde(),
        manifest::resolve(json, FIREFOX).manifest.to_serde(),
    )
}

/// The pattern's files with the project's details filled in (the DevTools panel's icon).
fn pattern_files(feature: Feature, framework: Framework, chromium: &Value) -> Vec<(String, Vec<u8>)> {
    let icon = chromium
        .get("icons")
        .and_then(Value::as_object)
        .and_then(|icons| icons.get("32").or_else(|| icons.values().next()))
        .and_then(Value::as_str)
        .map(|p| format!("/{}", p.trim_start_matches("./").trim_start_matches('/')))
        // The path goes into generated JavaScript: anything but a plain path is left out.
        .filter(|p| p.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b)))
        .unwrap_or_default();
    let icon = format!("'{icon}'");
    framework
        .files(feature)
        .into_iter()
        .map(|(path, text)| (path, text.replace("ICON_PATH", &icon).into_bytes()))
        .collect()
}

fn same_path(declared: &str, entry: &str) -> bool {
    declared.trim_start_matches("./").trim_start_matches('/') == entry
}

fn rel(project: &Path, path: &Path) -> String {
    path.strip_prefix(project).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// Whether `dest` (which does not exist yet) would be created inside `real_project`: its
/// nearest existing ancestor, with symlinks resolved, is inside.
fn inside(real_project: &Path, dest: &Path) -> bool {
    let mut at = dest.parent();
    while let Some(dir) = at {
        if let Ok(real) = std::fs::canonicalize(dir) {
            return real.starts_with(real_project);
        }
        at = dir.parent();
    }
    false
}

fn apply(text: &str, change: &Change) -> Result<String, edit::EditError> {
    match change {
        Change::Member { path, key, value } => {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            edit::insert_member(text, &path, key, value)
        }
        Change::Item { path, value } => {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            edit::append_item(text, &path, value)
        }
    }
}

/// The edited text must parse and declare the surface for each browser it is for.
fn check_declares(feature: Feature, entry: &str, text: &str) -> Result<(), FeatureError> {
    let json = manifest::parse_jsonc(text)
        .map_err(|e| FeatureError::Internal(format!("the edited manifest does not parse: {e}")))?;
    let (chromium, gecko) = resolved(&json);
    let declared = feature.declared(&chromium, &gecko);
    // The sidebar is declared twice: `side_panel` (Chromium) and `sidebar_action` (Firefox).
    let wanted = if feature == Feature::Sidebar { 2 } else { 1 };
    if declared.len() < wanted || !declared.iter().all(|(_, f)| same_path(f, entry)) {
        return Err(FeatureError::Internal(format!(
            "the edited manifest does not declare {} as planned: {declared:?}",
            feature.name()
        )));
    }
    Ok(())
}

fn io(context: String, source: std::io::Error) -> FeatureError {
    FeatureError::Io { context, source }
}

/// What this call created, removed again when a later step fails.
#[derive(Default)]
struct Made {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Made {
    fn undo(&self) {
        for f in self.files.iter().rev() {
            let _ = std::fs::remove_file(f);
        }
        for d in self.dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

fn write_all(
    manifest_path: &Path,
    old: &str,
    new: &str,
    files: &[(PathBuf, Vec<u8>)],
    made: &mut Made,
) -> Result<(), FeatureError> {
    use std::io::Write as _;
    for (dest, bytes) in files {
        let mut missing = Vec::new();
        let mut at = dest.parent();
        while let Some(dir) = at {
            if dir.exists() {
                break;
            }
            missing.push(dir.to_path_buf());
            at = dir.parent();
        }
        for dir in missing.into_iter().rev() {
            std::fs::create_dir(&dir).map_err(|e| io(format!("cannot create {}", dir.display()), e))?;
            made.dirs.push(dir);
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dest)
            .map_err(|e| io(format!("cannot create {}", dest.display()), e))?;
        made.files.push(dest.clone());
        file.write_all(bytes).map_err(|e| io(format!("cannot write {}", dest.display()), e))?;
    }
    let dir = manifest_path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".manifest.json.webext-mcp-")
        .tempfile_in(dir)
        .map_err(|e| io(format!("cannot write in {}", dir.display()), e))?;
    tmp.write_all(new.as_bytes()).map_err(|e| io("cannot write the new manifest".into(), e))?;
    if let Ok(meta) = std::fs::metadata(manifest_path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    // Someone else may have edited the manifest meanwhile: never replace their change.
    let now = std::fs::read(manifest_path).map_err(|e| io("cannot read the manifest again".into(), e))?;
    if now != old.as_bytes() {
        return Err(FeatureError::Changed);
    }
    tmp.persist(manifest_path).map_err(|e| io("cannot replace the manifest".into(), e.error))?;
    Ok(())
}

fn validate(project: &Path, manifest_path: &Path) -> Validation {
    let req = crate::validation::Request {
        project: project.to_path_buf(),
        manifest: Some(manifest_path.to_path_buf()),
        targets: vec![CHROME, FIREFOX],
        scan_code: true,
    };
    match crate::validation::validate(&req) {
        Ok(report) => Validation {
            valid: report.valid,
            errors: report.errors.iter().map(|f| format!("{}: {}", f.code.as_str(), f.message)).collect(),
            warnings: report.warnings.len(),
        },
        Err(crate::validation::ValidateError::NotFound { message, .. }) => {
            Validation { valid: false, errors: vec![message], warnings: 0 }
        }
    }
}

fn warnings(feature: Feature) -> Vec<String> {
    match feature {
        Feature::History | Feature::Bookmarks => vec![format!(
            "{} is a Chromium-only page override: it is added under `chromium:` keys, and Firefox builds leave it out",
            feature.name()
        )],
        _ => Vec::new(),
    }
}

fn next_steps(project: &Path, feature: Feature, framework: Framework) -> Vec<String> {
    let try_it = match feature {
        Feature::Popup => "click the extension's toolbar button: the popup opens",
        Feature::Options => "open the extension's options (its menu in the toolbar, or the extensions page)",
        Feature::Sidebar => {
            "Chromium: open it from the side panel menu (to open it on a toolbar click, call chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }) in the background); Firefox: View → Sidebar"
        }
        Feature::ContentScript => "open any http(s) page: a badge appears at the bottom right",
        Feature::Background => {
            "its console: the service worker's Inspect link (chrome://extensions) or about:debugging"
        }
        Feature::Newtab => "open a new tab",
        Feature::Devtools => "open DevTools on any page: the Extension panel",
        Feature::History => "Chromium: open chrome://history",
        Feature::Bookmarks => "Chromium: open chrome://bookmarks",
    };
    let mut steps = Vec::new();
    let packages = framework.packages();
    if !packages.is_empty()
        && !packages.iter().all(|p| project.join("node_modules").join(p).join("package.json").is_file())
    {
        let builder = if framework.native() {
            "the native build bundles them"
        } else {
            "the project's toolchain (Extension.js: npm install -D extension) compiles its components"
        };
        steps.push(format!(
            "npm install {} (in {}): the {} surface imports them; {builder}",
            packages.join(" "),
            project.display(),
            framework.name()
        ));
    }
    steps.push(format!(
        "webext-mcp build {} --browser chrome,firefox (tool extension_build)",
        project.display()
    ));
    steps.push(try_it.to_owned());
    steps
}
