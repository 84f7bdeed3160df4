//! Finding the browsers installed on a machine: the catalog's install places
//! ([`super::Browser::installs`]) for one system, resolved against an injected [`Probe`] (the file-system root, home,
//! `PATH` and Windows folders), so fake trees test every system's table on any machine.
//!
//! ```text
//! installs (this OS) ─▶ candidate paths ─▶ exists & runnable? ─▶ first per (browser, channel, source)
//!                                                    │ launcher script of a browser already found: skipped
//!                                                    ▼
//!                                   version from files (version.rs), `--version` last, if allowed
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::installs::{At, Source};
use super::{Browser, Engine, Os, installs, version};
use crate::paths::{Env, is_executable};

/// What detection may look at. [`Probe::real`] is this machine; tests build fake ones.
#[derive(Debug, Clone)]
pub struct Probe {
    pub os: Os,
    /// Where absolute paths of the table are looked up: `/` here, a temp dir in tests.
    pub root: PathBuf,
    pub home: PathBuf,
    /// The folders of `PATH`, as they are (not moved under `root`).
    pub path: Vec<PathBuf>,
    /// Windows: `%ProgramFiles%`, `%ProgramFiles(x86)%`, `%LOCALAPPDATA%`, in that order.
    pub windows_roots: Vec<PathBuf>,
    /// Whether `--version` may run when an installation's files tell no version.
    pub may_run: bool,
}

/// How long `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(3);

impl Probe {
    /// This machine, for the user whose home is `home`.
    pub fn real(env: &Env, home: &Path) -> Probe {
        let os = Os::current();
        let path = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
        let windows_roots = ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"]
            .iter()
            .filter_map(|k| env.get(k).map(PathBuf::from).or_else(|| std::env::var_os(k).map(PathBuf::from)))
            .collect();
        let root = if os == Os::Windows { PathBuf::new() } else { PathBuf::from("/") };
        Probe { os, root, home: home.to_path_buf(), path, windows_roots, may_run: true }
    }

    /// An absolute table path below the root.
    fn rooted(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    /// The places a row points at, in order.
    fn candidates(&self, at: At) -> Vec<PathBuf> {
        let windows = |rel: &str| -> PathBuf { rel.split('\\').collect() };
        match at {
            At::Path(p) => vec![self.rooted(p)],
            At::Program(name) => self.path.iter().map(|d| d.join(name)).collect(),
            At::App(app) => {
                vec![self.rooted("/Applications").join(app), self.home.join("Applications").join(app)]
            }
            At::Windows(rel) => self.windows_roots.iter().map(|r| r.join(windows(rel))).collect(),
            At::Flatpak(id) => vec![
                self.rooted("/var/lib/flatpak/exports/bin").join(id),
                self.home.join(".local/share/flatpak/exports/bin").join(id),
            ],
        }
    }
}

/// One installed browser.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    /// What a `browser` argument names it: a catalog name, a managed browser's name
    /// (`chrome-for-testing`), or `chromium-based` / `gecko-based` for a configured binary.
    pub browser: String,
    pub channel: String,
    pub engine: Engine,
    pub source: Source,
    pub binary_path: PathBuf,
    pub version: Option<String>,
    /// Where the version was read (`dpkg`, `application.ini`, …, `--version`).
    pub version_from: Option<&'static str>,
    /// Whether the browser loads an unpacked extension given at launch: branded Google Chrome
    /// 137 and later ignores `--load-extension`.
    pub can_load_unpacked: bool,
}

/// Whether a file is a `#!` script (a distribution's launcher, not the browser itself).
fn is_script(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && &head == b"#!"
}

/// Whether `browser` at `version` loads unpacked extensions from its command line.
pub fn can_load_unpacked(browser: &str, version: Option<&str>) -> bool {
    if browser != "chrome" {
        return true;
    }
    // Chrome 137 removed `--load-extension` from branded builds; unknown means assume so.
    version.and_then(version::major).is_some_and(|m| m < 137)
}

/// The Debian package the table says owns `binary` (a configured path that is also a
/// known place), for reading its version without running it.
pub fn deb_of(probe: &Probe, binary: &Path) -> Option<&'static str> {
    let real = std::fs::canonicalize(binary).unwrap_or_else(|_| binary.to_path_buf());
    installs().map(|(_, r)| r).filter(|r| r.os == probe.os).find_map(|r| match r.at {
        At::Path(p) if probe.rooted(p) == real => r.deb,
        _ => None,
    })
}

/// Reads the version of an installation from its files, then by running it if allowed.
pub fn read_version(
    engine: Engine,
    probe: &Probe,
    binary: &Path,
    deb: Option<&str>,
) -> (Option<version::Found>, Option<&'static str>) {
    let (found, channel) = version::from_files(engine, &probe.root, binary, deb);
    let found =
        found.or_else(|| probe.may_run.then(|| version::by_running(binary, VERSION_TIMEOUT)).flatten());
    (found, channel)
}

/// Every installation of the table's rows for `probe.os` whose browser `wanted` accepts, in
/// table order. The first existing row of a (browser, channel, source) wins; a path reached
/// twice (a symlink in `PATH`) counts once; a launcher script counts only when no real
/// binary of its browser and source was found.
pub fn scan(probe: &Probe, wanted: &dyn Fn(&str) -> bool) -> Vec<Found> {
    let mut found: Vec<(Found, &Browser)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut groups: HashSet<(&str, &str, Source)> = HashSet::new();
    for (b, row) in installs().filter(|(b, r)| r.os == probe.os && wanted(b.name)) {
        let word = row.channel.as_str();
        if groups.contains(&(b.name, word, row.source)) {
            continue;
        }
        for path in probe.candidates(row.at) {
            if !is_executable(&path) {
                continue;
            }
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !seen.insert(real.clone()) {
                continue;
            }
            if is_script(&real) && found.iter().any(|(f, fb)| fb.name == b.name && f.source == row.source) {
                continue;
            }
            let (version, declared) = read_version(b.engine, probe, &real, row.deb);
            let channel = declared.unwrap_or(word).to_owned();
            let version_text = version.as_ref().map(|v| v.version.clone());
            groups.insert((b.name, word, row.source));
            found.push((
                Found {
                    browser: b.name.to_owned(),
                    channel,
                    engine: b.engine,
                    source: row.source,
                    binary_path: path,
                    can_load_unpacked: can_load_unpacked(b.name, version_text.as_deref()),
                    version: version_text,
                    version_from: version.map(|v| v.from),
                },
                b,
            ));
            break;
        }
    }
    found.into_iter().map(|(f, _)| f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branded_chrome_137_and_later_does_not_load_unpacked() {
        assert!(can_load_unpacked("chromium", None));
        assert!(can_load_unpacked("chrome", Some("136.0.7103.92")));
        assert!(!can_load_unpacked("chrome", Some("137.0.7151.55")));
        assert!(!can_load_unpacked("chrome", None));
        assert!(can_load_unpacked("chrome-for-testing", Some("140.0.1")));
        assert!(can_load_unpacked("firefox", None));
    }
}
