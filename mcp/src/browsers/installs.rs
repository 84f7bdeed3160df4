//! Install places: one place a browser of the catalog may be installed by its vendor, a
//! distribution, snap or flatpak ([`Install`]), and the short forms the catalog
//! ([`super::catalog`]) writes its rows with. Each browser entry holds its own
//! ([`super::Browser::installs`]); detection ([`super::detect`]) reads them.

use super::{ChannelWord, Os};

/// How a browser got onto the machine (`managed`, `config` and `env` are added by
/// detection: they are not locations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Installed by webext-mcp (`extension_install_browser`).
    Managed,
    /// The configuration file's `browsers.<engine>.binary`.
    Config,
    /// `WEBEXT_MCP_<ENGINE>_BINARY`.
    Env,
    /// The vendor's or the distribution's package.
    System,
    Snap,
    Flatpak,
}

/// Where a row's binary is, relative to what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// An absolute Unix path (below the probe's root in tests).
    Path(&'static str),
    /// A program name looked up in `PATH`.
    Program(&'static str),
    /// macOS: an app bundle's executable, under `/Applications` then `~/Applications`.
    App(&'static str),
    /// Windows: under `%ProgramFiles%`, `%ProgramFiles(x86)%`, then `%LOCALAPPDATA%`.
    Windows(&'static str),
    /// A flatpak application id: its exported launcher, system-wide then per user.
    Flatpak(&'static str),
}

/// One place a browser may be installed (a row of its [`super::Browser::installs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Install {
    pub channel: ChannelWord,
    pub os: Os,
    pub source: Source,
    pub at: At,
    /// The Debian package that owns the binary: its version is read from dpkg's records.
    pub deb: Option<&'static str>,
}

const fn row(channel: ChannelWord, os: Os, source: Source, at: At) -> Install {
    Install { channel, os, source, at, deb: None }
}

pub(super) const fn linux(channel: ChannelWord, at: At) -> Install {
    row(channel, Os::Linux, Source::System, at)
}

pub(super) const fn deb(channel: ChannelWord, path: &'static str, package: &'static str) -> Install {
    Install { deb: Some(package), ..linux(channel, At::Path(path)) }
}

pub(super) const fn snap(path: &'static str) -> Install {
    row(ChannelWord::Stable, Os::Linux, Source::Snap, At::Path(path))
}

pub(super) const fn flatpak(channel: ChannelWord, id: &'static str) -> Install {
    row(channel, Os::Linux, Source::Flatpak, At::Flatpak(id))
}

pub(super) const fn mac(channel: ChannelWord, app: &'static str) -> Install {
    row(channel, Os::Macos, Source::System, At::App(app))
}

pub(super) const fn win(channel: ChannelWord, rel: &'static str) -> Install {
    row(channel, Os::Windows, Source::System, At::Windows(rel))
}

#[cfg(test)]
mod tests {
    use super::super::{BROWSERS, Binaries};
    use super::*;

    #[test]
    fn every_browser_has_install_places_on_every_system() {
        for b in &BROWSERS {
            for os in [Os::Linux, Os::Macos, Os::Windows] {
                assert!(b.installs.iter().any(|r| r.os == os), "{} on {os:?}", b.name);
            }
        }
    }

    /// The runner's candidates (the catalog's `binaries`) are install places of the same
    /// browser, so what detection reports is what a launch would find.
    #[test]
    fn the_catalogs_launch_candidates_are_its_install_places() {
        for b in &BROWSERS {
            let known = |os: Os, name: &str| {
                b.installs.iter().any(|r| {
                    r.os == os
                        && match r.at {
                            At::Path(p) | At::Program(p) => p == name,
                            At::App(app) => name == format!("/Applications/{app}"),
                            _ => false,
                        }
                })
            };
            let Binaries { unix, macos } = b.binaries;
            for name in unix {
                assert!(known(Os::Linux, name), "{}: {name}", b.name);
            }
            for name in macos {
                assert!(known(Os::Macos, name), "{}: {name}", b.name);
            }
        }
    }
}
