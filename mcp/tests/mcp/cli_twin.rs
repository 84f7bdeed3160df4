//! `webext-mcp call` runs the same function as the MCP tool, with the documented exit codes.

use serde_json::{Value, json};

use crate::client::{Server, run};

#[test]
fn call_json_prints_the_same_structured_result_as_mcp() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, _) = run(home.path(), &["call", "get_config", "{\"key\":\"toolsets\"}", "--json"]);
    assert_eq!(code, 0);
    let cli: Value = serde_json::from_str(&out).unwrap();
    let mut s = Server::start(home.path(), &[]);
    s.initialize();
    let mcp = s.call("get_config", json!({"key": "toolsets"}));
    assert_eq!(cli, mcp["structuredContent"]);
    assert_eq!(cli["source"], "default");
}

#[test]
fn exit_codes_ok_tool_error_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, _) = run(home.path(), &["call", "server_info"]);
    assert_eq!(code, 0);
    assert!(out.contains("webext-mcp"));

    let (code, out, _) = run(home.path(), &["call", "get_config", "{\"key\":5}", "--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");

    let (code, _, err) = run(home.path(), &["call", "get_config", "{\"key\":5}"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("INVALID_ARGUMENT: "), "{err}");

    let (code, _, err) = run(home.path(), &["call", "no_such_tool"]);
    assert_eq!(code, 2);
    assert!(err.contains("no_such_tool") && err.contains("server_info"), "{err}");

    let (code, _, err) = run(home.path(), &["call", "server_info", "{not json"]);
    assert_eq!(code, 2);
    assert!(err.contains("not valid JSON"), "{err}");

    let (code, _, _) = run(home.path(), &["no-such-verb"]);
    assert_eq!(code, 2);
}

#[test]
fn config_precedence_flag_env_file_default() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/webext-mcp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "browser = \"from-file\"\nheadless = true\n").unwrap();
    let out = crate::client::command(home.path())
        .env("WEBEXT_MCP_BROWSER", "from-env")
        .args(["config", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let get = |k: &str| v["settings"].as_array().unwrap().iter().find(|s| s["key"] == k).unwrap().clone();
    assert_eq!(get("browser")["value"], "from-env");
    assert_eq!(get("browser")["source"], "env");
    assert_eq!(get("headless")["value"], true);
    assert_eq!(get("headless")["source"], "file");
    assert_eq!(get("log")["source"], "default");

    std::fs::write(dir.join("config.toml"), "headless = \"perhaps\"\n").unwrap();
    let (code, _, err) = run(home.path(), &["config"]);
    assert_eq!(code, 2);
    assert!(err.contains("headless") && err.contains("true or false"), "{err}");
}
