//! The Firefox runner in headless Firefox ESR.

use webext_mcp::browsers::Engine;
use webext_mcp::runner::Runner;

use crate::common::DEADLINE;
use crate::common::browser::shared;
use crate::common::ext::background_extension;
use crate::runner_checks as checks;

#[tokio::test]
async fn background_fetch_reaches_local_server() {
    checks::background_fetch_reaches_local_server(Engine::Gecko).await;
}

#[tokio::test]
async fn background_throw_is_reported_with_file_and_line() {
    checks::background_throw_is_reported_with_file_and_line(Engine::Gecko).await;
}

#[tokio::test]
async fn console_levels_are_kept() {
    checks::console_levels_are_kept(Engine::Gecko).await;
}

/// The shared Firefox is started once; it cannot take extensions after launch, and says so.
#[tokio::test]
async fn shared_firefox_is_reused_and_refuses_late_extensions() {
    let browser = shared(Engine::Gecko);
    assert_eq!(browser.runner.pid(), shared(Engine::Gecko).runner.pid());
    assert!(browser.runner.is_running());
    assert!(browser.runner.home_dir().is_dir());
    let ext = background_extension("late", "console.log(1);");
    let runner: &dyn Runner = browser.runner.as_ref();
    let err = runner.load_extension(ext.path()).await.unwrap_err();
    let body = webext_mcp_host::protocol::ErrorBody::from(err);
    assert_eq!(body.code, webext_mcp_host::protocol::ErrorCode::Unsupported);
}

/// Tabs are read and driven over Marionette only when `remote_control` asks for it: without
/// it no port is opened and the tab methods say so.
#[tokio::test]
async fn remote_control_is_opt_in_and_drives_tabs() {
    use std::time::Duration;

    use serde_json::json;
    use webext_mcp::runner::RunnerError;

    let plain = shared(Engine::Gecko);
    assert!(matches!(plain.runner.pages().await, Err(RunnerError::Unsupported { .. })));
    assert!(!plain.runner.profile_dir().join("MarionetteActivePort").exists());

    let runtime_dir = tempfile::tempdir().unwrap();
    let mut opts = crate::common::browser::options(&[], runtime_dir.path(), "remote-control");
    opts.remote_control = true;
    let runner = webext_mcp::runner::launch(Engine::Gecko, opts, &webext_mcp::paths::Env::capture(), None)
        .await
        .unwrap();
    let pages = runner.pages().await.unwrap();
    assert_eq!(pages.len(), 1, "{pages:?}");
    let tab = &pages[0].target_id;
    runner.navigate_page(tab, "data:text/html,<title>remote</title><p id=p>hi</p>").await.unwrap();
    assert_eq!(runner.pages().await.unwrap()[0].url, "data:text/html,<title>remote</title><p id=p>hi</p>");
    let eval = |expr: &'static str, timeout: Duration| runner.evaluate_in_page(tab, expr, timeout);
    assert_eq!(eval("document.title", DEADLINE).await.unwrap(), "remote");
    assert_eq!(eval("document.title = 'x', [1, 'b']", DEADLINE).await.unwrap(), json!([1, "b"]));
    assert_eq!(eval("Promise.resolve({a: 1}) // a comment", DEADLINE).await.unwrap(), json!({"a": 1}));
    match eval("(() => { throw new Error('boom'); })()", DEADLINE).await {
        Err(RunnerError::Script { message }) => assert_eq!(message, "Error: boom"),
        other => panic!("{other:?}"),
    }
    // A reply that comes after its caller gave up is skipped, not taken for the next one's.
    let late = eval("new Promise(r => setTimeout(() => r('late'), 2000))", Duration::from_millis(200)).await;
    assert!(matches!(late, Err(RunnerError::Remote { .. })), "{late:?}");
    // Its timer fires after the late one's, so the late reply arrives while this one waits.
    let next = "new Promise(r => setTimeout(() => r(document.getElementById('p').textContent), 3000))";
    assert_eq!(eval(next, DEADLINE).await.unwrap(), "hi");
    runner.shutdown().await;
}
