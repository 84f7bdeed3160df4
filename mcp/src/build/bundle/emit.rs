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
//!
//! Production bundles are the same with each function minified on its own (cached with the
//! module) and no comments or line breaks; dev bundles end with their source map's name.

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::Program;
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_minifier::{CompressOptions, MangleOptions, Minifier, MinifierOptions};

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
$wx_r.c = function (text) {
  text = text.split("__WEBEXT_MCP_ROOT__/").join($wx_r.u(""));
  return "data:text/css;charset=utf-8," + encodeURIComponent(text);
};
"#;

/// The content-script contract, appended to content-script bundles (`mount.js` says what it
/// does).
const MOUNT: &str = include_str!("mount.js");

/// What the CSS of a script's imports writes where the extension's root goes: `$wx_r.c`
/// replaces it with `runtime.getURL("")` when the CSS is put in a shadow root or a `data:`
/// URL; files get the manifest's form (`crate::build::bundle::load`).
pub const ROOT_PLACEHOLDER: &str = "__WEBEXT_MCP_ROOT__/";

/// How a bundle starts its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start<'a> {
    /// Requires it (pages, workers, background scripts).
    Require,
    /// Through the content-script contract: `key` names the script in the world's registry
    /// of mounts, `run_at` is when the default export is called, `css` the stylesheet
    /// modules its imports ran, in order (their exports are `data:` URLs, `$wx_r.c`).
    Mount { key: &'a str, run_at: &'a str, css: &'a [usize] },
}

/// One module of the bundle, in id order.
pub struct Part<'a> {
    /// For the comment above the function (project-relative path).
    pub name: &'a str,
    pub function: &'a str,
    pub esm: bool,
}

/// The bundle's text: the modules (entry = id 0) and the runtime in one IIFE, and the line
/// each module's function starts on (0-based, for source maps). `minified`: the parts are
/// minified and the bundle is printed without comments or line breaks.
pub fn bundle_text(parts: &[Part<'_>], minified: bool, start: Start<'_>) -> (String, Vec<u32>) {
    let size: usize = parts.iter().map(|p| p.function.len() + p.name.len() + 16).sum();
    let mut out = String::with_capacity(size + RUNTIME.len() + 256);
    let esm: Vec<&str> = parts.iter().map(|p| if p.esm { "1" } else { "0" }).collect();
    let mut starts = Vec::with_capacity(parts.len());
    if minified {
        out.push_str(&format!("(function(){{var $wx_esm=[{}];var $wx_defs=[", esm.join(",")));
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            starts.push(0);
            out.push_str(p.function);
        }
        out.push_str("];");
        out.push_str(runtime_minified());
        if let Start::Mount { .. } = start {
            out.push_str(mount_minified());
        }
        out.push_str(&start_call(start));
        out.push_str("})();\n");
        return (out, starts);
    }
    out.push_str(&format!(
        "// Bundled by webext-mcp.\n(function () {{\nvar $wx_esm = [{}];\nvar $wx_defs = [\n",
        esm.join(",")
    ));
    let mut line = 4u32;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
            line += 1;
        }
        // A line break in a file name would end the comment early.
        out.push_str(&format!("// {}\n", p.name.replace(['\n', '\r', '\u{2028}', '\u{2029}'], " ")));
        line += 1;
        starts.push(line);
        out.push_str(p.function);
        line += p.function.matches('\n').count() as u32;
    }
    out.push_str("\n];\n");
    out.push_str(RUNTIME);
    if let Start::Mount { .. } = start {
        out.push_str(MOUNT);
    }
    out.push_str(&start_call(start));
    out.push_str("\n})();\n");
    (out, starts)
}

/// The statement that runs the entry.
fn start_call(start: Start<'_>) -> String {
    match start {
        Start::Require => "$wx_r(0);".to_owned(),
        Start::Mount { key, run_at, css } => {
            let ids: Vec<String> = css.iter().map(usize::to_string).collect();
            format!("$wx_mount({}, {}, [{}]);", js_string(key), js_string(run_at), ids.join(","))
        }
    }
}

