//! `install` and `uninstall`: register this binary as the native-messaging host of every
//! detected browser and unpack the helper extension it carries.
//!
//! ```text
//! Request ──plan()──▶ Plan (pure: locations, manifest texts, helper files, what exists)
//!                      │ dry run: reported as is
//!                      ▼
//!                 execute(): every write journaled; a failure undoes the journal, so an
//!                 install is complete or absent. The record (`<data dir>/install.json`) lists
//!                 each file written (with what it replaced) and each directory created.
//! uninstall(): reads the record, removes exactly those files (restoring replaced ones) and
//!              the directories it created when they are empty.
//! ```
//!
//! A browser is "detected" when its config dir exists; `--browser` forces one. Linux and
//! macOS write manifest files; Windows writes them into the data dir and points the HKCU
//! registry keys of [`locations::registry_keys`] at them.

mod journal;
mod record;
mod registry;
mod report;
pub mod safety;
mod uninstall;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, HELPER_GECKO_ID, NATIVE_HOST_NAME};

use crate::browsers::{ChannelId, Engine};
use crate::helper;
use crate::paths::{Env, Paths};

use crate::browsers::locations;
pub use crate::browsers::locations::{Location, Os, Roots};
use journal::Journal;
use record::RECORD_VERSION;
pub use record::{RECORD_FILE, Record, RecordedFile, read_record};
pub use report::{
    BrowserEntry, FileWrite, InstallReport, RegistryWrite, Skipped, UninstallReport, install_text,
    uninstall_text,
};
pub use uninstall::uninstall;
use webext_mcp_host::digest::sha256_hex;

const CHROMIUM_TEMPLATE: &str = include_str!("../../../manifests/chromium.json");
const GECKO_TEMPLATE: &str = include_str!("../../../manifests/gecko.json");

/// Why `install` or `uninstall` could not do its work. Nothing is left half-written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A `--browser` value names no known browser.
    #[error("{0}")]
    UnknownBrowser(String),
    /// This binary carries no helper for a family it must install.
    #[error(transparent)]
    NotEmbedded(#[from] helper::HelperError),
    /// The host path cannot go into a manifest.
    #[error("the host path {} cannot be used: {reason}", path.display())]
    BadBinary { path: PathBuf, reason: String },
    /// A file or directory could not be read or written.
    #[error("{action} {}: {source}", path.display())]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    /// An existing file at a manifest location is not text, so it cannot be kept for
    /// `uninstall` to restore.
    #[error("{} exists and is not a UTF-8 text file", path.display())]
    ForeignFile { path: PathBuf },
    /// The install record is not the JSON `install` writes.
    #[error("the install record {} is unreadable: {reason}", path.display())]
    BadRecord { path: PathBuf, reason: String },
    /// A Windows registry operation failed.
    #[error("registry key HKCU\\{key}: {reason}")]
    Registry { key: String, reason: String },
    /// The binary, or a directory on its path, could be replaced by another user.
    #[error("refusing to register the host: {}", .0.message())]
    UnsafeBinary(Box<safety::Unsafe>),
}

pub(super) fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> InstallError + 'a {
    move |source| InstallError::Io { action, path: path.to_path_buf(), source }
}

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `--browser`: install for these even when their config dir is missing.
    pub browsers: Option<Vec<ChannelId>>,
    /// List what would be written, write nothing.
    pub dry_run: bool,
}

/// The environment an install runs in: injected so tests and `--home` never touch the real
/// home, and so every platform's plan can be computed anywhere.
#[derive(Debug, Clone)]
pub struct Setup {
    pub paths: Paths,
    pub os: Os,
    pub roots: Roots,
    /// The binary the manifests point at (normally this process's executable).
    pub binary: PathBuf,
}

impl Setup {
    /// The setup of this process for `paths` (which `--home` may have moved).
    pub fn current(paths: &Paths, env: &Env) -> Result<Setup, InstallError> {
        let binary = std::env::current_exe().map_err(|e| InstallError::BadBinary {
            path: PathBuf::from("webext-mcp"),
            reason: format!("cannot locate the running executable: {e}"),
        })?;
        Ok(Setup::new(paths, env, Os::current(), binary))
    }

