//! A local mirror of the browser vendors on 127.0.0.1, in their own formats: Chrome for
//! Testing's JSON endpoints and zip, Mozilla's product-details, archive layout and
//! `SHA512SUMS`. The archives are tiny: the browser is a shell script printing its version.

use std::io::Write;

use sha2::{Digest, Sha512};

use crate::Home;
use crate::http::TestServer;

pub const CFT: &str = "143.0.7499.40";
pub const FIREFOX: &str = "145.0.2";

pub struct Mirror {
    pub server: TestServer,
}

/// Where the mirror serves an official URL (`/m/<host>/<path>`).
pub fn at(official: &str) -> String {
    format!("/m/{}", official.strip_prefix("https://").unwrap())
}

pub fn cft_zip_url(version: &str) -> String {
    format!("https://storage.googleapis.com/chrome-for-testing-public/{version}/linux64/chrome-linux64.zip")
}

pub fn firefox_dir(version: &str) -> String {
    format!("https://archive.mozilla.org/pub/firefox/releases/{version}")
}

pub fn firefox_name(version: &str) -> String {
    format!("linux-x86_64/en-US/firefox-{version}.tar.xz")
}

pub fn sha512_hex(bytes: &[u8]) -> String {
    Sha512::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A script that prints what `--version` of the real browser prints.
fn script(line: &str) -> Vec<u8> {
    format!("#!/bin/sh\necho \"{line}\"\n").into_bytes()
}

/// Chrome for Testing's zip: `chrome-linux64/chrome` and a resource file.
pub fn cft_zip(version: &str) -> Vec<u8> {
    chrome_zip("chrome-linux64", &format!("Google Chrome for Testing {version}"))
}

/// A Chromium-style zip: `<dir>/chrome` printing `line`, and a resource file.
pub fn chrome_zip(dir: &str, line: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let exec = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
    let plain = zip::write::SimpleFileOptions::default().unix_permissions(0o644);
    zip.add_directory(format!("{dir}/"), plain).unwrap();
    zip.start_file(format!("{dir}/chrome"), exec).unwrap();
    zip.write_all(&script(line)).unwrap();
    zip.start_file(format!("{dir}/resources.pak"), plain).unwrap();
    zip.write_all(&[7u8; 4096]).unwrap();
    zip.finish().unwrap().into_inner()
}

/// A tar built by `build`, compressed with xz.
pub fn tar_xz(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    build(&mut b);
    let tar = b.into_inner().unwrap();
    let mut out = Vec::new();
    lzma_rs::xz_compress(&mut std::io::Cursor::new(tar), &mut out).unwrap();
    out
}

/// Appends a regular file.
pub fn add_file(b: &mut tar::Builder<Vec<u8>>, path: &str, mode: u32, data: &[u8]) {
    let mut h = tar::Header::new_gnu();
    h.set_size(data.len() as u64);
    h.set_mode(mode);
    h.set_entry_type(tar::EntryType::Regular);
    b.append_data(&mut h, path, data).unwrap();
}

/// Appends a symlink.
pub fn add_link(b: &mut tar::Builder<Vec<u8>>, path: &str, target: &str) {
    let mut h = tar::Header::new_gnu();
    h.set_size(0);
    h.set_mode(0o777);
    h.set_entry_type(tar::EntryType::Symlink);
    b.append_link(&mut h, path, target).unwrap();
}

/// Firefox's `.tar.xz`: `firefox/firefox` and `application.ini`.
pub fn firefox_tar(version: &str) -> Vec<u8> {
    tar_xz(|b| {
        add_file(b, "firefox/firefox", 0o755, &script(&format!("Mozilla Firefox {version}")));
        add_file(
            b,
            "firefox/application.ini",
            0o644,
            format!("[App]\nName=Firefox\nVersion={version}\n").as_bytes(),
        );
        add_link(b, "firefox/firefox-bin", "firefox");
    })
}

impl Mirror {
    pub fn start() -> Mirror {
        Mirror { server: TestServer::start() }
    }

    /// The `browsers.mirror` value.
    pub fn base(&self) -> String {
        self.server.url("/m")
    }

    /// Writes `browsers.mirror` into the home's config file.
    pub fn configure(&self, home: &Home) {
        let dir = home.path().join(".config/webext-mcp");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), format!("[browsers]\nmirror = \"{}\"\n", self.base()))
            .unwrap();
    }

    /// Chrome for Testing `version` as the Stable channel and a known-good version.
    pub fn chrome_for_testing(&self, version: &str, zip: Vec<u8>) {
        let url = cft_zip_url(version);
        let downloads = serde_json::json!({
            "chrome": [
                {"platform": "linux64", "url": url},
                {"platform": "win64", "url": url.replace("linux64", "win64")},
            ],
            "chromedriver": [{"platform": "linux64", "url": url.replace("chrome-linux64", "chromedriver-linux64")}],
        });
        let last = serde_json::json!({
            "timestamp": "2026-11-30T10:09:22.186Z",
            "channels": {
                "Stable": {"channel": "Stable", "version": version, "revision": "1496484", "downloads": downloads},
                "Beta": {"channel": "Beta", "version": "144.0.7559.3", "revision": "1500000", "downloads": {"chrome": []}},
            }
        });
        let known = serde_json::json!({
            "timestamp": "2026-11-30T10:09:22.186Z",
            "versions": [
                {"version": "113.0.5672.0", "revision": "1121455"},
                {"version": version, "revision": "1496484", "downloads": downloads},
            ]
        });
        let base = "https://googlechromelabs.github.io/chrome-for-testing";
        self.server.route(
            &at(&format!("{base}/last-known-good-versions-with-downloads.json")),
            "application/json",
            last.to_string(),
        );
        self.server.route(
            &at(&format!("{base}/known-good-versions-with-downloads.json")),
            "application/json",
            known.to_string(),
        );
        self.server.route(&at(&url), "application/zip", zip);
    }

    /// Chromium snapshot `revision` as the newest (`LAST_CHANGE`).
    pub fn chromium_snapshot(&self, revision: &str, zip: Vec<u8>) {
        let base = "https://commondatastorage.googleapis.com/chromium-browser-snapshots/Linux_x64";
        self.server.route(&at(&format!("{base}/LAST_CHANGE")), "text/plain", format!("{revision}\n"));
        self.server.route(&at(&format!("{base}/{revision}/chrome-linux.zip")), "application/zip", zip);
    }

    /// Firefox `version` as the latest release, with `SHA512SUMS` listing `listed_hash`
    /// (the archive's own hash when `None`).
    pub fn firefox(&self, version: &str, archive: Vec<u8>, listed_hash: Option<String>) {
        let details = serde_json::json!({
            "FIREFOX_DEVEDITION": "146.0b9",
            "FIREFOX_ESR": "140.5.0esr",
            "FIREFOX_NIGHTLY": "147.0a1",
            "LATEST_FIREFOX_VERSION": version,
        });
        self.server.route(
            &at("https://product-details.mozilla.org/1.0/firefox_versions.json"),
            "application/json",
            details.to_string(),
        );
        let hash = listed_hash.unwrap_or_else(|| sha512_hex(&archive));
        let name = firefox_name(version);
        let sums = format!(
            "{}  linux-x86_64/en-US/firefox-{version}.tar.bz2\n{hash}  {name}\n{}  mac/en-US/Firefox {version}.dmg\n",
            "0".repeat(128),
            "1".repeat(128)
        );
        let dir = firefox_dir(version);
        self.server.route(&at(&format!("{dir}/SHA512SUMS")), "text/plain", sums);
        self.server.route(&at(&format!("{dir}/{name}")), "application/x-xz", archive);
    }

    /// How many times a path ending in `suffix` was requested.
    pub fn requests_ending(&self, suffix: &str) -> usize {
        self.server.requests().iter().filter(|r| r.ends_with(suffix)).count()
    }
}

/// Every entry under the home's managed cache, relative (the lock file never stays).
pub fn cache_entries(home: &Home) -> Vec<String> {
    let root = home.data().join("browsers");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(&root).unwrap().to_string_lossy().into_owned());
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}
