//! The manifest engine: parse `manifest.json` (comments allowed), resolve it per browser
//! exactly as Extension.js 4.1 does, and list what it references. A pure library; the only
//! I/O is [`load`], which reads a project's manifest and default-locale messages.
//!
//! ```text
//!  manifest.json ──parse_jsonc──▶ Json ──resolve(target)──▶ Resolved ──file_refs──▶ [FileRef]
//!                     │                                         │
//!                     └─ SyntaxError → MANIFEST_JSON finding    └─ findings (MANIFEST_*)
//! ```
//!
//! Used by the build (`crate::build`), and meant for the catalog, the validator, dev sessions
//! and add-feature.

pub mod edit;
pub mod findings;
pub mod json;
pub mod locale;
pub mod mv2;
pub mod object;
mod pretty;
pub mod refs;
pub mod resolve;
pub mod rules;
pub mod spans;
pub mod target;

use std::path::{Path, PathBuf};

pub use findings::{Finding, FindingCode, Severity};
pub use json::{Json, SyntaxError, parse_jsonc, parse_jsonc_spanned};
pub use locale::{Messages, sanitize_file_stem, substitute};
pub use object::Object;
pub use refs::{FileRef, RefKind, file_refs, is_external};
pub use resolve::{Resolved, resolve, resolve_keys};
pub use spans::{Lenient, Pos, Spans};
pub use target::{Target, UnknownTarget, parse_targets};

/// A project's manifest as read from disk, before resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceManifest {
    /// The file read (`src/manifest.json` or `manifest.json`).
    pub path: PathBuf,
    /// The extension root: the folder holding the manifest; referenced paths are relative to it.
    pub root: PathBuf,
    pub json: Json,
    /// Where each key is in the file, duplicate keys, comments.
    pub spans: Spans,
    /// The `_locales/` folder the extension ships: the project root's when it has one (next
    /// to `package.json`, the manifest in `src/`), else the one beside the manifest — the
    /// order Extension.js 4.1 looks in. `root/_locales` when neither exists.
    pub locales: PathBuf,
    /// The default locale's messages, when `default_locale` is set and they could be read.
    pub messages: Option<Messages>,
    /// Problems met while loading (a missing or broken default locale).
    pub findings: Vec<Finding>,
}

/// Where Extension.js looks for the manifest: `src/manifest.json`, then `manifest.json`.
pub fn find_manifest(project: &Path) -> Option<PathBuf> {
    [project.join("src").join("manifest.json"), project.join("manifest.json")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Largest `manifest.json` or `messages.json` read: real ones are a few KB, and a hostile
/// project must not make us parse (or hold) gigabytes.
pub const MAX_JSON_BYTES: u64 = 1024 * 1024;

/// Reads `path` when it is at most `cap` bytes; `Ok(None)` when it is larger. Reads at most
/// `cap + 1` bytes, so a special file (a FIFO, `/dev/zero` behind a link) cannot make it
/// read forever or exhaust memory.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

/// Reads and parses the project's manifest and its default-locale messages. A missing or
/// unparsable manifest is a blocking finding (`MANIFEST_NOT_FOUND`, `MANIFEST_TOO_LARGE`,
/// `MANIFEST_JSON` with line and column, `MANIFEST_SHAPE`), boxed because a finding is large.
pub fn load(project: &Path) -> Result<SourceManifest, Box<Finding>> {
    let Some(path) = find_manifest(project) else {
        return Err(Box::new(Finding::new(
            FindingCode::ManifestNotFound,
            format!("no manifest.json in {} or its src/ folder", project.display()),
            "pass the extension project's root folder, or create manifest.json there (webext-mcp can scaffold one)",
        )));
    };
    load_at(project, &path)
}

/// [`load`] for a manifest file named by the caller (`manifestPath`).
pub fn load_at(project: &Path, path: &Path) -> Result<SourceManifest, Box<Finding>> {
    let path = path.to_path_buf();
    let rel = path.strip_prefix(project).unwrap_or(&path).to_string_lossy().into_owned();
    let bytes = match read_capped(&path, MAX_JSON_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Err(Box::new(
                Finding::new(
                    FindingCode::ManifestTooLarge,
                    format!("{rel} is larger than 1 MiB, so it is not read (real manifests are a few KB)"),
                    "remove the data that made it this large; rule sets and data belong in their own files",
                )
                .in_file(rel),
            ));
        }
        Err(e) => {
            return Err(Box::new(
                Finding::new(
                    FindingCode::ManifestNotFound,
                    format!("cannot read {rel}: {e}"),
                    "check that it is a regular file you can read",
                )
                .in_file(rel),
            ));
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let (json, spans) = parse_jsonc_spanned(&text).map_err(|e| {
        Box::new(
            Finding::new(
                FindingCode::ManifestJson,
                format!("{rel} is not valid JSON: {e}"),
                format!(
                    "fix the syntax at line {}, column {} (comments are allowed, quotes must be double)",
                    e.line, e.column
                ),
            )
            .in_file(rel.clone())
            .at_position(e.line, e.column),
        )
    })?;
    if json.as_object().is_none() {
        return Err(Box::new(
            Finding::new(
                FindingCode::ManifestShape,
                format!("{rel} must hold a JSON object"),
                "wrap the manifest in { … } with manifest_version, name and version",
            )
            .in_file(rel),
        ));
    }
    let root = path.parent().map(Path::to_path_buf).unwrap_or_else(|| project.to_path_buf());
    let mut findings = Vec::new();
    if std::str::from_utf8(&bytes).is_err() {
        findings.push(
            Finding::new(
                FindingCode::ManifestJson,
                format!("{rel} is not UTF-8: browsers refuse it"),
                "save the file as UTF-8",
            )
            .in_file(rel.clone()),
        );
    }
    let locales = locales_dir(project, &root);
    let messages = match json.get("default_locale").and_then(Json::as_str) {
        Some(locale) => load_messages(&locales, locale, &mut findings),
        None => None,
    };
    Ok(SourceManifest { path, root, locales, json, spans, messages, findings })
}

/// Where the extension's `_locales/` is: the project root's first, then the manifest
/// folder's (Extension.js 4.1 `resolveLocalesFolder` looks in this order).
pub fn locales_dir(project: &Path, root: &Path) -> PathBuf {
    let at_project = project.join("_locales");
    if at_project.is_dir() { at_project } else { root.join("_locales") }
}

fn load_messages(locales: &Path, locale: &str, findings: &mut Vec<Finding>) -> Option<Messages> {
    let rel = format!("_locales/{locale}/messages.json");
    let missing = |msg: String| {
        Finding::new(
            FindingCode::ManifestLocaleMissing,
            msg,
            format!("create {rel} or remove default_locale (browsers refuse the extension otherwise)"),
        )
        .at("default_locale")
        .in_file(rel.clone())
    };
    match read_capped(&locales.join(locale).join("messages.json"), MAX_JSON_BYTES) {
        Ok(None) => {
            findings.push(
                Finding::new(
                    FindingCode::ManifestTooLarge,
                    format!("{rel} is larger than 1 MiB, so it is not read"),
                    "split the messages or remove unused ones",
                )
                .in_file(rel.clone()),
            );
            None
        }
        Ok(Some(bytes)) => match Messages::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(m) => Some(m),
            Err(e) => {
                findings.push(missing(format!("{rel} is not valid JSON: {e}")).at_position(e.line, e.column));
                None
            }
        },
        Err(_) => {
            findings.push(missing(format!("default_locale is `{locale}` but {rel} does not exist")));
            None
        }
    }
}
