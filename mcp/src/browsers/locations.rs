//! Where each browser looks for native-messaging host manifests, as pure functions of the
//! operating system and the home directory (the table of `reference/native-messaging.md`).
//!
//! Nothing here touches the file system or the registry: the same answers are computed and
//! tested on every platform, and `install`/`doctor` decide what to do with them.

use std::path::{Path, PathBuf};

use serde::Serialize;
use webext_mcp_host::protocol::NATIVE_HOST_NAME;

use crate::browsers::{self, AppData, ChannelId, Engine, Place};
use crate::paths::Env;

pub use crate::browsers::Os;

// `ChannelId` (one browser, or one channel of a browser, `install` knows how to register
// with) is a key into the catalog ([`crate::browsers`]), which holds its names and
// locations; these are the answers `install` and `doctor` need from it.
impl ChannelId {
    /// The id used by `--browser` and in reports.
    pub fn id(self) -> &'static str {
        self.entry().1.name
    }

    /// The name users know.
    pub fn display_name(self) -> &'static str {
        self.entry().1.display_name
    }

    /// The name the helper reports for this browser in its `hello` (descriptor `browser`).
    pub fn reported_name(self) -> &'static str {
        self.entry().0.name
    }

    /// Resolves a `--browser` value: a target id, or a browser name that covers its channels
    /// (`chrome` is Chrome stable only; `chromium-based` / `gecko-based` mean the family).
    pub fn parse_list(text: &str) -> Result<Vec<ChannelId>, String> {
        let mut out = Vec::new();
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let name = name.to_ascii_lowercase();
            if name == "all" {
                out.extend(ChannelId::ALL);
                continue;
            }
            if let Some(engine) = Engine::ALL.into_iter().find(|e| e.any_name() == name) {
                out.extend(ChannelId::ALL.into_iter().filter(|t| t.engine() == engine));
                continue;
            }
            match browsers::channels().find(|(_, c)| c.name == name || c.aliases.contains(&name.as_str())) {
                Some((_, c)) => out.push(c.id),
                None => {
                    let known: Vec<&str> = ChannelId::ALL.iter().map(|t| t.id()).collect();
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

impl Roots {
    /// The roots of `home`, with `%LOCALAPPDATA%` and `%APPDATA%` from `env` (absolute values
    /// only) or their defaults under the home.
    pub fn of(home: &Path, env: &Env, data_dir: &Path) -> Roots {
        let var = |key: &str, fallback: &str| {
            env.get(key).map(PathBuf::from).filter(|p| p.is_absolute()).unwrap_or_else(|| home.join(fallback))
        };
        Roots {
            home: home.to_path_buf(),
            local_app_data: var("LOCALAPPDATA", "AppData/Local"),
            app_data: var("APPDATA", "AppData/Roaming"),
            data_dir: data_dir.to_path_buf(),
        }
    }
}

/// The folders where the catalog's browsers keep their own profiles on `os` (their
/// configuration folders, which hold the profiles): a dev browser never runs in one.
pub fn profile_dirs(os: Os, roots: &Roots) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for dir in ChannelId::ALL.iter().filter_map(|c| location(*c, os, roots)).map(|l| l.config_dir) {
        if !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

/// The manifest file name on every platform.
pub fn manifest_file_name() -> String {
    format!("{NATIVE_HOST_NAME}.json")
}

/// `Software\…\NativeMessagingHosts\<name>` keys under `HKEY_CURRENT_USER` that make `target`
/// find the host on Windows. Pure, so tested on every platform.
pub fn registry_keys(target: ChannelId) -> Vec<String> {
    let vendors = target.entry().1.windows.map(|w| w.registry_vendors).unwrap_or_default();
    vendors
        .iter()
        .map(|vendor| format!(r"Software\{vendor}\NativeMessagingHosts\{NATIVE_HOST_NAME}"))
        .collect()
}

/// Where `target` is on `os`; `None` where the browser has no known per-user location
/// there (snap and some channels are Linux-only; Floorp on macOS is unverified).
pub fn location(target: ChannelId, os: Os, roots: &Roots) -> Option<Location> {
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
            let family = target.engine().name();
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
    fn daily_profile_dirs_cover_every_family() {
        let linux = profile_dirs(Os::Linux, &roots());
        for dir in ["/h/.config/chromium", "/h/.config/google-chrome", "/h/.mozilla", "/h/.zen"] {
            assert!(linux.contains(&PathBuf::from(dir)), "{dir} missing from {linux:?}");
        }
        let windows = profile_dirs(Os::Windows, &roots());
        assert!(windows.iter().any(|d| d.ends_with(r"Chromium\User Data")), "{windows:?}");
    }

    #[test]
    fn linux_table_matches_the_reference() {
        let cases = [
            (ChannelId::Chrome, "/h/.config/google-chrome", "/h/.config/google-chrome/NativeMessagingHosts"),
            (
                ChannelId::ChromeBeta,
                "/h/.config/google-chrome-beta",
                "/h/.config/google-chrome-beta/NativeMessagingHosts",
            ),
            (
                ChannelId::ChromeUnstable,
                "/h/.config/google-chrome-unstable",
                "/h/.config/google-chrome-unstable/NativeMessagingHosts",
            ),
            (ChannelId::Chromium, "/h/.config/chromium", "/h/.config/chromium/NativeMessagingHosts"),
            (
                ChannelId::ChromiumSnap,
                "/h/snap/chromium/common/chromium",
                "/h/snap/chromium/common/chromium/NativeMessagingHosts",
            ),
            (ChannelId::Edge, "/h/.config/microsoft-edge", "/h/.config/microsoft-edge/NativeMessagingHosts"),
            (
                ChannelId::EdgeBeta,
                "/h/.config/microsoft-edge-beta",
                "/h/.config/microsoft-edge-beta/NativeMessagingHosts",
            ),
            (
                ChannelId::EdgeDev,
                "/h/.config/microsoft-edge-dev",
                "/h/.config/microsoft-edge-dev/NativeMessagingHosts",
            ),
            (
                ChannelId::Brave,
                "/h/.config/BraveSoftware/Brave-Browser",
                "/h/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            ),
            (ChannelId::Vivaldi, "/h/.config/vivaldi", "/h/.config/vivaldi/NativeMessagingHosts"),
            (ChannelId::Firefox, "/h/.mozilla", "/h/.mozilla/native-messaging-hosts"),
            (ChannelId::Zen, "/h/.zen", "/h/.mozilla/native-messaging-hosts"),
            (ChannelId::Librewolf, "/h/.librewolf", "/h/.librewolf/native-messaging-hosts"),
            (ChannelId::Floorp, "/h/.floorp", "/h/.floorp/native-messaging-hosts"),
        ];
        assert_eq!(cases.len(), ChannelId::ALL.len());
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
            (ChannelId::Chrome, "Google/Chrome/NativeMessagingHosts"),
            (ChannelId::Chromium, "Chromium/NativeMessagingHosts"),
            (ChannelId::Edge, "Microsoft Edge/NativeMessagingHosts"),
            (ChannelId::Brave, "BraveSoftware/Brave-Browser/NativeMessagingHosts"),
            (ChannelId::Vivaldi, "Vivaldi/NativeMessagingHosts"),
            (ChannelId::Firefox, "Mozilla/NativeMessagingHosts"),
            (ChannelId::Zen, "Mozilla/NativeMessagingHosts"),
            (ChannelId::Librewolf, "LibreWolf/NativeMessagingHosts"),
        ];
        for (target, dir) in cases {
            let loc = location(target, Os::Macos, &roots()).unwrap();
            assert_eq!(loc.manifest, Path::new(s).join(dir).join("dev.webext_mcp.bridge.json"), "{target:?}");
        }
        assert_eq!(
            location(ChannelId::Firefox, Os::Macos, &roots()).unwrap().config_dir,
            Path::new(s).join("Firefox")
        );
        for t in [ChannelId::ChromiumSnap, ChannelId::Floorp, ChannelId::EdgeDev] {
            assert!(location(t, Os::Macos, &roots()).is_none(), "{t:?}");
        }
    }

    #[test]
    fn windows_registry_keys_per_browser() {
        let chrome = r"Software\Google\Chrome\NativeMessagingHosts\dev.webext_mcp.bridge";
        let mozilla = r"Software\Mozilla\NativeMessagingHosts\dev.webext_mcp.bridge";
        assert_eq!(registry_keys(ChannelId::Chrome), [chrome]);
        assert_eq!(
            registry_keys(ChannelId::Chromium),
            [r"Software\Chromium\NativeMessagingHosts\dev.webext_mcp.bridge"]
        );
        assert_eq!(
            registry_keys(ChannelId::Edge),
            [r"Software\Microsoft\Edge\NativeMessagingHosts\dev.webext_mcp.bridge"]
        );
        assert_eq!(
            registry_keys(ChannelId::Brave),
            [r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.webext_mcp.bridge", chrome]
        );
        assert_eq!(registry_keys(ChannelId::Vivaldi), [chrome]);
        for t in [ChannelId::Firefox, ChannelId::Zen, ChannelId::Librewolf, ChannelId::Floorp] {
            assert_eq!(registry_keys(t), [mozilla], "{t:?}");
        }
        let loc = location(ChannelId::Edge, Os::Windows, &roots()).unwrap();
        assert_eq!(loc.registry_keys, registry_keys(ChannelId::Edge));
        assert!(loc.manifest.starts_with(&roots().data_dir));
        assert!(loc.manifest.to_string_lossy().contains("chromium"));
        assert!(location(ChannelId::ChromiumSnap, Os::Windows, &roots()).is_none());
    }

    #[test]
    fn browser_lists_resolve() {
        assert_eq!(ChannelId::parse_list("chromium").unwrap(), [ChannelId::Chromium]);
        assert_eq!(ChannelId::parse_list("firefox, zen").unwrap(), [ChannelId::Firefox, ChannelId::Zen]);
        assert_eq!(ChannelId::parse_list("gecko-based").unwrap().len(), 4);
        assert_eq!(ChannelId::parse_list("all").unwrap().len(), ChannelId::ALL.len());
        let err = ChannelId::parse_list("netscape").unwrap_err();
        assert!(err.contains("netscape") && err.contains("chromium"), "{err}");
        assert!(ChannelId::parse_list(" , ").is_err());
    }

    #[test]
    fn the_xdg_mozilla_path_is_the_known_mistake() {
        let p = misplaced_gecko_manifest(Os::Linux, Path::new("/h")).unwrap();
        assert_eq!(p, Path::new("/h/.config/mozilla/native-messaging-hosts/dev.webext_mcp.bridge.json"));
        assert!(misplaced_gecko_manifest(Os::Macos, Path::new("/h")).is_none());
    }
}
