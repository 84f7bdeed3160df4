//! A client not written in this project — the Python `mcp` SDK — talks to the real binary.
//! `scripts/test` installs the SDK into a cache venv; set `WEBEXT_MCP_TEST_PYTHON` to use
//! another interpreter that has it.

use std::process::Command;

#[test]
fn python_sdk_initializes_lists_calls_and_gets_invalid_argument() {
    let py = crate::python::sdk_python();
    let home = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/interop_client.py");
    let out = Command::new(&py)
        .arg(script)
        .arg(crate::client::bin())
        .arg(home.path())
        .env("WEBEXT_MCP_RUNTIME_DIR", home.path().join("run"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "interop client failed:\n{stdout}\n{stderr}");
    for check in
        ["initialized webext-mcp", "tools include server_info", "server_info ok", "invalid argument ok"]
    {
        assert!(stdout.contains(check), "missing {check:?} in:\n{stdout}\n{stderr}");
    }
}
