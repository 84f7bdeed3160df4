//! The bundler's process-wide caches on projects written here: reused when nothing changed,
//! never stale — an edit, a changed env value, a new file an import now resolves to, the
//! minified text and the source map all follow the files on disk.

use super::*;

pub(super) fn run_with(project: &Path, env: &PublicEnv, minify: bool, source_maps: bool) -> Bundle {
    let boundary = Boundary::new(project);
    let settings = Settings {
        project,
        boundary: boundary.clone(),
        env,
        jsx: JsxConfig::default(),
        scheme: "chrome-extension",
        minify,
        source_maps,
    };
    let resolver = resolve::ModuleResolver::new(project, boundary);
    bundle(
        &settings,
        &resolver,
        &project.join("a.js"),
        "a.js",
        Context::ContentScript { run_at: RunAt::DocumentIdle },
    )
}

fn run(project: &Path) -> Bundle {
    run_with(project, &PublicEnv::default(), false, false)
}

fn browser(name: &str) -> PublicEnv {
    let mut env = PublicEnv::default();
    env.vars.insert("EXTENSION_PUBLIC_BROWSER".into(), name.into());
    env
}

/// The process-wide cache gives the same bundle again, and never a stale one: an edit two
/// imports deep, or a new file that changes what an import resolves to, shows.
#[test]
fn rebundling_reuses_only_what_did_not_change() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.js"), "import { b } from './b';\ndocument.title = b;\n").unwrap();
    std::fs::write(p.join("b.js"), "import { c } from './c.js';\nexport const b = c + 1;\n").unwrap();
    std::fs::write(p.join("c.js"), "export const c = 'one';\n").unwrap();
    let first = run(p);
    assert!(first.findings.is_empty(), "{:?}", first.findings);
    assert_eq!(first.linked, 3);
    let again = run(p);
    assert_eq!((again.code.as_str(), again.linked), (first.code.as_str(), 0));
    std::fs::write(p.join("c.js"), "export const c = 'two';\n").unwrap();
    let edited = run(p);
    assert!(edited.code.contains("'two'") && !edited.code.contains("'one'"), "{}", edited.code);
    assert_eq!(edited.linked, 1, "only the edited module is linked again");
    // `./b` now resolves to b.ts (tried before .js): same text in a.js, another module.
    std::fs::write(p.join("b.ts"), "export const b: string = 'from-ts';\n").unwrap();
    let retargeted = run(p).code;
    assert!(retargeted.contains("from-ts") && !retargeted.contains("'two'"), "{retargeted}");
}

/// The two browsers of one build share every module that does not read a value that differs
/// between them; one that reads `EXTENSION_PUBLIC_BROWSER` gets each browser's value, from
/// the cache too once both were built.
#[test]
fn modules_reading_the_env_are_cached_per_value() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("a.js"),
        "import { name } from './which.js';\nimport './plain.js';\ndocument.title = name;\n",
    )
    .unwrap();
    std::fs::write(p.join("which.js"), "export const name = process.env.EXTENSION_PUBLIC_BROWSER;\n")
        .unwrap();
    std::fs::write(p.join("plain.js"), "document.body.dataset.plain = '1';\n").unwrap();
    let chrome = run_with(p, &browser("chrome"), false, false);
    assert!(chrome.code.contains("\"chrome\"") && chrome.findings.is_empty(), "{chrome:?}");
    let firefox = run_with(p, &browser("firefox"), false, false);
    assert!(firefox.code.contains("\"firefox\"") && !firefox.code.contains("\"chrome\""), "{}", firefox.code);
    assert_eq!(firefox.linked, 1, "only which.js reads the browser");
    let chrome_again = run_with(p, &browser("chrome"), false, false);
    assert_eq!((chrome_again.code.as_str(), chrome_again.linked), (chrome.code.as_str(), 0));
    // A value that changes (an edited .env) is never served from the cache.
    let edge = run_with(p, &browser("edge"), false, false);
    assert!(edge.code.contains("\"edge\"") && edge.linked == 1, "{}", edge.code);
}

