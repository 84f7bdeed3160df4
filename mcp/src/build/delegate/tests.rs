use super::*;

#[test]
fn build_scripts_of_extension_js_and_wxt_are_told_the_browser() {
    assert_eq!(script_browser_args("npx extension@latest build", "edge"), ["--browser=edge"]);
    assert_eq!(script_browser_args("extension build && zip", "firefox"), ["--browser=firefox"]);
    assert_eq!(script_browser_args("wxt build", "firefox"), ["-b", "firefox"]);
    assert!(script_browser_args("extension build --browser=chrome", "edge").is_empty());
    assert!(script_browser_args("vite build", "chrome").is_empty());
}

#[test]
fn extension_js_projects_are_told_by_config_or_scripts() {
    let d = tempfile::tempdir().unwrap();
    let pkg = |s: &str| crate::manifest::parse_jsonc(s).unwrap();
    assert!(!is_extension_js_project(d.path(), None));
    let npx = pkg(r#"{"scripts":{"build":"npx extension@latest build"}}"#);
    assert!(is_extension_js_project(d.path(), Some(&npx)));
    let cli = pkg(r#"{"scripts":{"dev":"extension dev && echo ok"}}"#);
    assert!(is_extension_js_project(d.path(), Some(&cli)));
    let other = pkg(r#"{"scripts":{"build":"vite build --extension-mode"}}"#);
    assert!(!is_extension_js_project(d.path(), Some(&other)));
    std::fs::write(d.path().join("extension.config.cjs"), "module.exports = {}").unwrap();
    assert!(is_extension_js_project(d.path(), None));
}

#[test]
fn colours_are_taken_out_of_toolchain_lines() {
    assert_eq!(plain("\u{1b}[31merror\u{1b}[0m: boom"), "error: boom");
    assert_eq!(plain("plain"), "plain");
}

#[test]
fn node_versions() {
    assert_eq!(parse_node_version("v22.12.0\n"), Some((22, 12, 0)));
    assert_eq!(parse_node_version("v20.20"), Some((20, 20, 0)));
    assert_eq!(parse_node_version("node"), None);
    let ext = Toolchain::ExtensionJs { bin: "x".into() };
    let at = |v| Some(Node { path: "/n".into(), version: v });
    assert!(require_node(&ext, at((22, 12, 0))).is_ok());
    assert!(require_node(&ext, at((23, 0, 0))).is_ok());
    assert!(matches!(require_node(&ext, at((22, 11, 9))), Err(DelegateError::Node { found: Some(_), .. })));
    assert!(matches!(require_node(&ext, None), Err(DelegateError::Node { found: None, .. })));
    assert!(require_node(&Toolchain::Script { command: "x".into() }, None).is_ok());
}

#[test]
fn detection_order() {
    let d = tempfile::tempdir().unwrap();
    let pkg =
        crate::manifest::parse_jsonc(r#"{"scripts":{"build":"make"},"devDependencies":{"extension":"^4"}}"#)
            .unwrap();
    assert!(matches!(detect(d.path(), Some(&pkg)), Err(DelegateError::NotInstalled { .. })));
    std::fs::create_dir_all(d.path().join("node_modules/.bin")).unwrap();
    std::fs::write(d.path().join("node_modules/.bin/extension"), "").unwrap();
    assert!(matches!(detect(d.path(), Some(&pkg)), Ok(Some(Toolchain::ExtensionJs { .. }))));
    let pkg = crate::manifest::parse_jsonc(r#"{"scripts":{"build":"make"}}"#).unwrap();
    let e = tempfile::tempdir().unwrap();
    assert_eq!(detect(e.path(), Some(&pkg)), Ok(Some(Toolchain::Script { command: "make".into() })));
    assert_eq!(detect(e.path(), None), Ok(None));
}
