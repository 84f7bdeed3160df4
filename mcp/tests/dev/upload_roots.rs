//! The upload roots are the user's: a dev session the agent starts cannot widen them.
//! `extension_build {outDir: "~/dist"}` then `extension_preview {projectPath: "~"}` made the
//! home folder a session project, so `upload_file` sent `~/Documents/tax-return.pdf` and the
//! session profile's cookies to the page.

use serde_json::json;

use crate::common::mcp_client::Server;
use crate::in_both_browsers;
use crate::support::*;

in_both_browsers!(a_preview_of_the_home_folder_does_not_make_it_an_upload_root, run);

fn run(browser: &str) {
    let _slot = browser_slot();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write_project(&h.join("proj"), "x");
    std::fs::create_dir_all(h.join("Documents")).unwrap();
    std::fs::write(h.join("Documents/tax-return.pdf"), b"%PDF-1.7 secret").unwrap();
    let site = pages();
    let mut server = Server::start(h, &[]);
    server.initialize();

    let built = server.call(
        "extension_build",
        json!({"projectPath": h.join("proj"), "browser": browser, "outDir": h.join("dist")}),
    );
    ok(&built, "build into ~/dist");
    let args = json!({"projectPath": h, "browser": browser, "headless": true, "startingUrl": site.url("/")});
    let previewed = ok(&server.call("extension_preview", args), "preview of ~");
    let session = previewed["sessionId"].as_str().unwrap().to_owned();
    let profile = ids(&previewed).profile;
    assert!(profile.starts_with(h), "{previewed:#}");

    let (cookies, prefs) = if browser == "firefox" {
        (profile.join("cookies.sqlite"), profile.join("prefs.js"))
    } else {
        (profile.join("Default/Cookies"), profile.join("Local State"))
    };
    // Existing files: a missing one is refused by its name alone, with the roots' message.
    wait_for(h, "the profile's files", || (cookies.is_file() && prefs.is_file()).then_some(()));
    for (path, why) in [
        (h.join("Documents/tax-return.pdf"), "outside the allowed upload roots"),
        (cookies, "secrets or browser data"),
        (prefs, "secrets or browser data"),
    ] {
        let r = server.call(
            "upload_file",
            json!({"browser": session, "locator": "input[type=file]", "paths": [path], "timeoutMs": 2000}),
        );
        assert_eq!(err_code(&r, &path.display().to_string()), "PERMISSION_DENIED", "{r:#}");
        let error = &r["structuredContent"]["error"];
        assert!(error["message"].as_str().unwrap().contains(why), "{}: {error:#}", path.display());
    }
    let r = server.call(
        "upload_file",
        json!({"browser": session, "locator": "input", "paths": [h.join("Documents/tax-return.pdf")]}),
    );
    let not_roots = r["structuredContent"]["error"]["data"]["notRoots"].to_string();
    assert!(not_roots.contains("home folder"), "the refusal says why the project is no root: {r:#}");

    let ids = ids(&previewed);
    ok(&server.call("extension_stop", json!({"projectPath": h})), "stop");
    assert_all_gone(h, ids.pid, ids.browser_pid, &ids.profile, std::time::Duration::from_secs(10));
}
