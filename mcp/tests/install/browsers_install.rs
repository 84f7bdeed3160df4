//! `webext-mcp browsers install|list|uninstall` against a local mirror: the happy paths of
//! both vendors, the second install as a no-op, concurrent installs, a held lock (`BUSY`),
//! a wrong hash (`INTEGRITY`) and a cut download (`NETWORK`) leaving nothing behind, and
//! progress notifications over MCP.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::Quirk;
use crate::mirror::{self, CFT, FIREFOX, Mirror, cache_entries};
use crate::{BIN, Home};

fn mirrored_home(m: &Mirror) -> Home {
    let home = Home::empty();
    m.configure(&home);
    home
}

/// Runs the managed browser's program and returns what it printed.
fn run_program(path: &Value) -> String {
    let out = std::process::Command::new(path.as_str().unwrap()).arg("--version").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn chrome_for_testing_installs_from_the_mirror_is_listed_detected_and_a_second_install_is_a_no_op() {
    let m = Mirror::start();
    m.chrome_for_testing(CFT, mirror::cft_zip(CFT));
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "chrome-for-testing"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["status"], "installed");
    assert_eq!(r["version"], CFT);
    assert_eq!(r["channel"], "stable");
    assert_eq!(r["sha512"], Value::Null);
    assert!(r["verified"].as_str().unwrap().contains("no vendor hash exists"), "{r}");
    let folder = home.data().join("browsers/chrome-for-testing").join(CFT);
    assert_eq!(PathBuf::from(r["path"].as_str().unwrap()), folder);
    assert_eq!(run_program(&r["binaryPath"]), format!("Google Chrome for Testing {CFT}"));
    assert_eq!(m.requests_ending("chrome-linux64.zip"), 1);
    assert_eq!(
        cache_entries(&home),
        [
            "chrome-for-testing".to_owned(),
            format!("chrome-for-testing/{CFT}"),
            format!("chrome-for-testing/{CFT}/.webext-mcp-browser.json"),
            format!("chrome-for-testing/{CFT}/chrome-linux64"),
            format!("chrome-for-testing/{CFT}/chrome-linux64/chrome"),
            format!("chrome-for-testing/{CFT}/chrome-linux64/resources.pak"),
        ]
    );

    // Again, by channel and by exact version: nothing downloaded.
    let (code, again) = home.json(&["browsers", "install", "chrome-for-testing", "--version", "stable"]);
    assert_eq!((code, again["status"].as_str()), (0, Some("already-installed")), "{again}");
    let (code, exact) = home.json(&["browsers", "install", "chrome-for-testing", "--version", CFT]);
    assert_eq!((code, exact["status"].as_str()), (0, Some("already-installed")), "{exact}");
    assert_eq!(m.requests_ending("chrome-linux64.zip"), 1, "a second install downloads nothing");

    let (code, list) = home.json(&["browsers", "list"]);
    assert_eq!(code, 0);
    let row = &list["installed"][0];
    assert_eq!((row["browser"].as_str(), row["version"].as_str()), (Some("chrome-for-testing"), Some(CFT)));
    assert!(row["sizeBytes"].as_u64().unwrap() > 4096 && row["installedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(list["defaults"]["managed"]["chrome-for-testing"], CFT);
    assert!(list["defaults"]["engines"]["chromium"].is_object(), "{list}");

    let (code, d) = home.json(&["browsers", "detect", "--browsers", "chrome-for-testing"]);
    assert_eq!(code, 0);
    let found = &d["detected"][0];
    assert_eq!(found["source"], "managed");
    assert_eq!(found["engine"], "chromium");
    assert_eq!(found["version"], CFT);
    assert_eq!(found["canLoadUnpacked"], true);
    assert_eq!(found["devSessions"], true);
    assert_eq!(d["managed"]["installed"][0]["binaryPath"], r["binaryPath"]);

    let (code, gone) = home.json(&["browsers", "uninstall", "chrome-for-testing"]);
    assert_eq!(code, 0, "{gone}");
    assert_eq!(gone["versions"], json!([CFT]));
    assert!(cache_entries(&home).is_empty(), "{:?}", cache_entries(&home));
    let (code, none) = home.json(&["browsers", "uninstall", "chrome-for-testing"]);
    assert_eq!((code, none["error"]["code"].as_str()), (1, Some("NOT_FOUND")));
}

#[test]
fn a_chromium_snapshot_installs_by_revision_beside_the_system_chromium() {
    let m = Mirror::start();
    m.chromium_snapshot("1496484", mirror::chrome_zip("chrome-linux", "Chromium 143.0.7490.0"));
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "chromium"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (r["status"].as_str(), r["version"].as_str(), r["channel"].as_str()),
        (Some("installed"), Some("1496484"), Some("snapshot"))
    );
    assert!(r["verified"].as_str().unwrap().contains("no vendor hash exists"), "{r}");
    assert_eq!(run_program(&r["binaryPath"]), "Chromium 143.0.7490.0");
    let (code, text, _) = home.run(&["browsers", "install", "chromium", "--version", "1496484"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("already installed chromium 1496484 (snapshot)"), "{text}");
    assert!(
        text.contains("use it: extension_dev with binary: \""),
        "named by path, not by `chromium`: {text}"
    );
    let (code, d) = home.json(&["browsers", "detect", "--browsers", "chromium"]);
    assert_eq!(code, 0);
    let sources: Vec<&str> =
        d["detected"].as_array().unwrap().iter().map(|e| e["source"].as_str().unwrap()).collect();
    assert!(sources.contains(&"managed") && sources.contains(&"system"), "{d}");
}

#[test]
fn firefox_installs_with_its_sha512_checked_against_sha512sums() {
    let m = Mirror::start();
    let archive = mirror::firefox_tar(FIREFOX);
    m.firefox(FIREFOX, archive.clone(), None);
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "firefox"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["status"], "installed");
    assert_eq!(r["version"], FIREFOX);
    assert_eq!(r["sha512"], mirror::sha512_hex(&archive));
    assert!(r["verified"].as_str().unwrap().contains("SHA512SUMS"), "{r}");
    assert_eq!(run_program(&r["binaryPath"]), format!("Mozilla Firefox {FIREFOX}"));
    let folder = PathBuf::from(r["path"].as_str().unwrap());
    assert_eq!(std::fs::read_link(folder.join("firefox/firefox-bin")).unwrap(), PathBuf::from("firefox"));
    // Detection reads the version from application.ini of the managed copy's record.
    let (_, d) = home.json(&["browsers", "detect", "--browsers", "firefox"]);
    let managed: Vec<&Value> =
        d["detected"].as_array().unwrap().iter().filter(|e| e["source"] == "managed").collect();
    assert_eq!(managed.len(), 1, "{d}");
    assert_eq!(managed[0]["version"], FIREFOX);
    assert_eq!(managed[0]["devSessions"], true, "{d}");
}

#[test]
fn a_wrong_hash_is_integrity_and_leaves_nothing_behind() {
    let m = Mirror::start();
    m.firefox(FIREFOX, mirror::firefox_tar(FIREFOX), Some("ab".repeat(64)));
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "firefox", "--version", FIREFOX]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["error"]["code"], "INTEGRITY", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("SHA512SUMS"), "{r}");
    assert!(cache_entries(&home).is_empty(), "left behind: {:?}", cache_entries(&home));
}

