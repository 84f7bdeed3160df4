//! The browsers webext-mcp can install and the vendors' distribution metadata, as pure
//! functions of the documents: Chrome for Testing's JSON endpoints
//! (`last-known-good-versions-with-downloads.json`, `known-good-versions-with-downloads.json`)
//! and Mozilla's product-details (`firefox_versions.json`) with the archive's
//! `releases/<version>/` layout and its `SHA512SUMS`; Chromium's snapshot archive
//! (`<platform>/LAST_CHANGE` naming the newest revision, `<platform>/<revision>/chrome-*.zip`).
//!
//! URLs are the vendors' official ones; a mirror (`browsers.mirror`) replaces their scheme
//! and host by its base, keeping the host as the first folder (`<mirror>/archive.mozilla.org/
//! pub/…`), which is the layout `wget --mirror` writes.

use serde::{Deserialize, Serialize};

use super::ManagedError;
use crate::browsers::version::compare;

/// A browser `extension_install_browser` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Managed {
    /// Chrome for Testing: Google's Chrome build for automation, which still loads
    /// unpacked extensions from the command line.
    ChromeForTesting,
    /// Chromium's continuous builds (snapshots), named by revision.
    Chromium,
    /// Firefox release.
    Firefox,
    FirefoxEsr,
    FirefoxDeveloper,
}

// A key into the catalog ([`crate::browsers::ManagedBuild`], [`Managed::entry`]), which
// holds its name, engine, the browser it is a build of and its default channel. (This
// comment is not the enum's doc: that one is part of the tools' JSON schema.)
impl Managed {
    /// Every id, in catalog order (a unit test checks).
    pub const ALL: [Managed; 5] = [
        Managed::ChromeForTesting,
        Managed::Chromium,
        Managed::Firefox,
        Managed::FirefoxEsr,
        Managed::FirefoxDeveloper,
    ];
}

/// A platform the vendors publish builds for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux64,
    MacArm64,
    MacX64,
    Win64,
}

impl Platform {
    /// The platform of this binary; `None` where no vendor build exists (32-bit, Linux arm).
    pub fn current() -> Option<Platform> {
        match (std::env::consts::OS, std::env::consts::ARCH) {
            ("linux", "x86_64") => Some(Platform::Linux64),
            ("macos", "aarch64") => Some(Platform::MacArm64),
            ("macos", "x86_64") => Some(Platform::MacX64),
            ("windows", "x86_64") => Some(Platform::Win64),
            _ => None,
        }
    }

    /// The snapshot archive's platform folder, zip name and program inside it.
    const fn snapshot(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Platform::Linux64 => ("Linux_x64", "chrome-linux.zip", "chrome-linux/chrome"),
            Platform::MacArm64 => {
                ("Mac_Arm", "chrome-mac.zip", "chrome-mac/Chromium.app/Contents/MacOS/Chromium")
            }
            Platform::MacX64 => ("Mac", "chrome-mac.zip", "chrome-mac/Chromium.app/Contents/MacOS/Chromium"),
            Platform::Win64 => ("Win_x64", "chrome-win.zip", "chrome-win/chrome.exe"),
        }
    }

    /// Chrome for Testing's platform name.
    const fn cft(self) -> &'static str {
        match self {
            Platform::Linux64 => "linux64",
            Platform::MacArm64 => "mac-arm64",
            Platform::MacX64 => "mac-x64",
            Platform::Win64 => "win64",
        }
    }
}

/// How a download is unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Archive {
    Zip,
    TarXz,
    /// A macOS disk image or a Windows installer: not unpacked; the vendor's step is printed.
    Manual,
}

/// One build to download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Release {
    pub browser: Managed,
    pub version: String,
    pub channel: String,
    /// The official URL (before any mirror).
    pub url: String,
    pub archive: Archive,
    /// The browser's program inside the unpacked archive, `/`-separated.
    pub binary: String,
    /// Where the vendor publishes the archive's SHA-512 (Mozilla's `SHA512SUMS`); `None`
    /// for Chrome for Testing, which publishes none.
    pub sums_url: Option<String>,
    /// The archive's name in `SHA512SUMS` (`linux-x86_64/en-US/firefox-133.0.tar.xz`).
    pub sums_name: Option<String>,
    /// What the user does with a [`Archive::Manual`] download.
    pub manual_steps: Vec<String>,
}

