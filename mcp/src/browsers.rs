//! The browser catalog: every browser webext-mcp knows, declared once.
//!
//! ```text
//!                 ┌─▶ manifest::target   build targets (`dist/<name>/`), engine per target
//!                 ├─▶ install::locations native-messaging locations per channel and OS
//! BROWSERS (here) ┼─▶ runner             binary env/config keys, fallback binaries per engine
//!                 ├─▶ session            binaries per browser name (`chrome` is never Chromium)
//!                 └─▶ install, doctor    channel ids and names, extensions page, a helper's engine
//! webext_mcp_host::browsers::REPORTED ─▶ host::select (`gecko-based` …), checked against BROWSERS
//! ```
//!
//! There is one engine enum, [`Engine`] (defined in the host crate, which cannot depend on
//! this one); `runner::Family` and `manifest::Family` are re-exports of it.
//!
//! A [`Browser`] is what a `browser` argument names: its name is also the build target, the
//! `dist/` folder and the name the helper reports in its `hello`. A [`Channel`] is one
//! installation of it with its own configuration folder (Chrome Beta, Chromium from snap),
//! which is what `install` registers the native host with. Paths follow
//! `reference/native-messaging.md`; the entries marked unverified there stay so here.
//! Where each browser is installed per system is [`installs`]; browsers webext-mcp
//! downloads itself are [`managed`].

use serde::Serialize;

pub mod detect;
pub mod installs;
pub mod managed;
pub mod survey;
pub mod version;

pub use webext_mcp_host::browsers::{Engine, REPORTED, engine_of_reported};

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
    /// Programs tried, in order, to run it when no binary is configured.
    pub binaries: Binaries,
    /// The page that lists extensions (where the helper is loaded unpacked or from a file).
    pub extensions_page: &'static str,
    /// The installations `install` registers with; empty where no per-user native-messaging
    /// location is known (Opera, Waterfox).
    pub channels: &'static [Channel],
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

/// The installation channels `install` knows, in report order (`install::Target`).
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

const fn chromium_place(config_dir: &'static str, hosts_dir: &'static str) -> Option<Place> {
    Some(Place { config_dir, hosts_dir })
}

