//! Issue 44 item 4 in dev sessions: a session whose build needs the project's own toolchain
//! reports `PROJECT_SCRIPTS_NOT_ALLOWED` (what would run, how to allow it) and runs nothing;
//! allowed by the user's flag, the same session builds and runs, in Chromium and Firefox.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::*;

fn session_call(home: &Path, flags: &[&str], tool: &str, args: Value) -> (i32, Value) {
    let mut cmd = crate::common::mcp_client::command(home);
    cmd.args(flags).args(["call", tool, &args.to_string(), "--json"]).stdin(std::process::Stdio::null());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{tool}: no JSON ({e}): {stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

/// A Less project whose build script leaves a marker and writes a loadable extension.
fn less_project(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = r#"{"manifest_version":3,"name":"Less dev","version":"0.1.0","browser_specific_settings":{"gecko":{"id":"less-dev@example.com"}},"content_scripts":[{"matches":["http://127.0.0.1/*"],"js":["content.js"],"css":["style.less"]}]}"#;
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    std::fs::write(dir.join("content.js"), "console.log(1);\n").unwrap();
    std::fs::write(dir.join("style.less"), "@c: red;\nbody { color: @c }\n").unwrap();
    std::fs::write(
        dir.join("package.json"),
        r#"{"name":"less-dev","private":true,"scripts":{"build":"sh ./build.sh"}}"#,
    )
    .unwrap();
    let built = manifest.replace(r#","css":["style.less"]"#, "");
    let script = format!(
        "#!/bin/sh\nset -e\ntouch ran.marker\nout=dist/$WEBEXT_MCP_BROWSER\nmkdir -p $out\nprintf '%s' '{built}' > $out/manifest.json\necho 'console.log(1);' > $out/content.js\n"
    );
    std::fs::write(dir.join("build.sh"), script).unwrap();
    std::fs::set_permissions(dir.join("build.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_dev_session_runs_the_projects_build_script_only_once_the_user_allows_it() {
    let _slot = browser_slot();
    for browser in ["chromium", "firefox"] {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("less");
        less_project(&project);
        let args = json!({"projectPath": project, "browser": browser, "headless": true, "detach": true});
        let (c, v) = session_call(home.path(), &[], "extension_dev", args.clone());
        assert_eq!(c, 0, "{browser}: {v}");
        assert_eq!(v["status"], "error", "{browser}: {v:#}");
        let detail = &v["errorDetails"][0];
        assert_eq!(detail["code"], "PROJECT_SCRIPTS_NOT_ALLOWED", "{browser}: {v:#}");
        let message = detail["message"].as_str().unwrap();
        assert!(
            message.contains("sh ./build.sh") && message.contains("--allow-project-scripts"),
            "{message}"
        );
        assert!(!project.join("ran.marker").exists(), "{browser}: the script ran");
        let (c, v) = session_call(home.path(), &[], "extension_stop", json!({"projectPath": project}));
        assert_eq!(c, 0, "{browser}: stop: {v}");

        let (c, v) = session_call(home.path(), &["--allow-project-scripts"], "extension_dev", args);
        assert_eq!(c, 0, "{browser}: {v}");
        assert_eq!(v["status"], "ready", "{browser}: {v:#}");
        assert!(project.join("ran.marker").exists(), "{browser}");
        let (c, v) = session_call(home.path(), &[], "extension_stop", json!({"projectPath": project}));
        assert_eq!(c, 0, "{browser}: stop: {v}");
    }
}
