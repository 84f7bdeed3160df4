//! Installing one managed browser:
//!
//! ```text
//! exact version installed? ─yes─▶ no-op (no network)
//!   │ lock <browser> in the cache (wait, then BUSY)
//!   ▼
//! vendor metadata ─▶ release (version, URL, SHA512SUMS) ─▶ installed? ─yes─▶ no-op
//!   │ .dmg / Windows installer ─▶ the vendor's step, nothing unpacked
//!   ▼
//! download into .staging-… (SHA-512 on the fly, length checked) ─▶ hash = SHA512SUMS? else INTEGRITY
//!   ▼
//! unpack safely ─▶ program there? ─▶ record ─▶ rename to <browser>/<version>/ ─▶ staging removed
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::fetch::{self, Http};
use super::vendors::{self, Archive, Managed, Platform, Release, Wanted, via_mirror};
use super::{ManagedError, RECORD, Record, read_installed, size_of, unpack, version_dir};
use crate::paths::is_executable;

/// What to install.
#[derive(Debug, Clone)]
pub struct Request {
    pub browser: Managed,
    pub version: Wanted,
    pub platform: Platform,
    /// `browsers.mirror`: a base URL that replaces the vendors' hosts.
    pub mirror: Option<String>,
    /// How long to wait for another install of the same browser.
    pub wait: Duration,
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Installed,
    /// The version was there already: nothing was downloaded.
    AlreadyInstalled,
    /// This platform's build is an installer (macOS `.dmg`, Windows setup): follow `steps`.
    Manual,
}

/// The result of an install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub status: Status,
    pub browser: Managed,
    pub version: String,
    pub channel: String,
    /// The installed folder and program (not for [`Status::Manual`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_path: Option<PathBuf>,
    /// The URL the build came (or comes) from.
    pub url: String,
    /// How the download was verified, in words.
    pub verified: String,
    pub sha512: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
}

/// What Chrome for Testing's downloads are checked with, since Google publishes no hashes.
pub const NO_VENDOR_HASH: &str = "no vendor hash exists (Chrome for Testing and Chromium snapshots publish none): checked HTTPS from the configured base, the announced size and the zip's CRCs";

impl Outcome {
    fn from_installed(status: Status, i: super::Installed) -> Outcome {
        let r = i.record;
        Outcome {
            status,
            browser: r.browser,
            version: r.version,
            channel: r.channel,
            path: Some(i.path),
            binary_path: Some(i.binary_path),
            url: r.url,
            verified: r.verified,
            sha512: r.sha512,
            size_bytes: Some(r.size_bytes),
            steps: Vec::new(),
        }
    }
}

/// Removes the staging folder unless the install completed.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn installed(root: &Path, browser: Managed, version: &str) -> Option<super::Installed> {
    read_installed(&version_dir(root, browser, version))
        .filter(|i| i.record.browser == browser && is_executable(&i.binary_path))
}

/// Finds the release `request` names in the vendor's metadata.
pub fn resolve(http: &Http, request: &Request) -> Result<Release, ManagedError> {
    let mirror = request.mirror.as_deref();
    match request.browser {
        Managed::ChromeForTesting => {
            let doc = http.document(&via_mirror(mirror, &vendors::cft_metadata_url(&request.version)))?;
            vendors::cft_release(&doc, &request.version, request.platform)
        }
        Managed::Chromium => {
            let revision = match &request.version {
                Wanted::Exact(r) => r.clone(),
                Wanted::Channel(_) => {
                    let url = vendors::snapshot_last_change_url(request.platform);
                    vendors::snapshot_revision(&http.document(&via_mirror(mirror, &url))?)?
                }
            };
            vendors::snapshot_release(&revision, request.platform)
        }
        browser => {
            let (version, channel) = match &request.version {
                Wanted::Exact(v) => (v.clone(), browser.default_channel().to_owned()),
                Wanted::Channel(c) => {
                    let doc = http.document(&via_mirror(mirror, vendors::PRODUCT_DETAILS))?;
                    (vendors::mozilla_version(&doc, browser)?, c.clone())
                }
            };
            vendors::mozilla_release(browser, &version, &channel, request.platform)
        }
    }
}

