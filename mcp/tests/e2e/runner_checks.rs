//! The runner behaviours every browser family must show; `runner_<family>.rs` run them.

use webext_mcp::browsers::Engine;
use webext_mcp::runner::{EventKind, Level};

use crate::common::DEADLINE;
use crate::common::browser::isolated;
use crate::common::ext::background_extension;
use crate::common::http::TestServer;

/// The background starts and its `fetch` reaches the local server.
pub async fn background_fetch_reaches_local_server(family: Engine) {
    let server = TestServer::start();
    server.route("/from-background", "text/plain", "ok");
    let bg = format!("fetch({:?}).catch((e) => console.error(String(e)));\n", server.url("/from-background"));
    let ext = background_extension("fetcher", &bg);
    let browser = isolated(family, &[ext.path()]).await;
    let handle = &browser.runner.extensions()[0];
    handle.wait_background(DEADLINE).await.unwrap();
    assert!(handle.background_started());
    assert!(
        server.wait_for_request("/from-background", DEADLINE).await,
        "the background's request never arrived; saw {:?}; logs {:?}",
        server.requests(),
        handle.history()
    );
    browser.runner.shutdown().await;
    assert!(!browser.runner.is_running());
}

/// An uncaught throw at the top of the background is reported with its file and line.
pub async fn background_throw_is_reported_with_file_and_line(family: Engine) {
    let ext = background_extension(
        "thrower",
        "console.log('before the throw');\nthrow new Error('boom-from-background');\n",
    );
    let browser = isolated(family, &[ext.path()]).await;
    let handle = &browser.runner.extensions()[0];
    let mut stream = handle.subscribe();
    let event = stream
        .wait_for(DEADLINE, |e| e.kind == EventKind::Exception && e.text.contains("boom-from-background"))
        .await
        .unwrap_or_else(|| panic!("no exception reported; history {:?}", handle.history()));
    assert_eq!(event.level, Level::Error);
    let url = event.url.as_deref().unwrap_or_default();
    assert!(
        url.starts_with(&handle.base_url) && url.ends_with("/bg.js"),
        "url {url:?} base {}",
        handle.base_url
    );
    assert_eq!(event.line, Some(2), "{event:?}");
}

/// `console.error` arrives at level error, `console.log` at level log.
pub async fn console_levels_are_kept(family: Engine) {
    let ext =
        background_extension("logger", "console.log('plain-message');\nconsole.error('bad-thing', 42);\n");
    let browser = isolated(family, &[ext.path()]).await;
    let handle = &browser.runner.extensions()[0];
    let mut stream = handle.subscribe();
    let plain = stream
        .wait_for(DEADLINE, |e| e.text.contains("plain-message"))
        .await
        .unwrap_or_else(|| panic!("no console.log seen; history {:?}", handle.history()));
    assert_eq!((plain.kind, plain.level), (EventKind::Console, Level::Log));
    let error = stream
        .wait_for(DEADLINE, |e| e.text.contains("bad-thing"))
        .await
        .unwrap_or_else(|| panic!("no console.error seen; history {:?}", handle.history()));
    assert_eq!((error.kind, error.level), (EventKind::Console, Level::Error));
    assert_eq!(error.text, "bad-thing 42");
}
