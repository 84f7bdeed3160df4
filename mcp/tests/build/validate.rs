//! `extension_manifest_validate`: one table row per rule (a manifest that triggers the code,
//! and one baseline that triggers nothing), golden results for the embedded templates,
//! real-world fixtures, hostile input, and the CLI twin's exit codes. The table runs the
//! library in-process (the same function the tool calls); the CLI rows run the binary.

use std::path::Path;

use serde_json::{Value, json};
use webext_mcp::manifest::{FindingCode, Target};
use webext_mcp::validation::{self, Report, Request};

use super::{Project, bin, fixtures};

fn targets(names: &[&str]) -> Vec<Target> {
    names.iter().map(|n| Target::named(n).unwrap()).collect()
}

pub fn validate(dir: &Path, browsers: &[&str]) -> Report {
    let req =
        Request { project: dir.to_path_buf(), manifest: None, targets: targets(browsers), scan_code: true };
    validation::validate(&req).unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()))
}

fn all_codes(r: &Report) -> Vec<&'static str> {
    r.errors.iter().chain(&r.warnings).map(|f| f.code.as_str()).collect()
}

const BASELINE: &str = r#"{
  "manifest_version": 3,
  "name": "Table",
  "version": "1.0",
  "background": { "service_worker": "bg.js" },
  "firefox:browser_specific_settings": {
    "gecko": { "id": "table@webext-mcp.test", "data_collection_permissions": { "required": ["none"] } }
  }
}"#;

const BG: &str = "chrome.runtime.onInstalled.addListener(() => {});\n";

/// One rule's row: top-level keys replaced (`null` removes), or the whole manifest text;
/// extra files; the code it must produce.
struct Row {
    code: &'static str,
    patch: Value,
    text: Option<String>,
    files: Vec<(&'static str, Vec<u8>)>,
}

fn row(code: &'static str, patch: Value) -> Row {
    Row { code, patch, text: None, files: Vec::new() }
}

impl Row {
    fn file(mut self, rel: &'static str, body: impl Into<Vec<u8>>) -> Row {
        self.files.push((rel, body.into()));
        self
    }
    fn text(mut self, t: impl Into<String>) -> Row {
        self.text = Some(t.into());
        self
    }
}

fn icon16() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/starter/src/icons/icon-16.png"))
        .unwrap()
}

fn project_for(r: &Row) -> Project {
    let p = Project::empty();
    let text = match &r.text {
        Some(t) => t.clone(),
        None => {
            let mut m: Value = serde_json::from_str(&BASELINE.replace("\n", "")).unwrap();
            for (k, v) in r.patch.as_object().unwrap() {
                if v.is_null() {
                    m.as_object_mut().unwrap().remove(k);
                } else {
                    m[k] = v.clone();
                }
            }
            serde_json::to_string_pretty(&m).unwrap()
        }
    };
    p.write("manifest.json", text);
    p.write("bg.js", BG);
    for (rel, body) in &r.files {
        p.write(rel, body);
    }
    p
}

