//! Detection: each system's table against a fake installation tree (Linux, macOS, Windows),
//! and this machine's real Chromium and Firefox ESR, whose versions must match what their
//! own `--version` prints, read without launching them.

use std::path::{Path, PathBuf};

use webext_mcp::browsers::Os;
use webext_mcp::browsers::detect::{Probe, scan};

use crate::Home;

/// Writes an executable (or, with `mode` 0o644, a plain) file, creating its folders.
fn put(path: &Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

const ELF: &str = "\x7fELF fake browser";

/// (browser, channel, source, path relative to the tree, version, where the version came from)
type Row = (String, String, String, String, Option<String>, Option<String>);

fn rows(probe: &Probe, tree: &Path) -> Vec<Row> {
    scan(probe, &|_| true)
        .into_iter()
        .map(|f| {
            let source = serde_json::to_value(f.source).unwrap().as_str().unwrap().to_owned();
            let rel =
                f.binary_path.strip_prefix(tree).unwrap_or(&f.binary_path).to_string_lossy().into_owned();
            (f.browser, f.channel, source, rel, f.version, f.version_from.map(str::to_owned))
        })
        .collect()
}

fn row(b: &str, ch: &str, src: &str, rel: &str, v: Option<&str>, from: Option<&str>) -> Row {
    (b.into(), ch.into(), src.into(), rel.into(), v.map(Into::into), from.map(Into::into))
}

fn probe(os: Os, tree: &Path) -> Probe {
    Probe {
        os,
        root: tree.join("root"),
        home: tree.join("home"),
        path: vec![tree.join("root/usr/bin")],
        windows_roots: vec![tree.join("pf"), tree.join("pf86"), tree.join("local")],
        may_run: false,
    }
}

#[test]
fn linux_table_on_a_fake_tree() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path();
    let r = tree.join("root");
    put(&r.join("usr/lib/chromium/chromium"), ELF, 0o755);
    put(&r.join("usr/bin/chromium"), "#!/bin/sh\nexec /usr/lib/chromium/chromium \"$@\"\n", 0o755);
    put(&r.join("opt/google/chrome/chrome"), ELF, 0o755);
    put(&r.join("opt/microsoft/msedge/msedge"), ELF, 0o644);
    put(&r.join("usr/bin/brave-browser"), ELF, 0o755);
    put(&r.join("usr/lib/firefox-esr/firefox-esr"), ELF, 0o755);
    put(&r.join("usr/lib/firefox-esr/application.ini"), "[App]\nVersion=153.8.0\n", 0o644);
    put(
        &r.join("usr/lib/firefox-esr/defaults/pref/channel-prefs.js"),
        "pref(\"app.update.channel\", \"esr\");\n",
        0o644,
    );
    std::os::unix::fs::symlink("../lib/firefox-esr/firefox-esr", r.join("usr/bin/firefox-esr")).unwrap();
    put(&r.join("usr/bin/firefox"), "#!/bin/sh\nexec firefox-esr \"$@\"\n", 0o755);
    put(&r.join("snap/bin/chromium"), ELF, 0o755);
    put(&r.join("snap/chromium/current/meta/snap.yaml"), "name: chromium\nversion: '155.0.7000.1'\n", 0o644);
    put(
        &tree.join("home/.local/share/flatpak/exports/bin/org.mozilla.firefox"),
        "#!/bin/sh\nexec flatpak run org.mozilla.firefox \"$@\"\n",
        0o755,
    );
    put(&r.join("opt/zen/zen"), ELF, 0o755);
    put(&r.join("opt/zen/platform.ini"), "[Build]\nMilestone=140.1.0\n", 0o644);
    put(
        &r.join("var/lib/dpkg/status"),
        "Package: chromium\nStatus: install ok installed\nVersion: 156.0.8078.114-1~deb12u1\n\n\
         Package: google-chrome-stable\nStatus: install ok installed\nVersion: 140.0.7339.80-1\n\n\
         Package: firefox-esr\nStatus: install ok installed\nVersion: 153.8.0esr-1~deb12u1\n",
        0o644,
    );
    put(&r.join("var/lib/dpkg/info/chromium.list"), "/usr/bin/chromium\n/usr/lib/chromium/chromium\n", 0o644);
    put(&r.join("var/lib/dpkg/info/google-chrome-stable.list"), "/opt/google/chrome/chrome\n", 0o644);
    assert_eq!(
        rows(&probe(Os::Linux, tree), tree),
        [
            row(
                "chrome",
                "stable",
                "system",
                "root/opt/google/chrome/chrome",
                Some("140.0.7339.80"),
                Some("dpkg")
            ),
            row(
                "chromium",
                "stable",
                "system",
                "root/usr/lib/chromium/chromium",
                Some("156.0.8078.114"),
                Some("dpkg")
            ),
            row(
                "chromium",
                "stable",
                "snap",
                "root/snap/bin/chromium",
                Some("155.0.7000.1"),
                Some("snap.yaml")
            ),
            row("brave", "stable", "system", "root/usr/bin/brave-browser", None, None),
            row(
                "firefox",
                "esr",
                "system",
                "root/usr/lib/firefox-esr/firefox-esr",
                Some("153.8.0esr"),
                Some("application.ini")
            ),
            row(
                "firefox",
                "stable",
                "flatpak",
                "home/.local/share/flatpak/exports/bin/org.mozilla.firefox",
                None,
                None
            ),
            row("zen", "stable", "system", "root/opt/zen/zen", Some("140.1.0"), Some("platform.ini")),
        ],
        "the Debian launchers (/usr/bin/chromium, /usr/bin/firefox) and a non-executable Edge are not browsers"
    );
    let chrome = scan(&probe(Os::Linux, tree), &|b| b == "chrome");
    assert_eq!(chrome.len(), 1);
    assert!(!chrome[0].can_load_unpacked, "branded Chrome 140 ignores --load-extension");
}