pub const CFT_BASE: &str = "https://googlechromelabs.github.io/chrome-for-testing";
/// The hosts Chrome for Testing's JSON may send downloads to.
const CFT_DOWNLOAD_HOSTS: [&str; 2] = ["https://storage.googleapis.com/", "https://edgedl.me.gvt1.com/"];
pub const SNAPSHOTS: &str = "https://commondatastorage.googleapis.com/chromium-browser-snapshots";
pub const PRODUCT_DETAILS: &str = "https://product-details.mozilla.org/1.0/firefox_versions.json";
const ARCHIVE: &str = "https://archive.mozilla.org/pub";

/// The URL to fetch for an official `url`: itself, or under the mirror.
pub fn via_mirror(mirror: Option<&str>, url: &str) -> String {
    match mirror {
        Some(base) => {
            let rest = url.strip_prefix("https://").unwrap_or(url);
            format!("{}/{rest}", base.trim_end_matches('/'))
        }
        None => url.to_owned(),
    }
}

/// A version argument: a moving name or an exact version (or, for Chrome for Testing, a
/// milestone prefix such as `131`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// `stable` / `latest` (the browser's own channel), or a Chrome channel
    /// (`beta`, `dev`, `canary`).
    Channel(String),
    Exact(String),
}

impl Wanted {
    /// Parses a `version` argument. Exact versions are digits, dots and lower-case letters
    /// (`133.0`, `128.5.0esr`, `134.0b5`): they become path segments of URLs.
    pub fn parse(browser: Managed, text: &str) -> Result<Wanted, ManagedError> {
        let text = text.trim().to_ascii_lowercase();
        let channels: &[&str] = match browser {
            Managed::ChromeForTesting => &["stable", "latest", "beta", "dev", "canary"],
            // Snapshots have no channels: both mean the newest revision.
            _ => &["stable", "latest"],
        };
        if channels.contains(&text.as_str()) {
            let channel =
                if text == "latest" || text == "stable" { browser.default_channel() } else { &text };
            return Ok(Wanted::Channel(channel.to_owned()));
        }
        let ok = text.starts_with(|c: char| c.is_ascii_digit())
            && text.len() <= 40
            && text.chars().all(|c| c.is_ascii_digit() || c == '.' || c.is_ascii_lowercase());
        if !ok {
            return Err(ManagedError::BadVersion {
                version: text,
                accepted: format!("{} or an exact version such as 133.0", channels.join(", ")),
            });
        }
        Ok(Wanted::Exact(text))
    }
}

#[derive(Deserialize)]
struct CftDownload {
    platform: String,
    url: String,
}

#[derive(Deserialize)]
struct CftDownloads {
    #[serde(default)]
    chrome: Vec<CftDownload>,
}

#[derive(Deserialize)]
struct CftVersion {
    version: String,
    #[serde(default)]
    downloads: Option<CftDownloads>,
}

#[derive(Deserialize)]
struct CftLastKnownGood {
    channels: std::collections::BTreeMap<String, CftVersion>,
}

#[derive(Deserialize)]
struct CftKnownGood {
    versions: Vec<CftVersion>,
}

/// The metadata document a Chrome for Testing request reads.
pub fn cft_metadata_url(wanted: &Wanted) -> String {
    match wanted {
        Wanted::Channel(_) => format!("{CFT_BASE}/last-known-good-versions-with-downloads.json"),
        Wanted::Exact(_) => format!("{CFT_BASE}/known-good-versions-with-downloads.json"),
    }
}

fn bad_metadata(what: &str, detail: impl std::fmt::Display) -> ManagedError {
    ManagedError::Integrity { what: format!("{what}: {detail}") }
}

