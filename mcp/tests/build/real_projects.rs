//! Issue 21: projects shaped like Extension.js's templates build natively as they are — a
//! run-only `extension.config.js`, env files, special folders, module service workers — and
//! what cannot is said once, with the key, file and line that decided it.

use serde_json::Value;

use super::{Project, tree};

fn manifest(p: &Project, browser: &str) -> Value {
    serde_json::from_str(&p.read(&format!("dist/{browser}/manifest.json"))).unwrap()
}

fn findings(run: &super::Run) -> Vec<Value> {
    run.error().1["data"]["findings"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_config_that_only_sets_browser_profiles_builds_natively() {
    let p = Project::fixture("config-profiles");
    let run = p.build(&["--browser", "chrome,firefox"]);
    for browser in ["chrome", "firefox"] {
        let b = run.build_for(browser);
        assert_eq!(b["pipeline"], "native", "{b:#}");
        assert_eq!(b["warnings"], serde_json::json!([]), "{b:#}");
        assert_eq!(
            tree(&p.path().join("dist").join(browser)),
            ["background.js", "manifest.json", "popup.html", "popup.js"]
        );
    }
    // Output paths are the output's: no `./`.
    let chrome = manifest(&p, "chrome");
    assert_eq!(chrome["action"]["default_popup"], "popup.html");
    assert_eq!(chrome["background"]["service_worker"], "background.js");
    assert_eq!(manifest(&p, "firefox")["background"]["scripts"], serde_json::json!(["background.js"]));
}

#[test]
fn a_config_run_value_that_needs_running_is_a_warning_not_a_bundler() {
    let p = Project::fixture("config-profiles");
    p.write(
        "extension.config.js",
        "import path from 'node:path'\nexport default {\n  browser: {\n    chrome: { profile: path.resolve('p') }\n  }\n}\n",
    );
    let run = p.build(&["--browser", "chrome"]);
    let b = run.build_for("chrome");
    assert_eq!(b["pipeline"], "native");
    let w = &b["warnings"][0];
    assert_eq!(w["code"], "MANIFEST_CONFIG_VALUE", "{b:#}");
    assert_eq!(w["path"], "browser.chrome.profile");
    assert_eq!((w["file"].as_str(), w["line"].as_u64()), (Some("extension.config.js"), Some(4)));
}

#[test]
fn a_config_function_delegates_and_says_which_key_decided() {
    let p = Project::fixture("config-function");
    let run = p.build(&["--browser", "chrome"]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED", "{err:#}");
    let f = findings(&run);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["code"], "MANIFEST_BUNDLER_CONFIG");
    assert_eq!(f[0]["path"], "config");
    assert_eq!((f[0]["file"].as_str(), f[0]["line"].as_u64()), (Some("extension.config.mjs"), Some(4)));
    assert!(f[0]["message"].as_str().unwrap().contains("`config` customizes the bundler"), "{f:#?}");
    assert!(f[0]["fix"].as_str().unwrap().contains("npm i -D extension"), "{f:#?}");
}

/// Every file under the output, as text (lossy), for secret scans.
fn all_output(p: &Project) -> Vec<(String, String)> {
    let dist = p.path().join("dist");
    super::tree_all(&dist)
        .into_iter()
        .map(|f| {
            let text = String::from_utf8_lossy(&std::fs::read(dist.join(&f)).unwrap()).into_owned();
            (f, text)
        })
        .collect()
}

const SECRET: &str = "sk-live-never-ship-7f3a9c";

#[test]
fn env_files_are_injected_per_browser_and_mode_and_secrets_never_ship() {
    let p = Project::fixture("env-files");
    let run = p.build(&["--browser", "chrome,firefox,edge"]);
    let source = p.read("background.js");
    for (browser, greeting) in
        [("chrome", "hello-chrome"), ("firefox", "hello-firefox"), ("edge", "wrong-mode")]
    {
        assert_eq!(run.build_for(browser)["pipeline"], "native");
        // Only the accesses change; the rest (the string that looks like one included) is
        // byte-identical.
        let want = source
            .replacen("process.env.EXTENSION_PUBLIC_BROWSER,", &format!("\"{browser}\","), 1)
            .replacen("import.meta.env.EXTENSION_PUBLIC_MODE,", "\"production\",", 1)
            .replacen("process.env['EXTENSION_PUBLIC_GREETING'],", &format!("\"{greeting}\","), 1)
            .replacen("import.meta.env.EXTENSION_PUBLIC_FROM_DEFAULTS,", "\"from-defaults\",", 1);
        assert_eq!(p.read(&format!("dist/{browser}/background.js")), want, "{browser}");
        let content = p.read(&format!("dist/{browser}/content/main.js"));
        assert!(content.contains(&format!("envBrowser = \"{browser}\";")), "{content}");
        assert!(content.contains(&format!("envGreeting = \"{greeting}\";")), "{content}");
    }
    // .env.edge* do not exist: .env.production wins over .env.local, .env, .env.example.
    for (file, text) in all_output(&p) {
        assert!(!text.contains(SECRET), "the secret reached {file}");
        assert!(!file.rsplit('/').next().unwrap().starts_with(".env"), "{file} was copied");
    }
    // The system environment wins over the files.
    let sys = p.build_env(&["--browser", "chrome"], &[("EXTENSION_PUBLIC_GREETING", "from-system")]);
    assert_eq!(sys.builds().len(), 1);
    assert!(p.read("dist/chrome/background.js").contains("\"from-system\""));
}

#[test]
fn a_process_env_reference_left_in_output_fails_with_file_and_line() {
    let p = Project::fixture("env-files");
    p.write(
        "content/main.js",
        "document.documentElement.dataset.b = process.env.EXTENSION_PUBLIC_BROWSER;\n\nconst k = process.env.SECRET_API_KEY;\n",
    );
    let run = p.build(&["--browser", "chrome"]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED", "{err:#}");
    let f = findings(&run);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["code"], "MANIFEST_PROCESS_ENV");
    assert_eq!(f[0]["file"], "content/main.js");
    assert_eq!((f[0]["line"].as_u64(), f[0]["column"].as_u64()), (Some(3), Some(11)));
    assert!(f[0]["message"].as_str().unwrap().contains("process.env.SECRET_API_KEY"), "{f:#?}");
    assert!(!err.to_string().contains(SECRET), "the secret's value is in the error");
    assert!(
        !p.path().join("dist/chrome").exists() || all_output(&p).iter().all(|(_, t)| !t.contains(SECRET))
    );
}

#[test]
fn special_folders_and_links_into_public_resolve_like_extension_js() {
    let p = Project::fixture("special-folders");
    let run = p.build(&["--browser", "chrome,firefox"]);
    for browser in ["chrome", "firefox"] {
        assert_eq!(run.build_for(browser)["pipeline"], "native");
        assert_eq!(
            tree(&p.path().join("dist").join(browser)),
            [
                "background.js",
                "css/file.css",
                "icon.png",
                "manifest.json",
                "pages/main.html",
                "pages/main.js",
                "popup.html",
                "scripts/extra.js",
            ],
            "{browser}"
        );
    }
    let page = p.read("dist/chrome/pages/main.html");
    assert!(page.contains("href=\"/css/file.css\""), "{page}");
    assert_eq!(
        page.replace("href=\"/css/file.css\"", "href=\"../public/css/file.css\""),
        p.read("pages/main.html")
    );
    assert!(p.read("dist/chrome/popup.html").contains("href=\"/css/file.css\""));
    assert_eq!(manifest(&p, "chrome")["action"]["default_popup"], "popup.html");
}

#[test]
fn a_module_service_worker_with_relative_imports_builds_natively() {
    let p = Project::fixture("module-worker");
    let run = p.build(&["--browser", "chrome,firefox"]);
    for browser in ["chrome", "firefox"] {
        assert_eq!(run.build_for(browser)["pipeline"], "native");
        assert_eq!(
            tree(&p.path().join("dist").join(browser)),
            ["bg.js", "lib/util.js", "manifest.json", "shared.js"],
            "{browser}"
        );
        assert_eq!(p.read(&format!("dist/{browser}/lib/util.js")), p.read("lib/util.js"));
        assert!(p.read(&format!("dist/{browser}/bg.js")).contains("if (\"production\" !== 'production')"));
    }
    assert_eq!(
        manifest(&p, "chrome")["background"],
        serde_json::json!({"service_worker": "bg.js", "type": "module"})
    );
    assert_eq!(
        manifest(&p, "firefox")["background"],
        serde_json::json!({"scripts": ["bg.js"], "type": "module"})
    );
}

/// Issue 22: a package import is bundled natively now; a package that is not installed is
/// an error naming the import and saying to install, never a silent broken output.
#[test]
fn a_module_importing_an_uninstalled_package_says_to_install_it() {
    let p = Project::fixture("module-worker");
    p.write("lib/util.js", "import { x } from 'lodash-es';\nexport const greet = (n) => x + n;\n");
    p.write("package.json", r#"{"dependencies": {"lodash-es": "4"}}"#);
    let run = p.build(&["--browser", "chrome"]);
    let f = findings(&run);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["code"], "MANIFEST_UNRESOLVED_IMPORT");
    assert_eq!(
        (f[0]["file"].as_str(), f[0]["line"].as_u64(), f[0]["column"].as_u64()),
        (Some("lib/util.js"), Some(1), Some(19))
    );
    assert!(f[0]["message"].as_str().unwrap().contains("`lodash-es` is not installed"), "{f:#?}");
    assert!(f[0]["fix"].as_str().unwrap().contains("npm install"), "{f:#?}");
}

#[test]
fn one_file_two_manifest_keys_one_finding_and_codes_not_repeated() {
    let p = Project::fixture("module-worker");
    p.write(
        "manifest.json",
        r#"{"manifest_version": 3, "name": "Twice", "version": "1.0.0",
            "background": {"service_worker": "bg.js", "scripts": ["bg.js"]},
            "browser_specific_settings": {"gecko": {"id": "twice@webext-mcp.test"}}}"#,
    );
    p.write("package.json", r#"{"dependencies": {"vue": "1", "svelte": "1", "solid-js": "1"}}"#);
    let run = p.build(&["--browser", "firefox"]);
    let f = findings(&run);
    for (i, a) in f.iter().enumerate() {
        assert!(!f[..i].contains(a), "{a:#} is reported twice: {f:#?}");
    }
    let message = run.error().1["message"].as_str().unwrap().to_owned();
    assert_eq!(message.matches("MANIFEST_FRAMEWORK_DEPENDENCY").count(), 1, "{message}");
    assert!(message.contains("MANIFEST_FRAMEWORK_DEPENDENCY ×3"), "{message}");
    // Nothing is declared to install, so the fix says what to add instead of `npm install`.
    let framework = f.iter().find(|f| f["code"] == "MANIFEST_FRAMEWORK_DEPENDENCY").unwrap();
    let fix = framework["fix"].as_str().unwrap();
    assert!(fix.contains("npm i -D extension") && !fix.contains("npm install"), "{fix}");
}

/// A hostile script (nesting that would overflow the parser's stack) is refused with a
/// finding; the process survives to report it.
#[test]
fn a_script_nested_too_deeply_to_parse_is_a_finding_not_a_crash() {
    let p = Project::fixture("env-files");
    p.write(
        "content/main.js",
        format!("const x = {}0;\nprocess.env.EXTENSION_PUBLIC_BROWSER;\n", "[".repeat(200_000)),
    );
    let run = p.build(&["--browser", "chrome"]);
    let f = findings(&run);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["code"], "MANIFEST_PROCESS_ENV");
    assert!(f[0]["message"].as_str().unwrap().contains("nesting deeper than"), "{f:#?}");
}
