//! Managed browsers: builds webext-mcp downloads into its own cache (`Paths::browsers_dir`)
//! from the vendors' official distribution metadata, for machines that have none (CI,
//! containers) or need a Chrome that still loads unpacked extensions.
//!
//! ```text
//! <browsers_dir>/
//!   .webext-mcp-<browser>.lock     one install or uninstall of a browser at a time (flock)
//!   .staging-<browser>-<pid>/       download + unpack; renamed into place, or removed
//!   <browser>/<version>/            the unpacked build
//!   <browser>/<version>/.webext-mcp-browser.json   its record, written before the rename
//! ```
//!
//! A version folder exists only complete (it appears by rename), so "installed" is "its
//! record is there". Every failure removes the staging folder.

pub mod fetch;
pub mod install;
pub mod unpack;
pub mod vendors;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use vendors::{Managed, Platform};

use crate::lock::{Lock, LockError};

/// The record inside each installed version folder.
pub const RECORD: &str = ".webext-mcp-browser.json";

/// Why a managed-browser operation failed. Messages say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ManagedError {
    /// A URL (the mirror or one the metadata names) that is not fetched.
    #[error("{url}: {reason}")]
    BadUrl { url: String, reason: String },
    /// The `version` argument is not a version.
    #[error("version `{version}` is not accepted; use {accepted}")]
    BadVersion { version: String, accepted: String },
    /// The vendor has no such build (HTTP 404, no such channel or platform).
    #[error("not found: {what}")]
    NotFound { what: String },
    /// A request failed.
    #[error("download failed: {url}: {reason}")]
    Network { url: String, reason: String },
    /// The body ended before its announced length.
    #[error("download of {url} was cut short after {got} bytes{}: {reason}", expected.map(|e| format!(" of {e}")).unwrap_or_default())]
    Truncated { url: String, got: u64, expected: Option<u64>, reason: String },
    /// A hash mismatch, damaged archive or metadata of the wrong shape.
    #[error("integrity check failed: {what}")]
    Integrity { what: String },
    /// An archive entry that would escape the install folder.
    #[error("refused archive entry `{entry}`: {reason}")]
    UnsafeArchive { entry: String, reason: String },
    /// Another process installs or removes the same browser.
    #[error("another process ({holder}) is installing or removing {browser}")]
    Busy { browser: String, holder: String },
    /// The platform or version cannot be installed here.
    #[error("{what}")]
    Unsupported { what: String, hint: String },
    /// Nothing of that browser is installed (uninstall).
    #[error("{what} is not installed in the managed cache")]
    NotInstalled { what: String },
    /// The call was cancelled; nothing was left behind.
    #[error("the install was cancelled; nothing was left behind")]
    Cancelled,
    /// A file-system operation failed.
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
}

/// One installed managed browser, as its record says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub browser: Managed,
    pub version: String,
    pub channel: String,
    /// The program, relative to the version folder.
    pub binary: String,
    pub url: String,
    /// The SHA-512 the vendor published and the download matched; `None` where the vendor
    /// publishes none (Chrome for Testing).
    pub sha512: Option<String>,
    /// How the download was verified, in words.
    pub verified: String,
    pub size_bytes: u64,
    pub installed_at: String,
}

/// A managed browser on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    #[serde(flatten)]
    pub record: Record,
    pub path: PathBuf,
    pub binary_path: PathBuf,
}

/// The folder of one version.
pub fn version_dir(root: &Path, browser: Managed, version: &str) -> PathBuf {
    root.join(browser.name()).join(version)
}

/// Reads the install of one version folder; `None` when it is not a complete install.
pub fn read_installed(dir: &Path) -> Option<Installed> {
    let text = std::fs::read(dir.join(RECORD)).ok()?;
    let record: Record = serde_json::from_slice(&text).ok()?;
    let rel = unpack::safe_relative(&record.binary).ok()?;
    Some(Installed { binary_path: dir.join(rel), path: dir.to_path_buf(), record })
}

/// Every managed browser under `root`, by browser, newest version first.
pub fn list(root: &Path) -> Vec<Installed> {
    let mut out = Vec::new();
    for browser in Managed::ALL {
        let Ok(dirs) = std::fs::read_dir(root.join(browser.name())) else { continue };
        let mut found: Vec<Installed> = dirs
            .flatten()
            .filter_map(|d| read_installed(&d.path()))
            .filter(|i| i.record.browser == browser)
            .collect();
        found.sort_by(|a, b| super::version::compare(&b.record.version, &a.record.version));
        out.extend(found);
    }
    out
}

/// The newest installed version of `browser`: what a session asking for it runs.
pub fn newest(root: &Path, browser: Managed) -> Option<Installed> {
    list(root).into_iter().find(|i| i.record.browser == browser)
}

/// How long a lock taker waits between tries.
const LOCK_POLL: Duration = Duration::from_millis(200);