fn rows() -> Vec<Row> {
    let cs = |m: Value| json!([{ "matches": m, "js": ["c.js"] }]);
    vec![
        row("MANIFEST_JSON", json!({})).text("{\n  \"name\": \"x\",\n  \"version\" \"1\"\n}"),
        row("MANIFEST_TOO_LARGE", json!({}))
            .text(format!("{{\"name\": \"{}\"}}", "x".repeat(10 * 1024 * 1024))),
        row("MANIFEST_SHAPE", json!({"permissions": "storage"})),
        row("MANIFEST_MISSING_FIELD", json!({"version": null})),
        row("MANIFEST_UNKNOWN_KEY", json!({"permisions": ["storage"]})),
        row("MANIFEST_UNKNOWN_PREFIX", json!({"safarii:name": "x"})),
        row("MANIFEST_DUPLICATE_KEY", json!({})).text(BASELINE.replacen(
            "\"name\": \"Table\",",
            "\"name\": \"Table\",\n  \"name\": \"Again\",",
            1,
        )),
        row("MANIFEST_JSON_LENIENT", json!({})).text(BASELINE.replacen(
            "\"version\": \"1.0\",",
            "\"version\": \"1.0\", /* why */",
            1,
        )),
        row("MANIFEST_VERSION_INVALID", json!({"version": "1.02"})),
        row("MANIFEST_VERSION_UNSUPPORTED", json!({"manifest_version": 4})),
        row("MANIFEST_KEY_WRONG_VERSION", json!({"browser_action": {"default_title": "x"}})),
        row("MANIFEST_MATCH_PATTERN", json!({"content_scripts": cs(json!(["https://*example.com/*"]))}))
            .file("c.js", "1;"),
        row("MANIFEST_HOST_IN_PERMISSIONS", json!({"permissions": ["https://example.com/*"]})),
        row("MANIFEST_BAD_PERMISSION", json!({"permissions": ["storrage"]})),
        row(
            "MANIFEST_CSP_UNSAFE_EVAL",
            json!({"content_security_policy": {"extension_pages": "script-src 'self' 'unsafe-eval'"}}),
        ),
        row(
            "MANIFEST_CSP_REMOTE_SCRIPT",
            json!({"content_security_policy": {"extension_pages": "script-src 'self' https://cdn.example.com"}}),
        ),
        row("MANIFEST_CSP_REMOTE_SCRIPT", json!({"action": {"default_popup": "p.html"}}))
            .file("p.html", "<html><body><script>alert(1)</script></body></html>"),
        row("MANIFEST_WEB_ACCESSIBLE_RESOURCES", json!({"web_accessible_resources": ["a.png"]}))
            .file("a.png", icon16()),
        row("MANIFEST_COMMANDS", json!({"commands": {"go": {"suggested_key": {"default": "Shift+Y"}}}})),
        row("MANIFEST_ICON_SIZE", json!({"icons": {"48": "i.png"}})).file("i.png", icon16()),
        row("MANIFEST_NO_DEFAULT_LOCALE", json!({})).file("_locales/en/messages.json", "{}"),
        row("MANIFEST_LOCALE_MISSING", json!({"default_locale": "en"})),
        row("MANIFEST_MESSAGE_MISSING", json!({"default_locale": "en", "name": "__MSG_nope__"}))
            .file("_locales/en/messages.json", "{}"),
        row("MANIFEST_PLACEHOLDER", json!({"default_locale": "en"}))
            .file("_locales/en/messages.json", r#"{"hi": {"message": "Hi $USER$"}}"#),
        // A key no browser supports yet (another browser's key is an info: validate_trust.rs).
        row("MANIFEST_KEY_UNSUPPORTED", json!({"icon_variants": [{"any": "bg.js"}]})),
        row("MANIFEST_PERMISSION_UNSUPPORTED", json!({"permissions": ["webRequest", "webRequestBlocking"]})),
        row(
            "MANIFEST_MIN_VERSION",
            json!({
                "content_scripts": [{"matches": ["https://example.com/*"], "js": ["c.js"], "world": "MAIN"}],
                "firefox:browser_specific_settings": {"gecko": {"id": "t@x", "strict_min_version": "115.0"}}
            }),
        )
        .file("c.js", "1;"),
        row("MANIFEST_GECKO_ID_MISSING", json!({"firefox:browser_specific_settings": null})),
        row(
            "MANIFEST_DATA_COLLECTION_MISSING",
            json!({"firefox:browser_specific_settings": {"gecko": {"id": "t@x"}}}),
        ),
        row("MANIFEST_FILE_KIND", json!({"action": {"default_popup": "popup.png"}}))
            .file("popup.png", icon16()),
        row("MANIFEST_MISSING_FILE", json!({"background": {"service_worker": "nope.js"}})),
        row("MANIFEST_PATH_OUTSIDE", json!({"background": {"service_worker": "../outside.js"}})),
        row("MANIFEST_API_PERMISSION_MISSING", json!({})).file("bg.js", "chrome.storage.local.get('k');"),
        row(
            "MANIFEST_API_PERMISSION_MISSING",
            json!({"declarative_net_request": {"rule_resources": [{"id": "r", "enabled": true, "path": "r.json"}]}}),
        )
        .file("r.json", "[]"),
        row("MANIFEST_PERMISSION_UNUSED", json!({"permissions": ["alarms"]})),
        row("MANIFEST_API_UNSUPPORTED", json!({"permissions": ["sidePanel"]}))
            .file("bg.js", "chrome.sidePanel.open({});"),
        row("MANIFEST_DANGEROUS_EVAL", json!({})).file("bg.js", "eval('1');"),
        row("MANIFEST_REMOTE_CODE", json!({}))
            .file("bg.js", "importScripts('https://cdn.example.com/a.js');"),
        row("MANIFEST_SCRIPT_SYNTAX", json!({})).file("bg.js", "let = = 1;"),
        row("MANIFEST_UNSAFE_HTML", json!({})).file("bg.js", "document.body.innerHTML = location.hash;"),
        row("MANIFEST_UNSAFE_HTML", json!({"action": {"default_popup": "p.html"}}))
            .file("p.html", "<html><body><button onclick=\"go()\">Go</button></body></html>"),
    ]
}

/// Codes only the build reports (why it delegates or what it generated).
const BUILD_ONLY: [&str; 11] = [
    "MANIFEST_NOT_FOUND",
    "MANIFEST_UNRESOLVED_IMPORT",
    "MANIFEST_BUNDLE",
    "MANIFEST_ESM_IN_CLASSIC_SCRIPT",
    "MANIFEST_NEEDS_COMPILE",
    "MANIFEST_BUNDLER_CONFIG",
    "MANIFEST_FRAMEWORK_DEPENDENCY",
    "MANIFEST_BACKGROUND_SCRIPTS_JOINED",
    "MANIFEST_CONVERTED_FOR_MV2",
    "MANIFEST_CONFIG_VALUE",
    "MANIFEST_PROCESS_ENV",
];

#[test]
fn the_baseline_triggers_nothing() {
    let p = project_for(&row("", json!({})));
    let r = validate(p.path(), &["chrome", "firefox"]);
    assert!(r.valid, "{:#?}", r.errors);
    assert!(r.warnings.is_empty(), "{:#?}", r.warnings);
    assert_eq!(r.browser_support["chrome"].min_version.as_deref(), Some("88"));
}

#[test]
fn each_rule_has_a_manifest_that_triggers_it() {
    let rows = rows();
    for r in &rows {
        let p = project_for(r);
        let report = validate(p.path(), &["chrome", "firefox"]);
        let codes = all_codes(&report);
        assert!(codes.contains(&r.code), "{}: got {codes:?}", r.code);
        let f = report.errors.iter().chain(&report.warnings).find(|f| f.code.as_str() == r.code).unwrap();
        assert!(!f.fix.is_empty() && !f.message.is_empty(), "{}", r.code);
        if f.is_error() {
            assert!(!report.valid, "{} is an error but the report is valid", r.code);
        }
    }
    // Every code is either exercised here or is one the build alone reports.
    for code in FindingCode::ALL {
        let s = code.as_str();
        assert!(BUILD_ONLY.contains(&s) || rows.iter().any(|r| r.code == s), "no table row for {s}");
    }
}

#[test]
fn findings_point_at_the_source_line_through_browser_prefixes() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        "{\n  \"manifest_version\": 3,\n  \"name\": \"n\",\n  \"version\": \"1.0\",\n  \"chromium:host_permissions\": [\"https://*.ex*ample.com/*\"]\n}\n",
    );
    let r = validate(p.path(), &["chrome"]);
    let f = r.errors.iter().find(|f| f.code == FindingCode::ManifestMatchPattern).expect("pattern error");
    assert_eq!(f.path.as_deref(), Some("host_permissions[0]"));
    assert_eq!((f.line, f.file.as_deref()), (Some(5), Some("manifest.json")));
}

