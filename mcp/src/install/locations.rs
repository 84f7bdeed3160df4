//! Where each browser looks for native-messaging host manifests, as pure functions of the
//! operating system and the home directory (the table of `reference/native-messaging.md`).
//!
//! Nothing here touches the file system or the registry: the same answers are computed and
//! tested on every platform, and `install`/`doctor` decide what to do with them.

use std::path::{Path, PathBuf};

use serde::Serialize;
use webext_mcp_host::protocol::NATIVE_HOST_NAME;

use crate::runner::Family;

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

/// One browser (or one channel of a browser) `install` knows how to register with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
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

impl Target {
    pub const ALL: [Target; 14] = [
        Target::Chrome,
        Target::ChromeBeta,
        Target::ChromeUnstable,
        Target::Chromium,
        Target::ChromiumSnap,
        Target::Edge,
        Target::EdgeBeta,
        Target::EdgeDev,
        Target::Brave,
        Target::Vivaldi,
        Target::Firefox,
        Target::Zen,
        Target::Librewolf,
        Target::Floorp,
    ];

    /// The id used by `--browser` and in reports.
    pub const fn id(self) -> &'static str {
        match self {
            Target::Chrome => "chrome",
            Target::ChromeBeta => "chrome-beta",
            Target::ChromeUnstable => "chrome-unstable",
            Target::Chromium => "chromium",
            Target::ChromiumSnap => "chromium-snap",
            Target::Edge => "edge",
            Target::EdgeBeta => "edge-beta",
            Target::EdgeDev => "edge-dev",
            Target::Brave => "brave",
            Target::Vivaldi => "vivaldi",
            Target::Firefox => "firefox",
            Target::Zen => "zen",
            Target::Librewolf => "librewolf",
            Target::Floorp => "floorp",
        }
    }

    /// The name users know.
    pub const fn display_name(self) -> &'static str {
        match self {
            Target::Chrome => "Google Chrome",
            Target::ChromeBeta => "Google Chrome Beta",
            Target::ChromeUnstable => "Google Chrome Dev (unstable)",
            Target::Chromium => "Chromium",
            Target::ChromiumSnap => "Chromium (snap)",
            Target::Edge => "Microsoft Edge",
            Target::EdgeBeta => "Microsoft Edge Beta",
            Target::EdgeDev => "Microsoft Edge Dev",
            Target::Brave => "Brave",
            Target::Vivaldi => "Vivaldi",
            Target::Firefox => "Firefox",
            Target::Zen => "Zen",
            Target::Librewolf => "LibreWolf",
            Target::Floorp => "Floorp",
        }
    }

    pub const fn family(self) -> Family {
        match self {
            Target::Firefox | Target::Zen | Target::Librewolf | Target::Floorp => Family::Firefox,
            _ => Family::Chromium,
        }
    }

    /// The name the helper reports for this browser in its `hello` (descriptor `browser`).
    pub const fn reported_name(self) -> &'static str {
        match self {
            Target::Chrome | Target::ChromeBeta | Target::ChromeUnstable => "chrome",
            Target::Chromium | Target::ChromiumSnap => "chromium",
            Target::Edge | Target::EdgeBeta | Target::EdgeDev => "edge",
            Target::Brave => "brave",
            Target::Vivaldi => "vivaldi",
            Target::Firefox => "firefox",
            Target::Zen => "zen",
            Target::Librewolf => "librewolf",
            Target::Floorp => "floorp",
        }
    }

    /// Resolves a `--browser` value: a target id, or a browser name that covers its channels
    /// (`chrome` is Chrome stable only; `chromium-based` / `gecko-based` mean the family).
    pub fn parse_list(text: &str) -> Result<Vec<Target>, String> {
        let mut out = Vec::new();
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let name = name.to_ascii_lowercase();
            match name.as_str() {
                "all" => out.extend(Target::ALL),
                "chromium-based" => {
                    out.extend(Target::ALL.into_iter().filter(|t| t.family() == Family::Chromium))
                }
                "gecko-based" => {
                    out.extend(Target::ALL.into_iter().filter(|t| t.family() == Family::Firefox))
                }
                "firefox-esr" => out.push(Target::Firefox),
                other => match Target::ALL.into_iter().find(|t| t.id() == other) {
                    Some(t) => out.push(t),
                    None => {
                        let known: Vec<&str> = Target::ALL.iter().map(|t| t.id()).collect();
                        return Err(format!(
                            "unknown browser `{other}`; use one of {}, chromium-based, gecko-based or all",
                            known.join(", ")
                        ));
                    }
                },
            }
        }
        if out.is_empty() {
            return Err("no browser named; pass e.g. --browser chromium".to_owned());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// Where one browser keeps its configuration and looks for host manifests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// The browser counts as installed when this directory exists.
    pub config_dir: PathBuf,
    /// The manifest file the browser reads (Windows: the file the registry value names).
    pub manifest: PathBuf,
    /// Windows: `HKEY_CURRENT_USER\<key>` whose default value is [`Location::manifest`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub registry_keys: Vec<String>,
}

