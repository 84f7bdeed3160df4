//! The browser catalog's data: every browser webext-mcp knows, with its channels (where
//! `install` registers the native host), its install places per system (what detection
//! reads), the programs a launch tries and the builds `extension_install_browser`
//! downloads. The types and the lookups are in [`super`]; the consistency of the table is
//! checked in `browsers/tests.rs`.
//!
//! Install places are tried in order; the first of a (browser, channel word, source) that
//! exists wins, so the real binary comes before the launcher script in `PATH`
//! (`/usr/lib/chromium/chromium` before Debian's `/usr/bin/chromium`). Linux places are
//! verified on Debian for Chromium and Firefox ESR; the others follow the vendors' packages
//! and are covered by table tests on fake trees. Native-messaging paths follow
//! `reference/native-messaging.md`; the entries marked unverified there stay so here.

use super::ChannelWord::{Beta, Canary, Dev, Developer, Esr, Nightly, Snapshot, Stable};
use super::installs::At::{self, Program};
use super::installs::{deb, flatpak, linux, mac, snap, win};
use super::managed::Managed;
use super::{AppData, Binaries, Browser, Channel, ChannelId, Engine, ManagedBuild, Place, WindowsPlace};

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
        installs: &[
            deb(Stable, "/opt/google/chrome/chrome", "google-chrome-stable"),
            linux(Stable, Program("google-chrome-stable")),
            linux(Stable, Program("google-chrome")),
            deb(Beta, "/opt/google/chrome-beta/chrome", "google-chrome-beta"),
            linux(Beta, Program("google-chrome-beta")),
            deb(Dev, "/opt/google/chrome-unstable/chrome", "google-chrome-unstable"),
            linux(Dev, Program("google-chrome-unstable")),
            deb(Canary, "/opt/google/chrome-canary/chrome", "google-chrome-canary"),
            linux(Canary, Program("google-chrome-canary")),
            flatpak(Stable, "com.google.Chrome"),
            flatpak(Dev, "com.google.ChromeDev"),
            mac(Stable, "Google Chrome.app/Contents/MacOS/Google Chrome"),
            mac(Beta, "Google Chrome Beta.app/Contents/MacOS/Google Chrome Beta"),
            mac(Dev, "Google Chrome Dev.app/Contents/MacOS/Google Chrome Dev"),
            mac(Canary, "Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary"),
            win(Stable, r"Google\Chrome\Application\chrome.exe"),
            win(Beta, r"Google\Chrome Beta\Application\chrome.exe"),
            win(Dev, r"Google\Chrome Dev\Application\chrome.exe"),
            win(Canary, r"Google\Chrome SxS\Application\chrome.exe"),
        ],
        managed: &[ManagedBuild {
            id: Managed::ChromeForTesting,
            name: "chrome-for-testing",
            default_channel: Stable,
        }],
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
        installs: &[
            // Debian's real binary first (its `/usr/bin/chromium` wrapper adds flags).
            deb(Stable, "/usr/lib/chromium/chromium", "chromium"),
            deb(Stable, "/usr/lib/chromium-browser/chromium-browser", "chromium-browser"),
            linux(Stable, Program("chromium")),
            linux(Stable, Program("chromium-browser")),
            snap("/snap/bin/chromium"),
            flatpak(Stable, "org.chromium.Chromium"),
            mac(Stable, "Chromium.app/Contents/MacOS/Chromium"),
            win(Stable, r"Chromium\Application\chrome.exe"),
        ],
        managed: &[ManagedBuild { id: Managed::Chromium, name: "chromium", default_channel: Snapshot }],
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
        installs: &[
            deb(Stable, "/opt/microsoft/msedge/msedge", "microsoft-edge-stable"),
            linux(Stable, Program("microsoft-edge-stable")),
            linux(Stable, Program("microsoft-edge")),
            deb(Beta, "/opt/microsoft/msedge-beta/msedge", "microsoft-edge-beta"),
            linux(Beta, Program("microsoft-edge-beta")),
            deb(Dev, "/opt/microsoft/msedge-dev/msedge", "microsoft-edge-dev"),
            linux(Dev, Program("microsoft-edge-dev")),
            flatpak(Stable, "com.microsoft.Edge"),
            mac(Stable, "Microsoft Edge.app/Contents/MacOS/Microsoft Edge"),
            mac(Beta, "Microsoft Edge Beta.app/Contents/MacOS/Microsoft Edge Beta"),
            mac(Dev, "Microsoft Edge Dev.app/Contents/MacOS/Microsoft Edge Dev"),
            mac(Canary, "Microsoft Edge Canary.app/Contents/MacOS/Microsoft Edge Canary"),
            win(Stable, r"Microsoft\Edge\Application\msedge.exe"),
            win(Beta, r"Microsoft\Edge Beta\Application\msedge.exe"),
            win(Dev, r"Microsoft\Edge Dev\Application\msedge.exe"),
            win(Canary, r"Microsoft\Edge SxS\Application\msedge.exe"),
        ],
        managed: &[],
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
        installs: &[
            deb(Stable, "/opt/brave.com/brave/brave", "brave-browser"),
            linux(Stable, Program("brave-browser")),
            linux(Stable, Program("brave")),
            deb(Beta, "/opt/brave.com/brave-beta/brave", "brave-browser-beta"),
            linux(Beta, Program("brave-browser-beta")),
            deb(Nightly, "/opt/brave.com/brave-nightly/brave", "brave-browser-nightly"),
            linux(Nightly, Program("brave-browser-nightly")),
            snap("/snap/bin/brave"),
            flatpak(Stable, "com.brave.Browser"),
            mac(Stable, "Brave Browser.app/Contents/MacOS/Brave Browser"),
            mac(Beta, "Brave Browser Beta.app/Contents/MacOS/Brave Browser Beta"),
            mac(Nightly, "Brave Browser Nightly.app/Contents/MacOS/Brave Browser Nightly"),
            win(Stable, r"BraveSoftware\Brave-Browser\Application\brave.exe"),
            win(Beta, r"BraveSoftware\Brave-Browser-Beta\Application\brave.exe"),
            win(Nightly, r"BraveSoftware\Brave-Browser-Nightly\Application\brave.exe"),
        ],
        managed: &[],
    },
    Browser {
        name: "opera",
        engine: Engine::Chromium,
        extensions_page: "opera://extensions",
        binaries: Binaries { unix: &["opera"], macos: &["/Applications/Opera.app/Contents/MacOS/Opera"] },
        channels: &[],
        installs: &[
            // Windows: the per-user installer's folder (unverified).
            deb(Stable, "/usr/lib/x86_64-linux-gnu/opera/opera", "opera-stable"),
            linux(Stable, Program("opera")),
            linux(Beta, Program("opera-beta")),
            linux(Developer, Program("opera-developer")),
            snap("/snap/bin/opera"),
            flatpak(Stable, "com.opera.Opera"),
            mac(Stable, "Opera.app/Contents/MacOS/Opera"),
            win(Stable, r"Programs\Opera\opera.exe"),
        ],
        managed: &[],
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
        installs: &[
            deb(Stable, "/opt/vivaldi/vivaldi", "vivaldi-stable"),
            linux(Stable, Program("vivaldi-stable")),
            linux(Stable, Program("vivaldi")),
            deb(Snapshot, "/opt/vivaldi-snapshot/vivaldi", "vivaldi-snapshot"),
            linux(Snapshot, Program("vivaldi-snapshot")),
            flatpak(Stable, "com.vivaldi.Vivaldi"),
            mac(Stable, "Vivaldi.app/Contents/MacOS/Vivaldi"),
            win(Stable, r"Vivaldi\Application\vivaldi.exe"),
        ],
        managed: &[],
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
        installs: &[
            // ESR first (the Firefox of Debian); `/usr/bin/firefox` there is a script that
            // runs firefox-esr, so it only counts where no real Firefox was found.
            deb(Esr, "/usr/lib/firefox-esr/firefox-esr", "firefox-esr"),
            linux(Esr, Program("firefox-esr")),
            deb(Stable, "/usr/lib/firefox/firefox", "firefox"),
            linux(Stable, At::Path("/opt/firefox/firefox")),
            linux(Stable, Program("firefox")),
            linux(Developer, At::Path("/opt/firefox-developer-edition/firefox")),
            linux(Developer, Program("firefox-developer-edition")),
            deb(Nightly, "/usr/lib/firefox-nightly/firefox", "firefox-nightly"),
            linux(Nightly, Program("firefox-nightly")),
            snap("/snap/bin/firefox"),
            flatpak(Stable, "org.mozilla.firefox"),
            mac(Stable, "Firefox.app/Contents/MacOS/firefox"),
            mac(Developer, "Firefox Developer Edition.app/Contents/MacOS/firefox"),
            mac(Nightly, "Firefox Nightly.app/Contents/MacOS/firefox"),
            win(Stable, r"Mozilla Firefox\firefox.exe"),
            win(Developer, r"Firefox Developer Edition\firefox.exe"),
            win(Nightly, r"Firefox Nightly\firefox.exe"),
        ],
        managed: &[
            ManagedBuild { id: Managed::Firefox, name: "firefox", default_channel: Stable },
            ManagedBuild { id: Managed::FirefoxEsr, name: "firefox-esr", default_channel: Esr },
            ManagedBuild {
                id: Managed::FirefoxDeveloper,
                name: "firefox-developer",
                default_channel: Developer,
            },
        ],
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
        installs: &[
            deb(Stable, "/usr/lib/librewolf/librewolf", "librewolf"),
            linux(Stable, Program("librewolf")),
            flatpak(Stable, "io.gitlab.librewolf-community"),
            mac(Stable, "LibreWolf.app/Contents/MacOS/librewolf"),
            win(Stable, r"LibreWolf\librewolf.exe"),
        ],
        managed: &[],
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
        installs: &[
            linux(Stable, At::Path("/opt/zen/zen")),
            linux(Stable, Program("zen")),
            linux(Stable, Program("zen-browser")),
            flatpak(Stable, "app.zen_browser.zen"),
            mac(Stable, "Zen.app/Contents/MacOS/zen"),
            win(Stable, r"Zen Browser\zen.exe"),
        ],
        managed: &[],
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
        installs: &[
            deb(Stable, "/usr/lib/floorp/floorp", "floorp"),
            linux(Stable, Program("floorp")),
            flatpak(Stable, "one.ablaze.floorp"),
            mac(Stable, "Floorp.app/Contents/MacOS/floorp"),
            win(Stable, r"Ablaze Floorp\floorp.exe"),
        ],
        managed: &[],
    },
    Browser {
        name: "waterfox",
        engine: Engine::Gecko,
        extensions_page: "about:addons",
        binaries: Binaries::NONE,
        channels: &[],
        installs: &[
            linux(Stable, At::Path("/usr/lib/waterfox/waterfox")),
            linux(Stable, Program("waterfox")),
            flatpak(Stable, "net.waterfox.waterfox"),
            mac(Stable, "Waterfox.app/Contents/MacOS/waterfox"),
            win(Stable, r"Waterfox\waterfox.exe"),
        ],
        managed: &[],
    },
];
