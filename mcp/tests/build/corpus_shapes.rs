//! Shapes of Extension.js's example corpus that build natively: `_locales/` next to
//! `package.json` with the manifest in `src/`, and MV3-shaped keys in a Firefox MV2 build
//! (converted as Extension.js converts them, and said so). The fixture loads in both browsers
//! in `tests/e2e/build_load.rs`.

use serde_json::{Value, json};

use super::{Project, tree};

fn manifest(p: &Project, browser: &str) -> Value {
    serde_json::from_str(&p.read(&format!("dist/{browser}/manifest.json"))).unwrap()
}

#[test]
fn locales_at_the_project_root_are_found_and_copied() {
    let p = Project::fixture("mv2-root-locales");
    let run = p.build(&["--browser", "chrome,firefox"]);
    for browser in ["chrome", "firefox"] {
        let b = run.build_for(browser);
        assert_eq!(b["pipeline"], "native", "{b:#}");
        let files = tree(&p.path().join("dist").join(browser));
        for f in ["_locales/en/messages.json", "_locales/de/messages.json", "background.js", "res/note.txt"] {
            assert!(files.contains(&f.to_owned()), "{browser}: {f} not in {files:?}");
        }
    }
}

#[test]
fn validate_reads_locales_at_the_project_root() {
    let p = Project::fixture("mv2-root-locales");
    let r = super::validate::validate(p.path(), &["chrome", "firefox"]);
    let codes: Vec<&str> = r.errors.iter().chain(&r.warnings).map(|f| f.code.as_str()).collect();
    for code in ["MANIFEST_LOCALE_MISSING", "MANIFEST_MESSAGE_MISSING", "MANIFEST_NO_DEFAULT_LOCALE"] {
        assert!(!codes.contains(&code), "{code} in {codes:?}");
    }
}

#[test]
fn a_firefox_mv2_build_converts_mv3_shaped_keys_and_says_so() {
    let p = Project::fixture("mv2-root-locales");
    let run = p.build(&["--browser", "chrome,firefox"]);
    let firefox = manifest(&p, "firefox");
    assert_eq!(firefox["manifest_version"], 2);
    assert_eq!(firefox["permissions"], json!(["storage", "https://example.test/*"]));
    assert!(firefox.get("host_permissions").is_none(), "{firefox:#}");
    assert_eq!(firefox["content_security_policy"], "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'");
    assert_eq!(firefox["web_accessible_resources"], json!(["res/note.txt"]));
    let warnings = run.build_for("firefox")["warnings"].as_array().unwrap().clone();
    let converted: Vec<&Value> =
        warnings.iter().filter(|w| w["code"] == "MANIFEST_CONVERTED_FOR_MV2").collect();
    let paths: Vec<&str> = converted.iter().map(|w| w["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        ["permissions", "content_security_policy", "web_accessible_resources"],
        "{warnings:#?}"
    );
    assert!(converted[1]["message"].as_str().unwrap().contains("'wasm-unsafe-eval'"), "{converted:#?}");
    // Chrome's MV3 build keeps the MV3 shapes and converts nothing.
    let chrome = manifest(&p, "chrome");
    assert_eq!(chrome["host_permissions"], json!(["https://example.test/*"]));
    assert_eq!(chrome["content_security_policy"]["extension_pages"], firefox["content_security_policy"]);
    let chrome_warnings = run.build_for("chrome")["warnings"].to_string();
    assert!(!chrome_warnings.contains("MANIFEST_CONVERTED_FOR_MV2"), "{chrome_warnings}");
}

/// Extension.js's templates pass CI-only browser flags through a condition on
/// `process.env.CI`: a value only running the config could tell, reported once per build
/// and only for the browser built.
#[test]
fn dev_only_ci_flags_in_the_config_warn_once_and_only_for_the_browser_built() {
    let p = Project::fixture("config-profiles");
    p.write(
        "extension.config.js",
        "const profile = (name) => `./dist/profile-${name}`\nconst ciFlags = process.env.CI ? ['--no-sandbox', '--disable-gpu'] : []\n\nexport default {\n  browser: {\n    chrome: {profile: profile('chrome'), browserFlags: ciFlags},\n    chromium: {profile: profile('chromium'), browserFlags: ciFlags},\n    edge: {profile: profile('edge'), browserFlags: ciFlags},\n    firefox: {profile: profile('firefox')},\n    'chromium-based': {profile: profile('chromium-based'), browserFlags: ciFlags},\n    'gecko-based': {profile: profile('gecko-based')}\n  }\n}\n",
    );
    let run = p.build(&["--browser", "chrome,firefox"]);
    let config_warnings = |browser: &str| -> Vec<Value> {
        run.build_for(browser)["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == "MANIFEST_CONFIG_VALUE")
            .cloned()
            .collect()
    };
    let chrome = config_warnings("chrome");
    assert_eq!(chrome.len(), 1, "{chrome:#?}");
    let message = chrome[0]["message"].as_str().unwrap();
    assert!(
        message.contains("browser.chrome.browserFlags")
            && message.contains("browser.chromium-based.browserFlags")
            && !message.contains("browser.edge"),
        "{message}"
    );
    assert_eq!(config_warnings("firefox"), Vec::<Value>::new());
}

#[test]
fn a_native_build_reports_the_time_it_took() {
    let p = Project::fixture("popup-background");
    let run = p.build(&["--browser", "chrome"]);
    let ms = run.build_for("chrome")["durationMs"].as_u64().unwrap();
    assert!(ms >= 1, "durationMs {ms}");
}

/// Minified packages and careful code check for `process` first; such a use never runs in a
/// browser, so it is left as it is and does not stop the build.
#[test]
fn a_guarded_process_env_use_is_not_a_leftover() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Guarded","version":"1.0.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}"#,
    )
    .write(
        "content.js",
        "const debug = typeof process < \"u\" && process.env.DEBUG_LEVEL;\nconst mode = typeof process !== 'undefined' ? process.env.MODE : 'browser';\nconsole.log(debug, mode);\n",
    );
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native");
    assert!(p.read("dist/chrome/content.js").contains("process.env.DEBUG_LEVEL"));
}
