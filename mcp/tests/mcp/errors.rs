//! Failures are tool results with a stable code, never rmcp's generic text.

use serde_json::json;

use crate::client::Server;

#[test]
fn wrong_typed_arguments_are_invalid_argument_tool_results() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    for args in [json!({"key": 5}), json!({"key": ["a"]}), json!({"kee": "log"})] {
        let r = s.call("get_config", args.clone());
        assert_eq!(r["isError"], true, "{args}: {r}");
        let err = &r["structuredContent"]["error"];
        assert_eq!(err["code"], "INVALID_ARGUMENT", "{args}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("INVALID_ARGUMENT: "), "{text}");
        assert!(text.contains(" — "), "hint missing: {text}");
    }
}

#[test]
fn domain_failures_carry_code_message_and_hint() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let r = s.call("get_config", json!({"key": "no.such.key"}));
    assert_eq!(r["isError"], true);
    let err = &r["structuredContent"]["error"];
    assert_eq!(err["code"], "NOT_FOUND");
    assert!(err["hint"].as_str().unwrap().contains("browsers.chromium.binary"));
}

#[test]
fn unknown_tool_is_a_protocol_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let r = s.request("tools/call", json!({"name": "no_such_tool", "arguments": {}}));
    assert!(r["error"]["message"].as_str().unwrap().contains("no_such_tool"), "{r}");
}
