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

/// Regression (issue 46): invalid JSON, a line over 16 MiB and deep nesting on stdin got no
/// reply at all, and a non-object `arguments` got "method not found". Each now gets its
/// JSON-RPC error, with the request's id whenever it can be read, and the server goes on.
#[test]
fn malformed_input_gets_the_json_rpc_error_with_its_id_when_one_can_be_read() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":72,\"method\":\"tools/list\",\"params\":{{\"x\":{}0{}}}}}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let mut huge = br#"{"jsonrpc":"2.0","id":73,"method":"tools/list","params":{"pad":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 17 * 1024 * 1024));
    huge.extend_from_slice(b"\"}}\n");
    let cases: [(&[u8], serde_json::Value, i64); 6] = [
        (b"{not json\n".as_slice(), json!(null), -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":71,\"method\":\"tools/list\",,}\n".as_slice(), json!(71), -32700),
        (deep.as_bytes(), json!(72), -32700),
        (huge.as_slice(), json!(73), -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":74,\"method\":\"tools/call\",\"params\":{\"name\":\"server_info\",\"arguments\":[1]}}\n".as_slice(), json!(74), -32602),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":75,\"method\":\"ping\"}]\n".as_slice(), json!(null), -32600),
    ];
    for (line, id, code) in cases {
        s.send_raw(line);
        let reply =
            s.wait_message(std::time::Duration::from_secs(20), |m| m.get("error").is_some()).unwrap_or_else(
                || panic!("no reply to {}", String::from_utf8_lossy(&line[..line.len().min(80)])),
            );
        assert_eq!((reply["id"].clone(), reply["error"]["code"].as_i64()), (id, Some(code)), "{reply}");
    }
    // Still serving.
    let listed = s.request("tools/list", json!({}));
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
}