/// The Chrome for Testing release a metadata document names for `wanted` on `platform`.
pub fn cft_release(doc: &[u8], wanted: &Wanted, platform: Platform) -> Result<Release, ManagedError> {
    let entry = match wanted {
        Wanted::Channel(channel) => {
            let doc: CftLastKnownGood = serde_json::from_slice(doc)
                .map_err(|e| bad_metadata("Chrome for Testing's last-known-good-versions document", e))?;
            let key = doc.channels.keys().find(|k| k.eq_ignore_ascii_case(channel)).cloned();
            key.and_then(|k| doc.channels.into_iter().find(|(c, _)| *c == k)).map(|(_, v)| v).ok_or_else(
                || ManagedError::NotFound { what: format!("Chrome for Testing channel `{channel}`") },
            )?
        }
        Wanted::Exact(version) => {
            let doc: CftKnownGood = serde_json::from_slice(doc)
                .map_err(|e| bad_metadata("Chrome for Testing's known-good-versions document", e))?;
            let prefix = format!("{version}.");
            doc.versions
                .into_iter()
                .filter(|v| v.version == *version || v.version.starts_with(&prefix))
                .filter(|v| v.downloads.as_ref().is_some_and(|d| !d.chrome.is_empty()))
                .max_by(|a, b| compare(&a.version, &b.version))
                .ok_or_else(|| ManagedError::NotFound {
                    what: format!("Chrome for Testing {version} (with a chrome download)"),
                })?
        }
    };
    let url = entry
        .downloads
        .and_then(|d| d.chrome.into_iter().find(|d| d.platform == platform.cft()))
        .map(|d| d.url)
        .ok_or_else(|| ManagedError::NotFound {
            what: format!("a Chrome for Testing {} download for {}", entry.version, platform.cft()),
        })?;
    if !CFT_DOWNLOAD_HOSTS.iter().any(|h| url.starts_with(h)) {
        return Err(bad_metadata(
            "Chrome for Testing's metadata",
            format!("download outside Google's storage: {url}"),
        ));
    }
    let dir = format!("chrome-{}", platform.cft());
    let binary = match platform {
        Platform::Linux64 => format!("{dir}/chrome"),
        Platform::MacArm64 | Platform::MacX64 => {
            format!("{dir}/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing")
        }
        Platform::Win64 => format!("{dir}/chrome.exe"),
    };
    let channel = match wanted {
        Wanted::Channel(c) => c.clone(),
        Wanted::Exact(_) => "exact".to_owned(),
    };
    Ok(Release {
        browser: Managed::ChromeForTesting,
        version: entry.version,
        channel,
        url,
        archive: Archive::Zip,
        binary,
        sums_url: None,
        sums_name: None,
        manual_steps: Vec::new(),
    })
}

/// The snapshot folder's `LAST_CHANGE` (the newest revision) for `platform`.
pub fn snapshot_last_change_url(platform: Platform) -> String {
    format!("{SNAPSHOTS}/{}/LAST_CHANGE", platform.snapshot().0)
}

/// The revision a `LAST_CHANGE` file names.
pub fn snapshot_revision(text: &[u8]) -> Result<String, ManagedError> {
    let text = String::from_utf8_lossy(text).trim().to_owned();
    if text.is_empty() || text.len() > 12 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_metadata(
            "Chromium's LAST_CHANGE",
            format!("not a revision: {:?}", text.chars().take(40).collect::<String>()),
        ));
    }
    Ok(text)
}

/// The Chromium snapshot of `revision` for `platform`. Snapshots publish no hashes.
pub fn snapshot_release(revision: &str, platform: Platform) -> Result<Release, ManagedError> {
    if !revision.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ManagedError::BadVersion {
            version: revision.to_owned(),
            accepted: "latest or a snapshot revision number such as 1496484".to_owned(),
        });
    }
    let (folder, zip, binary) = platform.snapshot();
    Ok(Release {
        browser: Managed::Chromium,
        version: revision.to_owned(),
        channel: "snapshot".to_owned(),
        url: format!("{SNAPSHOTS}/{folder}/{revision}/{zip}"),
        archive: Archive::Zip,
        binary: binary.to_owned(),
        sums_url: None,
        sums_name: None,
        manual_steps: Vec::new(),
    })
}