/// The directories a location is computed from: the home and, on Windows, the per-user
/// application data folders (the manifests webext-mcp writes there live in `data_dir`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    pub home: PathBuf,
    /// `%LOCALAPPDATA%` (Chromium-family profiles on Windows).
    pub local_app_data: PathBuf,
    /// `%APPDATA%` (Gecko-family profiles on Windows).
    pub app_data: PathBuf,
    pub data_dir: PathBuf,
}

/// The manifest file name on every platform.
pub fn manifest_file_name() -> String {
    format!("{NATIVE_HOST_NAME}.json")
}

/// `Software\…\NativeMessagingHosts\<name>` keys under `HKEY_CURRENT_USER` that make `target`
/// find the host on Windows. Pure, so tested on every platform.
pub fn registry_keys(target: Target) -> Vec<String> {
    let key = |vendor: &str| format!(r"Software\{vendor}\NativeMessagingHosts\{NATIVE_HOST_NAME}");
    match target {
        Target::Chrome | Target::ChromeBeta | Target::ChromeUnstable => vec![key(r"Google\Chrome")],
        Target::Chromium | Target::ChromiumSnap => vec![key("Chromium")],
        Target::Edge | Target::EdgeBeta | Target::EdgeDev => vec![key(r"Microsoft\Edge")],
        // Brave reads its own key and falls back to Chrome's.
        Target::Brave => vec![key(r"BraveSoftware\Brave-Browser"), key(r"Google\Chrome")],
        Target::Vivaldi => vec![key(r"Google\Chrome")],
        Target::Firefox | Target::Zen | Target::Librewolf | Target::Floorp => vec![key("Mozilla")],
    }
}

/// Where `target` is on `os`; `None` where the browser has no known per-user location
/// there (snap and some channels are Linux-only; Floorp on macOS is unverified).
pub fn location(target: Target, os: Os, roots: &Roots) -> Option<Location> {
    let name = manifest_file_name();
    let home = &roots.home;
    let hosts = |config: PathBuf, sub: &str| {
        let manifest = config.join(sub).join(&name);
        Location { config_dir: config, manifest, registry_keys: Vec::new() }
    };
    match os {
        Os::Linux => {
            let cfg = home.join(".config");
            Some(match target {
                Target::Chrome => hosts(cfg.join("google-chrome"), "NativeMessagingHosts"),
                Target::ChromeBeta => hosts(cfg.join("google-chrome-beta"), "NativeMessagingHosts"),
                Target::ChromeUnstable => hosts(cfg.join("google-chrome-unstable"), "NativeMessagingHosts"),
                Target::Chromium => hosts(cfg.join("chromium"), "NativeMessagingHosts"),
                Target::ChromiumSnap => {
                    hosts(home.join("snap/chromium/common/chromium"), "NativeMessagingHosts")
                }
                Target::Edge => hosts(cfg.join("microsoft-edge"), "NativeMessagingHosts"),
                Target::EdgeBeta => hosts(cfg.join("microsoft-edge-beta"), "NativeMessagingHosts"),
                Target::EdgeDev => hosts(cfg.join("microsoft-edge-dev"), "NativeMessagingHosts"),
                Target::Brave => hosts(cfg.join("BraveSoftware/Brave-Browser"), "NativeMessagingHosts"),
                Target::Vivaldi => hosts(cfg.join("vivaldi"), "NativeMessagingHosts"),
                // Firefox and Zen both read ~/.mozilla, never the XDG ~/.config/mozilla.
                Target::Firefox => hosts(home.join(".mozilla"), "native-messaging-hosts"),
                Target::Zen => Location {
                    config_dir: home.join(".zen"),
                    manifest: home.join(".mozilla/native-messaging-hosts").join(&name),
                    registry_keys: Vec::new(),
                },
                Target::Librewolf => hosts(home.join(".librewolf"), "native-messaging-hosts"),
                Target::Floorp => hosts(home.join(".floorp"), "native-messaging-hosts"),
            })
        }
        Os::Macos => {
            let support = home.join("Library/Application Support");
            let mozilla = support.join("Mozilla/NativeMessagingHosts").join(&name);
            let gecko = |config: &str, manifest: PathBuf| Location {
                config_dir: support.join(config),
                manifest,
                registry_keys: Vec::new(),
            };
            Some(match target {
                Target::Chrome => hosts(support.join("Google/Chrome"), "NativeMessagingHosts"),
                Target::Chromium => hosts(support.join("Chromium"), "NativeMessagingHosts"),
                Target::Edge => hosts(support.join("Microsoft Edge"), "NativeMessagingHosts"),
                Target::Brave => hosts(support.join("BraveSoftware/Brave-Browser"), "NativeMessagingHosts"),
                Target::Vivaldi => hosts(support.join("Vivaldi"), "NativeMessagingHosts"),
                Target::Firefox => gecko("Firefox", mozilla),
                Target::Zen => gecko("zen", mozilla),
                Target::Librewolf => {
                    gecko("librewolf", support.join("LibreWolf/NativeMessagingHosts").join(&name))
                }
                Target::ChromeBeta
                | Target::ChromeUnstable
                | Target::ChromiumSnap
                | Target::EdgeBeta
                | Target::EdgeDev
                | Target::Floorp => return None,
            })
        }
        Os::Windows => {
            let local = |rel: &str| roots.local_app_data.join(rel);
            let roaming = |rel: &str| roots.app_data.join(rel);
            let config_dir = match target {
                Target::Chrome => local(r"Google\Chrome\User Data"),
                Target::ChromeBeta => local(r"Google\Chrome Beta\User Data"),
                Target::ChromeUnstable => local(r"Google\Chrome Dev\User Data"),
                Target::Chromium => local(r"Chromium\User Data"),
                Target::Edge => local(r"Microsoft\Edge\User Data"),
                Target::EdgeBeta => local(r"Microsoft\Edge Beta\User Data"),
                Target::EdgeDev => local(r"Microsoft\Edge Dev\User Data"),
                Target::Brave => local(r"BraveSoftware\Brave-Browser\User Data"),
                Target::Vivaldi => local(r"Vivaldi\User Data"),
                Target::Firefox => roaming(r"Mozilla\Firefox"),
                Target::Zen => roaming(r"zen"),
                Target::Librewolf => roaming(r"librewolf"),
                Target::Floorp => roaming(r"Floorp"),
                Target::ChromiumSnap => return None,
            };
            // One manifest per family, kept with webext-mcp's data; the registry points at it.
            let family = target.family().name();
            let manifest = roots.data_dir.join("hosts").join(family).join(&name);
            Some(Location { config_dir, manifest, registry_keys: registry_keys(target) })
        }
    }
}

