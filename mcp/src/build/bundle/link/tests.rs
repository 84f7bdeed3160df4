//! The linker on module texts written here.

use super::*;
use crate::build::env::PublicEnv;

fn linked(src: &str) -> Linked {
    let mut next = 0usize;
    let mut resolve = |s: &str| {
        if s == "missing" {
            return Err(Unresolved::NotFound { package: Some("missing".into()) });
        }
        next += 1;
        Ok(next)
    };
    link(src, Path::new("m.js"), "\"u\"", None, &mut resolve).unwrap()
}

#[test]
fn imports_become_live_reads_and_exports_getters() {
    let l = linked(
        "import d, { a as b, c } from './x';\nimport * as ns from './y';\nexport let n = b + c;\nexport function f() { return d(ns.z, { c }); }\nexport { n as m };\nexport default 42;\n",
    );
    let f = &l.function;
    assert!(l.esm);
    assert!(f.contains("var $wx_m0 = $wx_r.i(1);\nvar $wx_m1 = $wx_r.i(2);"), "{f}");
    assert!(f.contains("let n = $wx_m0.a + $wx_m0.c;"), "{f}");
    assert!(f.contains("return (0, $wx_m0.default)($wx_m1.z, { c: $wx_m0.c });"), "{f}");
    assert!(
        f.contains("\"n\": () => n, \"f\": () => f, \"m\": () => n, \"default\": () => $wx_default"),
        "{f}"
    );
    assert!(f.contains("var $wx_default = 42;"), "{f}");
    assert!(!f.contains("import ") && !f.contains("export "), "{f}");
}

#[test]
fn commonjs_requires_and_dead_env_branches() {
    let l = linked(
        "if (\"production\" === 'production') { module.exports = require('./prod.js'); } else { module.exports = require('./dev.js'); }\n",
    );
    assert!(!l.esm);
    assert!(l.function.contains("module.exports = require(1);"), "{}", l.function);
    assert!(!l.function.contains("dev.js"), "{}", l.function);
}

#[test]
fn problems_are_issues_with_offsets() {
    let l = linked("import x from 'missing';\nawait x;\nimport(name);\n");
    let kinds: Vec<_> = l.issues.iter().map(|i| (i.offset, &i.kind)).collect();
    assert!(matches!(kinds[0], (14, IssueKind::Unresolved(_))), "{kinds:?}");
    assert!(matches!(kinds[1], (25, IssueKind::TopLevelAwait)), "{kinds:?}");
    assert!(matches!(kinds[2], (34, IssueKind::DynamicImport)), "{kinds:?}");
}

#[test]
fn a_require_inside_an_es_module_calls_the_bundle() {
    let l = linked("import './x.js';\nconst y = require('./y.js');\n");
    assert!(l.function.contains("const y = $wx_r(2);"), "{}", l.function);
}

#[test]
fn dynamic_import_of_a_module_is_a_promise_of_it() {
    let l = linked("document.onclick = () => import('./later.js').then((m) => m.go());\n");
    assert!(
        l.function.contains("Promise.resolve().then(function () { return $wx_r.i(1); })"),
        "{}",
        l.function
    );
}

/// With an env, the linker replaces `process.env.X` on its own parse and drops the dead
/// `NODE_ENV` branch (with its require) as if the text had been injected first; a CommonJS
/// module that binds no `require` is linked without scopes, one that does keeps its own.
#[test]
fn env_on_the_linkers_parse_and_commonjs_without_scopes() {
    let mut env = PublicEnv::default();
    env.vars.insert("NODE_ENV".into(), "production".into());
    let mut next = 0usize;
    let mut resolve = |_: &str| {
        next += 1;
        Ok(next)
    };
    let src = "if (process.env.NODE_ENV !== 'production') { module.exports = require('./dev.js'); } else { module.exports = require('./prod.js'); }\nconst mode = process.env.NODE_ENV;\n";
    let l = link(src, Path::new("index.js"), "\"u\"", Some(&env), &mut resolve).unwrap();
    assert!(l.function.contains("module.exports = require(1);"), "{}", l.function);
    assert!(!l.function.contains("dev.js") && !l.function.contains("process"), "{}", l.function);
    assert!(l.function.contains("const mode = \"production\";"), "{}", l.function);
    assert_eq!(l.env_names, ["NODE_ENV"]);
    let own = linked("function require(x) { return x; }\nmodule.exports = require('./y.js');\n");
    assert!(own.function.contains("require('./y.js')"), "{}", own.function);
}
