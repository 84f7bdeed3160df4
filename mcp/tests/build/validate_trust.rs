//! `extension_manifest_validate` findings a developer can trust: each false-finding class
//! seen on real extensions, as a small project of the same shape written here, and the
//! finding it must (not) give. The library runs in-process (the function the tool calls).

use serde_json::{Value, json};
use webext_mcp::manifest::{Finding, FindingCode, Severity};
use webext_mcp::validation::Report;

use super::Project;
use super::validate::validate;

fn project(manifest: Value, files: &[(&str, &str)]) -> Project {
    let p = Project::empty();
    p.write("manifest.json", serde_json::to_string_pretty(&manifest).unwrap());
    for (rel, body) in files {
        p.write(rel, body);
    }
    p
}

fn of(r: &Report, code: FindingCode) -> Vec<&Finding> {
    r.errors.iter().chain(&r.warnings).chain(&r.info).filter(|f| f.code == code).collect()
}

fn gecko() -> Value {
    json!({ "gecko": { "id": "t@webext-mcp.test", "data_collection_permissions": { "required": ["none"] } } })
}

#[test]
fn with_no_script_scanned_permission_use_is_one_info_not_a_warning_each() {
    // Scripts that are build outputs not on disk yet: nothing to scan.
    let p = project(
        json!({
            "manifest_version": 3, "name": "Built", "version": "1.0",
            "permissions": ["storage", "alarms", "tabs", "contextMenus"],
            "action": { "default_title": "x" }
        }),
        &[],
    );
    let r = validate(p.path(), &["chrome", "firefox"]);
    assert_eq!(r.scanned.scripts, 0);
    let unused = of(&r, FindingCode::ManifestPermissionUnused);
    assert_eq!(unused.len(), 1, "{unused:#?}");
    assert_eq!(unused[0].severity, Severity::Info);
    for p in ["storage", "alarms", "tabs", "contextMenus"] {
        assert!(unused[0].message.contains(&format!("`{p}`")), "{}", unused[0].message);
    }
    assert!(unused[0].message.contains("could not be checked"), "{}", unused[0].message);
    assert!(r.warnings.iter().all(|f| f.code != FindingCode::ManifestPermissionUnused));
}