/// `s` as a JavaScript string literal that cannot end a `<script>` or a line early.
fn js_string(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_else(|_| "\"\"".into())
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The mount runtime for production bundles: its comment lines and indentation dropped, a
/// text pass of microseconds (minifying it took a build's every process a parse, more than
/// the contract may cost; the file has no multi-line string and no comment after code).
fn mount_minified() -> &'static str {
    static SMALL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SMALL.get_or_init(|| {
        MOUNT
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The runtime minified once per process (as written when that fails).
fn runtime_minified() -> &'static str {
    static SMALL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SMALL.get_or_init(|| minify(RUNTIME).unwrap_or_else(|| RUNTIME.to_owned()))
}

/// One module's function (a function expression) minified for production builds: dead
/// code dropped, constants folded, local names shortened, no whitespace or comments; `None`
/// when it cannot be (over the parser's guard, or it does not parse): it is then shipped as
/// it is. Only names local to the function are renamed — its parameters are positional, and
/// the bundle's own `$wx_` names live outside it.
pub fn minify_function(function: &str) -> Option<String> {
    const HEAD: &str = "var $wx_f=";
    let small = minify(&format!("{HEAD}{function};"))?;
    let body = small.trim_end().strip_prefix(HEAD)?;
    Some(body.strip_suffix(';').unwrap_or(body).to_owned())
}

/// Modules up to this size are compressed as well as renamed. Bigger ones are nearly always
/// a package's prebuilt file, already compressed by its own minifier: on react-dom's 610 KB
/// client, renaming alone gives 201 KB in 18 ms, compressing too 198 KB in 50 ms.
pub const COMPRESS_MAX_BYTES: usize = 64 * 1024;

/// A CommonJS file's text as it was read, every name renamed, its top level included (the
/// bundle makes it the body of the module's function, so its names are local there too);
/// `None` when it is not a script (an ES module) or cannot be parsed. Free names (`require`,
/// `module`, `exports`, `process`) keep theirs, so the linker still finds them. Meant for
/// files bigger than [`COMPRESS_MAX_BYTES`], which are renamed, never compressed: their
/// `process.env` tests stay for the linker to replace. `before_print` may edit the renamed
/// tree (its spans are the text's) before it is printed.
pub fn minify_commonjs<T: Send>(
    text: &str,
    before_print: impl for<'a> FnOnce(&'a Allocator, &mut Program<'a>) -> T + Send,
) -> Option<(String, T)> {
    minify_then(text, true, before_print)
}

/// `text` (a script) minified: top-level names are kept (the bundle's pieces refer to each
/// other by them), everything below them renamed (and compressed, up to
/// [`COMPRESS_MAX_BYTES`]); `None` when it cannot be.
fn minify(text: &str) -> Option<String> {
    minify_then(text, false, |_, _| ()).map(|(code, ())| code)
}

/// [`minify`], renaming the top level too when `top_level`, with `before_print` run on the
/// renamed tree.
fn minify_then<T: Send>(
    text: &str,
    top_level: bool,
    before_print: impl for<'a> FnOnce(&'a Allocator, &mut Program<'a>) -> T + Send,
) -> Option<(String, T)> {
    js::guarded(text, || {
        js::with_arena(|alloc| {
            let mut program = js::parse(alloc, text, Path::new("bundle.js"), Goal::Script)?;
            let options = MinifierOptions {
                mangle: Some(MangleOptions { top_level: Some(top_level), ..MangleOptions::default() }),
                mangle_properties: None,
                compress: (text.len() <= COMPRESS_MAX_BYTES).then(CompressOptions::default),
            };
            let scoping = Minifier::new(options).minify(alloc, &mut program).scoping;
            let extra = before_print(alloc, &mut program);
            let codegen = Codegen::new().with_options(CodegenOptions::minify());
            Ok((codegen.with_scoping(scoping).build(&program).code, extra))
        })
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minified_bundles_keep_their_behaviour_words() {
        let function =
            "function ($wx_e, $wx_r) {\n  // note\n  const long_name = 'x';\n  console.log(long_name);\n}";
        let small = minify_function(function).unwrap();
        assert!(small.starts_with("function(") && small.ends_with('}'), "{small}");
        assert!(
            !small.contains("long_name") && !small.contains("// note") && !small.contains('\n'),
            "{small}"
        );
        let parts = [Part { name: "a.js", function: &small, esm: true }];
        let (text, _) = bundle_text(&parts, true, Start::Require);
        assert!(text.len() < 1500 && !text.contains("//") && text.contains(&small), "{text}");
        assert_eq!(minify_function(&"[".repeat(5000)), None);
    }

    /// Small modules lose dead code too; a big (prebuilt) one is only renamed.
    #[test]
    fn small_modules_are_compressed_and_big_ones_renamed() {
        let body = "const long_name = 1; if (false) { never_called(); } console.log(long_name);";
        let small = minify_function(&format!("function () {{ {body} }}")).unwrap();
        assert!(!small.contains("never_called") && !small.contains("long_name"), "{small}");
        let filler = "console.log('x');".repeat(COMPRESS_MAX_BYTES / 16);
        let big = minify_function(&format!("function () {{ {body} {filler} }}")).unwrap();
        assert!(big.contains("never_called") && !big.contains("long_name"), "{}", &big[..200]);
    }

    #[test]
    fn modules_start_on_the_lines_a_source_map_names() {
        let parts = [
            Part { name: "a.js", function: "function () {\nA;\n}", esm: false },
            Part { name: "b\njs", function: "function () {\nB;\n}", esm: false },
        ];
        let (text, starts) = bundle_text(&parts, false, Start::Require);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[starts[0] as usize + 1], "A;");
        assert_eq!(lines[starts[1] as usize + 1], "B;");
    }
}
