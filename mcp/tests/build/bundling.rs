//! Issue 22: the native bundler on projects written here — what it outputs, and hostile or
//! broken input (imports escaping the project, links out of it, cycles, huge and deeply
//! nested files, syntax errors, top-level await, Node built-ins): a finding with the file
//! and position, never a panic or a broken output. Loading in browsers: `e2e/bundle_load.rs`.

use serde_json::Value;

use super::{Project, tree};

const CONTENT_MANIFEST: &str = r#"{"manifest_version":3,"name":"b","version":"1","content_scripts":[{"matches":["<all_urls>"],"js":["content.js"]}]}"#;

fn content_project(content: &str) -> Project {
    let p = Project::empty();
    p.write("manifest.json", CONTENT_MANIFEST).write("content.js", content);
    p
}

fn findings(run: &super::Run) -> Vec<Value> {
    run.error().1["data"]["findings"].as_array().cloned().unwrap_or_default()
}

fn one_finding(run: &super::Run) -> Value {
    let f = findings(run);
    assert_eq!(f.len(), 1, "{f:#?}");
    f[0].clone()
}

#[test]
fn a_chain_with_a_cycle_becomes_one_file_without_imports() {
    let p = content_project("import { a } from './a.js';\ndocument.title = a();\n");
    p.write(
        "a.js",
        "import { b } from './b.js';\nexport function a() { return 'a' + b(); }\nexport const fromA = 1;\n",
    )
    .write("b.js", "import { fromA } from './a.js';\nexport function b() { return String(fromA); }\n");
    let run = p.build(&["--browser", "chrome,firefox"]);
    for browser in ["chrome", "firefox"] {
        assert_eq!(run.build_for(browser)["pipeline"], "native");
        assert_eq!(tree(&p.path().join("dist").join(browser)), ["content.js", "manifest.json"]);
        let out = p.read(&format!("dist/{browser}/content.js"));
        assert!(!out.contains("import{") && !out.contains("export "), "{out}");
        // Each module once (a production bundle is minified: no comments, no spaces, local
        // names shortened), the cycle's back edge a require of the module being run.
        assert_eq!(out.matches("function(e,t){\"use strict\";").count(), 3, "{out}");
        assert!(out.contains("(0,n.b)()") && out.contains("String(n.fromA)"), "{out}");
        assert!(!out.contains("$wx_m0") && !out.contains("($wx_e,"), "locals not renamed: {out}");
        assert!(!out.contains("\n\n") && !out.contains("// "), "not minified: {out}");
    }
}

#[test]
fn an_import_escaping_the_project_is_refused() {
    let p = content_project("import secret from '../../../../../../etc/passwd';\nconsole.log(secret);\n");
    let run = p.build(&[]);
    let f = one_finding(&run);
    assert_eq!(f["code"], "MANIFEST_PATH_OUTSIDE", "{f:#}");
    assert_eq!(
        (f["file"].as_str(), f["line"].as_u64(), f["column"].as_u64()),
        (Some("content.js"), Some(1), Some(20))
    );
    assert!(!p.path().join("dist/chrome").exists());
}

#[test]
fn a_node_modules_package_linked_outside_the_project_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("index.js"), "module.exports = 'stolen';\n").unwrap();
    std::fs::write(outside.path().join("package.json"), r#"{"name":"evil","main":"index.js"}"#).unwrap();
    let p = content_project("import evil from 'evil';\nconsole.log(evil);\n");
    std::fs::create_dir_all(p.path().join("node_modules")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.path().join("node_modules/evil")).unwrap();
    let run = p.build(&[]);
    let f = one_finding(&run);
    assert_eq!(f["code"], "MANIFEST_PATH_OUTSIDE", "{f:#}");
    assert!(f["message"].as_str().unwrap().contains("outside the project"), "{f:#}");
}