#[test]
fn macos_table_on_a_fake_tree() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path();
    let apps = tree.join("root/Applications");
    put(&apps.join("Google Chrome.app/Contents/MacOS/Google Chrome"), ELF, 0o755);
    put(
        &apps.join("Google Chrome.app/Contents/Info.plist"),
        "<plist><dict><key>CFBundleShortVersionString</key><string>136.0.7103.92</string></dict></plist>",
        0o644,
    );
    put(&apps.join("Chromium.app/Contents/MacOS/Chromium"), ELF, 0o755);
    let dev = tree.join("home/Applications/Firefox Developer Edition.app/Contents");
    put(&dev.join("MacOS/firefox"), ELF, 0o755);
    put(&dev.join("Resources/application.ini"), "[App]\nVersion=146.0b9\n", 0o644);
    put(
        &dev.join("Resources/defaults/pref/channel-prefs.js"),
        "pref(\"app.update.channel\", \"aurora\");",
        0o644,
    );
    let found = rows(&probe(Os::Macos, tree), tree);
    assert_eq!(
        found,
        [
            row(
                "chrome",
                "stable",
                "system",
                "root/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                Some("136.0.7103.92"),
                Some("Info.plist")
            ),
            row(
                "chromium",
                "stable",
                "system",
                "root/Applications/Chromium.app/Contents/MacOS/Chromium",
                None,
                None
            ),
            row(
                "firefox",
                "developer",
                "system",
                "home/Applications/Firefox Developer Edition.app/Contents/MacOS/firefox",
                Some("146.0b9"),
                Some("application.ini")
            ),
        ]
    );
    assert!(
        scan(&probe(Os::Macos, tree), &|b| b == "chrome")[0].can_load_unpacked,
        "Chrome 136 still loads unpacked"
    );
}

