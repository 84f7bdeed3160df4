//! Bad projects and bad arguments: a clear error with a stable code and a finding that says
//! where and what to do; never a panic, never a written `dist/`.

use super::Project;

#[test]
fn no_manifest() {
    let p = Project::empty();
    p.write("README.md", "hi");
    let run = p.build(&[]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_NOT_FOUND"]);
    assert!(err["hint"].as_str().unwrap().contains("manifest.json"));
    assert!(!p.path().join("dist/chrome").exists());
}

#[test]
fn missing_project_folder() {
    let p = Project::empty();
    let gone = p.path().join("nope");
    let out = std::process::Command::new(super::bin())
        .args(["--home", p.home.path().to_str().unwrap(), "build", gone.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "NOT_FOUND");
}

#[test]
fn broken_json_reports_line_and_column() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        "{\n  // comments are fine\n  \"manifest_version\": 3,\n  \"name\": \"x\"\n  \"version\": \"1\"\n}\n",
    );
    let run = p.build(&[]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED");
    let f = &err["data"]["findings"][0];
    assert_eq!(f["code"], "MANIFEST_JSON");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(5), Some(3)));
    assert_eq!(f["file"], "manifest.json");
    assert!(err["message"].as_str().unwrap().contains("line 5, column 3"), "{err}");
}

#[test]
fn missing_referenced_file_names_its_json_path() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"m","version":"1","content_scripts":[{"matches":["<all_urls>"],"js":["ok.js","missing.js"]}]}"#,
    )
    .write("ok.js", "1;");
    let run = p.build(&[]);
    assert_eq!(run.error().0, "BUILD_FAILED");
    let f = &run.error().1["data"]["findings"][0];
    assert_eq!(f["code"], "MANIFEST_MISSING_FILE");
    assert_eq!(f["path"], "content_scripts[0].js[1]");
    assert!(f["fix"].as_str().unwrap().contains("missing.js"));
    assert!(!p.path().join("dist/chrome").exists());
}

#[test]
fn less_imported_by_a_content_script_without_toolchain_is_refused_with_the_finding() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"m","version":"1","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}"#,
    )
    .write("content.js", "// hello\nimport { helper } from './helper.js';\nimport './theme.less';\nhelper();\n")
    .write("helper.js", "export function helper() {}\n")
    .write("theme.less", "@c: red;\n");
    let run = p.build(&[]);
    let (code, err) = run.error();
    assert_eq!(code, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_NEEDS_COMPILE"]);
    let f = &err["data"]["findings"][0];
    assert_eq!(f["path"], "content_scripts[0].js[0]");
    assert_eq!(f["file"], "content.js");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(3), Some(8)));
    assert!(f["message"].as_str().unwrap().contains("Less"), "{f}");
    assert!(err["hint"].as_str().unwrap().contains("extension"), "{err}");
}

#[test]
fn a_bundler_config_needs_a_toolchain_even_when_typescript_builds_natively() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"m","version":"1","background":{"service_worker":"bg.ts"}}"#,
    )
    .write("bg.ts", "const x: number = 1;")
    .write("extension.config.js", "module.exports = { plugins: [] }");
    let run = p.build(&[]);
    assert_eq!(run.error().0, "BUILD_FAILED");
    assert_eq!(run.finding_codes(), ["MANIFEST_BUNDLER_CONFIG"]);
}

#[test]
fn mv2_for_chromium_is_blocking_but_fine_for_firefox() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":2,"name":"m","version":"1","background":{"scripts":["bg.js"]}}"#,
    )
    .write("bg.js", "1;");
    let run = p.build(&["--browser", "chrome"]);
    assert_eq!(run.finding_codes(), ["MANIFEST_VERSION_UNSUPPORTED"]);
    assert_eq!(run.error().1["data"]["findings"][0]["path"], "manifest_version");
    p.build(&["--browser", "firefox"]).builds();
}

#[test]
fn unknown_browser_is_an_invalid_argument() {
    let p = Project::fixture("popup-background");
    let run = p.build(&["--browser", "chrome,netscape"]);
    let (code, err) = run.error();
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(err["message"].as_str().unwrap().contains("netscape"));
}

#[test]
fn wrong_argument_types_come_back_as_invalid_argument() {
    let p = Project::empty();
    let out = std::process::Command::new(super::bin())
        .args([
            "--home",
            p.home.path().to_str().unwrap(),
            "call",
            "extension_build",
            r#"{"projectPath": 3}"#,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    assert!(v["error"]["message"].as_str().unwrap().contains("projectPath"));
}

#[test]
fn path_outside_the_extension_is_refused() {
    let p = Project::empty();
    p.write(
        "ext/manifest.json",
        r#"{"manifest_version":3,"name":"m","version":"1","background":{"service_worker":"../secret.js"}}"#,
    )
    .write("secret.js", "1;");
    let out = std::process::Command::new(super::bin())
        .args([
            "--home",
            p.home.path().to_str().unwrap(),
            "build",
            p.path().join("ext").to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["data"]["findings"][0]["code"], "MANIFEST_PATH_OUTSIDE");
}
