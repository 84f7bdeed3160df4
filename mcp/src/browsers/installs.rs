//! Where browsers are installed, per operating system: the one table detection reads.
//!
//! A row is one place a browser of the catalog ([`super::BROWSERS`]) may be installed by
//! its vendor, a distribution, snap or flatpak. Rows are tried in order; the first row of a
//! (browser, channel, source) that exists wins, so the real binary comes before the launcher
//! script in `PATH` (`/usr/lib/chromium/chromium` before Debian's `/usr/bin/chromium`).
//! Linux rows are verified on Debian for Chromium and Firefox ESR; the others follow the
//! vendors' packages and are covered by table tests on fake trees.

use super::Os;

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

/// One place a browser may be installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Install {
    /// A catalog browser name.
    pub browser: &'static str,
    /// `stable`, `beta`, `dev`, `canary`, `nightly`, `esr`, `developer`, `snapshot`. For Gecko
    /// browsers the installation's own `channel-prefs.js` has the last word.
    pub channel: &'static str,
    pub os: Os,
    pub source: Source,
    pub at: At,
    /// The Debian package that owns the binary: its version is read from dpkg's records.
    pub deb: Option<&'static str>,
}

const fn row(browser: &'static str, channel: &'static str, os: Os, source: Source, at: At) -> Install {
    Install { browser, channel, os, source, at, deb: None }
}

const fn linux(browser: &'static str, channel: &'static str, at: At) -> Install {
    row(browser, channel, Os::Linux, Source::System, at)
}

const fn deb(
    browser: &'static str,
    channel: &'static str,
    path: &'static str,
    package: &'static str,
) -> Install {
    Install { deb: Some(package), ..linux(browser, channel, At::Path(path)) }
}

const fn snap(browser: &'static str, path: &'static str) -> Install {
    row(browser, "stable", Os::Linux, Source::Snap, At::Path(path))
}

const fn flatpak(browser: &'static str, channel: &'static str, id: &'static str) -> Install {
    row(browser, channel, Os::Linux, Source::Flatpak, At::Flatpak(id))
}

const fn mac(browser: &'static str, channel: &'static str, app: &'static str) -> Install {
    row(browser, channel, Os::Macos, Source::System, At::App(app))
}

const fn win(browser: &'static str, channel: &'static str, rel: &'static str) -> Install {
    row(browser, channel, Os::Windows, Source::System, At::Windows(rel))
}

use At::Program;