    pub fn new(paths: &Paths, env: &Env, os: Os, binary: PathBuf) -> Setup {
        let roots = Roots::of(&paths.home, env, &paths.data_dir);
        Setup { paths: paths.clone(), os, roots, binary }
    }

    pub fn record_path(&self) -> PathBuf {
        self.paths.data_dir.join(RECORD_FILE)
    }

    /// Where the helper for `family` is unpacked.
    pub fn helper_dir(&self, family: Engine) -> PathBuf {
        self.paths.helper_dir.join(family.name())
    }

    /// The Firefox xpi written next to the unpacked helper.
    pub fn xpi_path(&self) -> PathBuf {
        self.paths.helper_dir.join(format!("{HELPER_GECKO_ID}.xpi"))
    }
}

/// The host manifest text for `family` pointing at `binary` (from `manifests/`).
pub fn render_manifest(family: Engine, binary: &Path) -> Result<String, InstallError> {
    let bad =
        |reason: &str| InstallError::BadBinary { path: binary.to_path_buf(), reason: reason.to_owned() };
    if !binary.is_absolute() {
        return Err(bad("browsers need an absolute path"));
    }
    let path = binary.to_str().ok_or_else(|| bad("it is not valid UTF-8"))?;
    // The path goes into a JSON string: escape it as JSON does.
    let quoted = serde_json::to_string(path).map_err(|e| bad(&e.to_string()))?;
    let escaped = &quoted[1..quoted.len() - 1];
    let template = match family {
        Engine::Chromium => CHROMIUM_TEMPLATE,
        Engine::Gecko => GECKO_TEMPLATE,
    };
    Ok(template
        .replace("@NAME@", NATIVE_HOST_NAME)
        .replace("@PATH@", escaped)
        .replace("@CHROMIUM_ID@", HELPER_CHROMIUM_ID)
        .replace("@GECKO_ID@", HELPER_GECKO_ID))
}

fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, InstallError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("cannot read", path)(e)),
    }
}

fn file_write(path: PathBuf, kind: &'static str, bytes: Vec<u8>) -> Result<FileWrite, InstallError> {
    let existing = read_existing(&path)?;
    let action = match &existing {
        None => "create",
        Some(old) if *old == bytes => "unchanged",
        Some(_) => "replace",
    };
    Ok(FileWrite { path, kind, action, bytes, existing })
}

/// The next steps a user takes for `target` after install.
pub fn next_steps(target: ChannelId, helper_dir: &Path, xpi: &Path) -> Vec<String> {
    let scheme = target.entry().0.extensions_page;
    let doctor = "run `webext-mcp doctor` to confirm the helper connected".to_owned();
    match target.engine() {
        Engine::Chromium => vec![
            format!("open {scheme} in {}", target.display_name()),
            "turn on Developer mode (top right)".to_owned(),
            format!(
                "click \"Load unpacked\" and choose {} (the helper keeps the id {HELPER_CHROMIUM_ID})",
                helper_dir.display()
            ),
            doctor,
        ],
        Engine::Gecko => {
            let unsigned = format!(
                "set xpinstall.signatures.required to false in about:config, then about:addons → gear → \"Install Add-on From File…\" → {}",
                xpi.display()
            );
            match target {
                ChannelId::Librewolf => vec![unsigned, doctor],
                _ => vec![
                    format!(
                        "{} release needs the AMO-signed helper xpi ({HELPER_GECKO_ID}), published with each webext-mcp release; install it from about:addons → \"Install Add-on From File…\"",
                        target.display_name()
                    ),
                    format!("Firefox ESR, Developer Edition and Nightly accept the unsigned xpi: {unsigned}"),
                    doctor,
                ],
            }
        }
    }
}

/// Every file `family`'s helper consists of, under its unpack dir.
fn helper_writes(setup: &Setup, family: Engine) -> Result<Vec<FileWrite>, InstallError> {
    if !helper::is_embedded(family) {
        return Err(helper::HelperError::NotEmbedded { family }.into());
    }
    let dir = setup.helper_dir(family);
    helper::files(family)
        .map(|(rel, bytes)| {
            let path = rel.split('/').fold(dir.clone(), |p, part| p.join(part));
            file_write(path, "helper", bytes.to_vec())
        })
        .collect()
}

