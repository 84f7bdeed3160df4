//! `extension_manifest_validate`: what stores and browsers would reject, before anyone loads
//! the extension. Built on the one manifest engine (`crate::manifest`): the manifest is
//! parsed once (with positions), resolved per browser exactly as the build resolves it, and
//! every rule runs on each browser's resolved manifest.
//!
//! ```text
//! manifest.json ─load (≤ 1 MiB, spans)─▶ SourceManifest ─┬─ locales (once)
//!                                                        ├─ duplicate keys, comments (once)
//!                                                        └─ per browser: resolve ─▶ schema, values, files,
//!                                                             compat (MDN table), code (permissions, eval)
//! findings of every browser ─merge (same finding → one, with its browsers)─▶ Report
//! ```
//!
//! The rule codes are the `MANIFEST_*` table of `crate::manifest::findings` (documented in
//! `docs/manifest-findings.md`); `extension_build` stops on the [`blocking`] subset.
pub mod code;
pub mod compat;
pub mod files;
pub mod inspect;
pub mod locales;
pub mod permissions;
pub mod script;
pub mod similar;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::build::boundary::Boundary;
use crate::manifest::{self, Finding, FindingCode, Json, Lenient, Severity, SourceManifest, Target, rules};

/// What to validate.
#[derive(Debug, Clone)]
pub struct Request {
    /// The project root.
    pub project: PathBuf,
    /// The manifest, when the caller named one (else `src/manifest.json` or `manifest.json`).
    pub manifest: Option<PathBuf>,
    pub targets: Vec<Target>,
    /// Scan the scripts for API use, `eval` and remote code.
    pub scan_code: bool,
}

/// The support verdict for one browser.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserSupport {
    pub ok: bool,
    pub errors: usize,
    pub warnings: usize,
    /// The lowest version that has every key, permission and API the extension uses
    /// (MDN browser-compat-data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_version: Option<String>,
    /// The feature that sets `minVersion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_version_from: Option<String>,
}

/// The result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub valid: bool,
    pub manifest_path: String,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    /// Worth knowing, nothing a store or browser rejects: keys of the other browsers in a
    /// shared manifest, feature-detected APIs, a usage check the scan could not make.
    pub info: Vec<Finding>,
    pub browser_support: BTreeMap<String, BrowserSupport>,
    pub similar_templates: Vec<similar::Similar>,
    /// What the code scan read.
    pub scanned: Scanned,
    /// The MDN data the support verdicts come from.
    pub compat_data: String,
    /// More than [`MAX_FINDINGS`] findings for a browser: the rest were left out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Findings kept per browser (errors first): a hostile manifest can produce millions.
pub const MAX_FINDINGS: usize = 200;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scanned {
    pub scripts: usize,
    /// Each script read, and how the scan reached it.
    pub files: Vec<code::ScannedFile>,
    pub bytes: u64,
    /// API uses found, e.g. `storage.local.get`.
    pub apis: Vec<String>,
}

/// Why validation could not run at all (a broken manifest is a report, not this).
#[derive(Debug)]
pub enum ValidateError {
    NotFound { message: String, hint: String },
}

