//! No browser outlives its test: not after a panic mid-test, not after the test binary
//! exits with a shared browser still running.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use webext_mcp::browsers::Engine;

use crate::common::browser::{isolated, shared};
use crate::common::ext::background_extension;
use crate::common::procs::{browser_processes, wait_gone};

/// Launches a browser, panics while it runs, and checks nothing with its profile or HOME
/// survives and its temp dirs are gone.
fn panic_mid_test_leaves_no_browser(family: Engine) {
    let seen: Arc<Mutex<Option<(PathBuf, PathBuf)>>> = Arc::default();
    let ext = background_extension("panicky", "console.log('up');");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let browser = isolated(family, &[ext.path()]).await;
            let profile = browser.runner.profile_dir().to_path_buf();
            let home = browser.runner.home_dir().to_path_buf();
            *seen.lock().unwrap() = Some((profile.clone(), home.clone()));
            assert!(!browser_processes(&profile, &home).is_empty(), "the browser should be running");
            panic!("deliberate panic with a live {} browser", family.name());
        })
    }));
    assert!(result.is_err());
    let (profile, home) = seen.lock().unwrap().clone().unwrap();
    // Drop kills the group and strays (crashpad) at once: no grace period needed.
    let left = wait_gone(&profile, &home, Duration::from_secs(2));
    assert!(left.is_empty(), "browser processes survived the panic: {left:?}");
    assert!(!profile.exists(), "temp profile {} not removed", profile.display());
}

#[test]
fn panic_mid_test_leaves_no_chromium() {
    panic_mid_test_leaves_no_browser(Engine::Chromium);
}

#[test]
fn panic_mid_test_leaves_no_firefox() {
    panic_mid_test_leaves_no_browser(Engine::Gecko);
}

const REPORT_ENV: &str = "WEBEXT_MCP_TEST_SHARED_REPORT";

/// Run only by `shared_browsers_die_with_the_test_binary` in a child process: starts the
/// shared browsers, reports their HOME, and lets the process exit without dropping them.
#[test]
#[ignore = "helper run in a child process by shared_browsers_die_with_the_test_binary"]
fn shared_browser_child() {
    let Ok(report) = std::env::var(REPORT_ENV) else { return };
    let mut lines = String::new();
    for family in [Engine::Chromium, Engine::Gecko] {
        let b = shared(family);
        lines.push_str(&format!("{}\t{}\n", b.runner.profile_dir().display(), b.runner.home_dir().display()));
    }
    std::fs::write(report, lines).unwrap();
}

#[test]
fn shared_browsers_die_with_the_test_binary() {
    let report = tempfile::NamedTempFile::new().unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "runner_cleanup::shared_browser_child", "--ignored", "--test-threads=1", "--quiet"])
        .env(REPORT_ENV, report.path())
        .status()
        .unwrap();
    assert!(status.success(), "child test binary failed: {status}");
    let text = std::fs::read_to_string(report.path()).unwrap();
    let browsers: Vec<(PathBuf, PathBuf)> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(p, h)| (PathBuf::from(p), PathBuf::from(h)))
        .collect();
    assert_eq!(browsers.len(), 2, "report: {text:?}");
    for (profile, home) in browsers {
        // PR_SET_PDEATHSIG kills the browser; its children and Chromium's crashpad handler
        // notice and exit on their own within seconds.
        let left = wait_gone(&profile, &home, Duration::from_secs(15));
        assert!(left.is_empty(), "shared browser {} outlived its test binary: {left:?}", profile.display());
        // Nor do its temporary dirs (statics are never dropped: common::at_exit removes them).
        assert!(!profile.exists(), "shared browser profile {} left behind", profile.display());
        assert!(!home.exists(), "shared browser HOME {} left behind", home.display());
    }
}
