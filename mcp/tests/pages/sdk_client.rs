//! Runs a Python MCP SDK client script of this directory against a fresh `webext-mcp serve`
//! for a test browser: `script BINARY HOME RUNTIME_DIR SESSION <args…> SERVER_LOG`.

use std::process::Command;

use crate::common::helper::HelperBrowser;

/// What a client script run left: its stdout, and everything (stdout, stderr, the server's
/// log) for an assertion message.
pub struct ClientRun {
    pub success: bool,
    pub stdout: String,
    pub server_log: String,
    pub context: String,
}

pub fn run(script: &str, browser: &HelperBrowser, args: &[String]) -> ClientRun {
    let py = crate::common::python::sdk_python();
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("server.log");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages").join(script);
    let out = Command::new(&py)
        .arg(script)
        .arg(crate::common::mcp_client::bin())
        .arg(home.path())
        .arg(browser.runtime_dir.path())
        .arg(&browser.session)
        .args(args)
        .arg(&log)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    let context = format!(
        "{}:\n{stdout}\n{}\n{server_log}",
        browser.family.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    ClientRun { success: out.status.success(), stdout, server_log, context }
}
