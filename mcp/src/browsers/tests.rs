use super::*;
use managed::Managed;

#[test]
fn names_and_channel_ids_are_unique() {
    let mut names: Vec<&str> = BROWSERS.iter().map(|b| b.name).collect();
    names.extend(channels().flat_map(|(_, c)| std::iter::once(c.name).chain(c.aliases.iter().copied())));
    let mut channel_names: Vec<&str> = channels().map(|(_, c)| c.name).collect();
    channel_names.sort_unstable();
    channel_names.dedup();
    assert_eq!(channel_names.len(), channels().count());
    let mut browsers: Vec<&str> = BROWSERS.iter().map(|b| b.name).collect();
    browsers.sort_unstable();
    browsers.dedup();
    assert_eq!(browsers.len(), BROWSERS.len());
    for name in names {
        assert_eq!(name, name.to_ascii_lowercase());
        assert!(name != "all" && name != "chromium-based" && name != "gecko-based", "{name}");
    }
    let mut ids: Vec<ChannelId> = channels().map(|(_, c)| c.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), channels().count());
}

/// `host::select` classifies what helpers report: the same browsers with the same engines.
#[test]
fn the_hosts_reported_names_are_the_catalog() {
    let catalog: Vec<(&str, Engine)> = BROWSERS.iter().map(|b| (b.name, b.engine)).collect();
    assert_eq!(catalog, REPORTED);
    for b in &BROWSERS {
        assert_eq!(engine_of_reported(b.name), Some(b.engine), "{}", b.name);
    }
}

#[test]
fn every_channel_has_a_linux_and_windows_location_and_stable_ones_a_macos_one() {
    for (b, c) in channels() {
        let linux = c.linux.unwrap_or_else(|| panic!("{} has no Linux location", c.name));
        assert!(linux.hosts_dir.ends_with(if b.engine == Engine::Chromium {
            "NativeMessagingHosts"
        } else {
            "native-messaging-hosts"
        }));
        if c.id != ChannelId::ChromiumSnap {
            let win = c.windows.unwrap_or_else(|| panic!("{} has no Windows location", c.name));
            assert!(!win.registry_vendors.is_empty(), "{}", c.name);
            assert_eq!(win.root == AppData::Local, b.engine == Engine::Chromium, "{}", c.name);
        }
        if c.name == b.name && c.id != ChannelId::Floorp {
            assert!(c.macos.is_some(), "{} has no macOS location", c.name);
        }
    }
}

#[test]
fn every_browser_with_channels_names_its_stable_channel_after_itself() {
    for b in BROWSERS.iter().filter(|b| !b.channels.is_empty()) {
        assert_eq!(b.channels[0].name, b.name);
    }
    for b in &BROWSERS {
        for c in b.channels {
            assert_eq!(c.id.entry().0.name, b.name);
        }
    }
}

#[test]
fn every_browser_names_its_extensions_page() {
    for b in &BROWSERS {
        let ok = match b.engine {
            Engine::Chromium => b.extensions_page.ends_with("://extensions"),
            Engine::Gecko => b.extensions_page == "about:addons",
        };
        assert!(ok, "{}: {}", b.name, b.extensions_page);
    }
    assert_eq!(ChannelId::EdgeDev.entry().0.extensions_page, "edge://extensions");
}

#[test]
fn engine_fallbacks_keep_the_reference_browser_first() {
    let chromium = engine_binaries(Engine::Chromium, Os::Linux);
    assert_eq!(
        &chromium[..4],
        ["/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome"]
    );
    assert!(chromium.contains(&"brave-browser") && !chromium.contains(&"firefox"));
    let gecko = engine_binaries(Engine::Gecko, Os::Linux);
    assert_eq!(
        gecko,
        [
            "firefox-esr",
            "firefox",
            "firefox-developer-edition",
            "firefox-nightly",
            "librewolf",
            "zen",
            "zen-browser"
        ]
    );
    assert!(engine_binaries(Engine::Gecko, Os::Macos)[0].starts_with("/Applications/Firefox.app"));
}