/// The key of `firefox_versions.json` for a Mozilla browser's moving version.
fn product_details_key(browser: Managed) -> &'static str {
    match browser {
        Managed::FirefoxEsr => "FIREFOX_ESR",
        Managed::FirefoxDeveloper => "FIREFOX_DEVEDITION",
        _ => "LATEST_FIREFOX_VERSION",
    }
}

/// The version product-details names for `browser`.
pub fn mozilla_version(doc: &[u8], browser: Managed) -> Result<String, ManagedError> {
    let doc: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(doc).map_err(|e| bad_metadata("Mozilla's firefox_versions.json", e))?;
    let key = product_details_key(browser);
    let version = doc
        .get(key)
        .and_then(|v| v.as_str())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| bad_metadata("Mozilla's firefox_versions.json", format!("no `{key}`")))?;
    match Wanted::parse(browser, version)? {
        Wanted::Exact(v) => Ok(v),
        Wanted::Channel(_) => {
            Err(bad_metadata("Mozilla's firefox_versions.json", format!("`{key}` is {version}")))
        }
    }
}

/// The Mozilla release of `version` for `platform`: the archive's layout. Firefox ships
/// Linux builds as `.tar.xz` from 135 on (`.tar.bz2` before, which is not unpacked here).
pub fn mozilla_release(
    browser: Managed,
    version: &str,
    channel: &str,
    platform: Platform,
) -> Result<Release, ManagedError> {
    let product = if browser == Managed::FirefoxDeveloper { "devedition" } else { "firefox" };
    let base = format!("{ARCHIVE}/{product}/releases/{version}");
    let (name, archive, binary, steps) = match platform {
        Platform::Linux64 => {
            if crate::browsers::version::major(version).is_some_and(|m| m < 135) {
                return Err(ManagedError::Unsupported {
                    what: format!(
                        "Firefox {version} for Linux ships as .tar.bz2, which is not unpacked here"
                    ),
                    hint: "install version 135 or later (or `stable`)".to_owned(),
                });
            }
            (
                format!("linux-x86_64/en-US/firefox-{version}.tar.xz"),
                Archive::TarXz,
                "firefox/firefox".to_owned(),
                Vec::new(),
            )
        }
        Platform::MacArm64 | Platform::MacX64 => (
            format!("mac/en-US/Firefox {version}.dmg"),
            Archive::Manual,
            String::new(),
            vec![
                "open the downloaded .dmg and drag Firefox into /Applications".to_owned(),
                "then run extension_detect_browsers: it finds /Applications/Firefox.app".to_owned(),
            ],
        ),
        Platform::Win64 => (
            format!("win64/en-US/Firefox Setup {version}.exe"),
            Archive::Manual,
            String::new(),
            vec![
                "run the downloaded installer (Firefox Setup …exe) and follow its steps".to_owned(),
                "then run extension_detect_browsers: it finds Firefox under Program Files".to_owned(),
            ],
        ),
    };
    Ok(Release {
        browser,
        version: version.to_owned(),
        channel: channel.to_owned(),
        url: format!("{base}/{}", name.replace(' ', "%20")),
        archive,
        binary,
        sums_url: Some(format!("{base}/SHA512SUMS")),
        sums_name: Some(name),
        manual_steps: steps,
    })
}