/// A production bundle is minified module by module, each once per process: the second
/// build reuses the minified text, and an edit is minified afresh.
#[test]
fn minified_modules_follow_edits() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.js"), "import { t } from './t.ts';\n// a comment\ndocument.title = t;\n")
        .unwrap();
    std::fs::write(p.join("t.ts"), "export const t: string = 'first' + ' text';\n").unwrap();
    let env = PublicEnv::default();
    let small = run_with(p, &env, true, false);
    assert!(small.findings.is_empty(), "{:?}", small.findings);
    assert!(
        small.code.contains("first") && !small.code.contains("a comment") && !small.code.contains("\n\n"),
        "{}",
        small.code
    );
    assert_eq!(run_with(p, &env, true, false).code, small.code);
    std::fs::write(p.join("t.ts"), "export const t: string = 'second' + ' text';\n").unwrap();
    let edited = run_with(p, &env, true, false).code;
    assert!(edited.contains("second text") && !edited.contains("first text"), "{edited}");
}

/// The token of the bundle line holding `needle`, read back through the map.
fn mapped(bundle: &Bundle, needle: &str) -> (String, u32, u32) {
    let map = oxc_sourcemap::SourceMap::from_json_string(bundle.map.as_deref().expect("a map")).unwrap();
    let table = map.generate_lookup_table();
    let (line, text) = bundle.code.lines().enumerate().find(|(_, l)| l.contains(needle)).expect(needle);
    let column = text.find(needle).unwrap() as u32;
    let t = map.lookup_token(&table, line as u32, column).expect("a token");
    (
        map.get_source(t.get_source_id().unwrap()).unwrap().to_owned(),
        t.get_src_line() + 1,
        t.get_src_col() + 1,
    )
}

/// A dev bundle's map leads from the bundle to each module's file, line and column — a
/// `.js` module through the linker's edits, a TypeScript one through the compiler too — and
/// an edit that moves the code moves the mapping (a cached map is never stale).
#[test]
fn dev_source_maps_name_the_module_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("lib")).unwrap();
    std::fs::write(p.join("a.js"), "import { boom } from './lib/deep.ts';\nimport { v } from './lib/v.js';\n\nif (v) boom(process.env.EXTENSION_PUBLIC_BROWSER);\n").unwrap();
    std::fs::write(p.join("lib/v.js"), "export const v = 1;\n").unwrap();
    std::fs::write(
        p.join("lib/deep.ts"),
        "type T = string;\n\nexport function boom(why: T): never {\n  throw new Error('deep ' + why);\n}\n",
    )
    .unwrap();
    let env = browser("chrome");
    let b = run_with(p, &env, false, true);
    assert!(b.findings.is_empty(), "{:?}", b.findings);
    assert!(b.code.ends_with("//# sourceMappingURL=a.js.map\n"), "{}", b.code);
    assert_eq!(mapped(&b, "throw new Error"), ("lib/deep.ts".into(), 4, 3));
    // In a.js, after the import lines the linker removed and the env value it injected.
    assert_eq!(mapped(&b, "if (").0, "a.js");
    assert_eq!(mapped(&b, "if (").1, 4);
    let map: serde_json::Value = serde_json::from_str(b.map.as_deref().unwrap()).unwrap();
    assert!(map["sourcesContent"].to_string().contains("type T = string"), "{map}");
    std::fs::write(p.join("lib/deep.ts"), "type T = string;\n// moved\n\n\nexport function boom(why: T): never {\n    throw new Error('deep ' + why);\n}\n").unwrap();
    let moved = run_with(p, &env, false, true);
    assert_eq!(mapped(&moved, "throw new Error"), ("lib/deep.ts".into(), 6, 5));
    // Production builds have no map.
    assert!(run_with(p, &env, true, false).map.is_none());
}

/// A project whose `a.js` imports the package `big` (`index.js`: `source`, a CommonJS file
/// past the size where it is renamed while it is linked) and calls it with 2.
fn big_package(source: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let pkg = p.join("node_modules/big");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(p.join("a.js"), "import big from 'big';\nglobalThis.result = big(2);\n").unwrap();
    assert!(source.len() > emit::COMPRESS_MAX_BYTES);
    std::fs::write(pkg.join("index.js"), source).unwrap();
    std::fs::write(pkg.join("helper.js"), "exports.twice = function (n) { return n * 2; };\n").unwrap();
    dir
}

/// 1500 functions with long local names: what renaming shortens.
fn filler() -> String {
    (0..1500)
        .map(|i| format!("function step_number_{i}(value_in) {{ var long_local = value_in + {i}; return long_local - {i}; }}\n"))
        .collect()
}