#[test]
fn packages_resolve_by_exports_conditions_and_commonjs_runs_by_id() {
    let p = content_project(
        "import { pick } from 'dual';\nimport cjs from 'old';\ndocument.title = pick() + cjs.v;\n",
    );
    p.write(
        "node_modules/dual/package.json",
        r#"{"name":"dual","exports":{".":{"types":"./d.ts","require":"./dual.cjs","browser":{"import":"./dual.browser.mjs"},"default":"./dual.mjs"}}}"#,
    )
    .write("node_modules/dual/dual.browser.mjs", "export const pick = () => 'browser-build';\n")
    .write("node_modules/dual/dual.cjs", "exports.pick = () => 'node-build';\n")
    .write("node_modules/old/package.json", r#"{"name":"old","main":"lib/index"}"#)
    .write(
        "node_modules/old/lib/index.js",
        "if (process.env.NODE_ENV !== 'production') { module.exports = require('./dev.js'); } else { module.exports = require('./prod.js'); }\n",
    )
    .write("node_modules/old/lib/prod.js", "module.exports = { v: 'prod' };\n")
    .write("node_modules/old/lib/dev.js", "module.exports = { v: 'dev' };\n");
    let run = p.build(&[]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native");
    let out = p.read("dist/chrome/content.js");
    assert!(out.contains("browser-build") && !out.contains("node-build"), "{out}");
    // The production branch only: the dead development require is never bundled.
    assert!(out.contains("{v:`prod`}") && !out.contains("dev"), "{out}");
}

#[test]
fn broken_modules_are_findings_with_file_and_position() {
    let p = content_project("import { x } from './lib/bad.ts';\nimport fs from 'fs';\nawait x;\n");
    p.write("lib/bad.ts", "export const x: number = 1;\nexport const y = (;\n");
    let run = p.build(&[]);
    let (code, _) = run.error();
    assert_eq!(code, "BUILD_FAILED");
    let f = findings(&run);
    let by = |c: &str, file: &str| {
        f.iter()
            .find(|g| g["code"] == c && g["file"] == file)
            .unwrap_or_else(|| panic!("no {c} in {file}: {f:#?}"))
    };
    let syntax = by("MANIFEST_BUNDLE", "lib/bad.ts");
    assert_eq!((syntax["line"].as_u64(), syntax["column"].as_u64()), (Some(2), Some(19)), "{syntax:#}");
    let builtin = by("MANIFEST_UNRESOLVED_IMPORT", "content.js");
    assert_eq!(builtin["line"].as_u64(), Some(2), "{builtin:#}");
    assert!(builtin["message"].as_str().unwrap().contains("Node.js built-in"), "{builtin:#}");
    let tla = f
        .iter()
        .find(|g| g["message"].as_str().is_some_and(|m| m.contains("`await` at the top level")))
        .unwrap();
    assert_eq!((tla["file"].as_str(), tla["line"].as_u64()), (Some("content.js"), Some(3)), "{tla:#}");
    assert!(!p.path().join("dist/chrome").exists());
}

#[test]
fn huge_and_deeply_nested_modules_are_refused_without_a_crash() {
    let p = content_project("import './deep.js';\nimport './huge.js';\n");
    p.write("deep.js", format!("export const x = {}0;\n", "[".repeat(200_000)))
        .write("huge.js", "// padding\n".repeat(300_000));
    let run = p.build(&[]);
    let f = findings(&run);
    assert_eq!(f.len(), 2, "{f:#?}");
    let text = serde_json::to_string(&f).unwrap();
    assert!(text.contains("nesting deeper than"), "{text}");
    assert!(text.contains("more than a bundled module may be"), "{text}");
}

#[test]
fn react_and_preact_dependencies_no_longer_force_a_toolchain() {
    let p = content_project("document.title = 'plain';\n");
    p.write("package.json", r#"{"dependencies":{"react":"19","react-dom":"19","preact":"10"}}"#);
    assert_eq!(p.build(&[]).build_for("chrome")["pipeline"], "native");
}

#[test]
fn css_modules_export_a_default_mapping_and_named_classes() {
    let p = content_project(
        "import styles from './a.module.css';\nimport { box } from './a.module.css';\ndocument.title = styles.box + box;\n",
    );
    p.write("a.module.css", ".box { color: red }\n");
    let run = p.build(&[]);
    assert_eq!(run.build_for("chrome")["pipeline"], "native");
    let css = p.read("dist/chrome/content.css");
    let class = css.split(['.', ' ']).find(|w| w.starts_with("box_")).unwrap_or_else(|| panic!("{css}"));
    let js = p.read("dist/chrome/content.js");
    // The mapping is JSON (written compact, so a production build leaves it as it is).
    assert!(js.contains(&format!("\"box\":\"{class}\"")), "{js}");
    assert!(js.contains("=n.default.box+n.box"), "{js}");
    let manifest: Value = serde_json::from_str(&p.read("dist/chrome/manifest.json")).unwrap();
    assert_eq!(manifest["content_scripts"][0]["css"], serde_json::json!(["content.css"]));
}
