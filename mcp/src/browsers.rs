//! The browser catalog: every browser webext-mcp knows, declared once, in one table
//! ([`BROWSERS`], data only in `catalog.rs`).
//!
//! ```text
//! Browser { name, engine, extensions_page,
//!           binaries   ─▶ runner, session  programs a launch tries (`chrome` is never Chromium)
//!           channels   ─▶ install, doctor  native-messaging locations per channel and OS
//!           installs   ─▶ detect, survey   install places per OS, with their channel words
//!           managed }  ─▶ managed          builds extension_install_browser downloads
//!     │
//!     └─▶ manifest::target  build targets (`dist/<name>/`), engine per target
//! webext_mcp_host::browsers::REPORTED ─▶ host::select (`gecko-based` …), checked against BROWSERS
//! ```
//!
//! There is one engine enum, [`Engine`] (defined in the host crate, which cannot depend on
//! this one), re-exported here; every table and module of this crate names it `Engine`.
//!
//! A [`Browser`] is what a `browser` argument names: its name is also the build target, the
//! `dist/` folder and the name the helper reports in its `hello`. A [`Channel`] is one
//! installation of it with its own configuration folder (Chrome Beta, Chromium from snap),
//! which is what `install` registers the native host with ([`ChannelId`] is its key). An
//! [`Install`] is one place it may be installed on one system, with its [`ChannelWord`];
//! a [`ManagedBuild`] is a build of it webext-mcp downloads itself ([`Managed`] is its key).
//! Their engine and browser are the entry's: no row names a browser. Paths follow
//! `reference/native-messaging.md`; the entries marked unverified there stay so here.

use serde::Serialize;

mod catalog;
pub mod detect;
pub mod installs;
pub mod locations;
pub mod managed;
pub mod survey;
pub mod version;

pub use catalog::BROWSERS;
pub use installs::Install;
pub use webext_mcp_host::browsers::{Engine, REPORTED, engine_of_reported};

use managed::Managed;

/// The operating systems with a known layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    /// The system this binary was built for (other Unixes use the Linux layout).
    pub const fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::Macos
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

/// One browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Browser {
    /// The `browser` argument value, build target and reported name (`chrome`, `zen`, …).
    pub name: &'static str,
    pub engine: Engine,
    /// Programs tried, in order, to run it when no binary is configured: each is one of
    /// its [`Browser::installs`] (a table test checks), in launch order, which is not
    /// detection's order (`google-chrome` before `/opt/google/chrome/chrome`).
    pub binaries: Binaries,
    /// The page that lists extensions (where the helper is loaded unpacked or from a file).
    pub extensions_page: &'static str,
    /// The installations `install` registers with; empty where no per-user native-messaging
    /// location is known (Opera, Waterfox).
    pub channels: &'static [Channel],
    /// Where it may be installed, per system, in preference order (what detection reads).
    pub installs: &'static [Install],
    /// The builds of it `extension_install_browser` downloads (Chrome for Testing is a
    /// build of `chrome`), the first standing in when it is missing; most have none.
    pub managed: &'static [ManagedBuild],
}

impl Browser {
    /// The programs to try on `os`, in order ([`Binaries::on`]).
    pub fn binaries(&self, os: Os) -> impl Iterator<Item = &'static str> {
        self.binaries.on(os)
    }
}

/// A release channel's word: what an install place is (`/opt/google/chrome-beta` is
/// `beta`), what detection reports and what a managed build's moving version means. For
/// Gecko browsers the installation's own `channel-prefs.js` has the last word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelWord {
    Stable,
    Beta,
    Dev,
    Canary,
    Nightly,
    Esr,
    Developer,
    Snapshot,
}

impl ChannelWord {
    pub const fn as_str(self) -> &'static str {
        match self {
            ChannelWord::Stable => "stable",
            ChannelWord::Beta => "beta",
            ChannelWord::Dev => "dev",
            ChannelWord::Canary => "canary",
            ChannelWord::Nightly => "nightly",
            ChannelWord::Esr => "esr",
            ChannelWord::Developer => "developer",
            ChannelWord::Snapshot => "snapshot",
        }
    }
}

