//! A browser's version, read from the files of its installation rather than by running it:
//! Gecko's `application.ini` / `platform.ini` (and `channel-prefs.js` for the channel),
//! dpkg's records for Debian packages, a macOS bundle's `Info.plist`, the version folder
//! beside a Windows Chromium binary, a snap's `snap.yaml`. Running `--version` is the last
//! resort, with a short timeout, and only where the caller allows it.
//!
//! Every reader is a pure function of file contents or takes the directory to look in, so
//! fake installation trees test them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Engine;

/// A version and where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub version: String,
    /// `application.ini`, `dpkg`, `Info.plist`, `install folder`, `snap.yaml`, `--version`.
    pub from: &'static str,
}

/// A value of an INI file: `key` in `[section]`.
pub fn ini_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_owned();
        } else if current.eq_ignore_ascii_case(section)
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().to_owned()).filter(|v| !v.is_empty());
        }
    }
    None
}

/// The update channel a Gecko build declares in `defaults/pref/channel-prefs.js`, under the
/// names this project uses (`aurora` is Developer Edition).
pub fn gecko_channel(prefs: &str) -> Option<&'static str> {
    let at = prefs.find("app.update.channel")?;
    let rest = &prefs[at + "app.update.channel".len()..];
    let value = rest.split('"').nth(2)?;
    Some(match value {
        "esr" => "esr",
        "release" => "stable",
        "beta" => "beta",
        "aurora" => "developer",
        "nightly" => "nightly",
        _ => return None,
    })
}

/// Gecko: the folder holding `application.ini` (beside the binary; macOS:
/// `Contents/Resources`).
fn gecko_dir(binary: &Path) -> Option<PathBuf> {
    let dir = binary.parent()?;
    if dir.ends_with("Contents/MacOS") {
        return dir.parent().map(|c| c.join("Resources"));
    }
    Some(dir.to_path_buf())
}

/// Version and channel of a Gecko installation. ESR versions carry `esr`, as Firefox's own
/// `--version` prints them.
pub fn gecko(binary: &Path) -> (Option<Found>, Option<&'static str>) {
    let Some(dir) = gecko_dir(binary) else { return (None, None) };
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let channel = read("defaults/pref/channel-prefs.js").as_deref().and_then(gecko_channel);
    let version = read("application.ini")
        .and_then(|t| ini_value(&t, "App", "Version"))
        .map(|v| (v, "application.ini"))
        .or_else(|| {
            read("platform.ini")
                .and_then(|t| ini_value(&t, "Build", "Milestone"))
                .map(|v| (v, "platform.ini"))
        })
        .map(|(mut version, from)| {
            if channel == Some("esr") && !version.ends_with("esr") {
                version.push_str("esr");
            }
            Found { version, from }
        });
    (version, channel)
}

/// The upstream version of a Debian version string: no epoch, no Debian revision
/// (`1:156.0.8078.114-1~deb12u1` → `156.0.8078.114`; `153.8.0esr-1~deb12u1` → `153.8.0esr`).
pub fn debian_upstream(version: &str) -> &str {
    let no_epoch = version.split_once(':').map_or(version, |(_, v)| v);
    no_epoch.rsplit_once('-').map_or(no_epoch, |(v, _)| v)
}

/// The version of an installed Debian package in dpkg's `status` file.
pub fn dpkg_version(status: &str, package: &str) -> Option<String> {
    for stanza in status.split("\n\n") {
        let mut name = None;
        let mut version = None;
        let mut installed = false;
        for line in stanza.lines() {
            if let Some(v) = line.strip_prefix("Package: ") {
                name = Some(v.trim());
            } else if let Some(v) = line.strip_prefix("Version: ") {
                version = Some(v.trim());
            } else if let Some(v) = line.strip_prefix("Status: ") {
                installed = v.trim().ends_with(" installed");
            }
        }
        if name == Some(package) && installed {
            return version.map(|v| debian_upstream(v).to_owned());
        }
    }
    None
}