/// Every known installation place, in preference order within each browser.
pub const INSTALLS: &[Install] = &[
    // Google Chrome.
    deb("chrome", "stable", "/opt/google/chrome/chrome", "google-chrome-stable"),
    linux("chrome", "stable", Program("google-chrome-stable")),
    linux("chrome", "stable", Program("google-chrome")),
    deb("chrome", "beta", "/opt/google/chrome-beta/chrome", "google-chrome-beta"),
    linux("chrome", "beta", Program("google-chrome-beta")),
    deb("chrome", "dev", "/opt/google/chrome-unstable/chrome", "google-chrome-unstable"),
    linux("chrome", "dev", Program("google-chrome-unstable")),
    deb("chrome", "canary", "/opt/google/chrome-canary/chrome", "google-chrome-canary"),
    linux("chrome", "canary", Program("google-chrome-canary")),
    flatpak("chrome", "stable", "com.google.Chrome"),
    flatpak("chrome", "dev", "com.google.ChromeDev"),
    mac("chrome", "stable", "Google Chrome.app/Contents/MacOS/Google Chrome"),
    mac("chrome", "beta", "Google Chrome Beta.app/Contents/MacOS/Google Chrome Beta"),
    mac("chrome", "dev", "Google Chrome Dev.app/Contents/MacOS/Google Chrome Dev"),
    mac("chrome", "canary", "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary"),
    win("chrome", "stable", r"Google\Chrome\Application\chrome.exe"),
    win("chrome", "beta", r"Google\Chrome Beta\Application\chrome.exe"),
    win("chrome", "dev", r"Google\Chrome Dev\Application\chrome.exe"),
    win("chrome", "canary", r"Google\Chrome SxS\Application\chrome.exe"),
    // Chromium: Debian's real binary first (its `/usr/bin/chromium` wrapper adds flags).
    deb("chromium", "stable", "/usr/lib/chromium/chromium", "chromium"),
    deb("chromium", "stable", "/usr/lib/chromium-browser/chromium-browser", "chromium-browser"),
    linux("chromium", "stable", Program("chromium")),
    linux("chromium", "stable", Program("chromium-browser")),
    snap("chromium", "/snap/bin/chromium"),
    flatpak("chromium", "stable", "org.chromium.Chromium"),
    mac("chromium", "stable", "Chromium.app/Contents/MacOS/Chromium"),
    win("chromium", "stable", r"Chromium\Application\chrome.exe"),
    // Microsoft Edge.
    deb("edge", "stable", "/opt/microsoft/msedge/msedge", "microsoft-edge-stable"),
    linux("edge", "stable", Program("microsoft-edge-stable")),
    linux("edge", "stable", Program("microsoft-edge")),
    deb("edge", "beta", "/opt/microsoft/msedge-beta/msedge", "microsoft-edge-beta"),
    linux("edge", "beta", Program("microsoft-edge-beta")),
    deb("edge", "dev", "/opt/microsoft/msedge-dev/msedge", "microsoft-edge-dev"),
    linux("edge", "dev", Program("microsoft-edge-dev")),
    flatpak("edge", "stable", "com.microsoft.Edge"),
    mac("edge", "stable", "Microsoft Edge.app/Contents/MacOS/Microsoft Edge"),
    mac("edge", "beta", "Microsoft Edge Beta.app/Contents/MacOS/Microsoft Edge Beta"),
    mac("edge", "dev", "Microsoft Edge Dev.app/Contents/MacOS/Microsoft Edge Dev"),
    mac("edge", "canary", "Microsoft Edge Canary.app/Contents/MacOS/Microsoft Edge Canary"),
    win("edge", "stable", r"Microsoft\Edge\Application\msedge.exe"),
    win("edge", "beta", r"Microsoft\Edge Beta\Application\msedge.exe"),
    win("edge", "dev", r"Microsoft\Edge Dev\Application\msedge.exe"),
    win("edge", "canary", r"Microsoft\Edge SxS\Application\msedge.exe"),
    // Brave.
    deb("brave", "stable", "/opt/brave.com/brave/brave", "brave-browser"),
    linux("brave", "stable", Program("brave-browser")),
    linux("brave", "stable", Program("brave")),
    deb("brave", "beta", "/opt/brave.com/brave-beta/brave", "brave-browser-beta"),
    linux("brave", "beta", Program("brave-browser-beta")),
    deb("brave", "nightly", "/opt/brave.com/brave-nightly/brave", "brave-browser-nightly"),
    linux("brave", "nightly", Program("brave-browser-nightly")),
    snap("brave", "/snap/bin/brave"),
    flatpak("brave", "stable", "com.brave.Browser"),
    mac("brave", "stable", "Brave Browser.app/Contents/MacOS/Brave Browser"),
    mac("brave", "beta", "Brave Browser Beta.app/Contents/MacOS/Brave Browser Beta"),
    mac("brave", "nightly", "Brave Browser Nightly.app/Contents/MacOS/Brave Browser Nightly"),
    win("brave", "stable", r"BraveSoftware\Brave-Browser\Application\brave.exe"),
    win("brave", "beta", r"BraveSoftware\Brave-Browser-Beta\Application\brave.exe"),
    win("brave", "nightly", r"BraveSoftware\Brave-Browser-Nightly\Application\brave.exe"),
    // Opera (Windows: the per-user installer's folder; unverified).
    deb("opera", "stable", "/usr/lib/x86_64-linux-gnu/opera/opera", "opera-stable"),
    linux("opera", "stable", Program("opera")),
    linux("opera", "beta", Program("opera-beta")),
    linux("opera", "developer", Program("opera-developer")),
    snap("opera", "/snap/bin/opera"),
    flatpak("opera", "stable", "com.opera.Opera"),
    mac("opera", "stable", "Opera.app/Contents/MacOS/Opera"),
    win("opera", "stable", r"Programs\Opera\opera.exe"),
    // Vivaldi.
    deb("vivaldi", "stable", "/opt/vivaldi/vivaldi", "vivaldi-stable"),
    linux("vivaldi", "stable", Program("vivaldi-stable")),
    linux("vivaldi", "stable", Program("vivaldi")),
    deb("vivaldi", "snapshot", "/opt/vivaldi-snapshot/vivaldi", "vivaldi-snapshot"),
    linux("vivaldi", "snapshot", Program("vivaldi-snapshot")),
    flatpak("vivaldi", "stable", "com.vivaldi.Vivaldi"),
    mac("vivaldi", "stable", "Vivaldi.app/Contents/MacOS/Vivaldi"),
    win("vivaldi", "stable", r"Vivaldi\Application\vivaldi.exe"),
    // Firefox: ESR first (the Firefox of Debian); `/usr/bin/firefox` there is a script that
    // runs firefox-esr, so it only counts where no real Firefox was found.
    deb("firefox", "esr", "/usr/lib/firefox-esr/firefox-esr", "firefox-esr"),
    linux("firefox", "esr", Program("firefox-esr")),
    deb("firefox", "stable", "/usr/lib/firefox/firefox", "firefox"),
    linux("firefox", "stable", At::Path("/opt/firefox/firefox")),
    linux("firefox", "stable", Program("firefox")),
    linux("firefox", "developer", At::Path("/opt/firefox-developer-edition/firefox")),
    linux("firefox", "developer", Program("firefox-developer-edition")),
    deb("firefox", "nightly", "/usr/lib/firefox-nightly/firefox", "firefox-nightly"),
    linux("firefox", "nightly", Program("firefox-nightly")),
    snap("firefox", "/snap/bin/firefox"),
    flatpak("firefox", "stable", "org.mozilla.firefox"),
    mac("firefox", "stable", "Firefox.app/Contents/MacOS/firefox"),
    mac("firefox", "developer", "Firefox Developer Edition.app/Contents/MacOS/firefox"),
    mac("firefox", "nightly", "Firefox Nightly.app/Contents/MacOS/firefox"),
    win("firefox", "stable", r"Mozilla Firefox\firefox.exe"),
    win("firefox", "developer", r"Firefox Developer Edition\firefox.exe"),
    win("firefox", "nightly", r"Firefox Nightly\firefox.exe"),
    // LibreWolf.
    deb("librewolf", "stable", "/usr/lib/librewolf/librewolf", "librewolf"),
    linux("librewolf", "stable", Program("librewolf")),
    flatpak("librewolf", "stable", "io.gitlab.librewolf-community"),
    mac("librewolf", "stable", "LibreWolf.app/Contents/MacOS/librewolf"),
    win("librewolf", "stable", r"LibreWolf\librewolf.exe"),
    // Zen.
    linux("zen", "stable", At::Path("/opt/zen/zen")),
    linux("zen", "stable", Program("zen")),
    linux("zen", "stable", Program("zen-browser")),
    flatpak("zen", "stable", "app.zen_browser.zen"),
    mac("zen", "stable", "Zen.app/Contents/MacOS/zen"),
    win("zen", "stable", r"Zen Browser\zen.exe"),
    // Floorp.
    deb("floorp", "stable", "/usr/lib/floorp/floorp", "floorp"),
    linux("floorp", "stable", Program("floorp")),
    flatpak("floorp", "stable", "one.ablaze.floorp"),
    mac("floorp", "stable", "Floorp.app/Contents/MacOS/floorp"),
    win("floorp", "stable", r"Ablaze Floorp\floorp.exe"),
    // Waterfox.
    linux("waterfox", "stable", At::Path("/usr/lib/waterfox/waterfox")),
    linux("waterfox", "stable", Program("waterfox")),
    flatpak("waterfox", "stable", "net.waterfox.waterfox"),
    mac("waterfox", "stable", "Waterfox.app/Contents/MacOS/waterfox"),
    win("waterfox", "stable", r"Waterfox\waterfox.exe"),
];