/// A build of a catalog browser that `extension_install_browser` downloads: its engine and
/// build target are those of the entry that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagedBuild {
    pub id: Managed,
    /// Its `browser` argument value and cache folder (`chrome-for-testing`).
    pub name: &'static str,
    /// The channel a moving version (`stable`, `latest`) means.
    pub default_channel: ChannelWord,
}

/// Binary candidates per operating system. A name with a `/` is a path that must exist; a
/// bare name is looked up in `PATH`. The Unix names are tried on every system, after the
/// system's own list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binaries {
    pub unix: &'static [&'static str],
    pub macos: &'static [&'static str],
}

impl Binaries {
    const NONE: Binaries = Binaries { unix: &[], macos: &[] };

    /// The candidates on `os`, in order.
    pub fn on(self, os: Os) -> impl Iterator<Item = &'static str> {
        let own: &'static [&'static str] = if os == Os::Macos { self.macos } else { &[] };
        own.iter().chain(self.unix.iter()).copied()
    }
}

/// An installation channel: a stable key for `install`/`doctor` ([`ChannelId`]), the id
/// `--browser` accepts, and where it keeps its profile and reads host manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    pub id: ChannelId,
    /// The id used by `--browser` and in reports (`chrome-beta`).
    pub name: &'static str,
    /// More `--browser` values that mean this channel (`firefox-esr`).
    pub aliases: &'static [&'static str],
    /// The name users know.
    pub display_name: &'static str,
    /// Relative to the home directory.
    pub linux: Option<Place>,
    /// Relative to `~/Library/Application Support`.
    pub macos: Option<Place>,
    pub windows: Option<WindowsPlace>,
}

/// A configuration folder (the browser counts as installed when it exists) and the folder
/// the browser reads host manifests from, both relative to the system's root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub config_dir: &'static str,
    pub hosts_dir: &'static str,
}

/// Windows: the profile folder and the `HKEY_CURRENT_USER\Software\<vendor>\NativeMessagingHosts`
/// vendors whose keys point at the manifest (the manifest itself lives in webext-mcp's data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowsPlace {
    pub root: AppData,
    pub config_dir: &'static str,
    pub registry_vendors: &'static [&'static str],
}

/// The Windows per-user folder a profile lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppData {
    /// `%LOCALAPPDATA%` (Chromium-engine profiles).
    Local,
    /// `%APPDATA%` (Gecko-engine profiles).
    Roaming,
}

/// The installation channels `install` knows, in report order ([`ChannelId::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelId {
    Chrome,
    ChromeBeta,
    ChromeUnstable,
    Chromium,
    ChromiumSnap,
    Edge,
    EdgeBeta,
    EdgeDev,
    Brave,
    Vivaldi,
    Firefox,
    Zen,
    Librewolf,
    Floorp,
}

/// The browser called `name` (case-insensitive, trimmed).
pub fn browser(name: &str) -> Option<&'static Browser> {
    let name = name.trim();
    BROWSERS.iter().find(|b| b.name.eq_ignore_ascii_case(name))
}

/// Every install place with its browser, in catalog order.
pub fn installs() -> impl Iterator<Item = (&'static Browser, &'static Install)> {
    BROWSERS.iter().flat_map(|b| b.installs.iter().map(move |i| (b, i)))
}

/// Every managed build with its browser, in catalog order ([`Managed::ALL`]).
pub fn managed_builds() -> impl Iterator<Item = (&'static Browser, &'static ManagedBuild)> {
    BROWSERS.iter().flat_map(|b| b.managed.iter().map(move |m| (b, m)))
}

/// Every installation channel with its browser, in catalog order.
pub fn channels() -> impl Iterator<Item = (&'static Browser, &'static Channel)> {
    BROWSERS.iter().flat_map(|b| b.channels.iter().map(move |c| (b, c)))
}

/// The folders, relative to the home directory, where the browsers of `engine` read
/// native host manifests on `os` (deduplicated, catalog order). A dev session's browser
/// has a private home, so it writes its host manifest into each.
pub fn home_hosts_dirs(engine: Engine, os: Os) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = Vec::new();
    for (_, c) in channels().filter(|(b, _)| b.engine == engine) {
        let dir = match os {
            Os::Linux => c.linux.map(|p| std::path::PathBuf::from(p.hosts_dir)),
            Os::Macos => {
                c.macos.map(|p| std::path::Path::new("Library/Application Support").join(p.hosts_dir))
            }
            Os::Windows => None,
        };
        if let Some(dir) = dir.filter(|d| !out.contains(d)) {
            out.push(dir);
        }
    }
    out
}

