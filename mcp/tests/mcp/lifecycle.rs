//! Start-up, identity, stdout purity and exit on stdin close.

use serde_json::json;

use crate::client::Server;

#[test]
fn initialize_reports_own_name_version_and_instructions() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    let init = s.initialize();
    let result = &init["result"];
    assert_eq!(result["serverInfo"]["name"], "webext-mcp");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result["instructions"].as_str().unwrap().contains("server_info"));
}

#[test]
fn exits_cleanly_when_stdin_closes_and_stdout_is_protocol_only() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &["--log", "trace"]);
    s.initialize();
    s.tool_names();
    s.call("server_info", json!({}));
    s.call("server_info", json!({"unexpected": true}));
    let seen = s.stdout_lines.clone();
    let (status, rest) = s.close();
    assert!(status.success(), "exit status {status:?}");
    for line in seen.iter().chain(rest.iter()) {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("stdout not JSON-RPC: {line:?} ({e})"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
    }
}

#[test]
fn server_info_reports_versions_toolsets_and_paths_of_the_given_home() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let r = s.call("server_info", json!({}));
    assert_eq!(r["isError"], false);
    let info = &r["structuredContent"];
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["wireProtocolVersion"], 1);
    assert!(info["mcpProtocolVersion"].as_str().unwrap().starts_with("20"));
    // By default: the curated default tools, no whole group.
    assert_eq!(info["toolsets"]["default"], true);
    assert!(!info["toolsets"]["enabled"].as_array().unwrap().iter().any(|t| t == "debug"));
    assert!(info["toolsets"]["available"].as_array().unwrap().iter().any(|t| t == "core"));
    assert!(info["toolCount"].as_u64().unwrap() >= 20, "{info}");
    let config_file = info["paths"]["config_file"].as_str().unwrap();
    assert!(config_file.starts_with(home.path().to_str().unwrap()), "{config_file}");
    assert_eq!(info["paths"]["runtime_dir"], home.path().join("run").to_str().unwrap());
}
