//! Finding hosts: daily browsers vs dev sessions, labels, `select_browser`, the `browser`
//! argument, the "several candidates" error, and transparent reconnection.

use std::path::Path;

use serde_json::{Value, json};
use webext_mcp::config::Flags;
use webext_mcp::paths::Env;
use webext_mcp::tools;
use webext_mcp_host::peer::Script;
use webext_mcp_host::protocol::tab_set_fingerprint;
use webext_mcp_host::runtime::current_uid;

use crate::harness::{Host, cli_call, runtime_dir};

fn ctx(runtime: &Path, home: &Path, flags: Flags) -> tools::Ctx {
    let env =
        Env::from_pairs([("WEBEXT_MCP_RUNTIME_DIR", runtime.to_string_lossy().into_owned())], current_uid());
    webext_mcp::cli::context(Some(home), env, &flags).unwrap()
}

async fn call(
    ctx: &tools::Ctx,
    tool: &str,
    args: Value,
) -> Result<Value, webext_mcp_host::protocol::ErrorBody> {
    tools::call(ctx, Default::default(), tool, args).await.unwrap().map(|o| o.structured)
}

#[tokio::test]
async fn sessions_labels_selection_and_the_several_candidates_error() {
    let rt = runtime_dir();
    let home = tempfile::tempdir().unwrap();
    let work = Host::start(rt.path(), Script::new("chrome", "work"), None);
    let dev = Host::start(rt.path(), Script::new("chromium", "chromium-bbbbbb"), Some("sess-1"));
    work.descriptor();
    assert_eq!(dev.descriptor().session.as_deref(), Some("sess-1"));

    // One daily browser: it is the default; the dev session never is.
    let (code, info) = cli_call(rt.path(), home.path(), "get_browser_info", json!({}));
    assert_eq!(code, 0, "{info}");
    assert_eq!(info["label"], "work");
    assert_eq!(info["visibleTabCount"], 3);
    assert_eq!(info["tabSetFingerprint"], tab_set_fingerprint(&[(1, 10), (1, 11), (2, 20)]));
    assert!(info["capabilities"].as_array().is_some());

    // The `browser` argument reaches the dev session by its id.
    let (code, info) = cli_call(rt.path(), home.path(), "get_browser_info", json!({"browser": "sess-1"}));
    assert_eq!(code, 0, "{info}");
    assert_eq!(info["label"], "chromium-bbbbbb");
    assert_eq!(info["session"], "sess-1");

    let (code, list) = cli_call(rt.path(), home.path(), "list_connected_browsers", json!({}));
    assert_eq!(code, 0, "{list}");
    let rows = list["browsers"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["tabCount"], 3);
        assert_eq!(row["default"], row["label"] == "work");
    }

    // A second daily browser: no default any more, and the error lists both.
    let home_browser = Host::start(rt.path(), Script::new("firefox", "home"), None);
    home_browser.descriptor();
    let (code, err) = cli_call(rt.path(), home.path(), "get_browser_info", json!({}));
    assert_eq!(code, 1, "{err}");
    assert_eq!(err["error"]["code"], "NOT_FOUND");
    let hint = err["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("work") && hint.contains("home") && !hint.contains("sess-1"), "{hint}");
    assert_eq!(err["error"]["data"]["candidates"].as_array().unwrap().len(), 2);

    // select_browser sets this server's default; `browser` still overrides it.
    let server = ctx(rt.path(), home.path(), Flags::new());
    assert_eq!(call(&server, "get_browser_info", json!({})).await.unwrap_err().code.as_str(), "NOT_FOUND");
    let chosen = call(&server, "select_browser", json!({"browser": "home"})).await.unwrap();
    assert_eq!(chosen["browser"], "firefox");
    assert_eq!(call(&server, "get_browser_info", json!({})).await.unwrap()["label"], "home");
    assert_eq!(call(&server, "get_browser_info", json!({"browser": "work"})).await.unwrap()["label"], "work");
    let err = call(&server, "select_browser", json!({"browser": "safari"})).await.unwrap_err();
    assert_eq!(err.code.as_str(), "NOT_FOUND");
    assert_eq!(call(&server, "ping", json!({"payload": "p"})).await.unwrap()["reply"]["payload"], "p");

    // `--browser` (config `browser`) sets the initial default.
    let mut flags = Flags::new();
    flags.insert("browser", "work".into());
    let started_with = ctx(rt.path(), home.path(), flags);
    assert_eq!(call(&started_with, "get_browser_info", json!({})).await.unwrap()["browser"], "chrome");
}

#[tokio::test]
async fn the_next_call_after_a_browser_restart_reconnects_by_itself() {
    let rt = runtime_dir();
    let home = tempfile::tempdir().unwrap();
    let server = ctx(rt.path(), home.path(), Flags::new());
    let mut first = Host::start(rt.path(), Script::new("firefox", "daily"), None);
    let old = first.descriptor();
    assert_eq!(call(&server, "ping", json!({})).await.unwrap()["label"], "daily");
    first.kill_peer();
    first.wait_exit();
    let err = call(&server, "ping", json!({})).await.unwrap_err();
    assert_eq!(err.code.as_str(), "NOT_CONNECTED", "{}", err.line());
    let second = Host::start(rt.path(), Script::new("firefox", "daily"), None);
    let new = second.descriptor();
    assert_ne!(old.pid, new.pid);
    let info = call(&server, "get_browser_info", json!({})).await.unwrap();
    assert_eq!(info["label"], "daily");
}