#[test]
fn a_truncated_download_is_network_and_leaves_nothing_behind() {
    let m = Mirror::start();
    let zip = mirror::cft_zip(CFT);
    let full = zip.len();
    m.chrome_for_testing(CFT, zip[..full / 2].to_vec());
    m.server.quirk(
        &mirror::at(&mirror::cft_zip_url(CFT)),
        Quirk { declared_len: Some(full), ..Quirk::default() },
    );
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "chrome-for-testing"]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["error"]["code"], "NETWORK", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("cut short"), "{r}");
    assert!(cache_entries(&home).is_empty(), "left behind: {:?}", cache_entries(&home));
    // A zip cut without the length announced is caught by the archive itself.
    m.server.quirk(&mirror::at(&mirror::cft_zip_url(CFT)), Quirk::default());
    let (code, r) = home.json(&["browsers", "install", "chrome-for-testing"]);
    assert_eq!((code, r["error"]["code"].as_str()), (1, Some("INTEGRITY")), "{r}");
    assert!(cache_entries(&home).is_empty(), "left behind: {:?}", cache_entries(&home));
}

#[test]
fn concurrent_installs_download_once_and_both_succeed() {
    let m = Mirror::start();
    m.chrome_for_testing(CFT, mirror::cft_zip(CFT));
    // Slow enough that the second starts while the first downloads.
    m.server.quirk(
        &mirror::at(&mirror::cft_zip_url(CFT)),
        Quirk { pause: Duration::from_millis(1500), ..Quirk::default() },
    );
    let home = mirrored_home(&m);
    let args = ["browsers", "install", "chrome-for-testing", "--json"];
    let children: Vec<_> = (0..2)
        .map(|_| {
            let mut cmd = home.command(std::path::Path::new(BIN), &args);
            std::thread::spawn(move || cmd.output().unwrap())
        })
        .collect();
    let results: Vec<Value> = children
        .into_iter()
        .map(|h| {
            let out = h.join().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    let mut statuses: Vec<&str> = results.iter().map(|r| r["status"].as_str().unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, ["already-installed", "installed"], "{results:?}");
    assert_eq!(m.requests_ending("chrome-linux64.zip"), 1);
}

#[test]
fn a_held_lock_makes_an_install_busy_once_its_wait_is_over() {
    let m = Mirror::start();
    m.chrome_for_testing(CFT, mirror::cft_zip(CFT));
    let home = mirrored_home(&m);
    let root = home.data().join("browsers");
    let held = webext_mcp::lock::Lock::acquire(&root, "chrome-for-testing", Some("test")).unwrap();
    let (code, r) = home.json(&["browsers", "install", "chrome-for-testing", "--timeout", "300"]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["error"]["code"], "BUSY", "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("session test"), "{r}");
    assert_eq!(m.requests_ending("chrome-linux64.zip"), 0);
    drop(held);
    let (code, r) = home.json(&["browsers", "install", "chrome-for-testing", "--timeout", "300"]);
    assert_eq!((code, r["status"].as_str()), (0, Some("installed")), "{r}");
}

#[test]
fn bad_arguments_and_mirrors_are_refused_with_the_fix() {
    let m = Mirror::start();
    let home = mirrored_home(&m);
    let (code, r) = home.json(&["browsers", "install", "firefox", "--version", "../../etc"]);
    assert_eq!((code, r["error"]["code"].as_str()), (1, Some("INVALID_ARGUMENT")), "{r}");
    let (code, r) = home.json(&["browsers", "install", "chromium", "--version", "latest"]);
    assert_eq!(
        (code, r["error"]["code"].as_str()),
        (1, Some("NOT_FOUND")),
        "no LAST_CHANGE on the mirror: {r}"
    );
    let (code, r) = home.json(&["browsers", "install", "firefox", "--version", "999.0"]);
    assert_eq!((code, r["error"]["code"].as_str()), (1, Some("NOT_FOUND")), "{r}");
    std::fs::write(
        home.path().join(".config/webext-mcp/config.toml"),
        "[browsers]\nmirror = \"http://mirror.example.com\"\n",
    )
    .unwrap();
    let (code, r) = home.json(&["browsers", "install", "firefox"]);
    assert_eq!((code, r["error"]["code"].as_str()), (1, Some("INVALID_ARGUMENT")), "{r}");
    assert!(r["error"]["hint"].as_str().unwrap().contains("browsers.mirror"), "{r}");
}

/// Over MCP, a client that asked for progress hears the download and the unpacking.
#[test]
fn progress_notifications_name_the_download_and_the_unpacking() {
    let m = Mirror::start();
    m.firefox(FIREFOX, mirror::firefox_tar(FIREFOX), None);
    let home = mirrored_home(&m);
    let mut cmd = home.command(std::path::Path::new(BIN), &["serve"]);
    cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut server = crate::mcp::Server::spawn(cmd);
    server.initialize();
    let id = server.send_request(
        "tools/call",
        json!({"name": "extension_install_browser", "arguments": {"browser": "firefox"}, "_meta": {"progressToken": "p1"}}),
    );
    let reply =
        server.wait_message(Duration::from_secs(60), |v| v["id"] == id).expect("a reply to the install");
    assert_eq!(reply["result"]["structuredContent"]["status"], "installed", "{reply}");
    // Notifications go out from their own task: the last may follow the reply.
    let is_last =
        |v: &Value| v["params"]["message"].as_str().is_some_and(|m| m.starts_with("installed firefox"));
    if !server.stdout_lines.iter().any(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| is_last(&v))) {
        server.wait_message(Duration::from_secs(10), is_last);
    }
    let progress: Vec<String> = server
        .stdout_lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["method"] == "notifications/progress" && v["params"]["progressToken"] == "p1")
        .map(|v| v["params"]["message"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(progress.iter().any(|p| p.starts_with("downloading firefox")), "{progress:?}");
    assert!(progress.iter().any(|p| p.starts_with("unpacking firefox")), "{progress:?}");
    assert!(progress.iter().any(|p| p.starts_with("installed firefox")), "{progress:?}");
}

#[test]
fn via_system_prints_the_package_managers_command_without_consent() {
    let home = Home::empty();
    let (code, r) = home.json(&["browsers", "install", "chromium", "--via", "system"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["status"], "command");
    assert_eq!(r["ran"], false);
    let command = r["command"].as_str().unwrap();
    assert!(command.ends_with("apt-get install -y chromium"), "{command}");
    let (code, r) = home.json(&["browsers", "install", "firefox-developer", "--via", "system"]);
    assert_eq!((code, r["error"]["code"].as_str()), (1, Some("UNSUPPORTED")), "{r}");
    assert!(r["error"]["hint"].as_str().unwrap().contains("via: \"managed\""), "{r}");
}

/// macOS and Windows Firefox builds are installers: the result is the vendor's step, the URL
/// and the published SHA-512, and nothing is written.
#[test]
fn installers_of_other_platforms_are_not_unpacked_but_explained() {
    use webext_mcp::browsers::managed::install::{Request, Status, install};
    use webext_mcp::browsers::managed::vendors::Wanted;
    use webext_mcp::browsers::managed::{Managed, Platform, fetch::Http};
    let m = Mirror::start();
    m.firefox(FIREFOX, mirror::firefox_tar(FIREFOX), None);
    let cache = tempfile::tempdir().unwrap();
    let request = Request {
        browser: Managed::Firefox,
        version: Wanted::Channel("stable".into()),
        platform: Platform::MacArm64,
        mirror: Some(m.base()),
        wait: Duration::from_secs(30),
    };
    let mut lines = Vec::new();
    let out =
        install(cache.path(), &request, &Http::new(), &mut |l| lines.push(l.to_owned()), &|| false).unwrap();
    assert_eq!(out.status, Status::Manual);
    assert_eq!(out.version, FIREFOX);
    assert!(out.url.ends_with(&format!("/mac/en-US/Firefox%20{FIREFOX}.dmg")), "{}", out.url);
    assert_eq!(out.sha512, Some("1".repeat(128)), "the hash SHA512SUMS lists for the .dmg");
    assert!(out.steps[0].contains("/Applications"), "{:?}", out.steps);
    assert_eq!(m.requests_ending(".dmg"), 0, "nothing downloaded");
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0, "nothing written");
}