#[test]
fn embedded_templates_are_valid_with_golden_min_versions() {
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let mut golden = serde_json::Map::new();
    let mut slugs: Vec<_> = std::fs::read_dir(&templates).unwrap().map(|e| e.unwrap().file_name()).collect();
    slugs.sort();
    for slug in slugs {
        let slug = slug.to_string_lossy().into_owned();
        let r = validate(&templates.join(&slug), &["chrome", "edge", "firefox"]);
        assert!(r.valid, "template {slug}: {:#?}", r.errors);
        // The closest known-good examples include the template itself, at full score.
        assert!(
            r.similar_templates.iter().any(|s| s.slug == slug && s.score == 1.0),
            "{slug}: {:?}",
            r.similar_templates
        );
        let mins: serde_json::Map<String, Value> =
            r.browser_support.iter().map(|(b, s)| (b.clone(), json!(s.min_version))).collect();
        let mut warnings: Vec<&str> = r.warnings.iter().map(|f| f.code.as_str()).collect();
        warnings.sort();
        warnings.dedup();
        golden.insert(slug, json!({"minVersion": mins, "warnings": warnings}));
    }
    let path = fixtures().join("expected/validate-templates.json");
    let got = serde_json::to_string_pretty(&Value::Object(golden)).unwrap() + "\n";
    if std::env::var_os("WEBEXT_MCP_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "set WEBEXT_MCP_BLESS=1 after an intended change");
}

#[test]
fn content_blocker_with_rulesets_is_valid_everywhere() {
    let p = Project::fixture("validate/content-blocker");
    let r = validate(p.path(), &["chrome", "firefox"]);
    assert!(r.valid, "{:#?}", r.errors);
    assert!(r.scanned.apis.iter().any(|a| a.starts_with("declarativeNetRequest.")), "{:?}", r.scanned.apis);
    // A rule without an id and a repeated id: errors in the rule set, with its lines.
    p.write(
        "rules/ads.json",
        "[\n  {\"id\": 1, \"action\": {\"type\": \"block\"}, \"condition\": {}},\n  {\"id\": 1, \"action\": {\"type\": \"block\"}, \"condition\": {}},\n  {\"action\": {\"type\": \"drop\"}}\n]",
    );
    let r = validate(p.path(), &["chrome"]);
    let rules: Vec<(Option<usize>, &str)> = r
        .errors
        .iter()
        .filter(|f| f.file.as_deref() == Some("rules/ads.json"))
        .map(|f| (f.line, f.message.as_str()))
        .collect();
    assert_eq!(rules.len(), 2, "{rules:?}");
    assert_eq!(rules[0].0, Some(3));
    assert!(rules[0].1.contains("repeats id 1") && rules[1].1.contains("no integer `id`"), "{rules:?}");
    // Remove a rule set file: the reference is a missing file, at its JSON path.
    std::fs::remove_file(p.path().join("rules/trackers.json")).unwrap();
    let r = validate(p.path(), &["chrome"]);
    let f = r.errors.iter().find(|f| f.code == FindingCode::ManifestMissingFile).unwrap();
    assert_eq!(f.path.as_deref(), Some("declarative_net_request.rule_resources[1].path"));
}

#[test]
fn large_manifest_with_locales_and_commands_is_valid() {
    let p = Project::fixture("validate/locales-commands");
    let r = validate(p.path(), &["chrome", "firefox"]);
    assert!(r.valid, "{:#?}", r.errors);
    assert!(r.warnings.is_empty(), "{:#?}", r.warnings);
    assert_eq!(r.scanned.scripts, 4);
    // A fifth shortcut and a placeholder the message does not declare.
    let text = p.read("manifest.json").replace(
        "\"clear-notes\": { \"description\": \"__MSG_cmdClear__\" }",
        "\"clear-notes\": { \"suggested_key\": { \"default\": \"Alt+C\" } }, \"fifth\": { \"suggested_key\": { \"default\": \"Alt+F\" } }",
    );
    p.write("manifest.json", text);
    p.write("_locales/en/messages.json", p.read("_locales/en/messages.json").replace("$COUNT$", "$TOTAL$"));
    let r = validate(p.path(), &["chrome"]);
    let codes = all_codes(&r);
    assert!(codes.contains(&"MANIFEST_COMMANDS") && codes.contains(&"MANIFEST_PLACEHOLDER"), "{codes:?}");
}

#[test]
fn mv2_is_refused_for_chrome_and_a_warning_for_firefox() {
    let p = Project::fixture("validate/mv2");
    let r = validate(p.path(), &["chrome", "firefox"]);
    assert!(!r.valid);
    let mv = r.errors.iter().find(|f| f.code == FindingCode::ManifestVersionUnsupported).unwrap();
    assert_eq!(mv.browsers, ["chrome"]);
    assert!(r.browser_support["firefox"].ok, "{:#?}", r.errors);
    assert!(!r.browser_support["chrome"].ok);
    let ff = r.warnings.iter().find(|f| f.code == FindingCode::ManifestVersionUnsupported).unwrap();
    assert_eq!(ff.browsers, ["firefox"]);
}

#[test]
fn hostile_manifests_give_findings_never_panics() {
    let deep = format!("{{\"name\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let huge =
        format!("{{\"manifest_version\": 3, \"name\": \"{}\", \"version\": \"1\"}}", "n".repeat(900_000));
    let wrong = r#"{"manifest_version": {}, "name": [], "version": 1, "icons": [], "background": "bg.js",
        "content_scripts": [1, "x", {"matches": {}, "js": 7}], "permissions": [1, null, {}], "action": [],
        "commands": [], "web_accessible_resources": {}, "content_security_policy": 5,
        "default_locale": 3, "browser_specific_settings": "x", "declarative_net_request": {"rule_resources": "r"}}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("deep", deep.into_bytes()),
        ("huge", huge.into_bytes()),
        ("wrong", wrong.as_bytes().to_vec()),
        ("utf8", b"{\"manifest_version\": 3, \"name\": \"\xff\xfe\", \"version\": \"1\"}".to_vec()),
        ("nul", b"{\"name\": \"a\0b\"}".to_vec()),
        ("empty", Vec::new()),
        (
            "many",
            format!("{{\"manifest_version\": 3, \"permissions\": [{}0]}}", "0,".repeat(100_000)).into_bytes(),
        ),
        ("array", b"[1, 2]".to_vec()),
    ];
    for (name, bytes) in cases {
        let p = Project::empty();
        p.write("manifest.json", &bytes);
        let r = validate(p.path(), &["chrome", "firefox"]);
        // A huge but well-formed name is the one case that may validate.
        assert!(name == "huge" || (!r.valid && !r.errors.is_empty()), "{name}: {:#?}", r.errors);
        if ["many", "dups", "keys"].contains(&name) {
            assert!(r.truncated && r.errors.len() <= validation::MAX_FINDINGS, "{}", r.errors.len());
        }
    }
}