/// The Firefox helper as an xpi (a zip with `manifest.json` at its root), byte-stable.
pub fn helper_xpi() -> Result<Vec<u8>, InstallError> {
    use std::io::Write as _;
    use zip::write::SimpleFileOptions;
    let fail = |e: &dyn std::fmt::Display| InstallError::Io {
        action: "cannot build",
        path: PathBuf::from(format!("{HELPER_GECKO_ID}.xpi")),
        source: std::io::Error::other(e.to_string()),
    };
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    for (rel, bytes) in helper::files(Engine::Gecko) {
        zip.start_file(rel, options).map_err(|e| fail(&e))?;
        zip.write_all(bytes).map_err(|e| fail(&e))?;
    }
    let cursor = zip.finish().map_err(|e| fail(&e))?;
    Ok(cursor.into_inner())
}

/// Decides what install writes. Reads the file system, writes nothing.
pub fn plan(setup: &Setup, request: &Request) -> Result<InstallReport, InstallError> {
    let forced: BTreeSet<ChannelId> = request.browsers.iter().flatten().copied().collect();
    let mut browsers = Vec::new();
    // The engine of each entry of `browsers`, kept beside it rather than read back from its
    // report word.
    let mut engines: Vec<Engine> = Vec::new();
    let mut skipped = Vec::new();
    for target in ChannelId::ALL {
        let Some(location) = locations::location(target, setup.os, &setup.roots) else {
            if forced.contains(&target) {
                let reason = format!("no known per-user native-messaging location on {:?}", setup.os);
                skipped.push(Skipped { id: target.id(), name: target.display_name(), reason });
            }
            continue;
        };
        let detected = location.config_dir.is_dir();
        let wanted = if forced.is_empty() { detected } else { forced.contains(&target) };
        if !wanted {
            let reason = if detected {
                "not named by --browser".to_owned()
            } else {
                format!("not detected: {} does not exist", location.config_dir.display())
            };
            skipped.push(Skipped { id: target.id(), name: target.display_name(), reason });
            continue;
        }
        let helper_dir = setup.helper_dir(target.engine());
        let xpi = setup.xpi_path();
        let helper = if target.engine() == Engine::Gecko { xpi.clone() } else { helper_dir.clone() };
        engines.push(target.engine());
        browsers.push(BrowserEntry {
            id: target.id(),
            name: target.display_name(),
            family: target.engine().name(),
            detected,
            next_steps: next_steps(target, &helper_dir, &xpi),
            location,
            helper,
        });
    }
    let mut writes: Vec<FileWrite> = Vec::new();
    let mut registry = Vec::new();
    let families: Vec<Engine> =
        [Engine::Chromium, Engine::Gecko].into_iter().filter(|f| engines.contains(f)).collect();
    for (b, &family) in browsers.iter().zip(&engines) {
        if !writes.iter().any(|w| w.path == b.location.manifest) {
            let text = render_manifest(family, &setup.binary)?;
            writes.push(file_write(b.location.manifest.clone(), "manifest", text.into_bytes())?);
        }
        for key in &b.location.registry_keys {
            if !registry.iter().any(|r: &RegistryWrite| r.key == *key) {
                let value = b.location.manifest.display().to_string();
                registry.push(RegistryWrite { key: key.clone(), value, previous: None });
            }
        }
    }
    for family in [Engine::Chromium, Engine::Gecko] {
        if families.contains(&family) {
            writes.extend(helper_writes(setup, family)?);
        }
    }
    if families.contains(&Engine::Gecko) {
        writes.push(file_write(setup.xpi_path(), "xpi", helper_xpi()?)?);
    }
    let record = (!browsers.is_empty()).then(|| setup.record_path());
    Ok(InstallReport {
        dry_run: request.dry_run,
        os: setup.os,
        binary: setup.binary.clone(),
        browsers,
        skipped,
        writes,
        registry,
        record,
    })
}