/// Where Firefox users often put a manifest by mistake: the XDG config dir, which Firefox
/// does not read (verified on Linux).
pub fn misplaced_gecko_manifest(os: Os, home: &Path) -> Option<PathBuf> {
    (os == Os::Linux).then(|| home.join(".config/mozilla/native-messaging-hosts").join(manifest_file_name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> Roots {
        Roots {
            home: PathBuf::from("/h"),
            local_app_data: PathBuf::from(r"C:\Users\u\AppData\Local"),
            app_data: PathBuf::from(r"C:\Users\u\AppData\Roaming"),
            data_dir: PathBuf::from(r"C:\Users\u\AppData\Local\webext-mcp\data"),
        }
    }

    #[test]
    fn linux_table_matches_the_reference() {
        let cases = [
            (Target::Chrome, "/h/.config/google-chrome", "/h/.config/google-chrome/NativeMessagingHosts"),
            (
                Target::ChromeBeta,
                "/h/.config/google-chrome-beta",
                "/h/.config/google-chrome-beta/NativeMessagingHosts",
            ),
            (
                Target::ChromeUnstable,
                "/h/.config/google-chrome-unstable",
                "/h/.config/google-chrome-unstable/NativeMessagingHosts",
            ),
            (Target::Chromium, "/h/.config/chromium", "/h/.config/chromium/NativeMessagingHosts"),
            (
                Target::ChromiumSnap,
                "/h/snap/chromium/common/chromium",
                "/h/snap/chromium/common/chromium/NativeMessagingHosts",
            ),
            (Target::Edge, "/h/.config/microsoft-edge", "/h/.config/microsoft-edge/NativeMessagingHosts"),
            (
                Target::EdgeBeta,
                "/h/.config/microsoft-edge-beta",
                "/h/.config/microsoft-edge-beta/NativeMessagingHosts",
            ),
            (
                Target::EdgeDev,
                "/h/.config/microsoft-edge-dev",
                "/h/.config/microsoft-edge-dev/NativeMessagingHosts",
            ),
            (
                Target::Brave,
                "/h/.config/BraveSoftware/Brave-Browser",
                "/h/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            ),
            (Target::Vivaldi, "/h/.config/vivaldi", "/h/.config/vivaldi/NativeMessagingHosts"),
            (Target::Firefox, "/h/.mozilla", "/h/.mozilla/native-messaging-hosts"),
            (Target::Zen, "/h/.zen", "/h/.mozilla/native-messaging-hosts"),
            (Target::Librewolf, "/h/.librewolf", "/h/.librewolf/native-messaging-hosts"),
            (Target::Floorp, "/h/.floorp", "/h/.floorp/native-messaging-hosts"),
        ];
        assert_eq!(cases.len(), Target::ALL.len());
        for (target, config, dir) in cases {
            let loc = location(target, Os::Linux, &roots()).unwrap();
            assert_eq!(loc.config_dir, Path::new(config), "{target:?}");
            assert_eq!(loc.manifest, Path::new(dir).join("dev.webext_mcp.bridge.json"), "{target:?}");
            assert!(loc.registry_keys.is_empty());
        }
    }

    #[test]
    fn macos_table_matches_the_reference() {
        let s = "/h/Library/Application Support";
        let cases = [
            (Target::Chrome, "Google/Chrome/NativeMessagingHosts"),
            (Target::Chromium, "Chromium/NativeMessagingHosts"),
            (Target::Edge, "Microsoft Edge/NativeMessagingHosts"),
            (Target::Brave, "BraveSoftware/Brave-Browser/NativeMessagingHosts"),
            (Target::Vivaldi, "Vivaldi/NativeMessagingHosts"),
            (Target::Firefox, "Mozilla/NativeMessagingHosts"),
            (Target::Zen, "Mozilla/NativeMessagingHosts"),
            (Target::Librewolf, "LibreWolf/NativeMessagingHosts"),
        ];
        for (target, dir) in cases {
            let loc = location(target, Os::Macos, &roots()).unwrap();
            assert_eq!(loc.manifest, Path::new(s).join(dir).join("dev.webext_mcp.bridge.json"), "{target:?}");
        }
        assert_eq!(
            location(Target::Firefox, Os::Macos, &roots()).unwrap().config_dir,
            Path::new(s).join("Firefox")
        );
        for t in [Target::ChromiumSnap, Target::Floorp, Target::EdgeDev] {
            assert!(location(t, Os::Macos, &roots()).is_none(), "{t:?}");
        }
    }

    #[test]
    fn windows_registry_keys_per_browser() {
        let chrome = r"Software\Google\Chrome\NativeMessagingHosts\dev.webext_mcp.bridge";
        let mozilla = r"Software\Mozilla\NativeMessagingHosts\dev.webext_mcp.bridge";
        assert_eq!(registry_keys(Target::Chrome), [chrome]);
        assert_eq!(
            registry_keys(Target::Chromium),
            [r"Software\Chromium\NativeMessagingHosts\dev.webext_mcp.bridge"]
        );
        assert_eq!(
            registry_keys(Target::Edge),
            [r"Software\Microsoft\Edge\NativeMessagingHosts\dev.webext_mcp.bridge"]
        );
        assert_eq!(
            registry_keys(Target::Brave),
            [r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.webext_mcp.bridge", chrome]
        );
        assert_eq!(registry_keys(Target::Vivaldi), [chrome]);
        for t in [Target::Firefox, Target::Zen, Target::Librewolf, Target::Floorp] {
            assert_eq!(registry_keys(t), [mozilla], "{t:?}");
        }
        let loc = location(Target::Edge, Os::Windows, &roots()).unwrap();
        assert_eq!(loc.registry_keys, registry_keys(Target::Edge));
        assert!(loc.manifest.starts_with(&roots().data_dir));
        assert!(loc.manifest.to_string_lossy().contains("chromium"));
        assert!(location(Target::ChromiumSnap, Os::Windows, &roots()).is_none());
    }

    #[test]
    fn browser_lists_resolve() {
        assert_eq!(Target::parse_list("chromium").unwrap(), [Target::Chromium]);
        assert_eq!(Target::parse_list("firefox, zen").unwrap(), [Target::Firefox, Target::Zen]);
        assert_eq!(Target::parse_list("gecko-based").unwrap().len(), 4);
        assert_eq!(Target::parse_list("all").unwrap().len(), Target::ALL.len());
        let err = Target::parse_list("netscape").unwrap_err();
        assert!(err.contains("netscape") && err.contains("chromium"), "{err}");
        assert!(Target::parse_list(" , ").is_err());
    }

    #[test]
    fn the_xdg_mozilla_path_is_the_known_mistake() {
        let p = misplaced_gecko_manifest(Os::Linux, Path::new("/h")).unwrap();
        assert_eq!(p, Path::new("/h/.config/mozilla/native-messaging-hosts/dev.webext_mcp.bridge.json"));
        assert!(misplaced_gecko_manifest(Os::Macos, Path::new("/h")).is_none());
    }
}
