//! Extension.js's content-script contract in bundles run by Node.js (no document: the mount
//! runs when the module is evaluated, as at `document_start`). What a page shows is checked
//! in real browsers (`mcp/tests/e2e/contract_load.rs`).

use super::tests::{node_output, run_with};
use super::*;

/// Extension runtime stand-in and a log every fixture writes to.
const PRELUDE: &str = "globalThis.chrome = { runtime: { getURL: (p) => 'chrome-extension://id/' + p } };\n\
     globalThis.log = [];\n\
     console.warn = (m) => globalThis.log.push('warn: ' + m);\n";

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// `code` run `times` times in one world, then `after` (JavaScript) once every promise
/// settled; what it prints.
fn ran(code: &str, times: usize, after: &str) -> Option<String> {
    let runs = format!("{code}\n").repeat(times);
    node_output(&format!("{PRELUDE}{runs}setTimeout(() => {{ {after} }}, 20);"))
}

const NOTE: (&str, &str) = ("note.js", "export function note(x) { globalThis.log.push(x); }\n");

/// The default export is the mount function: called once per injection, even when the
/// file calls it itself (that call is removed, with a warning); what it returns runs
/// before the next injection into the same world mounts again.
#[test]
fn the_default_export_mounts_once_and_its_cleanup_runs_before_the_next() {
    let dir = project(&[
        NOTE,
        (
            "a.js",
            "import { note } from './note.js';\nexport default function mount() {\n  note('mount');\n  return () => note('cleanup');\n}\nmount();\n",
        ),
    ]);
    for minify in [false, true] {
        let b = run_with(dir.path(), &PublicEnv::default(), minify, false);
        let warning = b.findings.iter().find(|f| f.message.contains("calls its default export `mount()`"));
        assert!(warning.is_some_and(|f| !f.is_error() && f.line == Some(6)), "{:?}", b.findings);
        if let Some(out) = ran(&b.code, 2, "console.log(globalThis.log.join())") {
            assert_eq!(out, "mount,cleanup,mount", "minify={minify}");
        }
    }
}

/// A default export that is not a function warns and mounts nothing; a script without one
/// (the older contract, which mounts itself) runs once as written.
#[test]
fn a_default_that_is_no_function_warns_and_a_self_mounting_script_runs_once() {
    let dir = project(&[
        NOTE,
        ("a.js", "import { note } from './note.js';\nnote('ran');\nexport default { mount: 1 };\n"),
    ]);
    let b = run_with(dir.path(), &PublicEnv::default(), false, false);
    if let Some(out) = ran(&b.code, 1, "console.log(globalThis.log.join('|'))") {
        assert!(
            out.starts_with(
                "ran|warn: webext-mcp: nothing was mounted: the content script's default-exported value"
            ),
            "{out}"
        );
    }
    let dir = project(&[NOTE, ("a.js", "import { note } from './note.js';\nnote('self-mounted');\n")]);
    let b = run_with(dir.path(), &PublicEnv::default(), false, false);
    if let Some(out) = ran(&b.code, 1, "console.log(globalThis.log.join('|'))") {
        assert_eq!(out, "self-mounted");
    }
}

/// 4.1.26 calls an async mount and does not await it; the function it resolves to is kept
/// as the cleanup here (called on the next injection).
#[test]
fn an_async_mount_runs_and_its_resolved_cleanup_is_kept() {
    let dir = project(&[
        NOTE,
        (
            "a.js",
            "import { note } from './note.js';\nexport default async function () {\n  await null;\n  note('mounted');\n  return () => note('cleanup');\n}\n",
        ),
    ]);
    let b = run_with(dir.path(), &PublicEnv::default(), true, false);
    let after = "globalThis.__webextMcpMounts['a.js'](); console.log(globalThis.log.join())";
    if let Some(out) = ran(&b.code, 1, after) {
        assert_eq!(out, "mounted,cleanup");
    }
}

/// Imported CSS is no file of the content script (its `data:` URL is the import, as
/// Extension.js inlines it), `url()`s name the extension at run time, and
/// `new URL("./x", import.meta.url)` gives what the output has: the stylesheet's `data:`
/// URL, the copied image's extension URL. A stylesheet only `new URL` names is not the
/// script's CSS.
#[test]
fn css_and_new_url_resolve_to_what_the_output_has() {
    let dir = project(&[
        ("img.png", "PNG"),
        ("s.css", ".x { background: url(./img.png) }\n"),
        ("only.css", ".only { color: red }\n"),
        (
            "a.js",
            "import sheet from './s.css';\nconst href = new URL('./s.css', import.meta.url).href;\n\
             const img = new URL('img.png', import.meta.url).href;\nconst only = new URL('./only.css', import.meta.url);\n\
             globalThis.result = JSON.stringify([decodeURIComponent(sheet.split(',')[1]), href === sheet, img, only.protocol]);\n",
        ),
    ]);
    let b = run_with(dir.path(), &PublicEnv::default(), false, false);
    assert!(b.findings.is_empty(), "{:?}", b.findings);
    assert_eq!(b.css, None, "plain CSS of a content script is no file: {:?}", b.css);
    let png = b.assets.keys().next().unwrap().clone();
    assert!(png.starts_with("assets/img-") && b.assets.len() == 1, "{:?}", b.assets);
    let ids: Vec<&str> = b.code.lines().filter(|l| l.starts_with("$wx_mount(")).collect();
    assert_eq!(ids.len(), 1, "{}", b.code);
    assert!(ids[0].ends_with(", [1]);") || ids[0].ends_with(", [2]);"), "only s.css is applied: {}", ids[0]);
    if let Some(out) = ran(&b.code, 1, "console.log(globalThis.result)") {
        let got: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        assert_eq!(got[0], format!(".x {{ background: url(chrome-extension://id/{png}) }}\n"));
        assert_eq!(got[1], true);
        assert_eq!(got[2], format!("chrome-extension://id/{png}"));
        assert_eq!(got[3], "data:");
    }
}

/// The same sources give the same bytes, wherever the project is and however often it is
/// built (nothing of the time, the path or a random value gets in).
#[test]
fn the_wrapped_output_is_deterministic() {
    let files = [
        NOTE,
        ("s.module.css", ".card { color: red }\n"),
        (
            "a.js",
            "import { note } from './note.js';\nimport * as s from './s.module.css';\nexport default function () { note(s.card); }\n",
        ),
    ];
    let (one, two) = (project(&files), project(&files));
    for (minify, maps) in [(true, false), (false, true)] {
        let a = run_with(one.path(), &PublicEnv::default(), minify, maps);
        let b = run_with(two.path(), &PublicEnv::default(), minify, maps);
        assert!(a.code.contains("$wx_mount(\"a.js\", \"document_idle\", [2]);"), "{}", a.code);
        assert_eq!((a.code, a.css, a.map), (b.code, b.css, b.map));
    }
}