/// The version of `package` when dpkg's file list says it owns `binary`. `root` is the
/// file-system root (`/`, or a fake tree).
pub fn dpkg(root: &Path, package: &str, binary: &Path) -> Option<Found> {
    let info = root.join("var/lib/dpkg/info");
    let wanted = Path::new("/").join(binary.strip_prefix(root).unwrap_or(binary));
    let owns = [format!("{package}.list"), format!("{package}:amd64.list"), format!("{package}:arm64.list")]
        .iter()
        .filter_map(|name| std::fs::read_to_string(info.join(name)).ok())
        .any(|list| list.lines().any(|l| Path::new(l.trim()) == wanted));
    if !owns {
        return None;
    }
    let status = std::fs::read_to_string(root.join("var/lib/dpkg/status")).ok()?;
    dpkg_version(&status, package).map(|version| Found { version, from: "dpkg" })
}

/// `CFBundleShortVersionString` of an `Info.plist` (XML form).
pub fn plist_version(text: &str) -> Option<String> {
    let at = text.find("<key>CFBundleShortVersionString</key>")?;
    let rest = &text[at..];
    let start = rest.find("<string>")? + "<string>".len();
    let end = rest[start..].find("</string>")?;
    Some(rest[start..start + end].trim().to_owned()).filter(|v| !v.is_empty())
}

/// macOS: the bundle's `Contents/Info.plist` for a binary in `Contents/MacOS/`.
fn mac_bundle(binary: &Path) -> Option<Found> {
    let contents = binary.parent().filter(|d| d.ends_with("Contents/MacOS"))?.parent()?;
    let text = std::fs::read_to_string(contents.join("Info.plist")).ok()?;
    plist_version(&text).map(|version| Found { version, from: "Info.plist" })
}

/// Whether `name` looks like a dotted version (`131.0.6778.86`).
fn is_version(name: &str) -> bool {
    name.split('.').count() >= 3
        && name.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Compares versions piece by piece: runs of digits as numbers, other runs as text (`10.0` >
/// `9.9`, `134.0b10` > `134.0b5`).
pub fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Piece {
        Number(u64),
        Text(String),
    }
    let pieces = |v: &str| -> Vec<Piece> {
        let mut out = Vec::new();
        let mut run = String::new();
        let flush = |run: &mut String, out: &mut Vec<Piece>| {
            if run.is_empty() {
                return;
            }
            out.push(match run.parse() {
                Ok(n) => Piece::Number(n),
                Err(_) => Piece::Text(std::mem::take(run)),
            });
            run.clear();
        };
        for c in v.chars() {
            let digit = c.is_ascii_digit();
            if c == '.' || run.chars().next().is_some_and(|r| r.is_ascii_digit() != digit) {
                flush(&mut run, &mut out);
            }
            if c != '.' {
                run.push(c);
            }
        }
        flush(&mut run, &mut out);
        out
    };
    pieces(a).cmp(&pieces(b))
}

/// Windows Chromium builds keep their files in a folder named after the version, beside
/// the binary (`Application\131.0.6778.86\`): the highest such folder.
fn version_folder(binary: &Path) -> Option<Found> {
    let dir = binary.parent()?;
    let mut best: Option<String> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_version(&name)
            && entry.path().is_dir()
            && best.as_deref().is_none_or(|b| compare(&name, b).is_gt())
        {
            best = Some(name);
        }
    }
    best.map(|version| Found { version, from: "install folder" })
}

/// A snap's version from `<root>/snap/<name>/current/meta/snap.yaml`.
fn snap_version(root: &Path, binary: &Path) -> Option<Found> {
    let name = binary.file_name()?.to_str()?;
    let text = std::fs::read_to_string(root.join("snap").join(name).join("current/meta/snap.yaml")).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("version:"))?;
    let version = line.trim().trim_matches(['\'', '"']).to_owned();
    (!version.is_empty()).then_some(Found { version, from: "snap.yaml" })
}

/// The version in a `--version` line: the first word that starts with a digit and has a dot
/// (`Chromium 156.0.8078.114 built on Debian`, `Mozilla Firefox 153.8.0esr`).
pub fn version_in_line(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.'))
        .map(|w| w.trim_end_matches([',', ';']).to_owned())
}

/// What `binary --version` prints on stdout (at most 64 KB), within `timeout`; the error
/// says why there is nothing.
pub fn version_output(binary: &Path, timeout: Duration) -> Result<String, String> {
    use std::io::Read;
    let mut child = std::process::Command::new(binary)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let deadline = std::time::Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("`--version` did not answer".to_owned());
            }
        }
    }
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout.take(64 * 1024).read_to_string(&mut out);
    }
    Ok(out)
}

