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
fn default_tools_list_fits_in_16_kb_and_every_tool_is_annotated() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let r = s.request("tools/list", json!({}));
    let bytes = r["result"].to_string().len();
    assert!(bytes <= 16 * 1024, "the default tools/list is {bytes} bytes");
    let names = s.tool_names();
    for both_powers in
        ["extension_create", "extension_build", "extension_dev", "take_snapshot", "click_by_uid"]
    {
        assert!(names.iter().any(|n| n == both_powers), "{both_powers} missing from the default list");
    }
    let mut s = Server::start(home.path(), &["--toolsets", "all"]);
    s.initialize();
    let all = s.request("tools/list", json!({}));
    for tool in all["result"]["tools"].as_array().unwrap() {
        let a = &tool["annotations"];
        assert!(a["title"].is_string(), "{tool}");
        // A read-only tool says nothing about destroying or repeating.
        if a["readOnlyHint"] == true {
            assert!(a.get("destructiveHint").is_none() && a.get("idempotentHint").is_none(), "{tool}");
        }
    }
    let by_name =
        |n: &str| all["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == n).unwrap().clone();
    assert_eq!(by_name("take_snapshot")["annotations"]["readOnlyHint"], true);
    assert_eq!(
        by_name("close_page")["annotations"].get("destructiveHint"),
        None,
        "destructive is the default"
    );
    assert_eq!(by_name("click_by_uid")["annotations"]["destructiveHint"], false);
    assert_eq!(by_name("select_page")["annotations"]["idempotentHint"], true);
    assert_eq!(by_name("extension_build")["annotations"]["openWorldHint"], false);
    assert_eq!(
        by_name("navigate_page")["annotations"].get("openWorldHint"),
        None,
        "open world is the default"
    );
}

#[test]
fn enable_toolsets_widens_the_list_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    let init = s.initialize();
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true, "{init}");
    assert!(!s.tool_names().contains(&"extension_preview".to_owned()));
    let r = s.call("enable_toolsets", json!({"toolsets": ["dev", "debug"]}));
    assert_ne!(r["isError"], true, "{r}");
    let added = r["structuredContent"]["newTools"].as_array().unwrap();
    assert!(added.iter().any(|t| t == "extension_preview") && added.iter().any(|t| t == "echo"), "{r}");
    let names = s.tool_names();
    assert!(names.contains(&"extension_preview".to_owned()) && names.contains(&"echo".to_owned()));
    assert!(names.contains(&"take_snapshot".to_owned()), "the defaults stay");
    let notified = s.stdout_lines.iter().any(|l| l.contains("notifications/tools/list_changed"));
    assert!(notified, "no tools/list_changed after enable_toolsets: {:?}", s.stdout_lines);
    // The old group names keep working; unknown ones are INVALID_ARGUMENT.
    let r = s.call("enable_toolsets", json!({"toolsets": ["browser"]}));
    assert_ne!(r["isError"], true, "{r}");
    let r = s.call("enable_toolsets", json!({"toolsets": ["bogus"]}));
    assert_eq!(r["structuredContent"]["error"]["code"], "INVALID_ARGUMENT", "{r}");
}
