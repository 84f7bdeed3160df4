//! Dev-build source maps: where each piece of a bundle came from, so DevTools and the dev
//! session (`session/sourcemap.rs`) show an error at the module file, line and column the
//! author wrote instead of the bundle's.
//!
//! ```text
//! bundle line/col ─(module's start line)─▶ function ─(link splice)─▶ text the linker got
//!   .js:      = the file as read
//!   .ts/.tsx: compiled JS ─(compiler's tokens)─▶ env-injected TS ─(env splice)─▶ file as read
//! ```
//!
//! Tokens are per module and cached with it (`cache::Entry::tokens`): a project file gets one
//! at every token start, a package file (`node_modules`) one per line, which keeps maps of
//! React-sized dependencies small while lines stay exact.

use oxc_sourcemap::SourceMapBuilder;

use crate::build::splice::{self, Segment};

/// One mapping of a module's function: (line, UTF-16 column) in the function → (line,
/// UTF-16 column) in the module's file, all 0-based.
pub type Token = [u32; 4];

/// Line starts of a text, for byte offset ↔ (line, UTF-16 column).
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<u32>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0u32];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i as u32 + 1));
        Lines { text, starts }
    }

    /// (line, UTF-16 column) of byte `offset`.
    pub fn position(&self, offset: u32) -> (u32, u32) {
        let offset = (offset as usize).min(self.text.len());
        let line = self.starts.partition_point(|&s| s as usize <= offset).saturating_sub(1);
        let start = self.starts[line] as usize;
        (line as u32, utf16_len(self.text.get(start..offset).unwrap_or("")))
    }

    /// Byte offset of (line, UTF-16 column), clamped to the line.
    pub fn offset(&self, line: u32, column: u32) -> u32 {
        let Some(&start) = self.starts.get(line as usize) else { return self.text.len() as u32 };
        let rest = &self.text[start as usize..];
        let mut units = 0u32;
        for (i, c) in rest.char_indices() {
            if units >= column || c == '\n' {
                return start + i as u32;
            }
            units += c.len_utf16() as u32;
        }
        self.text.len() as u32
    }
}

fn utf16_len(s: &str) -> u32 {
    if s.is_ascii() { s.len() as u32 } else { s.encode_utf16().count() as u32 }
}

/// A TypeScript/JSX module's steps back from compiled JavaScript to the file as read.
pub struct Compiled<'a> {
    pub js: &'a str,
    /// The compiler's tokens: (line, column) in `js` → (line, column) in `injected`, in `js`
    /// order.
    pub tokens: &'a [Token],
    /// The text the compiler got (the file with env values injected) and where its pieces
    /// came from in the file.
    pub injected: &'a str,
    pub injected_from: &'a [Segment],
}

/// The tokens of a linked module's `function`, whose own text starts at `body_start` and
/// came from the linker's input by `linked` segments. `original` is the file as read;
/// `compiled` the TypeScript/JSX steps (the linker's input is then `compiled.js`). `fine`:
/// a token at every token start, else at line starts only.
pub fn module_tokens(
    function: &str,
    body_start: u32,
    linked: &[Segment],
    original: &str,
    compiled: Option<&Compiled<'_>>,
    fine: bool,
) -> Vec<Token> {
    let head = function.get(..body_start as usize).unwrap_or("");
    let body = function.get(body_start as usize..).unwrap_or("");
    let original_lines = Lines::new(original);
    let steps = compiled.map(|c| (c, Lines::new(c.js), Lines::new(c.injected)));
    let resolve = |offset: u32| -> (u32, u32) {
        let Some((c, js_lines, injected_lines)) = &steps else { return original_lines.position(offset) };
        let (line, column) = js_lines.position(offset);
        let i = c.tokens.partition_point(|t| (t[0], t[1]) <= (line, column));
        let Some(t) = i.checked_sub(1).and_then(|i| c.tokens.get(i)) else { return (0, 0) };
        let injected = injected_lines.offset(t[2], t[3]);
        original_lines.position(splice::back(c.injected_from, injected))
    };
    // The generated head (the function, its exports and imports) points at the file's start.
    let mut tokens: Vec<Token> = vec![[0, 0, 0, 0]];
    let mut line = head.matches('\n').count() as u32;
    let mut column = 0u32;
    let mut prev = '\n';
    // No token yet on this line (the first non-blank character gets one).
    let mut fresh = true;
    let mut last: Option<(u32, u32, u32)> = None;
    for (i, c) in body.char_indices() {
        let point = !c.is_whitespace()
            && (fresh || (fine && (prev.is_whitespace() || !(is_word(prev) && is_word(c)))));
        if point {
            fresh = false;
            let (sl, sc) = resolve(splice::back(linked, i as u32));
            // A token that says what the one before on the line says adds nothing.
            if last != Some((line, sl, sc)) {
                tokens.push([line, column, sl, sc]);
                last = Some((line, sl, sc));
            }
        }
        if c == '\n' {
            line += 1;
            column = 0;
            fresh = true;
        } else {
            column += c.len_utf16() as u32;
        }
        prev = c;
    }
    tokens
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii()
}