/// Validates one project.
pub fn validate(req: &Request) -> Result<Report, ValidateError> {
    let project = req.project.as_path();
    let path = match &req.manifest {
        Some(p) => p.clone(),
        None => manifest::find_manifest(project).ok_or_else(|| ValidateError::NotFound {
            message: format!("no manifest.json in {} or its src/ folder", project.display()),
            hint: "pass projectPath (the extension's folder) or manifestPath; extension_create makes a new project"
                .into(),
        })?,
    };
    if !path.is_file() {
        return Err(ValidateError::NotFound {
            message: format!("{} does not exist", path.display()),
            hint: "pass manifestPath: the path of an existing manifest.json".into(),
        });
    }
    let shown = path.strip_prefix(project).unwrap_or(&path).to_string_lossy().replace('\\', "/");
    let boundary = Boundary::new(project);
    let mut all: Vec<(Finding, Option<Target>)> = Vec::new();
    let mut truncated = false;
    if let Some(f) = boundary.check(&path) {
        return Ok(failed_report(shown, f, &req.targets));
    }
    let source = match manifest::load_at(project, &path) {
        Ok(s) => s,
        Err(f) => return Ok(failed_report(shown, *f, &req.targets)),
    };
    for f in &source.findings {
        all.push((f.clone(), None));
    }
    source_level(&source, &shown, &mut all);
    let mut once = Vec::new();
    locales::check(&source, &mut once);
    all.extend(once.into_iter().map(|f| (f, None)));

    if all.len() > MAX_FINDINGS {
        all.sort_by_key(|(f, _)| !f.is_error());
        all.truncate(MAX_FINDINGS);
        truncated = true;
    }
    // Findings of the source itself count for every browser.
    let common_errors = all.iter().filter(|(f, _)| f.is_error()).count();
    let common_warnings = all.iter().filter(|(f, _)| f.severity == Severity::Warning).count();
    let public = Some(project.join("public")).filter(|p| p.is_dir());
    let layout = files::Layout { project, root: &source.root, public, boundary: &boundary };
    let mut support = BTreeMap::new();
    let mut scanned = Scanned::default();
    let mut usages: BTreeMap<Vec<files::Script>, code::Usage> = BTreeMap::new();
    for &t in &req.targets {
        let resolved = manifest::resolve(&source.json, t);
        let m = &resolved.manifest;
        let mut found = resolved.findings.clone();
        rules::keys::check(m, &mut found);
        rules::values::check(m, t, &mut found);
        let mv3 = rules::values::manifest_version(m) == Some(3);
        let fs = files::check(&layout, m, mv3);
        found.extend(fs.findings);
        let usage = if req.scan_code {
            usages
                .entry(fs.scripts.clone())
                .or_insert_with(|| code::scan(&source.root, &boundary, &fs.scripts))
                .clone()
        } else {
            code::Usage::default()
        };
        if req.scan_code {
            code::judge(&usage, &fs.remote_scripts, m, t, mv3, &mut found);
        }
        let mut outcome = compat::Outcome::default();
        compat::check(m, t, &usage.apis, &usage.guarded, &mut outcome);
        found.extend(outcome.findings);
        if let Some(need) = &outcome.min_version
            && let Some(f) = compat::min_version_finding(m, t, need)
        {
            found.push(f);
        }
        gecko_store(m, t, mv3, &mut found);
        scanned.scripts = scanned.scripts.max(usage.files);
        scanned.bytes = scanned.bytes.max(usage.bytes);
        for f in &usage.scanned {
            if !scanned.files.iter().any(|s: &code::ScannedFile| s.file == f.file) {
                scanned.files.push(f.clone());
            }
        }
        for a in usage.apis.keys() {
            if !scanned.apis.contains(a) {
                scanned.apis.push(a.clone());
            }
        }
        if found.len() > MAX_FINDINGS {
            found.sort_by_key(|f| !f.is_error());
            found.truncate(MAX_FINDINGS);
            truncated = true;
        }
        for f in &mut found {
            locate(f, &source, &shown, t);
        }
        let own_errors = found.iter().filter(|f| f.is_error()).count();
        let errors = own_errors + common_errors;
        support.insert(
            t.name.to_owned(),
            BrowserSupport {
                ok: errors == 0,
                errors,
                warnings: found.iter().filter(|f| f.severity == Severity::Warning).count() + common_warnings,
                min_version: outcome.min_version.as_ref().map(|(v, _)| v.clone()),
                min_version_from: outcome.min_version.map(|(_, from)| from),
            },
        );
        all.extend(found.into_iter().map(|f| (f, Some(t))));
    }
    let first = req.targets.first().copied();
    let similar = first
        .map(|t| {
            similar::similar(
                crate::catalog::Catalog::embedded(),
                &manifest::resolve(&source.json, t).manifest,
                3,
            )
        })
        .unwrap_or_default();
    let merged = merge(all, &req.targets);
    let (errors, rest): (Vec<Finding>, Vec<Finding>) = merged.into_iter().partition(Finding::is_error);
    let (warnings, info): (Vec<Finding>, Vec<Finding>) =
        rest.into_iter().partition(|f| f.severity == Severity::Warning);
    scanned.apis.sort();
    Ok(Report {
        valid: errors.is_empty(),
        manifest_path: shown,
        errors,
        warnings,
        info,
        browser_support: support,
        similar_templates: similar,
        scanned,
        compat_data: format!("@mdn/browser-compat-data {}", compat::data_version()),
        truncated,
    })
}

/// The report for a manifest that could not be read or parsed.
fn failed_report(shown: String, f: Finding, targets: &[Target]) -> Report {
    let support = targets
        .iter()
        .map(|t| {
            (
                t.name.to_owned(),
                BrowserSupport {
                    ok: false,
                    errors: 1,
                    warnings: 0,
                    min_version: None,
                    min_version_from: None,
                },
            )
        })
        .collect();
    Report {
        valid: false,
        manifest_path: shown,
        errors: vec![f],
        warnings: Vec::new(),
        info: Vec::new(),
        browser_support: support,
        similar_templates: Vec::new(),
        scanned: Scanned::default(),
        compat_data: format!("@mdn/browser-compat-data {}", compat::data_version()),
        truncated: false,
    }
}