#[test]
fn a_permission_a_manifest_key_needs_is_never_unused() {
    let manifest = json!({
        "manifest_version": 3, "name": "Panel", "version": "1.0",
        "background": { "service_worker": "bg.js" },
        "side_panel": { "default_path": "panel.html" },
        "declarative_net_request": { "rule_resources": [{ "id": "r", "enabled": true, "path": "rules.json" }] },
        "permissions": ["sidePanel", "declarativeNetRequest", "storage"]
    });
    let files = [
        ("bg.js", "chrome.storage.local.set({ on: true });\n"),
        ("panel.html", "<!doctype html><p>panel</p>\n"),
        ("rules.json", r#"[{"id":1,"action":{"type":"block"},"condition":{"urlFilter":"ads"}}]"#),
    ];
    let r = validate(project(manifest.clone(), &files).path(), &["chrome"]);
    assert!(of(&r, FindingCode::ManifestPermissionUnused).is_empty(), "{:#?}", r.warnings);
    // The opposite finding still holds: without the permission, the key does nothing.
    let mut without = manifest;
    without["permissions"] = json!(["declarativeNetRequest", "storage"]);
    let r = validate(project(without, &files).path(), &["chrome"]);
    let missing = of(&r, FindingCode::ManifestApiPermissionMissing);
    assert!(missing.iter().any(|f| f.path.as_deref() == Some("side_panel")), "{missing:#?}");
}

#[test]
fn scripts_loaded_every_static_way_are_scanned_and_listed_with_how() {
    let p = project(
        json!({
            "manifest_version": 3, "name": "Loads", "version": "1.0",
            "background": { "service_worker": "bg.js" },
            "action": { "default_popup": "popup.html" },
            "content_scripts": [{ "matches": ["https://example.com/*"], "js": ["cs.js"] }],
            "permissions": ["alarms", "storage", "scripting", "bookmarks", "notifications", "history"],
            "host_permissions": ["https://example.com/*"]
        }),
        &[
            (
                "bg.js",
                "importScripts('lib/timer.js');\n\
                 chrome.action.onClicked.addListener((tab) =>\n\
                   chrome.scripting.executeScript({ target: { tabId: tab.id }, files: ['inject/page.js'] }));\n",
            ),
            ("lib/timer.js", "chrome.alarms.create('tick', { periodInMinutes: 1 });\n"),
            ("inject/page.js", "chrome.storage.local.get('k');\n"),
            (
                "cs.js",
                "chrome.runtime.sendMessage({ n: chrome.history ? 1 : 0 });\nchrome.history.search({ text: '' });\n",
            ),
            ("popup.html", "<!doctype html><script src=\"popup.js\"></script>\n"),
            ("popup.js", "import('./lazy.js').then((m) => m.run());\n"),
            ("lazy.js", "export function run() { chrome.bookmarks.getTree(); import('./note.js'); }\n"),
            (
                "note.js",
                "chrome.notifications.create({ type: 'basic', title: 't', message: 'm', iconUrl: 'i.png' });\n",
            ),
        ],
    );
    let r = validate(p.path(), &["chrome"]);
    assert!(of(&r, FindingCode::ManifestPermissionUnused).is_empty(), "{:#?}", r.warnings);
    let via: Vec<(&str, &str)> = r.scanned.files.iter().map(|f| (f.file.as_str(), f.via.as_str())).collect();
    for expected in [
        ("bg.js", "manifest background.service_worker"),
        ("lib/timer.js", "importScripts in bg.js"),
        ("inject/page.js", "scripting.executeScript in bg.js"),
        ("cs.js", "manifest content_scripts[0].js[0]"),
        ("popup.js", "<script src> in popup.html"),
        ("lazy.js", "import in popup.js"),
        ("note.js", "import in lazy.js"),
    ] {
        assert!(via.contains(&expected), "{expected:?} not in {via:#?}");
    }
    assert_eq!(r.scanned.scripts, 7);
}

#[test]
fn reviewed_overrides_correct_the_compat_data() {
    let p = project(
        json!({
            "manifest_version": 3, "name": "Overrides", "version": "1.0",
            "minimum_chrome_version": "88",
            "background": { "service_worker": "bg.js", "scripts": ["bg.js"] },
            "permissions": ["search", "offscreen", "webRequest", "webRequestBlocking"],
            "firefox:optional_permissions": ["userScripts"],
            "host_permissions": ["https://example.com/*"],
            "browser_specific_settings": {
                "gecko": { "id": "o@webext-mcp.test", "strict_min_version": "136.0",
                           "data_collection_permissions": { "required": ["none"] } },
                "gecko_android": {}
            }
        }),
        &[(
            "bg.js",
            "chrome.search.query({ text: 'x' });\n\
             if (chrome.offscreen) chrome.offscreen.createDocument({ url: 'o.html', reasons: ['DOM_PARSER'], justification: 'j' });\n\
             chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['https://example.com/*'] }, ['blocking']);\n\
             chrome.userScripts?.register([]);\n",
        )],
    );
    let r = validate(p.path(), &["chrome", "firefox"]);
    let unsupported: Vec<&Finding> =
        r.warnings.iter().filter(|f| f.code == FindingCode::ManifestPermissionUnsupported).collect();
    // Only the real one: webRequestBlocking in an MV3 Chrome manifest (policy installs only).
    assert_eq!(unsupported.len(), 1, "{unsupported:#?}");
    assert!(
        unsupported[0].message.contains("webRequestBlocking") && unsupported[0].message.contains("policy")
    );
    assert_eq!(unsupported[0].browsers, ["chrome"]);
    let chrome = &r.browser_support["chrome"];
    assert_eq!(chrome.min_version.as_deref(), Some("109"), "{chrome:?}");
    assert_eq!(chrome.min_version_from.as_deref(), Some("the offscreen permission"));
    let min = of(&r, FindingCode::ManifestMinVersion);
    assert!(min.iter().any(|f| f.message.contains("offscreen") && f.message.contains("109")), "{min:#?}");
    assert!(
        r.warnings.iter().all(|f| !f.message.contains("gecko_android")),
        "gecko_android is Firefox for Android's key: {:#?}",
        r.warnings
    );
}

#[test]
fn api_scan_counts_only_real_chrome_bindings_and_feature_tests_stay_info() {
    let p = project(
        json!({
            "manifest_version": 3, "name": "Detects", "version": "1.0",
            "background": { "scripts": ["bg.js"] },
            "permissions": ["storage"],
            "browser_specific_settings": {
                "gecko": { "id": "d@webext-mcp.test", "strict_min_version": "140.0",
                           "data_collection_permissions": { "required": ["none"] } }
            }
        }),
        &[(
            "bg.js",
            // Minified-style code: short names that are not the extension API.
            "!function(e){var chrome=e.list;chrome.find(function(t){return t});function n(browser){return browser.findLast(Boolean)}n(e.rest)}(self);\n\
             if (browser.storage.local.getKeys) { browser.storage.local.getKeys().then(console.log); }\n\
             chrome.sidePanel?.open({});\n\
             browser.storage.local.get('k');\n",
        )],
    );
    let r = validate(p.path(), &["firefox"]);
    assert!(!r.scanned.apis.iter().any(|a| a.starts_with("find")), "{:?}", r.scanned.apis);
    assert!(r.warnings.iter().all(|f| f.code != FindingCode::ManifestApiUnsupported), "{:#?}", r.warnings);
    let min = of(&r, FindingCode::ManifestMinVersion);
    assert!(min.is_empty(), "guarded getKeys raised the minimum: {min:#?}");
    let info = of(&r, FindingCode::ManifestApiUnsupported);
    assert!(info.iter().all(|f| f.severity == Severity::Info) && !info.is_empty(), "{info:#?}");
    assert!(info.iter().any(|f| f.message.contains("sidePanel")), "{info:#?}");
}

#[test]
fn a_comment_after_a_value_is_accepted_and_block_comments_are_not() {
    let text = "{\n  \"manifest_version\": 3, // MV3\n  \"name\": \"C\",\n  \"version\": \"1.0\"\n}\n";
    let p = Project::empty();
    p.write("manifest.json", text);
    let r = validate(p.path(), &["firefox"]);
    assert!(of(&r, FindingCode::ManifestJsonLenient).is_empty(), "{:#?}", r.warnings);
    p.write("manifest.json", text.replace("// MV3", "/* MV3 */"));
    let r = validate(p.path(), &["firefox"]);
    assert_eq!(of(&r, FindingCode::ManifestJsonLenient).len(), 1);
}

#[test]
fn other_browsers_keys_are_one_info_per_browser_and_findings_are_ranked() {
    let p = project(
        json!({
            "manifest_version": 3, "name": "Shared", "version": "1.0", "version_name": "1.0 beta",
            "background": { "service_worker": "bg.js", "scripts": ["bg.js"] },
            "options_ui": { "page": "options.html", "browser_style": false },
            "side_panel": { "default_path": "options.html" },
            "sidebar_action": { "default_panel": "options.html" },
            "permissions": ["storage", "sidePanel", "menus"],
            "browser_specific_settings": gecko()
        }),
        &[
            (
                "bg.js",
                "chrome.storage.local.get('k'); (globalThis.browser ?? chrome).menus?.create({ id: 'x', title: 'x' });\n",
            ),
            ("options.html", "<!doctype html><p>o</p>\n"),
        ],
    );
    let r = validate(p.path(), &["chrome", "firefox"]);
    let foreign: Vec<&Finding> =
        r.info.iter().filter(|f| f.code == FindingCode::ManifestKeyUnsupported).collect();
    assert_eq!(foreign.len(), 2, "{foreign:#?}");
    let chrome = foreign.iter().find(|f| f.browsers == ["chrome"]).expect("one for chrome");
    for k in ["browser_specific_settings", "sidebar_action", "options_ui.browser_style", "menus"] {
        assert!(chrome.message.contains(k), "{k}: {}", chrome.message);
    }
    let firefox = foreign.iter().find(|f| f.browsers == ["firefox"]).expect("one for firefox");
    for k in ["side_panel", "background.service_worker", "sidePanel", "version_name"] {
        assert!(firefox.message.contains(k), "{k}: {}", firefox.message);
    }
    assert!(
        r.warnings.iter().all(|f| !matches!(
            f.code,
            FindingCode::ManifestKeyUnsupported | FindingCode::ManifestPermissionUnsupported
        )),
        "{:#?}",
        r.warnings
    );
    let text = webext_mcp::tools::build::validate::validate_text(&r);
    let first_info = text.find("\ninfo ").expect("info lines");
    assert!(text.rfind("\nwarning ").is_none_or(|w| w < first_info), "{text}");
}

#[test]
fn a_sandboxed_page_may_have_inline_scripts() {
    let manifest = json!({
        "manifest_version": 3, "name": "Sandbox", "version": "1.0",
        "sandbox": { "pages": ["sandbox.html"] },
        "action": { "default_popup": "popup.html" }
    });
    let page = "<!doctype html><script>window.parent.postMessage(1, '*')</script><button onclick=\"go()\">go</button>\n";
    let r = validate(
        project(manifest, &[("sandbox.html", page), ("popup.html", "<p>ok</p>")]).path(),
        &["chrome"],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert!(of(&r, FindingCode::ManifestUnsafeHtml).is_empty(), "{:#?}", r.warnings);
    // The same markup in an ordinary extension page is refused.
    let manifest = json!({
        "manifest_version": 3, "name": "Popup", "version": "1.0",
        "action": { "default_popup": "popup.html" }
    });
    let r = validate(project(manifest, &[("popup.html", page)]).path(), &["chrome"]);
    assert!(of(&r, FindingCode::ManifestCspRemoteScript).len() == 1, "{:#?}", r.errors);
}

#[test]
fn an_icon_larger_than_its_key_is_info_and_a_smaller_one_a_warning() {
    let icon = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/starter/src/icons/icon-48.png"),
    )
    .unwrap();
    let p = Project::empty();
    p.write("i.png", &icon);
    p.write(
        "manifest.json",
        serde_json::to_string(&json!({
            "manifest_version": 3, "name": "Icons", "version": "1.0",
            "icons": { "16": "i.png", "32": "i.png", "128": "i.png" }
        }))
        .unwrap(),
    );
    let r = validate(p.path(), &["chrome"]);
    let sizes = of(&r, FindingCode::ManifestIconSize);
    let info: Vec<&str> =
        sizes.iter().filter(|f| f.severity == Severity::Info).filter_map(|f| f.path.as_deref()).collect();
    let warn: Vec<&str> =
        sizes.iter().filter(|f| f.severity == Severity::Warning).filter_map(|f| f.path.as_deref()).collect();
    assert_eq!(info, ["icons.16", "icons.32"], "{sizes:#?}");
    assert_eq!(warn, ["icons.128"], "{sizes:#?}");
}
