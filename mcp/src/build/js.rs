//! The one JavaScript parser of the binary (oxc, chosen as docs/build.md says): parsing
//! with the source type a file name implies, and byte offsets turned into line:column for
//! findings. Callers walk the tree themselves; nothing here evaluates code.

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::Program;
use oxc_parser::{Parser, ParserReturn};
use oxc_span::SourceType;

/// Files larger than this are not parsed (a hostile project could hand us gigabytes).
pub const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;

/// The parser recurses once per nesting level; deeper input is refused before parsing
/// (real code stays far below; `[[[[…` 100 000 deep overflows an 8 MiB stack).
const MAX_NESTING: usize = 1000;

/// Stack for the parser thread: with [`MAX_NESTING`] and [`MAX_PARSE_BYTES`] the remaining
/// deep shapes (`a ? b : c ? …`, `typeof typeof …`) stay well inside it. Reserved, not
/// committed: only the pages a parse touches are used.
const PARSER_STACK: usize = 512 * 1024 * 1024;

/// Runs `f` (which parses `text`) where hostile input cannot take the process down: too
/// large or too deeply nested text is refused, and the parse runs on a thread with a large
/// stack (a stack overflow aborts the whole server, unlike a panic).
pub fn guarded<R: Send>(
    text: &str,
    f: impl FnOnce() -> Result<R, SyntaxError> + Send,
) -> Result<R, SyntaxError> {
    if text.len() > MAX_PARSE_BYTES {
        return Err(SyntaxError {
            message: "the file is larger than 2 MiB, too large to parse".into(),
            line: 1,
            column: 1,
        });
    }
    if let Some(offset) = too_deep(text) {
        let (line, column) = line_column(text, offset);
        return Err(SyntaxError {
            message: format!("nesting deeper than {MAX_NESTING} levels is not parsed"),
            line,
            column,
        });
    }
    std::thread::scope(|s| {
        let worker =
            std::thread::Builder::new().name("js-parse".into()).stack_size(PARSER_STACK).spawn_scoped(s, f);
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(SyntaxError { message: "the parser failed on this file".into(), line: 1, column: 1 })
            }),
            Err(e) => Err(SyntaxError {
                message: format!("cannot start the parser thread: {e}"),
                line: 1,
                column: 1,
            }),
        }
    })
}

/// Where bracket nesting, or a run of prefix operators (`!!!!…`, `- - -…`), first exceeds
/// [`MAX_NESTING`]. Brackets inside strings and comments count too: an over-estimate is fine.
/// Table-driven: it runs before every parse, over every module (a tenth of a React build's
/// time as a `match` per byte).
fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut run = 0usize;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        match BYTE_CLASS[b as usize] {
            OPEN => {
                depth += 1;
                run = 0;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            CLOSE => {
                depth = depth.saturating_sub(1);
                run = 0;
            }
            PREFIX => {
                run += 1;
                if run > MAX_NESTING {
                    return Some(i);
                }
            }
            BLANK => {}
            _ => run = 0,
        }
    }
    None
}

const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
/// A prefix operator (or `?`/`:` of nested conditionals): a run of them nests the parser.
const PREFIX: u8 = 3;
/// Whitespace: neither counts in a run nor ends it.
const BLANK: u8 = 4;

static BYTE_CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    t[b'(' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'{' as usize] = OPEN;
    t[b')' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b'}' as usize] = CLOSE;
    t[b'!' as usize] = PREFIX;
    t[b'~' as usize] = PREFIX;
    t[b'-' as usize] = PREFIX;
    t[b'+' as usize] = PREFIX;
    t[b'?' as usize] = PREFIX;
    t[b':' as usize] = PREFIX;
    t[b' ' as usize] = BLANK;
    t[b'\t' as usize] = BLANK;
    t[b'\n' as usize] = BLANK;
    t[b'\r' as usize] = BLANK;
    t[0x0c] = BLANK;
    t
};

/// Arenas kept between parses. A parse of a large module (react-dom: 610 KB) fills ~10 MB of
/// arena, and fresh pages cost a page fault and a clear each: with a new arena per parse the
/// kernel's share was over a third of a React build's CPU. Reset arenas keep their largest
/// chunk, so the next parse writes into pages already there.
static ARENAS: std::sync::Mutex<Vec<Allocator>> = std::sync::Mutex::new(Vec::new());
const POOLED_ARENAS: usize = 4;
/// An arena grown past this (a huge module) is dropped rather than kept for the process.
const MAX_POOLED_ARENA: usize = 128 * 1024 * 1024;

/// Runs `f` with an arena from the pool (a new one when none is free), then resets it and
/// puts it back.
pub fn with_arena<R>(f: impl FnOnce(&Allocator) -> R) -> R {
    let mut alloc = ARENAS.lock().ok().and_then(|mut pool| pool.pop()).unwrap_or_default();
    let out = f(&alloc);
    alloc.reset();
    if alloc.capacity() <= MAX_POOLED_ARENA
        && let Ok(mut pool) = ARENAS.lock()
        && pool.len() < POOLED_ARENAS
    {
        pool.push(alloc);
    }
    out
}

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
    guarded(text, || module_imports_unguarded(text, path))
}

fn module_imports_unguarded(text: &str, path: &Path) -> Result<Vec<Import>, SyntaxError> {
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
    let (before, _) = webext_mcp_engine::text::truncate_bytes(text, offset);
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
    fn hostile_nesting_is_refused_before_the_parser_sees_it() {
        for text in ["x = ".to_owned() + &"[".repeat(100_000), "y = ".to_owned() + &"!".repeat(100_000) + "x"]
        {
            let err = module_imports(&text, Path::new("deep.js")).expect_err("too deep");
            assert!(err.message.contains("nesting deeper"), "{err:?}");
        }
        let err = module_imports(&"a;".repeat(MAX_PARSE_BYTES), Path::new("big.js")).expect_err("too big");
        assert!(err.message.contains("2 MiB"), "{err:?}");
        // Ordinary nesting parses, on the parser thread.
        let fine = "f(".repeat(200) + &")".repeat(200);
        assert!(module_imports(&fine, Path::new("ok.js")).is_ok());
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