#[test]
fn windows_table_on_a_fake_tree() {
    let t = tempfile::tempdir().unwrap();
    let tree = t.path();
    put(&tree.join("pf/Google/Chrome/Application/chrome.exe"), ELF, 0o755);
    std::fs::create_dir_all(tree.join("pf/Google/Chrome/Application/139.0.7258.5")).unwrap();
    std::fs::create_dir_all(tree.join("pf/Google/Chrome/Application/140.0.7339.80")).unwrap();
    std::fs::create_dir_all(tree.join("pf/Google/Chrome/Application/SetupMetrics")).unwrap();
    put(&tree.join("local/Google/Chrome SxS/Application/chrome.exe"), ELF, 0o755);
    std::fs::create_dir_all(tree.join("local/Google/Chrome SxS/Application/143.0.7450.0")).unwrap();
    put(&tree.join("pf86/Microsoft/Edge/Application/msedge.exe"), ELF, 0o755);
    std::fs::create_dir_all(tree.join("pf86/Microsoft/Edge/Application/139.0.3405.86")).unwrap();
    put(&tree.join("pf/Mozilla Firefox/firefox.exe"), ELF, 0o755);
    put(&tree.join("pf/Mozilla Firefox/application.ini"), "[App]\nVersion=145.0.2\n", 0o644);
    put(
        &tree.join("pf/Mozilla Firefox/defaults/pref/channel-prefs.js"),
        "pref(\"app.update.channel\", \"release\");",
        0o644,
    );
    assert_eq!(
        rows(&probe(Os::Windows, tree), tree),
        [
            row(
                "chrome",
                "stable",
                "system",
                "pf/Google/Chrome/Application/chrome.exe",
                Some("140.0.7339.80"),
                Some("install folder")
            ),
            row(
                "chrome",
                "canary",
                "system",
                "local/Google/Chrome SxS/Application/chrome.exe",
                Some("143.0.7450.0"),
                Some("install folder")
            ),
            row(
                "edge",
                "stable",
                "system",
                "pf86/Microsoft/Edge/Application/msedge.exe",
                Some("139.0.3405.86"),
                Some("install folder")
            ),
            row(
                "firefox",
                "stable",
                "system",
                "pf/Mozilla Firefox/firefox.exe",
                Some("145.0.2"),
                Some("application.ini")
            ),
        ]
    );
}

/// The first version-looking word of `<binary> --version`.
fn version_by_running(binary: &str) -> String {
    let out = std::process::Command::new(binary).arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    webext_mcp::browsers::version::version_in_line(&text).unwrap_or_else(|| panic!("{binary}: {text}"))
}