/// Takes the browser's lock in the cache, waiting up to `wait` while another process holds
/// it (`report` hears who); then `BUSY`.
pub fn lock(
    root: &Path,
    browser: Managed,
    wait: Duration,
    report: &mut dyn FnMut(&str),
) -> Result<Lock, ManagedError> {
    let deadline = std::time::Instant::now() + wait;
    let mut told = false;
    loop {
        match Lock::acquire(root, browser.name(), None) {
            Ok(lock) => return Ok(lock),
            Err(LockError::Busy { holder, .. }) => {
                let holder = holder.map(|h| h.to_string()).unwrap_or_else(|| "unknown process".to_owned());
                if std::time::Instant::now() >= deadline {
                    return Err(ManagedError::Busy { browser: browser.name().to_owned(), holder });
                }
                if !told {
                    report(&format!("waiting for {holder}, which is installing {}", browser.name()));
                    told = true;
                }
                std::thread::sleep(LOCK_POLL);
            }
            Err(LockError::Io { path, source }) => {
                return Err(ManagedError::Io { what: format!("locking {}", path.display()), source });
            }
        }
    }
}

/// What `uninstall` removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    pub browser: Managed,
    pub versions: Vec<String>,
    pub freed_bytes: u64,
}

/// Removes one version of a managed browser, or all of them, under its lock.
pub fn uninstall(
    root: &Path,
    browser: Managed,
    version: Option<&str>,
    wait: Duration,
) -> Result<Removed, ManagedError> {
    let _lock = lock(root, browser, wait, &mut |_| {})?;
    let victims: Vec<Installed> = list(root)
        .into_iter()
        .filter(|i| i.record.browser == browser && version.is_none_or(|v| i.record.version == v))
        .collect();
    if victims.is_empty() {
        let what = match version {
            Some(v) => format!("{} {v}", browser.name()),
            None => browser.name().to_owned(),
        };
        return Err(ManagedError::NotInstalled { what });
    }
    let mut removed = Removed { browser, versions: Vec::new(), freed_bytes: 0 };
    for v in victims {
        std::fs::remove_dir_all(&v.path)
            .map_err(|source| ManagedError::Io { what: format!("removing {}", v.path.display()), source })?;
        removed.freed_bytes += v.record.size_bytes;
        removed.versions.push(v.record.version);
    }
    let _ = std::fs::remove_dir(root.join(browser.name()));
    Ok(removed)
}

/// The size of a folder's files (not following links).
pub fn size_of(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}

/// A session's `browser` that names a managed browser and no catalog browser
/// (`chrome-for-testing`): its newest installed build, or `NOT_INSTALLED` naming the
/// `extension_install_browser` call that installs it. `None` for every other name.
pub fn for_session(
    name: Option<&str>,
    root: &Path,
) -> Option<Result<Installed, webext_mcp_host::protocol::ErrorBody>> {
    let name = name?.trim();
    let managed = Managed::named(name).filter(|_| super::browser(name).is_none())?;
    Some(newest(root, managed).ok_or_else(|| {
        let args = super::survey::install_arguments(managed);
        webext_mcp_host::protocol::ErrorBody::new(
            webext_mcp_host::protocol::ErrorCode::NotInstalled,
            format!("{} is not installed in webext-mcp's browser cache ({})", managed.name(), root.display()),
        )
        .with_hint(format!(
            "install it: extension_install_browser with {args} (CLI: webext-mcp browsers install {})",
            managed.name()
        ))
    }))
}

/// The managed build a session falls back to when the system has no browser for `name`:
/// the newest managed build of that name (`chromium`), or with no name the newest Chrome for
/// Testing, else Chromium snapshot.
pub fn fallback(name: Option<&str>, root: &Path) -> Option<Installed> {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => newest(root, Managed::named(n)?),
        None => [Managed::ChromeForTesting, Managed::Chromium].into_iter().find_map(|m| newest(root, m)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plant(root: &Path, browser: Managed, version: &str) {
        let dir = version_dir(root, browser, version);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/b"), "").unwrap();
        let record = Record {
            browser,
            version: version.into(),
            channel: "stable".into(),
            binary: "bin/b".into(),
            url: String::new(),
            sha512: None,
            verified: String::new(),
            size_bytes: 0,
            installed_at: String::new(),
        };
        std::fs::write(dir.join(RECORD), serde_json::to_vec(&record).unwrap()).unwrap();
    }

    #[test]
    fn sessions_take_the_newest_build_and_fall_back_only_to_managed_chromium_engines() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        assert!(fallback(None, r).is_none());
        assert_eq!(
            for_session(Some("chrome-for-testing"), r).unwrap().unwrap_err().code.as_str(),
            "NOT_INSTALLED"
        );
        assert!(for_session(Some("chromium"), r).is_none(), "a catalog name is the system's first");
        let esr = for_session(Some("firefox-esr"), r).unwrap().unwrap_err();
        assert!(esr.hint.unwrap().contains(r#"extension_install_browser with {"browser":"firefox-esr"}"#));
        plant(r, Managed::Chromium, "1496484");
        assert_eq!(fallback(None, r).unwrap().record.browser, Managed::Chromium);
        assert_eq!(fallback(Some("chromium"), r).unwrap().record.version, "1496484");
        plant(r, Managed::ChromeForTesting, "9.0.1.2");
        plant(r, Managed::ChromeForTesting, "10.0.1.2");
        assert_eq!(fallback(None, r).unwrap().record.version, "10.0.1.2", "newest, compared as numbers");
        assert_eq!(for_session(Some(" chrome-for-testing "), r).unwrap().unwrap().record.version, "10.0.1.2");
        assert!(fallback(Some("edge"), r).is_none());
        // A folder without its record is no install.
        std::fs::create_dir_all(version_dir(r, Managed::ChromeForTesting, "11.0.0.0")).unwrap();
        assert_eq!(newest(r, Managed::ChromeForTesting).unwrap().record.version, "10.0.1.2");
    }
}