/// Issue 25: a Gecko session's private home gets the host manifest where each Gecko
/// browser of the catalog looks (Firefox and Zen share `.mozilla`; LibreWolf has its own).
#[test]
fn gecko_home_host_dirs_cover_every_gecko_browser() {
    let dirs = home_hosts_dirs(Engine::Gecko, Os::Linux);
    assert_eq!(dirs[0], std::path::Path::new(".mozilla/native-messaging-hosts"));
    assert!(dirs.iter().any(|d| d.starts_with(".librewolf")), "{dirs:?}");
    assert_eq!(dirs.iter().filter(|d| d.starts_with(".mozilla")).count(), 1, "{dirs:?}");
    let mac = home_hosts_dirs(Engine::Gecko, Os::Macos);
    assert!(mac[0].starts_with("Library/Application Support/Mozilla"), "{mac:?}");
}

/// The catalog holds every managed build once, in `Managed::ALL` order, under a unique
/// name; its engine and build target are its entry's (by construction), so a build of
/// `chrome` is never looked up as Chromium.
#[test]
fn every_managed_build_is_one_entry_of_the_browser_it_builds() {
    let ids: Vec<Managed> = managed_builds().map(|(_, m)| m.id).collect();
    assert_eq!(ids, Managed::ALL);
    let mut names: Vec<&str> = managed_builds().map(|(_, m)| m.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Managed::ALL.len());
    for (b, m) in managed_builds() {
        assert_eq!(m.id.entry(), (b, m));
        assert_eq!(Managed::named(m.name), Some(m.id));
        assert_eq!((m.id.engine(), m.id.catalog_browser()), (b.engine, b.name));
        // A managed name is either its browser's own or not a catalog name at all.
        assert!(m.name == b.name || browser(m.name).is_none(), "{}", m.name);
    }
    assert_eq!(Managed::named("chrome"), None);
}

/// What the managed builds declared before they joined the catalog.
#[test]
fn managed_builds_keep_their_names_engines_and_channels() {
    let facts: Vec<(&str, Engine, &str, &str)> = Managed::ALL
        .iter()
        .map(|m| (m.name(), m.engine(), m.catalog_browser(), m.default_channel()))
        .collect();
    assert_eq!(
        facts,
        [
            ("chrome-for-testing", Engine::Chromium, "chrome", "stable"),
            ("chromium", Engine::Chromium, "chromium", "snapshot"),
            ("firefox", Engine::Gecko, "firefox", "stable"),
            ("firefox-esr", Engine::Gecko, "firefox", "esr"),
            ("firefox-developer", Engine::Gecko, "firefox", "developer"),
        ]
    );
}

/// Every channel id has exactly one entry, and each channel is named after its browser
/// (`chrome-beta` belongs to `chrome`): a channel cannot sit under another browser.
#[test]
fn every_channel_id_has_one_entry_named_after_its_browser() {
    assert_eq!(ChannelId::ALL.len(), channels().count());
    for id in ChannelId::ALL {
        let (b, c) = id.entry();
        assert_eq!(c.id, id);
        assert_eq!(id.engine(), b.engine);
        assert!(c.name == b.name || c.name.starts_with(&format!("{}-", b.name)), "{}", c.name);
        for alias in c.aliases {
            assert!(alias.starts_with(b.name), "{alias}");
        }
    }
}

/// A browser's install places are its own: no two browsers share a path, so detection
/// never reports one browser's binary under another's name.
#[test]
fn no_install_place_belongs_to_two_browsers() {
    use installs::At;
    let key = |a: At| match a {
        At::Path(p) | At::Program(p) | At::App(p) | At::Windows(p) | At::Flatpak(p) => p,
    };
    for (b, r) in installs() {
        for (other, o) in installs().filter(|(o, _)| o.name != b.name) {
            assert!(!(r.os == o.os && key(r.at) == key(o.at)), "{} and {}: {:?}", b.name, other.name, r.at);
        }
    }
}

/// The launch order of the session binaries: Debian's real Chromium before its wrapper,
/// Google's launcher before its binary, Firefox ESR first.
#[test]
fn launch_candidates_keep_their_order() {
    let on = |name: &str| browser(name).unwrap().binaries(Os::Linux).collect::<Vec<_>>();
    assert_eq!(on("chromium"), ["/usr/lib/chromium/chromium", "chromium", "chromium-browser"]);
    assert_eq!(on("chrome"), ["google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome"]);
    assert_eq!(on("firefox")[0], "firefox-esr");
    let mac: Vec<&str> = browser("chrome").unwrap().binaries(Os::Macos).collect();
    assert_eq!(mac[0], "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome");
}
