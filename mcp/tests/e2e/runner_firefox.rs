//! The Firefox runner in headless Firefox ESR.

use webext_mcp::runner::{Family, Runner};

use crate::common::browser::shared;
use crate::common::ext::background_extension;
use crate::runner_checks as checks;

#[tokio::test]
async fn background_fetch_reaches_local_server() {
    checks::background_fetch_reaches_local_server(Family::Firefox).await;
}

#[tokio::test]
async fn background_throw_is_reported_with_file_and_line() {
    checks::background_throw_is_reported_with_file_and_line(Family::Firefox).await;
}

#[tokio::test]
async fn console_levels_are_kept() {
    checks::console_levels_are_kept(Family::Firefox).await;
}

/// The shared Firefox is started once; it cannot take extensions after launch, and says so.
#[tokio::test]
async fn shared_firefox_is_reused_and_refuses_late_extensions() {
    let browser = shared(Family::Firefox);
    assert_eq!(browser.runner.pid(), shared(Family::Firefox).runner.pid());
    assert!(browser.runner.is_running());
    assert!(browser.runner.home_dir().is_dir());
    let ext = background_extension("late", "console.log(1);");
    let runner: &dyn Runner = browser.runner.as_ref();
    let err = runner.load_extension(ext.path()).await.unwrap_err();
    let body = webext_mcp_host::protocol::ErrorBody::from(err);
    assert_eq!(body.code, webext_mcp_host::protocol::ErrorCode::Unsupported);
}