/// The SHA-512 the vendor publishes for `release`, if it publishes any.
fn published_hash(
    http: &Http,
    release: &Release,
    mirror: Option<&str>,
) -> Result<Option<String>, ManagedError> {
    let (Some(url), Some(name)) = (&release.sums_url, &release.sums_name) else { return Ok(None) };
    let sums = http.document(&via_mirror(mirror, url))?;
    let sums = String::from_utf8_lossy(&sums);
    vendors::sha512_for(&sums, name)
        .map(Some)
        .ok_or_else(|| ManagedError::Integrity { what: format!("{url} lists no SHA-512 for {name}") })
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// Installs `request` into the cache at `root`. `report` hears progress lines; `cancelled`
/// is polled while downloading.
pub fn install(
    root: &Path,
    request: &Request,
    http: &Http,
    report: &mut dyn FnMut(&str),
    cancelled: &dyn Fn() -> bool,
) -> Result<Outcome, ManagedError> {
    let browser = request.browser;
    let mirror = request.mirror.as_deref();
    if let Some(m) = mirror {
        fetch::check_url(m)?;
    }
    if let Wanted::Exact(v) = &request.version
        && let Some(i) = installed(root, browser, v)
    {
        return Ok(Outcome::from_installed(Status::AlreadyInstalled, i));
    }
    let io = |what: String| move |source| ManagedError::Io { what, source };
    std::fs::create_dir_all(root).map_err(io(format!("creating {}", root.display())))?;
    let _lock = super::lock(root, browser, request.wait, report)?;
    report(&format!("reading {}'s release metadata", browser.name()));
    let release = resolve(http, request)?;
    if let Some(i) = installed(root, browser, &release.version) {
        return Ok(Outcome::from_installed(Status::AlreadyInstalled, i));
    }
    let url = via_mirror(mirror, &release.url);
    let expected = published_hash(http, &release, mirror)?;
    let verified = match &expected {
        Some(_) => "SHA-512 matches the vendor's SHA512SUMS".to_owned(),
        None => NO_VENDOR_HASH.to_owned(),
    };
    if release.archive == Archive::Manual {
        return Ok(Outcome {
            status: Status::Manual,
            browser,
            version: release.version,
            channel: release.channel,
            path: None,
            binary_path: None,
            url,
            verified: "not downloaded: check the file against `sha512` after downloading it".to_owned(),
            sha512: expected,
            size_bytes: None,
            steps: release.manual_steps,
        });
    }
    // A staging folder left by a process that died mid-install: we hold the lock, so it is dead.
    let prefix = format!(".staging-{}-", browser.name());
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&prefix)) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let staging = Staging(root.join(format!("{prefix}{}", std::process::id())));
    std::fs::create_dir(&staging.0).map_err(io(format!("creating {}", staging.0.display())))?;
    let archive = staging.0.join(match release.archive {
        Archive::TarXz => "download.tar.xz",
        _ => "download.zip",
    });
    let label = format!("{} {}", browser.name(), release.version);
    report(&format!("downloading {label} from {url}"));
    let downloaded = http.download(
        &url,
        &archive,
        &mut |done, total| match total {
            Some(t) => report(&format!("downloading {label}: {} of {}", mb(done), mb(t))),
            None => report(&format!("downloading {label}: {}", mb(done))),
        },
        cancelled,
    )?;
    if let Some(want) = &expected
        && *want != downloaded.sha512
    {
        return Err(ManagedError::Integrity {
            what: format!(
                "the SHA-512 of {url} is {}…, SHA512SUMS says {}…",
                &downloaded.sha512[..16],
                &want[..16]
            ),
        });
    }
    if cancelled() {
        return Err(ManagedError::Cancelled);
    }
    report(&format!("unpacking {label} ({})", mb(downloaded.bytes)));
    let tree = staging.0.join("tree");
    std::fs::create_dir(&tree).map_err(io(format!("creating {}", tree.display())))?;
    match release.archive {
        Archive::TarXz => unpack::tar_xz(&archive, &staging.0.join("download.tar"), &tree)?,
        _ => unpack::zip(&archive, &tree)?,
    }
    let binary = tree.join(unpack::safe_relative(&release.binary)?);
    if !is_executable(&binary) {
        return Err(ManagedError::Integrity {
            what: format!("the archive holds no program at {}", release.binary),
        });
    }
    let record = Record {
        browser,
        version: release.version.clone(),
        channel: release.channel.clone(),
        binary: release.binary.clone(),
        url: url.clone(),
        sha512: expected,
        verified,
        size_bytes: size_of(&tree),
        installed_at: crate::timestamp::now_iso(),
    };
    let text = serde_json::to_vec_pretty(&record).map_err(|e| ManagedError::Io {
        what: "writing the install record".to_owned(),
        source: std::io::Error::other(e),
    })?;
    std::fs::write(tree.join(RECORD), text).map_err(io("writing the install record".to_owned()))?;
    let dest = version_dir(root, browser, &release.version);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(io(format!("creating {}", parent.display())))?;
    }
    // No record means an incomplete folder (or not ours to keep): replaced.
    if dest.exists() {
        std::fs::remove_dir_all(&dest).map_err(io(format!("replacing {}", dest.display())))?;
    }
    std::fs::rename(&tree, &dest).map_err(io(format!("moving the build to {}", dest.display())))?;
    drop(staging);
    let done = installed(root, browser, &release.version).ok_or_else(|| ManagedError::Integrity {
        what: format!("{} did not read back after the install", dest.display()),
    })?;
    report(&format!("installed {label} at {}", dest.display()));
    Ok(Outcome::from_installed(Status::Installed, done))
}