/// What the bundle leaves in `globalThis.result`, run by Node.js (`None` without Node.js:
/// the behaviour is then not checked, the text still is).
pub(super) fn result_in_node(code: &str) -> Option<String> {
    node_output(&format!("{code}\nconsole.log(globalThis.result);"))
}

/// What Node.js prints running `script` (`None` without Node.js).
pub(super) fn node_output(script: &str) -> Option<String> {
    let node = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("node"))
        .find(|n| n.is_file());
    let Some(node) = node else {
        eprintln!("node not found: the bundle's behaviour is not run");
        return None;
    };
    let run = std::process::Command::new(node).arg("-e").arg(script).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    Some(String::from_utf8_lossy(&run.stdout).trim().to_owned())
}

fn production() -> PublicEnv {
    let mut env = PublicEnv::default();
    env.vars.insert("NODE_ENV".into(), "production".into());
    env
}

/// Builds `source` as the big package in production and checks the bundle: no finding, the
/// file renamed inside its unrenamed module function (none of `gone` left, less than half
/// the size), and `globalThis.result` is `result` when Node.js runs it.
fn renamed_big_package_gives(source: &str, gone: &[&str], result: &str) -> String {
    let dir = big_package(source);
    let out = run_with(dir.path(), &production(), true, false);
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let code = out.code;
    assert!(code.contains("function (module, exports, require) {\n"), "renamed: {}", &code[..400]);
    for gone in gone {
        assert!(!code.contains(gone), "`{gone}` left in the bundle");
    }
    assert!(code.len() < source.len() / 2, "{} of {}", code.len(), source.len());
    if let Some(ran) = result_in_node(&code) {
        assert_eq!(ran, result);
    }
    code
}

/// A big CommonJS file whose link only rewrites `require("…")` arguments is renamed while it
/// is linked and gets the same arguments rewritten in its renamed tree (no second link); a
/// `require` of its own (a parameter) is renamed and left alone.
#[test]
fn a_big_commonjs_file_is_renamed_while_it_is_linked() {
    let source = format!(
        "'use strict';\nvar helper_module = require('./helper.js');\nvar again = require(`./helper.js`);\n{}\
         function own_loader(require) {{ return require('not-a-module'); }}\n\
         module.exports = function (x) {{ return helper_module.twice(step_number_7(x)) + again.twice(1) + own_loader(function (s) {{ return s.length; }}); }};\n",
        filler()
    );
    let gone = ["step_number_7", "long_local", "helper_module", "own_loader", "./helper.js"];
    let code = renamed_big_package_gives(&source, &gone, "18");
    assert!(code.contains("'not-a-module'") || code.contains("\"not-a-module\""), "{}", &code[..400]);
}

/// With an env test to replace too, the renamed text is linked again: its imports and
/// `process.env` test rewritten, it runs the same.
#[test]
fn a_big_commonjs_file_with_env_tests_is_renamed_then_linked_again() {
    let source = format!(
        "'use strict';\nvar helper_module = require('./helper.js');\n{}\
         var mode_name = process.env.NODE_ENV === 'production' ? 'prod' : 'dev';\n\
         module.exports = function (x) {{ return helper_module.twice(step_number_7(x)) + '-' + mode_name; }};\n",
        filler()
    );
    let gone = ["step_number_7", "long_local", "helper_module", "process.env", "value_in"];
    renamed_big_package_gives(&source, &gone, "4-prod");
}

/// A big ES module cannot be renamed as a script: it is minified the usual way, and works.
#[test]
fn a_big_es_module_is_minified_the_usual_way() {
    let source = format!(
        "import {{ twice }} from './helper.js';\n{}export default function (x) {{ return twice(step_number_7(x)); }}\n",
        filler()
    );
    let dir = big_package(&source);
    std::fs::write(
        dir.path().join("node_modules/big/helper.js"),
        "export function twice(n) { return n * 2; }\n",
    )
    .unwrap();
    let out = run_with(dir.path(), &production(), true, false);
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let code = &out.code;
    assert!(!code.contains("step_number_7") && !code.contains("long_local"), "{}", &code[..400]);
    if let Some(result) = result_in_node(code) {
        assert_eq!(result, "4");
    }
}