#[cfg(test)]
mod tests {
    use super::super::{BROWSERS, Binaries};
    use super::*;

    #[test]
    fn every_row_names_a_catalog_browser_and_every_browser_has_rows_on_every_system() {
        for r in INSTALLS {
            assert!(BROWSERS.iter().any(|b| b.name == r.browser), "{}", r.browser);
        }
        for b in &BROWSERS {
            for os in [Os::Linux, Os::Macos, Os::Windows] {
                assert!(INSTALLS.iter().any(|r| r.browser == b.name && r.os == os), "{} on {os:?}", b.name);
            }
        }
    }

    /// The runner's candidates (the catalog's `binaries`) are places this table knows, so
    /// what detection reports is what a launch would find.
    #[test]
    fn the_catalogs_launch_candidates_are_rows_of_this_table() {
        let known = |b: &str, os: Os, name: &str| {
            INSTALLS.iter().any(|r| {
                r.browser == b
                    && r.os == os
                    && match r.at {
                        At::Path(p) | At::Program(p) => p == name,
                        At::App(app) => name == format!("/Applications/{app}"),
                        _ => false,
                    }
            })
        };
        for b in &BROWSERS {
            let Binaries { unix, macos } = b.binaries;
            for name in unix {
                assert!(known(b.name, Os::Linux, name), "{}: {name}", b.name);
            }
            for name in macos {
                assert!(known(b.name, Os::Macos, name), "{}: {name}", b.name);
            }
        }
    }
}
