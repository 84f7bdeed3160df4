//! A hostile project's run keys (issue 44): its `extension.config.*` asks for a debugger
//! (`-jsdebugger`, `--remote-debugging-port`), a log file over a user's file, and a profile
//! that is a symlink in the project to the user's daily browser profile. The session starts
//! anyway, with none of them: no TCP listener of the browser's processes, the user's file and
//! daily profile untouched, the result naming what was dropped and the profile it used — a
//! private (0700) one another local user cannot read. The daily profile named by the call
//! itself is refused (`PERMISSION_DENIED`).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::common::procs::browser_processes;
use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(hostile_run_keys_are_dropped_and_the_profile_is_private, run);

/// What each browser's project asks for: flags to refuse, one to keep, and where its daily
/// profile lives under `HOME`.
struct Case {
    daily: &'static str,
    refused: Vec<String>,
    kept: &'static str,
}

fn case(browser: &str, victim: &Path, port: u16) -> Case {
    if browser == "firefox" {
        Case {
            daily: ".mozilla/firefox/abcd1234.default-release",
            refused: vec!["-jsdebugger".to_owned(), format!("--start-debugger-server={port}")],
            kept: "--new-instance",
        }
    } else {
        Case {
            daily: ".config/chromium",
            refused: vec![
                format!("--remote-debugging-port={port}"),
                "--enable-logging".to_owned(),
                format!("--log-file={}", victim.display()),
            ],
            kept: "--lang=de-DE",
        }
    }
}

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    // A home another user may enter (as many are): only the dev profile's own mode keeps
    // them out of it.
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = home.path().join("proj");
    write_project(&project, "flags");
    let victim = home.path().join("notes.txt");
    std::fs::write(&victim, "the user's own notes\n").unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let case = case(browser, &victim, port);
    let daily = home.path().join(case.daily);
    fake_daily_profile(&daily);
    let before = tree(&daily);
    std::os::unix::fs::symlink(&daily, project.join("daily")).unwrap();
    let mut flags: Vec<String> = case.refused.clone();
    flags.push(case.kept.to_owned());
    let key = if browser == "firefox" { "firefox" } else { "chromium" };
    std::fs::write(
        project.join("extension.config.js"),
        format!(
            "module.exports = {{\n  browser: {{\n    {key}: {{ profile: './daily', browserFlags: {},\n      preferences: {{ 'devtools.debugger.remote-enabled': true, 'devtools.theme': 'dark' }} }}\n  }}\n}}\n",
            serde_json::to_string(&flags).unwrap()
        ),
    )
    .unwrap();
    let site = pages();

    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    // Named by the call, the daily profile is refused outright, and nothing starts.
    let asked = json!({"projectPath": project, "browser": browser, "headless": true, "profile": daily});
    let refused = server.call("extension_dev", asked);
    assert_eq!(err_code(&refused, "extension_dev in the daily profile"), "PERMISSION_DENIED");
    assert_eq!(tree(&daily), before, "the daily profile was changed");

    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let r = server.call("extension_dev", args);
    let started = ok(&r, "extension_dev");
    let text = r["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    let ids = ids(&started);
    wait_root(&project, "127.0.0.1", "flags");

    // The session runs, in its own profile inside the project, and says which.
    let own = project.join(format!("dist/extension-js/profiles/{browser}"));
    assert_eq!(ids.profile, own, "{started:#}");
    assert!(text.contains(&format!("profile {}", own.display())), "the result names the profile:\n{text}");
    assert!(
        text.contains(&format!("browser.{key}.profile `./daily`")),
        "the refused profile is named:\n{text}"
    );
    // Each refused flag is named in the result; the allowed one reached the browser.
    for flag in &case.refused {
        assert!(text.contains(&format!("browserFlags `{flag}`")), "{flag} is not named as dropped:\n{text}");
    }
    // So is the debugger preference; Firefox gets the allowed one, Chromium takes none.
    assert!(text.contains("preferences `devtools.debugger.remote-enabled`"), "{text}");
    let theme_refused = text.contains("preferences `devtools.theme`");
    assert_eq!(theme_refused, browser != "firefox", "{text}");
    let argv = cmdline(ids.browser_pid);
    assert!(argv.contains(&case.kept.to_owned()), "{argv:?}");
    for flag in &case.refused {
        assert!(!argv.contains(flag), "{flag} reached the browser: {argv:?}");
    }

    // No TCP listener of the browser's processes: the runner talks to Chromium over a pipe
    // and to Firefox over a unix socket in a private dir. Looked at for a while, since the
    // Browser Toolbox comes up after the first page.
    let browser_home = home_of(ids.browser_pid).unwrap();
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let pids = browser_processes(&ids.profile, &browser_home);
        assert!(pids.contains(&ids.browser_pid), "{pids:?}");
        let listening = tcp_listeners(&pids);
        assert!(listening.is_empty(), "the dev {browser} listens on TCP: {listening:?}");
        if Instant::now() >= until {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    // The dev profile is private, and what the browser wrote there stays so.
    let mode = std::fs::metadata(&own).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "profile {} is {mode:o}", own.display());
    let written = if browser == "firefox" { own.join("user.js") } else { own.join("Default/Preferences") };
    assert!(written.exists(), "{}", written.display());
    if browser == "firefox" {
        let user_js = std::fs::read_to_string(&written).unwrap();
        assert!(user_js.contains(r#"user_pref("devtools.theme", "dark");"#), "{user_js}");
    }
    co_user_cannot_read(&project.join("manifest.json"), &own, &written);

    ok(&server.call("extension_stop", json!({"projectPath": project})), "stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
    assert_eq!(tree(&daily), before, "the daily profile was changed");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the user's own notes\n",
        "the user's file was written"
    );
}

/// A daily profile as the browser leaves it: a few files another browser run would rewrite.
fn fake_daily_profile(dir: &Path) {
    std::fs::create_dir_all(dir.join("Default")).unwrap();
    std::fs::write(dir.join("Default/Preferences"), r#"{"daily":true}"#).unwrap();
    std::fs::write(dir.join("Local State"), r#"{"daily":true}"#).unwrap();
    std::fs::write(dir.join("prefs.js"), "user_pref(\"daily\", true);\n").unwrap();
    std::fs::write(dir.join("cookies.sqlite"), b"not really sqlite").unwrap();
}

/// Every file and folder under `dir` with its bytes (a folder: empty).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
                out.insert(rel, Vec::new());
            } else {
                out.insert(rel, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    out
}

fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    raw.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect()
}

/// `pid port` of every TCP socket (v4 and v6) in LISTEN state held by one of `pids`.
fn tcp_listeners(pids: &[u32]) -> Vec<String> {
    let mut listening: BTreeMap<String, String> = BTreeMap::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // sl local rem st queues timer retrnsmt uid timeout inode; 0A is LISTEN.
            if f.len() > 9 && f[3] == "0A" {
                let port = f[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok()).unwrap_or(0);
                listening.insert(f[9].to_owned(), port.to_string());
            }
        }
    }
    let mut out = Vec::new();
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            let Ok(target) = std::fs::read_link(fd.path()) else { continue };
            let target = target.to_string_lossy().into_owned();
            let inode = target.strip_prefix("socket:[").and_then(|t| t.strip_suffix(']'));
            if let Some(port) = inode.and_then(|i| listening.get(i)) {
                out.push(format!("pid {pid} port {port}"));
            }
        }
    }
    out
}

/// Another local user (`nobody`) can read `open` (so the home and project let them in) but
/// can neither list `dir` nor read `private` in it. Needs root to change user; skipped, and
/// said so, otherwise.
fn co_user_cannot_read(open: &Path, dir: &Path, private: &Path) {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        println!(
            "co-user check skipped: it runs as root (to become uid 65534 with setpriv), and this is not"
        );
        return;
    }
    let as_nobody = |tool: &str, path: &Path| {
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", tool])
            .arg(path)
            .output()
            .expect("setpriv runs")
    };
    let control = as_nobody("cat", open);
    assert!(control.status.success(), "nobody cannot read {} either: {:?}", open.display(), control);
    for (tool, path) in [("ls", dir), ("cat", private)] {
        let denied = as_nobody(tool, path);
        assert!(!denied.status.success(), "nobody could {tool} {}", path.display());
        assert!(String::from_utf8_lossy(&denied.stderr).contains("Permission denied"), "{denied:?}");
    }
}
