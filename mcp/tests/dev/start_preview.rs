//! `extension_start` builds for production and runs it; `extension_preview` runs an existing
//! `dist/chromium/` (or, with none, the build of another Chromium-family browser).

use std::time::Duration;

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(start_waits_for_a_production_build_and_preview_loads_dist, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "production");
    let site = pages();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();

    let args = json!({"projectPath": project, "browser": browser, "headless": true, "wait": true,
                      "waitTimeout": 50000, "polyfill": true, "startingUrl": site.url("/")});
    let started = ok(&server.call("extension_start", args), "extension_start");
    assert_eq!(started["status"], "ready", "{started:#}");
    assert_eq!(started["command"], "start");
    assert!(started["sessionId"].as_str().unwrap().starts_with("start-"), "{started:#}");
    // A production build: nothing of the dev build in it.
    let built = std::fs::read_to_string(project.join(format!("dist/{browser}/manifest.json"))).unwrap();
    assert!(!built.contains("webext-mcp-dev-worker") && !built.contains("scripting"), "{built}");
    assert!(!built.contains("@webext-mcp.local"), "a production build carries no dev gecko id: {built}");
    let content = std::fs::read_to_string(project.join(format!("dist/{browser}/content.js"))).unwrap();
    assert!(!content.starts_with('{'), "{content}");
    wait_root(&project, "127.0.0.1", "production");
    let ids1 = ids(&started);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "stop start");
    assert_all_gone(&project, ids1.pid, ids1.browser_pid, &ids1.profile, Duration::from_secs(10));

    let args =
        json!({"projectPath": project, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let previewed = ok(&server.call("extension_preview", args), "extension_preview");
    assert_eq!(previewed["status"], "ready", "{previewed:#}");
    assert_eq!(previewed["command"], "preview");
    assert!(previewed["sessionId"].as_str().unwrap().starts_with("preview-"), "{previewed:#}");
    assert_eq!(previewed["extensionId"], started["extensionId"]);
    wait_root(&project, "127.0.0.1", "production");
    let ids2 = ids(&previewed);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "stop preview");
    assert_all_gone(&project, ids2.pid, ids2.browser_pid, &ids2.profile, Duration::from_secs(10));
    // Stopped: the message names the browser the project ran in, not a default.
    let again = server.call("extension_stop", json!({"projectPath": project}));
    assert_eq!(err_code(&again, "stop a stopped session"), "NOT_FOUND");
    let message = again["structuredContent"]["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("no {browser} session is running")), "{message}");

    // Preview of a project never built for that browser.
    let fresh = home.path().join("fresh");
    write_project(&fresh, "x");
    let r =
        server.call("extension_preview", json!({"projectPath": fresh, "browser": browser, "headless": true}));
    assert_eq!(err_code(&r, "preview without dist"), "NOT_FOUND");
    let hint = r["structuredContent"]["error"]["hint"].as_str().unwrap_or_default().to_owned();
    assert!(hint.contains(&format!("--browser {browser}")), "{hint}");
    if browser != "chromium" {
        return;
    }

    // Issue 19: `npm run build` builds dist/chrome; a preview in Chromium runs that build of
    // the same engine, and says so.
    ok(&server.call("extension_build", json!({"projectPath": fresh, "browser": "chrome"})), "build chrome");
    let args =
        json!({"projectPath": fresh, "browser": "chromium", "headless": true, "startingUrl": site.url("/")});
    let r = server.call("extension_preview", args);
    let previewed = ok(&r, "preview of dist/chrome");
    assert_eq!(previewed["distPath"], json!(fresh.join("dist/chrome")), "{previewed:#}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("no dist/chromium/ build") && text.contains("dist/chrome"), "{text}");
    wait_root(&fresh, "127.0.0.1", "x");
    let ids3 = ids(&previewed);
    ok(&server.call("extension_stop", json!({"projectPath": fresh})), "stop the substituted preview");
    assert_all_gone(&fresh, ids3.pid, ids3.browser_pid, &ids3.profile, Duration::from_secs(10));

    // Stopping where nothing ever ran names no browser the caller did not choose.
    let never = home.path().join("never");
    write_project(&never, "x");
    let r = server.call("extension_stop", json!({"projectPath": never}));
    assert_eq!(err_code(&r, "stop where nothing ran"), "NOT_FOUND");
    let message = r["structuredContent"]["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("no session is running for "), "{message}");
}

/// Issue 21: the project's `extension.config.*` run keys reach the browser the session
/// starts — flags on its command line, after ours — and the ones that would open a debugging
/// port every local user can reach are refused and said so, never passed.
#[test]
fn config_flags_reach_the_browser_and_a_debugging_port_is_refused() {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    write_project(&project, "flags");
    let site = pages();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    std::fs::write(
        project.join("extension.config.mjs"),
        format!(
            "export default {{\n  browser: {{\n    chromium: {{ browserFlags: ['--lang=de-DE', '--remote-debugging-port={port}'], startingUrl: '{}' }}\n  }}\n}}\n",
            site.url("/")
        ),
    )
    .unwrap();
    let mut server = Server::start(home.path(), &[]);
    server.initialize();
    let args = json!({"projectPath": project, "browser": "chromium", "headless": true, "wait": true, "waitTimeout": 50000});
    let r = server.call("extension_start", args);
    let started = ok(&r, "extension_start");
    assert_eq!(started["status"], "ready", "{started:#}");
    let cfg = &started["runConfig"];
    assert_eq!(cfg["file"], "extension.config.mjs", "{started:#}");
    assert_eq!(cfg["browserFlags"], json!(["--lang=de-DE"]), "{cfg:#}");
    assert_eq!(cfg["refused"][0]["value"], format!("--remote-debugging-port={port}"), "{cfg:#}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("not applied from extension.config.mjs") && text.contains("debugging port"),
        "{text}"
    );
    // The browser's own command line says what it got; the starting URL came from the config.
    let browser_pid = started["browserPid"].as_u64().unwrap();
    let cmdline = std::fs::read(format!("/proc/{browser_pid}/cmdline")).unwrap();
    let args: Vec<String> =
        cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    assert!(args.contains(&"--lang=de-DE".to_owned()), "{args:?}");
    assert!(!args.iter().any(|a| a.starts_with("--remote-debugging-port")), "{args:?}");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "nothing listens on {port}");
    wait_root(&project, "127.0.0.1", "flags");
    let ids = ids(&started);
    ok(&server.call("extension_stop", json!({"projectPath": project})), "stop");
    assert_all_gone(&project, ids.pid, ids.browser_pid, &ids.profile, Duration::from_secs(10));
}