#[cfg(unix)]
#[test]
fn a_manifest_linked_out_of_the_project_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("manifest.json"), BASELINE).unwrap();
    let p = Project::empty();
    std::os::unix::fs::symlink(outside.path().join("manifest.json"), p.path().join("manifest.json")).unwrap();
    let r = validate(p.path(), &["chrome"]);
    assert_eq!(all_codes(&r), ["MANIFEST_PATH_OUTSIDE"]);
    // A script the manifest names, linked to a file outside: refused, never read.
    let q = project_for(&row("", json!({})));
    std::fs::remove_file(q.path().join("bg.js")).unwrap();
    std::fs::write(outside.path().join("secret.js"), "chrome.cookies.getAll({});").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.js"), q.path().join("bg.js")).unwrap();
    let r = validate(q.path(), &["chrome"]);
    let f = r.errors.iter().find(|f| f.code == FindingCode::ManifestPathOutside).expect("refused");
    assert_eq!(f.path.as_deref(), Some("background.service_worker"));
    assert!(r.scanned.apis.is_empty(), "the linked script was scanned: {:?}", r.scanned.apis);
}

fn cli(args: &[&str], home: &Path) -> (i32, Value) {
    let out = std::process::Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(args)
        .env("WEBEXT_MCP_RUNTIME_DIR", home.join("run"))
        .env("WEBEXT_MCP_BUILD_ALLOW_NPX", "false")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn the_cli_twin_exits_one_when_the_manifest_is_not_valid() {
    let p = project_for(&row("", json!({})));
    let path = p.path().to_str().unwrap();
    let (code, out) = cli(&["validate", path, "--json"], p.home.path());
    assert_eq!((code, &out["valid"]), (0, &json!(true)), "{out:#}");
    assert_eq!(out["browserSupport"]["firefox"]["ok"], true);
    p.write("manifest.json", BASELINE.replace("\"1.0\"", "\"1.0.0.0.1\""));
    let (code, out) = cli(&["validate", path, "--browsers", "chrome", "--json"], p.home.path());
    assert_eq!(code, 1, "{out:#}");
    assert_eq!(out["errors"][0]["code"], "MANIFEST_VERSION_INVALID");
    assert_eq!(out["errors"][0]["line"], 4);
    let manifest = p.path().join("manifest.json");
    let call_args = json!({"manifestPath": manifest}).to_string();
    let (code, out) =
        cli(&["call", "extension_manifest_validate", call_args.as_str(), "--json"], p.home.path());
    assert_eq!(code, 1);
    assert_eq!(out["valid"], false);
    let (code, out) = cli(&["validate", "/nonexistent/project", "--json"], p.home.path());
    assert_eq!((code, out["error"]["code"].as_str()), (1, Some("NOT_FOUND")));
}

#[test]
fn the_build_stops_on_wrong_types_and_huge_manifests_with_the_same_codes() {
    let p = Project::empty();
    p.write("manifest.json", r#"{"manifest_version":3,"name":"m","version":"1","permissions":"storage","content_scripts":{"js":["a.js"]}}"#);
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.error().0, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_SHAPE", "MANIFEST_SHAPE"]);
    p.write("manifest.json", format!("{{\"name\": \"{}\"}}", "x".repeat(10 * 1024 * 1024)));
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.finding_codes(), ["MANIFEST_TOO_LARGE"]);
}

#[test]
fn inspect_builds_first_and_summarizes_under_4_kb() {
    let p = Project::fixture("validate/locales-commands");
    let path = p.path().to_str().unwrap();
    let (code, out) = cli(&["inspect-build", path, "--browser", "chrome", "--json"], p.home.path());
    assert_eq!(code, 0, "{out:#}");
    assert_eq!(out["built"], true);
    assert!(p.path().join("dist/chrome/manifest.json").is_file());
    let entries = out["entryPoints"].as_array().unwrap();
    let popup = entries.iter().find(|e| e["entry"] == "action.default_popup").unwrap();
    assert_eq!(popup["pulls"], json!(["popup.js"]));
    assert!(out["totals"]["gzipBytes"].as_u64().unwrap() > 0);
    assert_eq!(out["permissions"]["unused"], json!([]));
    assert!(!out["storeFlags"].as_array().unwrap().iter().any(|f| f["flag"] == "broad-host-access"));
    p.write("dist/chrome/stray.txt", "not referenced");
    let out = std::process::Command::new(bin())
        .arg("--home")
        .arg(p.home.path())
        .args(["inspect-build", path, "--browser", "chrome"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert!(text.contains("unreachable: stray.txt") && !text.contains("built now"), "{text}");
}

#[test]
fn inspect_flags_minified_code_without_a_source_zip_for_firefox() {
    let p = Project::fixture("validate/content-blocker");
    p.build(&["--browser", "firefox"]).builds();
    let bundle = format!("var a={};", "a.b=function(c){return c+1};".repeat(200));
    p.write("dist/firefox/background.js", bundle);
    let path = p.path().to_str().unwrap();
    let flags = |p: &Project| -> Vec<String> {
        let (code, out) = cli(&["inspect-build", path, "--browser", "firefox", "--json"], p.home.path());
        assert_eq!(code, 0, "{out:#}");
        out["storeFlags"].as_array().unwrap().iter().map(|f| f["flag"].as_str().unwrap().to_owned()).collect()
    };
    let got = flags(&p);
    assert!(got.contains(&"minified-without-source".to_owned()), "{got:?}");
    assert!(got.contains(&"broad-host-access".to_owned()), "{got:?}");
    p.write("dist/tracker-blocker-2.4.1-source.zip", "zip");
    assert!(!flags(&p).contains(&"minified-without-source".to_owned()));
}

#[cfg(unix)]
#[test]
fn inspect_never_follows_links_out_of_the_build() {
    let p = Project::fixture("validate/content-blocker");
    p.build(&["--browser", "chrome"]).builds();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.js"), "chrome.cookies.getAll({});").unwrap();
    std::fs::remove_file(p.path().join("dist/chrome/background.js")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.js"), p.path().join("dist/chrome/background.js"))
        .unwrap();
    let (code, out) = cli(&["inspect-build", p.path().to_str().unwrap(), "--json"], p.home.path());
    assert_eq!(code, 0, "{out:#}");
    let files: Vec<&str> =
        out["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(!files.contains(&"background.js"), "{files:?}");
    assert!(!out["permissions"]["used"].as_array().unwrap().iter().any(|p| p == "cookies"), "{out:#}");
}

/// Issue 47: after `add_feature sidebar`, `sidePanel` is what makes `side_panel` work, not an
/// unused permission to remove.
#[test]
fn a_permission_the_manifest_s_own_key_needs_is_not_unused() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Side","version":"1.0","permissions":["sidePanel","alarms"],"side_panel":{"default_path":"side.html"},"background":{"service_worker":"bg.js"}}"#,
    )
    .write("side.html", "<!doctype html><script src=\"side.js\"></script>")
    .write("side.js", "document.body.textContent = 'side';\n")
    .write("bg.js", "chrome.runtime.onInstalled.addListener(() => {});\n");
    let r = validate(p.path(), &["chrome"]);
    let unused: Vec<&str> = r
        .warnings
        .iter()
        .filter(|f| f.code == FindingCode::ManifestPermissionUnused)
        .filter_map(|f| f.path.as_deref())
        .collect();
    assert_eq!(unused, ["permissions[1]"], "{:#?}", r.warnings);
}
