//! `extension_dev` says what the session does while it starts: a first build that takes a few
//! seconds (a package.json build script standing in for a bundler) reports the session's
//! status from its contract files as progress before the answer, not only "still working".

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::support::*;

/// A stand-in bundler that takes three seconds, then writes dist/<browser>/.
const SLOW_BUILD: &str = r#"#!/bin/sh
set -e
echo "slow bundler: started"
sleep 3
out="dist/$WEBEXT_MCP_BROWSER"
mkdir -p "$out"
printf '{"manifest_version":3,"name":"Slow","version":"0.1.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}' > "$out/manifest.json"
printf '(function(){document.documentElement.dataset.slow="1";})();' > "$out/content.js"
echo "slow bundler: done"
"#;

#[test]
fn a_dev_session_reports_its_status_while_its_first_build_runs() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("slow");
    std::fs::create_dir_all(&project).unwrap();
    // A config that customizes the bundler: the project's own build script runs (an ES-module
    // content script alone is bundled natively since issue 22).
    std::fs::write(
        project.join("manifest.json"),
        r#"{"manifest_version":3,"name":"Slow","version":"0.1.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}"#,
    )
    .unwrap();
    std::fs::write(project.join("content.js"), "import { go } from './lib.js';\ngo();\n").unwrap();
    std::fs::write(project.join("lib.js"), "export function go() {}\n").unwrap();
    std::fs::write(project.join("extension.config.mjs"), "export default { config: (c) => c }\n").unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"name":"slow","private":true,"scripts":{"build":"sh ./slow-build.sh"}}"#,
    )
    .unwrap();
    std::fs::write(project.join("slow-build.sh"), SLOW_BUILD).unwrap();
    std::fs::set_permissions(project.join("slow-build.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();

    // The user allows the project's build script for this server.
    let mut server = Server::start(home.path(), &["--allow-project-scripts"]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": "chromium", "headless": true});
    let id = server.send_request(
        "tools/call",
        json!({"name": "extension_dev", "arguments": args, "_meta": {"progressToken": "dev1"}}),
    );
    let answer = server.wait_message(Duration::from_secs(60), |m| m["id"] == json!(id));
    let answer = answer.unwrap_or_else(|| panic!("extension_dev did not answer: {:?}", server.stdout_lines));
    let progress = server.progress_messages();
    println!("progress while starting: {progress:?}");
    assert!(
        progress.iter().any(|p| p.starts_with("chromium session starting")),
        "no session status among the progress: {progress:?}"
    );
    let ready = &answer["result"]["structuredContent"];
    assert_eq!(answer["result"]["isError"], false, "{answer:#}");
    let ids = ids(ready);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
