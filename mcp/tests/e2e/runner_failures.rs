//! Runners fail clearly: a browser that never answers times out, one that exits is reported
//! with its status, a background that never starts times out, and a missing binary is
//! `NOT_INSTALLED`. Fake browsers (shell scripts) inject the failures.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use webext_mcp::paths::Env;
use webext_mcp::runner::{RunnerError, RunnerOptions, launch};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::common::browser::shared;
use crate::common::ext::{manifest, write_extension};

/// A fake browser that records its pid and then does `body`.
fn fake_browser(dir: &Path, body: &str) -> std::path::PathBuf {
    let path = dir.join("fake-browser");
    std::fs::write(&path, format!("#!/bin/sh\necho $$ > \"$FAKE_PID_FILE\"\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
        .unwrap_or(false)
}

async fn launch_fake(family: Engine, body: &str, timeout: Duration) -> (RunnerError, u32) {
    let dir = tempfile::tempdir().unwrap();
    let binary = fake_browser(dir.path(), body);
    let pid_file = dir.path().join("pid");
    let opts = RunnerOptions {
        binary: Some(binary),
        start_timeout: timeout,
        env: vec![("FAKE_PID_FILE".into(), pid_file.display().to_string())],
        ..RunnerOptions::default()
    };
    let err = match launch(family, opts, &Env::default(), None).await {
        Ok(_) => panic!("the fake {} browser must not start", family.name()),
        Err(e) => e,
    };
    let pid = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    (err, pid)
}

async fn silent_browser_times_out_and_is_killed(family: Engine) {
    let started = Instant::now();
    let (err, pid) = launch_fake(family, "exec sleep 600", Duration::from_secs(2)).await;
    assert!(started.elapsed() < Duration::from_secs(15), "took {:?}", started.elapsed());
    assert!(matches!(err, RunnerError::StartTimeout { .. }), "{err}");
    assert!(err.to_string().contains("did not start within 2 s"), "{err}");
    assert_eq!(ErrorBody::from(err).code, ErrorCode::Timeout);
    assert!(!alive(pid), "the fake browser {pid} survived its start timeout");
}

#[tokio::test]
async fn silent_chromium_times_out_and_is_killed() {
    silent_browser_times_out_and_is_killed(Engine::Chromium).await;
}

#[tokio::test]
async fn silent_firefox_times_out_and_is_killed() {
    silent_browser_times_out_and_is_killed(Engine::Gecko).await;
}

#[tokio::test]
async fn browser_exiting_at_start_is_reported_with_its_output() {
    for family in [Engine::Chromium, Engine::Gecko] {
        let (err, _) =
            launch_fake(family, "echo 'cannot open display' >&2\nexit 3", Duration::from_secs(20)).await;
        assert!(matches!(err, RunnerError::Exited { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("exit status: 3") && text.contains("cannot open display"), "{text}");
        assert_eq!(ErrorBody::from(err).code, ErrorCode::NotConnected);
    }
}

#[tokio::test]
async fn missing_binary_is_not_installed() {
    let opts = RunnerOptions { binary: Some("/nonexistent/chromium".into()), ..RunnerOptions::default() };
    let err = launch(Engine::Chromium, opts, &Env::default(), None).await.err().unwrap();
    let body = ErrorBody::from(err);
    assert_eq!(body.code, ErrorCode::NotInstalled);
    assert!(body.message.contains("/nonexistent/chromium"), "{}", body.message);
}

/// A module service worker with top-level `await` silently fails to register
/// (reference/browsers-here.md): waiting for it must end in a clear timeout.
#[tokio::test]
async fn top_level_await_worker_never_starts_and_times_out() {
    let mut m = manifest("awaiter");
    m["background"] = serde_json::json!({"service_worker": "bg.js", "type": "module"});
    let ext = write_extension(&[("manifest.json", &m.to_string()), ("bg.js", "await Promise.resolve();\n")]);
    let handle = shared(Engine::Chromium).runner.load_extension(ext.path()).await.unwrap();
    let err = handle.wait_background(Duration::from_secs(3)).await.unwrap_err();
    assert!(matches!(err, RunnerError::BackgroundTimeout { .. }), "{err}");
    assert!(err.to_string().contains("background never started"), "{err}");
    assert_eq!(ErrorBody::from(err).code, ErrorCode::Timeout);
    // Chromium reports the failure as one or two worker errors ("Failed to register…",
    // then, not always, "Top-level await is disallowed…") that may straddle the timeout.
    let why = handle
        .subscribe()
        .wait_for(Duration::from_secs(30), |e| {
            e.text.contains("Top-level await is disallowed")
                || e.text.contains("Failed to register a ServiceWorker")
        })
        .await;
    assert!(why.is_some(), "the registration failure is not in the log: {:?}", handle.history());
}

#[tokio::test]
async fn extension_without_background_has_nothing_to_wait_for() {
    let mut m = manifest("pageless");
    m.as_object_mut().unwrap().remove("background");
    let ext = write_extension(&[("manifest.json", &m.to_string())]);
    let handle = shared(Engine::Chromium).runner.load_extension(ext.path()).await.unwrap();
    let err = handle.wait_background(Duration::from_secs(1)).await.unwrap_err();
    assert!(matches!(err, RunnerError::NoBackground { .. }), "{err}");
}