/// Runs `binary --version` with a short timeout (the last resort: it starts the browser's
/// program, though not a browser window).
pub fn by_running(binary: &Path, timeout: Duration) -> Option<Found> {
    let out = version_output(binary, timeout).ok()?;
    out.lines().find_map(version_in_line).map(|version| Found { version, from: "--version" })
}

/// What a Chromium-engine installation's own files say its version is.
pub fn chromium(root: &Path, binary: &Path, deb: Option<&str>) -> Option<Found> {
    deb.and_then(|p| dpkg(root, p, binary))
        .or_else(|| mac_bundle(binary))
        .or_else(|| version_folder(binary))
        .or_else(|| snap_version(root, binary))
}

/// The version of an installation of `engine` from its files (no launch); Gecko also yields
/// the channel its build declares.
pub fn from_files(
    engine: Engine,
    root: &Path,
    binary: &Path,
    deb: Option<&str>,
) -> (Option<Found>, Option<&'static str>) {
    match engine {
        Engine::Gecko => {
            let (found, channel) = gecko(binary);
            (
                found
                    .or_else(|| deb.and_then(|p| dpkg(root, p, binary)))
                    .or_else(|| snap_version(root, binary)),
                channel,
            )
        }
        Engine::Chromium => (chromium(root, binary, deb), None),
    }
}

/// The major version (`156` of `156.0.8078.114`).
pub fn major(version: &str) -> Option<u32> {
    version.split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_values_are_read_per_section() {
        let text = "; comment\n[App]\nVendor=Mozilla\nVersion=153.8.0\n[Gecko]\nVersion=1\n[Build]\nMilestone=153.8.0\n";
        assert_eq!(ini_value(text, "App", "Version").as_deref(), Some("153.8.0"));
        assert_eq!(ini_value(text, "Build", "Milestone").as_deref(), Some("153.8.0"));
        assert_eq!(ini_value(text, "App", "Milestone"), None);
        assert_eq!(ini_value("[App]\nVersion=\n", "App", "Version"), None);
    }

    #[test]
    fn channels_and_debian_versions() {
        assert_eq!(gecko_channel("pref(\"app.update.channel\", \"esr\");"), Some("esr"));
        assert_eq!(gecko_channel("pref(\"app.update.channel\", \"aurora\");"), Some("developer"));
        assert_eq!(gecko_channel("pref(\"app.update.channel\", \"release\");"), Some("stable"));
        assert_eq!(gecko_channel("pref(\"other\", \"esr\");"), None);
        assert_eq!(debian_upstream("156.0.8078.114-1~deb12u1"), "156.0.8078.114");
        assert_eq!(debian_upstream("1:120.0-2"), "120.0");
        assert_eq!(debian_upstream("153.8.0esr-1~deb12u1"), "153.8.0esr");
        assert_eq!(debian_upstream("5.0"), "5.0");
        let status = "Package: chromium-common\nStatus: install ok installed\nVersion: 9\n\n\
                      Package: chromium\nStatus: deinstall ok config-files\nVersion: 1\n\n\
                      Package: firefox-esr\nStatus: install ok installed\nVersion: 153.8.0esr-1~deb12u1\n";
        assert_eq!(dpkg_version(status, "firefox-esr").as_deref(), Some("153.8.0esr"));
        assert_eq!(dpkg_version(status, "chromium"), None, "removed packages have no version");
    }

    #[test]
    fn plists_versions_lines_and_ordering() {
        let plist = "<dict>\n<key>CFBundleName</key><string>Chrome</string>\n\
                     <key>CFBundleShortVersionString</key>\n\t<string>131.0.6778.86</string></dict>";
        assert_eq!(plist_version(plist).as_deref(), Some("131.0.6778.86"));
        assert_eq!(plist_version("<dict></dict>"), None);
        assert_eq!(
            version_in_line("Chromium 156.0.8078.114 built on Debian GNU/Linux 12").as_deref(),
            Some("156.0.8078.114")
        );
        assert_eq!(version_in_line("Mozilla Firefox 153.8.0esr").as_deref(), Some("153.8.0esr"));
        assert_eq!(version_in_line("no version here 12"), None);
        assert!(compare("10.0.1", "9.9.9").is_gt());
        assert!(compare("131.0.6778.86", "131.0.6778.100").is_lt());
        assert!(compare("134.0b5", "134.0b10").is_lt());
        assert_eq!(major("137.0.1"), Some(137));
        assert!(is_version("131.0.6778.86") && !is_version("Locales") && !is_version("1.x.3"));
    }
}