/// Refuses a binary that another local user could replace ([`safety`]).
pub fn check_binary(binary: &Path) -> Result<(), InstallError> {
    safety::check_binary(binary).map_err(|e| match e {
        safety::CheckError::Unsafe(u) => InstallError::UnsafeBinary(u),
        safety::CheckError::Unreadable { path, source } => {
            InstallError::Io { action: "cannot check", path, source }
        }
    })
}

/// Runs install: plans, then (unless `dry_run`) writes everything or nothing. A binary others
/// could replace is refused before anything is written (a dry run says so too).
pub fn install(setup: &Setup, request: &Request) -> Result<InstallReport, InstallError> {
    let mut report = plan(setup, request)?;
    if report.browsers.is_empty() {
        return Ok(report);
    }
    check_binary(&setup.binary)?;
    if report.dry_run {
        return Ok(report);
    }
    let record_path = setup.record_path();
    let previous = read_record(&record_path)?.unwrap_or_default();
    let prior: BTreeMap<&Path, &RecordedFile> =
        previous.files.iter().map(|f| (f.path.as_path(), f)).collect();
    let mut files: BTreeMap<PathBuf, RecordedFile> =
        previous.files.iter().map(|f| (f.path.clone(), f.clone())).collect();
    let mut dirs: Vec<PathBuf> = previous.dirs.clone();
    let mut registry_record = previous.registry.clone();
    let mut journal = Journal::new();
    let result = (|| -> Result<(), InstallError> {
        // Files of an older helper that the new one no longer has.
        let unpacked: BTreeSet<&Path> = report.writes.iter().map(|w| w.path.as_path()).collect();
        for family in [Engine::Chromium, Engine::Gecko] {
            let dir = setup.helper_dir(family);
            if !report.writes.iter().any(|w| w.kind == "helper" && w.path.starts_with(&dir)) {
                continue;
            }
            for old in previous
                .files
                .iter()
                .filter(|f| f.path.starts_with(&dir) && !unpacked.contains(f.path.as_path()))
            {
                if let Some(bytes) = read_existing(&old.path)? {
                    std::fs::remove_file(&old.path).map_err(io("cannot remove", &old.path))?;
                    journal.removed(old.path.clone(), bytes);
                }
                files.remove(&old.path);
            }
        }
        for w in &report.writes {
            if let Some(parent) = w.path.parent() {
                for d in journal.create_dirs(parent)? {
                    if !dirs.contains(&d) {
                        dirs.push(d);
                    }
                }
            }
            let previous_text = match (prior.get(w.path.as_path()), &w.existing) {
                (Some(rec), _) => rec.previous.clone(),
                (None, Some(old)) => Some(
                    String::from_utf8(old.clone())
                        .map_err(|_| InstallError::ForeignFile { path: w.path.clone() })?,
                ),
                (None, None) => None,
            };
            if w.action != "unchanged" {
                journal.write(w)?;
            }
            files.insert(
                w.path.clone(),
                RecordedFile { path: w.path.clone(), sha256: sha256_hex(&w.bytes), previous: previous_text },
            );
        }
        for r in &mut report.registry {
            let recorded = registry_record.iter().find(|x| x.key == r.key).cloned();
            r.previous = match recorded {
                Some(rec) => rec.previous,
                None => registry::read_default(&r.key)?,
            };
            registry::write_default(&r.key, &r.value)?;
            journal.registry(r.clone());
            registry_record.retain(|x| x.key != r.key);
            registry_record.push(r.clone());
        }
        if let Some(parent) = record_path.parent() {
            for d in journal.create_dirs(parent)? {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
        let record = Record {
            version: RECORD_VERSION,
            binary: setup.binary.clone(),
            files: files.into_values().collect(),
            dirs,
            registry: registry_record,
        };
        let text = serde_json::to_vec_pretty(&record)
            .map_err(|e| InstallError::BadRecord { path: record_path.clone(), reason: e.to_string() })?;
        let w = file_write(record_path.clone(), "record", text)?;
        journal.write(&w)?;
        Ok(())
    })();
    match result {
        Ok(()) => Ok(report),
        Err(e) => {
            journal.rollback();
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn manifests_render_from_the_templates() {
        let c: Value = serde_json::from_str(
            &render_manifest(Engine::Chromium, Path::new("/opt/w \"x\"/webext-mcp")).unwrap(),
        )
        .unwrap();
        assert_eq!(c["name"], NATIVE_HOST_NAME);
        assert_eq!(c["path"], "/opt/w \"x\"/webext-mcp");
        assert_eq!(c["type"], "stdio");
        assert_eq!(c["allowed_origins"], json!([format!("chrome-extension://{HELPER_CHROMIUM_ID}/")]));
        assert!(c.get("allowed_extensions").is_none());
        let g: Value =
            serde_json::from_str(&render_manifest(Engine::Gecko, Path::new("/b/webext-mcp")).unwrap())
                .unwrap();
        assert_eq!(g["allowed_extensions"], json!([HELPER_GECKO_ID]));
        assert!(g.get("allowed_origins").is_none());
        assert!(render_manifest(Engine::Gecko, Path::new("rel/webext-mcp")).is_err());
    }

    #[test]
    fn next_steps_name_the_page_and_the_directory() {
        let steps = next_steps(ChannelId::Edge, Path::new("/d/helper/chromium"), Path::new("/d/x.xpi"));
        assert!(steps[0].contains("edge://extensions"));
        assert!(steps.iter().any(|s| s.contains("Load unpacked") && s.contains("/d/helper/chromium")));
        let ff = next_steps(ChannelId::Firefox, Path::new("/d/helper/firefox"), Path::new("/d/x.xpi"));
        assert!(ff[0].contains("signed"), "{ff:?}");
        assert!(ff.iter().any(|s| s.contains("/d/x.xpi") && s.contains("xpinstall.signatures.required")));
        let lw = next_steps(ChannelId::Librewolf, Path::new("/d"), Path::new("/d/x.xpi"));
        assert!(!lw[0].contains("signed xpi"), "{lw:?}");
    }

    #[test]
    fn a_windows_plan_points_registry_keys_at_manifests_in_the_data_dir() {
        let home = tempfile::tempdir().unwrap();
        let env = Env::from_pairs([("LOCALAPPDATA", "/nowhere/local")], 1);
        let paths = Paths::for_home(home.path(), &env);
        let setup = Setup::new(&paths, &env, Os::Windows, PathBuf::from("/opt/webext-mcp.exe"));
        let request = Request {
            browsers: Some(vec![ChannelId::Brave, ChannelId::Firefox, ChannelId::ChromiumSnap]),
            dry_run: true,
        };
        let Ok(report) = plan(&setup, &request) else {
            // A binary without the embedded helper cannot plan an install at all.
            assert!(!helper::is_embedded(Engine::Chromium));
            return;
        };
        let keys: Vec<&str> = report.registry.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.webext_mcp.bridge",
                r"Software\Google\Chrome\NativeMessagingHosts\dev.webext_mcp.bridge",
                r"Software\Mozilla\NativeMessagingHosts\dev.webext_mcp.bridge",
            ]
        );
        for r in &report.registry {
            assert!(Path::new(&r.value).starts_with(&paths.data_dir), "{r:?}");
        }
        let manifests = report.writes.iter().filter(|w| w.kind == "manifest").count();
        assert_eq!(manifests, 2, "one manifest per family");
        assert!(report.browsers.iter().all(|b| !b.detected));
        let snap = report.skipped.iter().find(|s| s.id == "chromium-snap").unwrap();
        assert!(snap.reason.contains("Windows"), "{snap:?}");
    }

    #[test]
    fn xpi_is_stable_and_has_the_manifest_at_its_root() {
        if !helper::is_embedded(Engine::Gecko) {
            return;
        }
        let a = helper_xpi().unwrap();
        assert_eq!(a, helper_xpi().unwrap());
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(a)).unwrap();
        assert!(zip.by_name("manifest.json").is_ok());
        assert_eq!(zip.len(), helper::files(Engine::Gecko).count());
    }
}
