//! The bundle's shape: one IIFE holding every module as a function, a small runtime that
//! runs each once on first require (the cache makes import cycles terminate, as ES modules
//! do), and a require of the entry. The output has no `import` left, so the same file loads
//! as a content script, a classic page script or service worker, and as a module worker.
//!
//! ```text
//! (function () {
//! var $wx_esm = [1, 0, …];          // which modules are ES modules
//! var $wx_defs = [function ($wx_e, $wx_r) {…}, function (module, exports, require) {…}, …];
//! function $wx_r(id) {…}            // run once, return the exports
//! $wx_r.i / .d / .s / .u            // import interop, export getters, export *, asset URLs
//! $wx_r(0);
//! })();
//! ```

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_codegen::{Codegen, CodegenOptions};

use crate::build::js::{self, Goal};

/// The runtime; `$wx_r` is the require of ids, with helpers as properties.
const RUNTIME: &str = r#"var $wx_cache = [];
function $wx_r(id) {
  var m = $wx_cache[id];
  if (m) return m.exports;
  var def = $wx_defs[id];
  if (typeof def !== "function") throw new Error("Cannot find module '" + id + "'");
  m = $wx_cache[id] = { exports: {} };
  if ($wx_esm[id]) {
    Object.defineProperty(m.exports, "__esModule", { value: true });
    def(m.exports, $wx_r);
  } else {
    def.call(m.exports, m, m.exports, $wx_r);
  }
  return m.exports;
}
$wx_r.d = function (e, getters) {
  Object.keys(getters).forEach(function (k) {
    Object.defineProperty(e, k, { enumerable: true, configurable: true, get: getters[k] });
  });
};
$wx_r.i = function (id) {
  var e = $wx_r(id);
  if ($wx_esm[id] || (e && e.__esModule)) return e;
  var ns = { default: e };
  if (e && (typeof e === "object" || typeof e === "function")) {
    Object.keys(e).forEach(function (k) {
      if (k !== "default") Object.defineProperty(ns, k, { enumerable: true, get: function () { return e[k]; } });
    });
  }
  return ns;
};
$wx_r.s = function (e, from) {
  Object.keys(from).forEach(function (k) {
    if (k !== "default" && !Object.prototype.hasOwnProperty.call(e, k)) {
      Object.defineProperty(e, k, { enumerable: true, get: function () { return from[k]; } });
    }
  });
};
$wx_r.u = function (path) {
  var g = typeof globalThis !== "undefined" ? globalThis : self;
  var rt = (g.browser && g.browser.runtime) || (g.chrome && g.chrome.runtime);
  return rt && rt.getURL ? rt.getURL(path) : "/" + path;
};
"#;

/// One module of the bundle, in id order.
pub struct Part<'a> {
    /// For the comment above the function (project-relative path).
    pub name: &'a str,
    pub function: &'a str,
    pub esm: bool,
}

/// The bundle's text: the modules (entry = id 0) and the runtime in one IIFE.
pub fn bundle_text(parts: &[Part<'_>]) -> String {
    let size: usize = parts.iter().map(|p| p.function.len() + p.name.len() + 16).sum();
    let mut out = String::with_capacity(size + RUNTIME.len() + 256);
    out.push_str("// Bundled by webext-mcp.\n(function () {\nvar $wx_esm = [");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push(if p.esm { '1' } else { '0' });
    }
    out.push_str("];\nvar $wx_defs = [\n");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        // `*/` in a file name would end the comment early.
        out.push_str(&format!("// {}\n", p.name.replace(['\n', '\r'], " ")));
        out.push_str(p.function);
    }
    out.push_str("\n];\n");
    out.push_str(RUNTIME);
    out.push_str("$wx_r(0);\n})();\n");
    out
}

/// `text` (a whole bundle) printed without whitespace and comments, for production builds;
/// `None` when it cannot be (too large or deep for the parser's guard, or a parse error):
/// the bundle is then shipped as it is. No renaming: names in stack traces stay the author's.
pub fn minify(text: &str) -> Option<String> {
    js::guarded(text, || {
        let alloc = Allocator::default();
        let program = js::parse(&alloc, text, Path::new("bundle.js"), Goal::Script)?;
        Ok(Codegen::new().with_options(CodegenOptions::minify()).build(&program).code)
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minified_bundles_keep_their_behaviour_words() {
        let parts = [Part {
            name: "a.js",
            function: "function ($wx_e, $wx_r) {\n  // note\n  const long_name = 'x';\n  console.log(long_name);\n}",
            esm: true,
        }];
        let text = bundle_text(&parts);
        let small = minify(&text).unwrap();
        assert!(small.len() * 10 < text.len() * 9 && !small.contains("\n\n"), "{small}");
        assert!(small.contains("long_name") && !small.contains("// note"), "{small}");
        assert_eq!(minify(&"[".repeat(5000)), None);
    }
}