/// The SHA-512 that a `SHA512SUMS` file lists for `name` (lower-case hex).
pub fn sha512_for(sums: &str, name: &str) -> Option<String> {
    sums.lines().find_map(|line| {
        let (hash, file) = line.split_once(char::is_whitespace)?;
        let file = file.trim_start().trim_start_matches('*');
        (file == name && hash.len() == 128 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| hash.to_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAST: &str = r#"{"timestamp":"2026-11-30T10:09:22.186Z","channels":{
        "Stable":{"channel":"Stable","version":"143.0.7499.40","revision":"1","downloads":{
            "chrome":[{"platform":"linux64","url":"https://storage.googleapis.com/chrome-for-testing-public/143.0.7499.40/linux64/chrome-linux64.zip"},
                      {"platform":"mac-arm64","url":"https://storage.googleapis.com/chrome-for-testing-public/143.0.7499.40/mac-arm64/chrome-mac-arm64.zip"}]}},
        "Beta":{"channel":"Beta","version":"144.0.7559.3","revision":"2","downloads":{"chrome":[]}}}}"#;

    #[test]
    fn chrome_for_testing_channels_and_platforms() {
        let stable = Wanted::parse(Managed::ChromeForTesting, "latest").unwrap();
        assert_eq!(stable, Wanted::Channel("stable".into()));
        let r = cft_release(LAST.as_bytes(), &stable, Platform::Linux64).unwrap();
        assert_eq!(r.version, "143.0.7499.40");
        assert_eq!(r.binary, "chrome-linux64/chrome");
        assert_eq!(r.archive, Archive::Zip);
        assert!(r.sums_url.is_none());
        let mac = cft_release(LAST.as_bytes(), &stable, Platform::MacArm64).unwrap();
        assert!(mac.binary.ends_with(".app/Contents/MacOS/Google Chrome for Testing"), "{}", mac.binary);
        let e = cft_release(LAST.as_bytes(), &stable, Platform::Win64).unwrap_err();
        assert!(matches!(e, ManagedError::NotFound { .. }), "{e}");
        let beta = Wanted::parse(Managed::ChromeForTesting, "beta").unwrap();
        assert!(matches!(
            cft_release(LAST.as_bytes(), &beta, Platform::Linux64),
            Err(ManagedError::NotFound { .. })
        ));
        let hostile = LAST.replace("https://storage.googleapis.com", "https://evil.example");
        assert!(matches!(
            cft_release(hostile.as_bytes(), &stable, Platform::Linux64),
            Err(ManagedError::Integrity { .. })
        ));
        assert!(matches!(cft_release(b"{", &stable, Platform::Linux64), Err(ManagedError::Integrity { .. })));
    }

    #[test]
    fn exact_chrome_versions_and_milestones_pick_the_newest_match() {
        let doc = r#"{"timestamp":"x","versions":[
            {"version":"131.0.6778.85","revision":"1","downloads":{"chrome":[{"platform":"linux64","url":"https://storage.googleapis.com/a/131.0.6778.85.zip"}]}},
            {"version":"131.0.6778.108","revision":"1","downloads":{"chrome":[{"platform":"linux64","url":"https://storage.googleapis.com/a/131.0.6778.108.zip"}]}},
            {"version":"131.0.6778.200","revision":"1"},
            {"version":"1310.0.0.1","revision":"1","downloads":{"chrome":[{"platform":"linux64","url":"https://storage.googleapis.com/a/x.zip"}]}}]}"#;
        let pick = |v: &str| {
            cft_release(
                doc.as_bytes(),
                &Wanted::parse(Managed::ChromeForTesting, v).unwrap(),
                Platform::Linux64,
            )
            .map(|r| r.version)
        };
        assert_eq!(pick("131").unwrap(), "131.0.6778.108", "a milestone, newest with a download");
        assert_eq!(pick("131.0.6778.85").unwrap(), "131.0.6778.85");
        assert!(pick("132").is_err());
    }

    #[test]
    fn versions_that_could_escape_a_url_are_refused() {
        for bad in ["../../etc", "133.0/../x", "13 3", "", "stable2", "133.0?x=1"] {
            assert!(Wanted::parse(Managed::Firefox, bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Wanted::parse(Managed::FirefoxEsr, "128.5.0ESR").unwrap(),
            Wanted::Exact("128.5.0esr".into())
        );
        assert_eq!(Wanted::parse(Managed::FirefoxEsr, "stable").unwrap(), Wanted::Channel("esr".into()));
        assert!(Wanted::parse(Managed::Firefox, "beta").is_err(), "a Chrome channel only");
    }

    #[test]
    fn mozilla_versions_layout_and_sums() {
        let doc = br#"{"FIREFOX_ESR":"140.5.0esr","FIREFOX_DEVEDITION":"146.0b9","LATEST_FIREFOX_VERSION":"145.0.2"}"#;
        assert_eq!(mozilla_version(doc, Managed::Firefox).unwrap(), "145.0.2");
        assert_eq!(mozilla_version(doc, Managed::FirefoxEsr).unwrap(), "140.5.0esr");
        assert_eq!(mozilla_version(doc, Managed::FirefoxDeveloper).unwrap(), "146.0b9");
        assert!(mozilla_version(br#"{"LATEST_FIREFOX_VERSION":"../x"}"#, Managed::Firefox).is_err());
        let r =
            mozilla_release(Managed::FirefoxDeveloper, "146.0b9", "developer", Platform::Linux64).unwrap();
        assert_eq!(
            r.url,
            "https://archive.mozilla.org/pub/devedition/releases/146.0b9/linux-x86_64/en-US/firefox-146.0b9.tar.xz"
        );
        assert_eq!(
            r.sums_url.as_deref(),
            Some("https://archive.mozilla.org/pub/devedition/releases/146.0b9/SHA512SUMS")
        );
        assert_eq!(r.binary, "firefox/firefox");
        let mac = mozilla_release(Managed::Firefox, "145.0.2", "stable", Platform::MacArm64).unwrap();
        assert_eq!(mac.archive, Archive::Manual);
        assert!(mac.url.ends_with("/mac/en-US/Firefox%20145.0.2.dmg"), "{}", mac.url);
        assert!(mac.manual_steps[0].contains("/Applications"));
        let win = mozilla_release(Managed::Firefox, "145.0.2", "stable", Platform::Win64).unwrap();
        assert_eq!(win.sums_name.as_deref(), Some("win64/en-US/Firefox Setup 145.0.2.exe"));
        assert!(matches!(
            mozilla_release(Managed::FirefoxEsr, "128.5.0esr", "esr", Platform::Linux64),
            Err(ManagedError::Unsupported { .. })
        ));
        let hash = "ab".repeat(64);
        let sums = format!(
            "{}  linux-x86_64/en-US/firefox-145.0.2.tar.bz2\n{hash}  linux-x86_64/en-US/firefox-145.0.2.tar.xz\n",
            "cd".repeat(64)
        );
        assert_eq!(sha512_for(&sums, "linux-x86_64/en-US/firefox-145.0.2.tar.xz"), Some(hash));
        assert_eq!(sha512_for(&sums, "linux-x86_64/en-US/firefox-145.0.2.zip"), None);
        assert_eq!(sha512_for("short  x", "x"), None);
    }

    #[test]
    fn chromium_snapshots_by_revision() {
        assert_eq!(snapshot_revision(b"1496484\n").unwrap(), "1496484");
        assert!(matches!(snapshot_revision(b"<html>"), Err(ManagedError::Integrity { .. })));
        let r = snapshot_release("1496484", Platform::Linux64).unwrap();
        assert_eq!(r.url, format!("{SNAPSHOTS}/Linux_x64/1496484/chrome-linux.zip"));
        assert_eq!(r.binary, "chrome-linux/chrome");
        assert!(snapshot_release("14.0", Platform::Linux64).is_err());
        assert!(
            snapshot_release("1", Platform::MacArm64)
                .unwrap()
                .binary
                .ends_with("Chromium.app/Contents/MacOS/Chromium")
        );
        assert_eq!(snapshot_last_change_url(Platform::Win64), format!("{SNAPSHOTS}/Win_x64/LAST_CHANGE"));
    }

    #[test]
    fn mirrors_keep_the_host_as_the_first_folder() {
        let url = "https://archive.mozilla.org/pub/firefox/releases/145.0.2/SHA512SUMS";
        assert_eq!(via_mirror(None, url), url);
        assert_eq!(
            via_mirror(Some("http://127.0.0.1:8000/m/"), url),
            "http://127.0.0.1:8000/m/archive.mozilla.org/pub/firefox/releases/145.0.2/SHA512SUMS"
        );
    }
}