/// The real machine: Chromium and Firefox ESR found where Debian puts them, versions read
/// from dpkg and application.ini (not by running them) equal to their `--version`.
#[test]
fn this_machines_chromium_and_firefox_esr_match_their_own_version_lines() {
    let home = Home::empty();
    let (code, d) = home.json(&["browsers", "detect"]);
    assert_eq!(code, 0, "{d}");
    let entry = |browser: &str| {
        d["detected"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["browser"] == browser && e["source"] == "system")
            .unwrap_or_else(|| panic!("{browser} not detected: {d:#}"))
            .clone()
    };
    let chromium = entry("chromium");
    assert_eq!(chromium["binaryPath"], "/usr/lib/chromium/chromium");
    assert_eq!(chromium["versionFrom"], "dpkg");
    assert_eq!(chromium["version"], version_by_running("/usr/lib/chromium/chromium"));
    assert_eq!(
        (chromium["canLoadUnpacked"].as_bool(), chromium["devSessions"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(chromium["helper"], serde_json::json!({"manifest": false, "connected": false}));
    let firefox = entry("firefox");
    assert_eq!(firefox["channel"], "esr");
    assert_eq!(firefox["versionFrom"], "application.ini");
    assert_eq!(firefox["version"], version_by_running("firefox-esr"));
    assert_eq!(firefox["devSessions"], true);
    let listed: Vec<PathBuf> = d["detected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| PathBuf::from(e["binaryPath"].as_str().unwrap()))
        .collect();
    assert!(
        !listed.contains(&PathBuf::from("/usr/bin/firefox")),
        "Debian's launcher script is no browser: {listed:?}"
    );
    let missing: Vec<&str> =
        d["notFound"].as_array().unwrap().iter().map(|m| m["browser"].as_str().unwrap()).collect();
    assert!(missing.contains(&"chrome"), "{missing:?}");
    let chrome = d["notFound"].as_array().unwrap().iter().find(|m| m["browser"] == "chrome").unwrap();
    assert_eq!(chrome["install"], serde_json::json!({"browser": "chrome-for-testing"}));

    // After `install`, the helper's manifest is seen.
    let (code, _) = home.json(&["install", "--browser", "chromium"]);
    assert_eq!(code, 0);
    let (_, d) = home.json(&["browsers", "detect", "--browsers", "chromium"]);
    let system = d["detected"].as_array().unwrap().iter().find(|e| e["source"] == "system").unwrap();
    assert_eq!(system["helper"]["manifest"], true, "{d}");
    let (code, bad) = home.json(&["browsers", "detect", "--browsers", "netscape"]);
    assert_eq!((code, bad["error"]["code"].as_str()), (1, Some("INVALID_ARGUMENT")), "{bad}");
}

/// A configured binary is reported as what `chromium-based` / `gecko-based` launch; one
/// that is not there is a problem, not an entry.
#[test]
fn configured_binaries_are_entries_or_problems() {
    let home = Home::empty();
    let mut cmd = home.command(Path::new(crate::BIN), &["browsers", "detect", "--json"]);
    cmd.env("WEBEXT_MCP_CHROMIUM_BINARY", "/usr/lib/chromium/chromium")
        .env("WEBEXT_MCP_FIREFOX_BINARY", "/nonexistent/firefox");
    let out = cmd.output().unwrap();
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let env: Vec<&serde_json::Value> =
        d["detected"].as_array().unwrap().iter().filter(|e| e["source"] == "env").collect();
    assert_eq!(env.len(), 1, "{d:#}");
    assert_eq!(env[0]["browser"], "chromium-based");
    assert_eq!(env[0]["binaryPath"], "/usr/lib/chromium/chromium");
    assert_eq!(env[0]["versionFrom"], "dpkg", "a configured path that is a known place is read, not run");
    assert!(env[0]["version"].as_str().unwrap().starts_with(|c: char| c.is_ascii_digit()), "{d}");
    let problems = d["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p.as_str().unwrap().contains("WEBEXT_MCP_FIREFOX_BINARY names /nonexistent/firefox")),
        "{d}"
    );
}

/// `helper.connected`: a live host of that browser in the runtime dir, not a dev session's.
#[test]
fn a_connected_helper_is_seen_and_a_sessions_host_is_not() {
    use std::os::unix::fs::PermissionsExt;
    use webext_mcp_host::descriptor::{Descriptor, write};
    let home = Home::empty();
    let runtime = home.runtime.path();
    std::fs::set_permissions(runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    let pid = std::process::id();
    let socket = runtime.join(format!("h-{pid}.sock"));
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let connected = |session: Option<&str>| {
        let d = Descriptor {
            browser: "chromium".into(),
            browser_version: "156.0.8078.114".into(),
            label: "chromium-abc123".into(),
            pid,
            ppid: 1,
            ext_version: env!("CARGO_PKG_VERSION").into(),
            protocol: 1,
            socket: socket.clone(),
            started_at: 1,
            session: session.map(str::to_owned),
            capabilities: Vec::new(),
            token: Default::default(),
        };
        write(&runtime.join(format!("h-{pid}.json")), &d).unwrap();
        let (code, r) = home.json(&["browsers", "detect", "--browsers", "chromium"]);
        assert_eq!(code, 0, "{r}");
        let system =
            r["detected"].as_array().unwrap().iter().find(|e| e["source"] == "system").unwrap().clone();
        system["helper"]["connected"].as_bool().unwrap()
    };
    assert!(connected(None), "the daily browser's helper is connected");
    assert!(!connected(Some("dev-0123abcd")), "a dev session's host is not the daily browser's helper");
}