const fn local(config_dir: &'static str, registry_vendors: &'static [&'static str]) -> Option<WindowsPlace> {
    Some(WindowsPlace { root: AppData::Local, config_dir, registry_vendors })
}

const fn roaming(config_dir: &'static str) -> Option<WindowsPlace> {
    Some(WindowsPlace { root: AppData::Roaming, config_dir, registry_vendors: &["Mozilla"] })
}

const CHROME_KEY: &[&str] = &[r"Google\Chrome"];
/// Firefox and Zen read `~/.mozilla`, never the XDG `~/.config/mozilla` (verified on Linux).
const MOZILLA_LINUX: &str = ".mozilla/native-messaging-hosts";
const MOZILLA_MACOS: &str = "Mozilla/NativeMessagingHosts";

/// Every browser, in display order (the first is the default build target).
pub const BROWSERS: [Browser; 11] = [
    Browser {
        name: "chrome",
        engine: Engine::Chromium,
        extensions_page: "chrome://extensions",
        binaries: Binaries {
            unix: &["google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome"],
            macos: &["/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"],
        },
        channels: &[
            Channel {
                id: ChannelId::Chrome,
                name: "chrome",
                aliases: &[],
                display_name: "Google Chrome",
                linux: chromium_place(".config/google-chrome", ".config/google-chrome/NativeMessagingHosts"),
                macos: chromium_place("Google/Chrome", "Google/Chrome/NativeMessagingHosts"),
                windows: local(r"Google\Chrome\User Data", CHROME_KEY),
            },
            Channel {
                id: ChannelId::ChromeBeta,
                name: "chrome-beta",
                aliases: &[],
                display_name: "Google Chrome Beta",
                linux: chromium_place(
                    ".config/google-chrome-beta",
                    ".config/google-chrome-beta/NativeMessagingHosts",
                ),
                macos: None,
                windows: local(r"Google\Chrome Beta\User Data", CHROME_KEY),
            },
            Channel {
                id: ChannelId::ChromeUnstable,
                name: "chrome-unstable",
                aliases: &[],
                display_name: "Google Chrome Dev (unstable)",
                linux: chromium_place(
                    ".config/google-chrome-unstable",
                    ".config/google-chrome-unstable/NativeMessagingHosts",
                ),
                macos: None,
                windows: local(r"Google\Chrome Dev\User Data", CHROME_KEY),
            },
        ],
    },
    Browser {
        name: "chromium",
        engine: Engine::Chromium,
        extensions_page: "chrome://extensions",
        // The real binary first: Debian's `/usr/bin/chromium` wrapper adds flags of its own.
        binaries: Binaries {
            unix: &["/usr/lib/chromium/chromium", "chromium", "chromium-browser"],
            macos: &["/Applications/Chromium.app/Contents/MacOS/Chromium"],
        },
        channels: &[
            Channel {
                id: ChannelId::Chromium,
                name: "chromium",
                aliases: &[],
                display_name: "Chromium",
                linux: chromium_place(".config/chromium", ".config/chromium/NativeMessagingHosts"),
                macos: chromium_place("Chromium", "Chromium/NativeMessagingHosts"),
                windows: local(r"Chromium\User Data", &["Chromium"]),
            },
            Channel {
                id: ChannelId::ChromiumSnap,
                name: "chromium-snap",
                aliases: &[],
                display_name: "Chromium (snap)",
                linux: chromium_place(
                    "snap/chromium/common/chromium",
                    "snap/chromium/common/chromium/NativeMessagingHosts",
                ),
                macos: None,
                windows: None,
            },
        ],
    },
    Browser {
        name: "edge",
        engine: Engine::Chromium,
        extensions_page: "edge://extensions",
        binaries: Binaries {
            unix: &["microsoft-edge", "microsoft-edge-stable", "/opt/microsoft/msedge/msedge"],
            macos: &["/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"],
        },
        channels: &[
            Channel {
                id: ChannelId::Edge,
                name: "edge",
                aliases: &[],
                display_name: "Microsoft Edge",
                linux: chromium_place(
                    ".config/microsoft-edge",
                    ".config/microsoft-edge/NativeMessagingHosts",
                ),
                macos: chromium_place("Microsoft Edge", "Microsoft Edge/NativeMessagingHosts"),
                windows: local(r"Microsoft\Edge\User Data", &[r"Microsoft\Edge"]),
            },
            Channel {
                id: ChannelId::EdgeBeta,
                name: "edge-beta",
                aliases: &[],
                display_name: "Microsoft Edge Beta",
                linux: chromium_place(
                    ".config/microsoft-edge-beta",
                    ".config/microsoft-edge-beta/NativeMessagingHosts",
                ),
                macos: None,
                windows: local(r"Microsoft\Edge Beta\User Data", &[r"Microsoft\Edge"]),
            },
            Channel {
                id: ChannelId::EdgeDev,
                name: "edge-dev",
                aliases: &[],
                display_name: "Microsoft Edge Dev",
                linux: chromium_place(
                    ".config/microsoft-edge-dev",
                    ".config/microsoft-edge-dev/NativeMessagingHosts",
                ),
                macos: None,
                windows: local(r"Microsoft\Edge Dev\User Data", &[r"Microsoft\Edge"]),
            },
        ],
    },
    Browser {
        name: "brave",
        engine: Engine::Chromium,
        extensions_page: "brave://extensions",
        binaries: Binaries {
            unix: &["brave-browser", "brave", "/opt/brave.com/brave/brave"],
            macos: &["/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"],
        },
        channels: &[Channel {
            id: ChannelId::Brave,
            name: "brave",
            aliases: &[],
            display_name: "Brave",
            linux: chromium_place(
                ".config/BraveSoftware/Brave-Browser",
                ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            ),
            macos: chromium_place(
                "BraveSoftware/Brave-Browser",
                "BraveSoftware/Brave-Browser/NativeMessagingHosts",
            ),
            // Brave reads its own key and falls back to Chrome's.
            windows: local(
                r"BraveSoftware\Brave-Browser\User Data",
                &[r"BraveSoftware\Brave-Browser", r"Google\Chrome"],
            ),
        }],
    },
    Browser {
        name: "opera",
        engine: Engine::Chromium,
        extensions_page: "opera://extensions",
        binaries: Binaries { unix: &["opera"], macos: &["/Applications/Opera.app/Contents/MacOS/Opera"] },
        channels: &[],
    },
    Browser {
        name: "vivaldi",
        engine: Engine::Chromium,
        extensions_page: "vivaldi://extensions",
        binaries: Binaries {
            unix: &["vivaldi", "vivaldi-stable"],
            macos: &["/Applications/Vivaldi.app/Contents/MacOS/Vivaldi"],
        },
        channels: &[Channel {
            id: ChannelId::Vivaldi,
            name: "vivaldi",
            aliases: &[],
            display_name: "Vivaldi",
            linux: chromium_place(".config/vivaldi", ".config/vivaldi/NativeMessagingHosts"),
            macos: chromium_place("Vivaldi", "Vivaldi/NativeMessagingHosts"),
            // Vivaldi reads Chrome's key (unverified).
            windows: local(r"Vivaldi\User Data", CHROME_KEY),
        }],
    },
    Browser {
        name: "firefox",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        // ESR first: the Firefox of these machines; Developer Edition and Nightly are
        // channels of the same browser (they report `firefox` too).
        binaries: Binaries {
            unix: &["firefox-esr", "firefox", "firefox-developer-edition", "firefox-nightly"],
            macos: &["/Applications/Firefox.app/Contents/MacOS/firefox"],
        },
        channels: &[Channel {
            id: ChannelId::Firefox,
            name: "firefox",
            aliases: &["firefox-esr"],
            display_name: "Firefox",
            linux: Some(Place { config_dir: ".mozilla", hosts_dir: MOZILLA_LINUX }),
            macos: Some(Place { config_dir: "Firefox", hosts_dir: MOZILLA_MACOS }),
            windows: roaming(r"Mozilla\Firefox"),
        }],
    },
    Browser {
        name: "librewolf",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        binaries: Binaries { unix: &["librewolf"], macos: &[] },
        channels: &[Channel {
            id: ChannelId::Librewolf,
            name: "librewolf",
            aliases: &[],
            display_name: "LibreWolf",
            linux: Some(Place { config_dir: ".librewolf", hosts_dir: ".librewolf/native-messaging-hosts" }),
            macos: Some(Place { config_dir: "librewolf", hosts_dir: "LibreWolf/NativeMessagingHosts" }),
            windows: roaming("librewolf"),
        }],
    },
    Browser {
        name: "zen",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        // Unverified (no Zen here): the names of its Linux tarball and packages, and its
        // macOS bundle.
        binaries: Binaries {
            unix: &["zen", "zen-browser"],
            macos: &["/Applications/Zen.app/Contents/MacOS/zen"],
        },
        channels: &[Channel {
            id: ChannelId::Zen,
            name: "zen",
            aliases: &[],
            display_name: "Zen",
            linux: Some(Place { config_dir: ".zen", hosts_dir: MOZILLA_LINUX }),
            macos: Some(Place { config_dir: "zen", hosts_dir: MOZILLA_MACOS }),
            windows: roaming("zen"),
        }],
    },
    Browser {
        name: "floorp",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        binaries: Binaries::NONE,
        channels: &[Channel {
            id: ChannelId::Floorp,
            name: "floorp",
            aliases: &[],
            display_name: "Floorp",
            // Unverified; macOS unknown.
            linux: Some(Place { config_dir: ".floorp", hosts_dir: ".floorp/native-messaging-hosts" }),
            macos: None,
            windows: roaming("Floorp"),
        }],
    },
    Browser {
        name: "waterfox",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        binaries: Binaries::NONE,
        channels: &[],
    },
];

/// The browser called `name` (case-insensitive, trimmed).
pub fn browser(name: &str) -> Option<&'static Browser> {
    let name = name.trim();
    BROWSERS.iter().find(|b| b.name.eq_ignore_ascii_case(name))
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

#[cfg(test)]
mod tests;
