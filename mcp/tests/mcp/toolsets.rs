//! `--toolsets` trims tools/list; every tool stays callable; the default list stays small.

use serde_json::json;

use crate::client::{Server, run};

#[test]
fn debug_group_is_off_by_default_and_on_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let names = s.tool_names();
    assert!(names.contains(&"server_info".to_owned()));
    assert!(!names.contains(&"echo".to_owned()), "{names:?}");
    // Hidden, yet callable: toolsets only trim the list.
    let r = s.call("echo", json!({"x": 1}));
    assert_eq!(r["structuredContent"]["arguments"]["x"], 1);

    let mut s = Server::start(home.path(), &["--toolsets", "debug"]);
    s.initialize();
    let debug = s.tool_names();
    assert!(debug.contains(&"echo".to_owned()), "{debug:?}");
    assert!(!debug.contains(&"server_info".to_owned()), "{debug:?}");

    let mut s = Server::start(home.path(), &["--toolsets", "all"]);
    s.initialize();
    let all = s.tool_names();
    assert!(all.contains(&"echo".to_owned()) && all.contains(&"server_info".to_owned()));
}

#[test]
fn unknown_toolset_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let (code, _, err) = run(home.path(), &["serve", "--toolsets", "core,bogus"]);
    assert_eq!(code, 2);
    assert!(err.contains("bogus") && err.contains("default"), "{err}");
}

#[test]
fn default_tools_list_stays_under_24_kb() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let r = s.request("tools/list", json!({}));
    let bytes = r["result"].to_string().len();
    assert!(bytes < 24 * 1024, "tools/list is {bytes} bytes");
    assert!(r["result"]["tools"].as_array().unwrap().len() >= 2);
}