/// Findings about the source text itself: duplicate keys, and syntax only lenient parsers
/// accept (Firefox loading the unbuilt folder refuses it; builds write plain JSON).
fn source_level(source: &SourceManifest, shown: &str, all: &mut Vec<(Finding, Option<Target>)>) {
    let file = shown.to_owned();
    for (path, pos) in &source.spans.duplicates {
        all.push((
            Finding::new(
                FindingCode::ManifestDuplicateKey,
                format!("`{path}` is given twice; browsers keep the last value and silently drop the first"),
                "remove one of the two",
            )
            .at(path.clone())
            .in_file(file.clone())
            .at_position(pos.line, pos.column),
            None,
        ));
    }
    // Firefox strips `//` comments anywhere outside strings before JSON.parse (its own test,
    // toolkit/mozapps/extensions/test/xpcshell/test_json_parser.js, parses `"0.1" // , …`);
    // block comments and trailing commas reach JSON.parse and fail.
    let refused = |k: &Lenient| !matches!(k, Lenient::LineComment | Lenient::InlineComment);
    if let Some((kind, pos)) = source.spans.lenient.iter().find(|(k, _)| refused(k)) {
        let what = match kind {
            Lenient::BlockComment => "a /* */ comment",
            _ => "a trailing comma",
        };
        all.push((
            Finding::new(
                FindingCode::ManifestJsonLenient,
                format!("{file} has {what}: Chrome accepts it, but Firefox refuses the folder when loaded unbuilt (webext-mcp builds write plain JSON)"),
                "use only // comments and no trailing commas, or always load the built dist/ folder",
            )
            .in_file(file.clone())
            .at_position(pos.line, pos.column),
            None,
        ));
    }
}

/// Firefox store rules: an add-on id (signing needs one for MV3) and, for new listings,
/// `data_collection_permissions`.
fn gecko_store(m: &Json, t: Target, mv3: bool, out: &mut Vec<Finding>) {
    if t.engine != crate::browsers::Engine::Gecko {
        return;
    }
    let gecko = m.get("browser_specific_settings").and_then(|b| b.get("gecko"));
    if gecko.and_then(|g| g.get("id")).is_none() {
        let mut f = Finding::new(
            FindingCode::ManifestGeckoIdMissing,
            "no browser_specific_settings.gecko.id: addons.mozilla.org cannot sign the add-on, and storage.sync and native messaging do not work without one",
            "add \"browser_specific_settings\": { \"gecko\": { \"id\": \"name@example.com\" } } (\"firefox:browser_specific_settings\" keeps it out of Chromium)",
        )
        .at("browser_specific_settings.gecko.id");
        if !mv3 {
            f.fix.push_str(
                "; MV2 add-ons get a generated id when signed, but a fixed one keeps storage across installs",
            );
        }
        out.push(f);
    }
    if gecko.and_then(|g| g.get("data_collection_permissions")).is_none() {
        out.push(
            Finding::new(
                FindingCode::ManifestDataCollectionMissing,
                "no browser_specific_settings.gecko.data_collection_permissions: addons.mozilla.org requires it for new add-ons",
                "add \"data_collection_permissions\": { \"required\": [\"none\"] } under browser_specific_settings.gecko (or list what you collect)",
            )
            .at("browser_specific_settings.gecko.data_collection_permissions"),
        );
    }
}

/// Line and column for a finding about the manifest, from the source positions.
fn locate(f: &mut Finding, source: &SourceManifest, shown: &str, t: Target) {
    if f.line.is_some() || f.file.is_some() {
        return;
    }
    let Some(path) = &f.path else { return };
    if let Some(pos) = source.spans.locate_near(path, Some(t)) {
        f.line = Some(pos.line);
        f.column = Some(pos.column);
    }
    f.file = Some(shown.to_owned());
}

/// What makes two findings the same: code, path, file, message, whether an error.
type MergeKey = (FindingCode, Option<String>, Option<String>, String, bool);

/// One finding per (code, path, file, message); `browsers` lists where it applies unless
/// it applies to every browser checked.
fn merge(all: Vec<(Finding, Option<Target>)>, targets: &[Target]) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut seen: std::collections::HashMap<MergeKey, usize> = std::collections::HashMap::new();
    for (f, t) in all {
        let key = (f.code, f.path.clone(), f.file.clone(), f.message.clone(), f.is_error());
        match (seen.get(&key), t) {
            (Some(&i), Some(t)) => {
                if let Some(g) = out.get_mut(i)
                    && !g.browsers.iter().any(|b| b == t.name)
                {
                    g.browsers.push(t.name.to_owned());
                }
            }
            (Some(_), None) => {}
            (None, t) => {
                let mut f = f;
                f.browsers = t.map(|t| vec![t.name.to_owned()]).unwrap_or_default();
                seen.insert(key, out.len());
                out.push(f);
            }
        }
    }
    for f in &mut out {
        if !f.browsers.is_empty() && targets.iter().all(|t| f.browsers.iter().any(|b| b == t.name)) {
            f.browsers.clear();
        }
    }
    let rank = |s: Severity| match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    };
    out.sort_by_key(|f| (rank(f.severity), f.line.unwrap_or(usize::MAX)));
    out
}

/// Resolves `projectPath` / `manifestPath` arguments: a manifest path's project is the folder
/// above `src/` when the manifest is in one, else its own folder.
pub fn project_of(manifest: &Path) -> PathBuf {
    let dir = manifest.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == "src") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}
