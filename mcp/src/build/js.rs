//! The one JavaScript parser of the binary (oxc, chosen in docs/design-notes-21.md): parsing
//! with the source type a file name implies, and byte offsets turned into line:column for
//! findings. Callers walk the tree themselves; nothing here evaluates code.

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::Program;
use oxc_parser::{Parser, ParserReturn};
use oxc_span::SourceType;

/// Files larger than this are not parsed (a hostile project could hand us gigabytes).
pub const MAX_PARSE_BYTES: usize = 4 * 1024 * 1024;

/// A parse that failed: the first syntax error and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// How a script is loaded, which decides how it is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Classic script (`import`/`export` are syntax errors, `import()` is allowed).
    Script,
    /// ES module (also the goal for config files: they may be either, and a module parse
    /// accepts both `export default` and `module.exports =`).
    Module,
}

/// The source type for `path` (TypeScript and JSX from the extension) under `goal`.
pub fn source_type(path: &Path, goal: Goal) -> SourceType {
    let base = SourceType::from_path(path).unwrap_or_default();
    match goal {
        Goal::Script => base.with_script(true),
        Goal::Module => base.with_module(true),
    }
}

/// Parses `text`; `Err` carries the first syntax error (or that the parser gave up).
pub fn parse<'a>(
    alloc: &'a Allocator,
    text: &'a str,
    path: &Path,
    goal: Goal,
) -> Result<Program<'a>, SyntaxError> {
    let ParserReturn { program, diagnostics, panicked, .. } =
        Parser::new(alloc, text, source_type(path, goal)).parse();
    if let Some(e) = first_error(text, &diagnostics) {
        return Err(e);
    }
    if panicked {
        return Err(SyntaxError { message: "the parser stopped early".into(), line: 1, column: 1 });
    }
    Ok(program)
}

fn first_error(text: &str, diagnostics: &oxc_diagnostics::Diagnostics) -> Option<SyntaxError> {
    let first = diagnostics.errors().next()?;
    let offset = first.labels.first().map_or(0, |l| l.offset());
    let (line, column) = line_column(text, offset as usize);
    Some(SyntaxError { message: first.message.to_string(), line, column })
}

/// A static `import … from 'x'` / `export … from 'x'` of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub specifier: String,
    pub line: usize,
    pub column: usize,
}

/// The static imports of module `text`, in source order (dynamic `import()` is left to run
/// time: the browser resolves it, or the extension handles the failure).
pub fn module_imports(text: &str, path: &Path) -> Result<Vec<Import>, SyntaxError> {
    let alloc = Allocator::default();
    let ret = Parser::new(&alloc, text, source_type(path, Goal::Module)).parse();
    if let Some(e) = first_error(text, &ret.diagnostics) {
        return Err(e);
    }
    let mut found: Vec<(u32, String)> = Vec::new();
    for (spec, uses) in ret.module_record.requested_modules.iter() {
        for u in uses.iter().filter(|u| !u.is_type) {
            found.push((u.span.start, spec.as_str().to_owned()));
        }
    }
    found.sort();
    let mut seen = std::collections::HashSet::new();
    found.retain(|(_, spec)| seen.insert(spec.clone()));
    Ok(found
        .into_iter()
        .map(|(at, specifier)| {
            let (line, column) = line_column(text, at as usize);
            Import { specifier, line, column }
        })
        .collect())
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_and_script_goals() {
        let alloc = Allocator::default();
        assert!(parse(&alloc, "export default 1", Path::new("a.js"), Goal::Module).is_ok());
        // Strict-mode rules are semantic checks, not the parser's: sloppy code still parses.
        assert!(parse(&alloc, "with (o) { x = 1 }", Path::new("a.js"), Goal::Module).is_ok());
        let err =
            parse(&alloc, "let a = 1;\nlet = = 2", Path::new("a.js"), Goal::Script).expect_err("syntax");
        assert_eq!(err.line, 2);
        assert!(parse(&alloc, "let x: number = 1", Path::new("a.ts"), Goal::Module).is_ok());
    }

    #[test]
    fn static_imports_in_order() {
        let src = "import a from './a.js';\nexport { b } from \"../b.mjs\";\nimport './a.js';\nconst c = await import('./c.js');\nimport x from 'pkg';";
        let got: Vec<(String, usize)> = module_imports(src, Path::new("m.js"))
            .unwrap()
            .into_iter()
            .map(|i| (i.specifier, i.line))
            .collect();
        assert_eq!(got, [("./a.js".into(), 1), ("../b.mjs".into(), 2), ("pkg".into(), 5)]);
    }

    #[test]
    fn positions_are_one_based_characters() {
        assert_eq!(line_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_column("x", 99), (1, 2));
    }
}
