//! Where each browser looks for native-messaging host manifests, as pure functions of the
//! operating system and the home directory (the table of `reference/native-messaging.md`).
//!
//! Nothing here touches the file system or the registry: the same answers are computed and
//! tested on every platform, and `install`/`doctor` decide what to do with them.

use std::path::{Path, PathBuf};

use serde::Serialize;
use webext_mcp_host::protocol::NATIVE_HOST_NAME;

use crate::browsers::Engine as Family;
use crate::browsers::{self, AppData, Place};

pub use crate::browsers::Os;

/// One browser (or one channel of a browser) `install` knows how to register with: a key
/// into the catalog ([`crate::browsers`]), which holds its names and locations.
pub use crate::browsers::ChannelId as Target;

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
    pub fn id(self) -> &'static str {
        self.entry().1.name
    }

    /// The name users know.
    pub fn display_name(self) -> &'static str {
        self.entry().1.display_name
    }

    pub fn family(self) -> Family {
        self.engine()
    }

    /// The name the helper reports for this browser in its `hello` (descriptor `browser`).
    pub fn reported_name(self) -> &'static str {
        self.entry().0.name
    }

    /// Resolves a `--browser` value: a target id, or a browser name that covers its channels
    /// (`chrome` is Chrome stable only; `chromium-based` / `gecko-based` mean the family).
    pub fn parse_list(text: &str) -> Result<Vec<Target>, String> {
        let mut out = Vec::new();
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let name = name.to_ascii_lowercase();
            if name == "all" {
                out.extend(Target::ALL);
                continue;
            }
            if let Some(engine) = Family::ALL.into_iter().find(|e| e.any_name() == name) {
                out.extend(Target::ALL.into_iter().filter(|t| t.family() == engine));
                continue;
            }
            match browsers::channels().find(|(_, c)| c.name == name || c.aliases.contains(&name.as_str())) {
                Some((_, c)) => out.push(c.id),
                None => {
                    let known: Vec<&str> = Target::ALL.iter().map(|t| t.id()).collect();
                    return Err(format!(
                        "unknown browser `{name}`; use one of {}, chromium-based, gecko-based or all",
                        known.join(", ")
                    ));
                }
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
    let vendors = target.entry().1.windows.map(|w| w.registry_vendors).unwrap_or_default();
    vendors
        .iter()
        .map(|vendor| format!(r"Software\{vendor}\NativeMessagingHosts\{NATIVE_HOST_NAME}"))
        .collect()
}

/// Where `target` is on `os`; `None` where the browser has no known per-user location
/// there (snap and some channels are Linux-only; Floorp on macOS is unverified).
pub fn location(target: Target, os: Os, roots: &Roots) -> Option<Location> {
    let name = manifest_file_name();
    let channel = target.entry().1;
    let at = |root: &Path, place: Place| Location {
        config_dir: root.join(place.config_dir),
        manifest: root.join(place.hosts_dir).join(&name),
        registry_keys: Vec::new(),
    };
    match os {
        Os::Linux => channel.linux.map(|p| at(&roots.home, p)),
        Os::Macos => channel.macos.map(|p| at(&roots.home.join("Library/Application Support"), p)),
        Os::Windows => {
            let w = channel.windows?;
            let root = match w.root {
                AppData::Local => &roots.local_app_data,
                AppData::Roaming => &roots.app_data,
            };
            // One manifest per family, kept with webext-mcp's data; the registry points at it.
            let family = target.family().name();
            let manifest = roots.data_dir.join("hosts").join(family).join(&name);
            Some(Location {
                config_dir: root.join(w.config_dir),
                manifest,
                registry_keys: registry_keys(target),
            })
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