/// Binaries tried for "any browser of `engine`" when nothing is configured: the engine's
/// reference browser (Chromium, Firefox) first, then the others in catalog order.
pub fn engine_binaries(engine: Engine, os: Os) -> Vec<&'static str> {
    let reference = match engine {
        Engine::Chromium => "chromium",
        Engine::Gecko => "firefox",
    };
    let mut ordered: Vec<&Browser> = BROWSERS.iter().filter(|b| b.engine == engine).collect();
    ordered.sort_by_key(|b| b.name != reference);
    let mut out: Vec<&'static str> = Vec::new();
    for b in ordered {
        for c in b.binaries.on(os) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// The environment variable that overrides an engine's binary.
pub const fn binary_env(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => "WEBEXT_MCP_CHROMIUM_BINARY",
        Engine::Gecko => "WEBEXT_MCP_FIREFOX_BINARY",
    }
}

/// The configuration key that overrides an engine's binary.
pub const fn binary_key(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => "browsers.chromium.binary",
        Engine::Gecko => "browsers.firefox.binary",
    }
}

/// How to get a browser of `engine` on these machines.
pub const fn install_hint(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => {
            "install it (`apt-get install chromium`, or extension_install_browser with {\"browser\":\"chrome-for-testing\"}) or set WEBEXT_MCP_CHROMIUM_BINARY"
        }
        Engine::Gecko => {
            "install it (`apt-get install firefox-esr`, or extension_install_browser with {\"browser\":\"firefox\"}) or set WEBEXT_MCP_FIREFOX_BINARY"
        }
    }
}

impl ChannelId {
    pub const ALL: [ChannelId; 14] = [
        ChannelId::Chrome,
        ChannelId::ChromeBeta,
        ChannelId::ChromeUnstable,
        ChannelId::Chromium,
        ChannelId::ChromiumSnap,
        ChannelId::Edge,
        ChannelId::EdgeBeta,
        ChannelId::EdgeDev,
        ChannelId::Brave,
        ChannelId::Vivaldi,
        ChannelId::Firefox,
        ChannelId::Zen,
        ChannelId::Librewolf,
        ChannelId::Floorp,
    ];

    /// This channel's catalog entry and browser.
    pub fn entry(self) -> (&'static Browser, &'static Channel) {
        match channels().find(|(_, c)| c.id == self) {
            Some(hit) => hit,
            // Every id has an entry (a unit test checks); the first is a harmless stand-in.
            None => (&BROWSERS[0], &BROWSERS[0].channels[0]),
        }
    }

    /// The engine of the channel's browser.
    pub fn engine(self) -> Engine {
        self.entry().0.engine
    }
}

impl Managed {
    /// This build's catalog entry and the browser it is a build of.
    pub fn entry(self) -> (&'static Browser, &'static ManagedBuild) {
        match managed_builds().find(|(_, m)| m.id == self) {
            Some(hit) => hit,
            // Every id has an entry (a unit test checks); the first is a harmless stand-in.
            None => (&BROWSERS[0], &BROWSERS[0].managed[0]),
        }
    }

    /// Its `browser` argument value and cache folder.
    pub fn name(self) -> &'static str {
        self.entry().1.name
    }

    pub fn named(name: &str) -> Option<Managed> {
        let name = name.trim();
        managed_builds().find(|(_, m)| m.name.eq_ignore_ascii_case(name)).map(|(_, m)| m.id)
    }

    pub fn engine(self) -> Engine {
        self.entry().0.engine
    }

    /// The catalog browser it is a build of: its build target and `dist/` folder.
    pub fn catalog_browser(self) -> &'static str {
        self.entry().0.name
    }

    /// The channel a moving version (`stable`, `latest`) means.
    pub fn default_channel(self) -> &'static str {
        self.entry().1.default_channel.as_str()
    }
}

#[cfg(test)]
mod tests;
