//! The same build through MCP: `tools/list` shows `extension_build` by default, and
//! `tools/call` returns the builds as structured content (failures as `isError` results).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::Project;

#[test]
fn extension_build_over_mcp_stdio() {
    let p = Project::fixture("popup-background");
    let mut child = Command::new(super::bin())
        .arg("--home")
        .arg(p.home.path())
        .arg("serve")
        .env("WEBEXT_MCP_RUNTIME_DIR", p.home.path().join("run"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "server closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    ask(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    let tools = ask(2, "tools/list", json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"extension_build"), "{names:?}");

    let args = json!({"projectPath": p.path(), "browser": ["chrome", "firefox"], "zip": true});
    let r = ask(3, "tools/call", json!({"name": "extension_build", "arguments": args}));
    let result = &r["result"];
    assert_eq!(result["isError"], false, "{result:#}");
    let builds = result["structuredContent"]["builds"].as_array().unwrap();
    assert_eq!(builds.len(), 2);
    assert!(result["content"][0]["text"].as_str().unwrap().starts_with("chrome: 9 files"), "{result:#}");

    let r = ask(
        4,
        "tools/call",
        json!({"name": "extension_build", "arguments": {"projectPath": p.path().join("nope")}}),
    );
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["structuredContent"]["error"]["code"], "NOT_FOUND");

    // Validation and inspection are in the build toolset: hidden by default, still callable,
    // read-only (validate) and additive (inspect builds when dist/ is missing).
    assert!(
        !names.contains(&"extension_manifest_validate") && !names.contains(&"extension_inspect"),
        "{names:?}"
    );
    let manifest = p.path().join("manifest.json");
    let r = ask(
        5,
        "tools/call",
        json!({"name": "extension_manifest_validate", "arguments": {"manifestPath": manifest}}),
    );
    let result = &r["result"];
    assert_eq!(result["isError"], false, "{result:#}");
    assert_eq!(result["structuredContent"]["valid"], true, "{result:#}");
    assert_eq!(result["structuredContent"]["browserSupport"]["firefox"]["ok"], true);
    assert!(result["content"][0]["text"].as_str().unwrap().starts_with("manifest.json: valid"), "{result:#}");
    let r = ask(
        6,
        "tools/call",
        json!({"name": "extension_inspect", "arguments": {"projectPath": p.path(), "browser": "firefox", "format": "tree"}}),
    );
    let result = &r["result"];
    assert_eq!(result["isError"], false, "{result:#}");
    assert_eq!(result["structuredContent"]["built"], false, "dist/firefox was built above");
    assert!(result["content"][0]["text"].as_str().unwrap().contains("popup.html"), "{result:#}");
    let all = ask(7, "tools/call", json!({"name": "enable_toolsets", "arguments": {"toolsets": ["build"]}}));
    assert_eq!(all["result"]["isError"], false, "{all:#}");
    let tools = ask(8, "tools/list", json!({}));
    let validate = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "extension_manifest_validate")
        .unwrap();
    assert_eq!(validate["annotations"]["readOnlyHint"], true, "{validate:#}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