/// One module of a bundle for its map: where its function starts in the bundle, the source
/// name (relative to the map's folder) and text, and its tokens.
pub struct Part<'a> {
    pub start_line: u32,
    pub source: &'a str,
    pub content: &'a str,
    pub tokens: &'a [Token],
}

/// The source map (JSON) of a bundle named `file`.
pub fn bundle_map(file: &str, parts: &[Part<'_>]) -> String {
    let mut b = SourceMapBuilder::default();
    b.set_file(file);
    for p in parts.iter().filter(|p| !p.tokens.is_empty()) {
        let id = b.add_source_and_content(p.source, p.content);
        for t in p.tokens {
            b.add_token(p.start_line + t[0], t[1], t[2], t[3], Some(id), None);
        }
    }
    b.into_sourcemap().to_json_string()
}

/// `source` (a project-relative path, `/`-separated; absolute when outside the project) as
/// a map's `sources` entry for a map at `map_rel` in the output: relative to the map's
/// folder, as browsers resolve it.
pub fn source_name(map_rel: &str, source: &str) -> String {
    if source.starts_with('/') {
        return format!("file://{source}");
    }
    let depth = map_rel.matches('/').count();
    format!("{}{source}", "../".repeat(depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_utf16_and_round_trip() {
        let l = Lines::new("ab\ncé😀d\n");
        assert_eq!(l.position(0), (0, 0));
        // `d` is after `c`, `é` (2 bytes, 1 unit) and an emoji (4 bytes, 2 units).
        assert_eq!(l.position(10), (1, 4));
        assert_eq!(l.offset(1, 4), 10);
        assert_eq!(l.offset(7, 0), 12);
    }

    #[test]
    fn tokens_point_at_the_file_through_the_link_splice() {
        // The linker's input is the file: the import goes, `f` becomes `(0, $wx_m0.f)`.
        let original = "import { f } from './x';\nconst a = 1;\n  f(a);\n";
        let mut edits = vec![
            (oxc_span::Span::new(0, 24), String::new()),
            (oxc_span::Span::new(40, 41), "(0, $wx_m0.f)".into()),
        ];
        let body = splice::splice(original, &mut edits);
        let head = "function ($wx_e, $wx_r) {\nvar $wx_m0 = $wx_r.i(1);\n";
        let function = format!("{head}{}\n}}", body.text);
        let (function, body_start, segments) = (function.as_str(), head.len() as u32, body.segments);
        let tokens = module_tokens(function, body_start, &segments, original, None, true);
        // `const` on function line 3 is file line 1; the call on line 4, column 2, is the
        // file's `f` at 2:2 (0-based), and `(a)` after it follows.
        assert!(tokens.contains(&[3, 0, 1, 0]), "{tokens:?}");
        assert!(tokens.contains(&[4, 2, 2, 2]), "{tokens:?}");
        assert!(tokens.contains(&[4, 15, 2, 3]), "{tokens:?}");
        let coarse = module_tokens(function, body_start, &segments, original, None, false);
        assert!(
            coarse.contains(&[4, 2, 2, 2]) && !coarse.iter().any(|t| t[0] == 4 && t[1] > 2),
            "{coarse:?}"
        );
        assert_eq!(source_name("popup/index.js.map", "src/a.ts"), "../src/a.ts");
    }
}
