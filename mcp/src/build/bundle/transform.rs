//! TypeScript and JSX to plain JavaScript (oxc_transformer + oxc_codegen at the parser's
//! pin): types and type-only imports dropped, enums and namespaces lowered, JSX compiled for
//! React's automatic runtime (or Preact's, by `jsxImportSource`). Nothing is down-levelled:
//! MV3 browsers run modern JavaScript.

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_semantic::SemanticBuilder;
use oxc_transformer::{JsxRuntime, TransformOptions, Transformer};

use super::map::Token;
use crate::build::js::{self, Goal, SyntaxError};

/// How JSX compiles, from `tsconfig.json` (`jsx`, `jsxImportSource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsxConfig {
    /// `react` unless `jsxImportSource` says otherwise (`preact`).
    pub import_source: String,
    /// `"jsx": "react"` in tsconfig: `React.createElement` (or `jsxFactory`).
    pub classic: bool,
    pub factory: Option<String>,
    pub fragment: Option<String>,
}

impl Default for JsxConfig {
    fn default() -> Self {
        JsxConfig { import_source: "react".into(), classic: false, factory: None, fragment: None }
    }
}

impl JsxConfig {
    /// Reads `compilerOptions` of `<project>/tsconfig.json` (or `jsconfig.json`); defaults
    /// when absent or unreadable. `extends` is not followed (paths are: the resolver does).
    pub fn from_project(project: &Path) -> JsxConfig {
        let mut cfg = JsxConfig::default();
        for name in ["tsconfig.json", "jsconfig.json"] {
            let Ok(meta) = std::fs::metadata(project.join(name)) else { continue };
            if meta.len() > 1024 * 1024 {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(project.join(name)) else { continue };
            let Ok(json) = crate::manifest::parse_jsonc(&text) else { continue };
            let Some(opts) = json.get("compilerOptions") else { continue };
            let s = |k: &str| opts.get(k).and_then(|v| v.as_str()).map(str::to_owned);
            if let Some(src) = s("jsxImportSource") {
                cfg.import_source = src;
            }
            cfg.classic = s("jsx").as_deref() == Some("react");
            cfg.factory = s("jsxFactory");
            cfg.fragment = s("jsxFragmentFactory");
            break;
        }
        cfg
    }
}

/// Whether `path` needs [`to_js`] before bundling.
pub fn needs_transform(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(),
        Some("ts" | "tsx" | "mts" | "cts" | "jsx")
    )
}

/// `text` (TypeScript or JSX at `path`) as JavaScript, with the compiler's source-map
/// tokens back to `text` when `maps` (dev builds; else none). Errors carry the first
/// problem's position in `text`.
pub fn to_js(
    text: &str,
    path: &Path,
    jsx: &JsxConfig,
    maps: bool,
) -> Result<(String, Vec<Token>), SyntaxError> {
    js::guarded(text, || js::with_arena(|alloc| to_js_unguarded(alloc, text, path, jsx, maps)))
}

fn to_js_unguarded(
    alloc: &Allocator,
    text: &str,
    path: &Path,
    jsx: &JsxConfig,
    maps: bool,
) -> Result<(String, Vec<Token>), SyntaxError> {
    let mut program = js::parse(alloc, text, path, Goal::Module)?;
    let sem = SemanticBuilder::new().with_excess_capacity(2.0).with_enum_eval(true).build(&program);
    if let Some(e) = sem.diagnostics.first() {
        let offset = e.labels.first().map_or(0, |l| l.offset());
        let (line, column) = js::line_column(text, offset as usize);
        return Err(SyntaxError { message: e.message.to_string(), line, column });
    }
    let scoping = sem.semantic.into_scoping();
    let mut options = TransformOptions::default();
    options.jsx.import_source = Some(jsx.import_source.clone());
    if jsx.classic {
        options.jsx.runtime = JsxRuntime::Classic;
        options.jsx.pragma = jsx.factory.clone();
        options.jsx.pragma_frag = jsx.fragment.clone();
    }
    let ret = Transformer::new(alloc, path, &options).build_with_scoping(scoping, &mut program);
    if let Some(e) = ret.diagnostics.first() {
        let offset = e.labels.first().map_or(0, |l| l.offset());
        let (line, column) = js::line_column(text, offset as usize);
        return Err(SyntaxError { message: e.message.to_string(), line, column });
    }
    let codegen =
        CodegenOptions { source_map_path: maps.then(|| path.to_path_buf()), ..CodegenOptions::default() };
    let printed = Codegen::new().with_options(codegen).build(&program);
    let tokens = printed
        .map
        .map(|m| {
            m.get_tokens()
                .map(|t| [t.get_dst_line(), t.get_dst_col(), t.get_src_line(), t.get_src_col()])
                .collect()
        })
        .unwrap_or_default();
    Ok((printed.code, tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_go_and_jsx_becomes_calls() {
        let ts = "import type { T } from './t';\nimport { used } from './u';\nenum E { A }\nexport const x: T = used(E.A);\n";
        let (out, tokens) = to_js(ts, Path::new("a.ts"), &JsxConfig::default(), false).unwrap();
        assert!(tokens.is_empty());
        assert!(!out.contains("./t"), "{out}");
        assert!(out.contains("./u") && out.contains("E[\"A\"]") || out.contains("E.A"), "{out}");
        let tsx = "export const App = () => <p class=\"x\">hi</p>;";
        let preact = JsxConfig { import_source: "preact".into(), ..JsxConfig::default() };
        let (out, _) = to_js(tsx, Path::new("a.tsx"), &preact, false).unwrap();
        assert!(out.contains("preact/jsx-runtime"), "{out}");
        assert!(!out.contains("<p"), "{out}");
    }

    #[test]
    fn errors_have_positions() {
        let e = to_js("const a: = 1;", Path::new("a.ts"), &JsxConfig::default(), false).unwrap_err();
        assert_eq!(e.line, 1);
    }
}
