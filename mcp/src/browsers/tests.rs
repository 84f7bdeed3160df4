use super::*;

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
