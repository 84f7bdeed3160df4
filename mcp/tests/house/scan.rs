//! A small tokenizer for Rust and JavaScript source, enough to find function bodies and
//! compare them by shape: whitespace and comments are dropped, every identifier that is not a
//! keyword becomes one placeholder. Literals are kept, lowercased (the issue normalises
//! "whitespace and identifiers"): tables of tool definitions or of test cases share their
//! shape but not their data, and are not copies.
//!
//! It is not a parser. It knows what can hide a brace (comments, strings, raw strings, char
//! literals, template literals, regex literals) so that brace matching holds; the rest is
//! punctuation.

/// One token: its normalised text and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    /// The identifier as written (empty for other tokens), for naming what was found.
    pub raw: String,
    pub line: usize,
}

fn token(text: &str, line: usize) -> Token {
    Token { text: text.to_owned(), raw: String::new(), line }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Rust,
    Js,
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    "yield",
];

const JS_KEYWORDS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "let",
    "new",
    "null",
    "of",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
];

/// Tokens after which a `/` starts a regex literal rather than a division.
const JS_BEFORE_REGEX: &[&str] = &[
    "(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^",
    "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "&&", "||", "??",
    "=>", "==", "===", "!=", "!==",
];

pub fn tokens(src: &str, lang: Lang) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    // Open `${` of JS template literals: the brace depth at which each one closes.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    while i < b.len() {
        let c = b[i];
        let s0 = i;
        let start_line = line;
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i = block_comment(b, i, lang, &mut line);
        } else if c == b'"' || (lang == Lang::Js && c == b'\'') {
            i = quoted(b, i + 1, c, &mut line);
            out.push(token(&literal(src, s0, i), start_line));
        } else if lang == Lang::Js && c == b'`' {
            let (next, opened) = template(b, i + 1, &mut line);
            i = next;
            out.push(token(&literal(src, s0, i), start_line));
            if opened {
                depth += 1;
                templates.push(depth);
            }
        } else if lang == Lang::Js && c == b'}' && templates.last() == Some(&depth) {
            // The end of a `${…}`: back inside the template literal.
            templates.pop();
            depth = depth.saturating_sub(1);
            let (next, opened) = template(b, i + 1, &mut line);
            i = next;
            if opened {
                depth += 1;
                templates.push(depth);
            }
        } else if lang == Lang::Rust && c == b'\'' {
            i = rust_quote(src, i, &mut out, start_line);
        } else if lang == Lang::Rust && raw_string_start(b, i).is_some() {
            let (hashes, open) = raw_string_start(b, i).unwrap_or((0, i));
            i = raw_string(b, open, hashes, &mut line);
            out.push(token(&literal(src, s0, i), start_line));
        } else if lang == Lang::Rust && (b[i..].starts_with(b"b\"") || b[i..].starts_with(b"c\"")) {
            i = quoted(b, i + 2, b'"', &mut line);
            out.push(token(&literal(src, s0, i), start_line));
        } else if lang == Lang::Rust && b[i..].starts_with(b"b'") {
            i = quoted(b, i + 2, b'\'', &mut line);
            out.push(token(&literal(src, s0, i), start_line));
        } else if lang == Lang::Js && c == b'/' && regex_allowed(&out) {
            i = regex(b, i + 1);
            out.push(token(&literal(src, s0, i), start_line));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                if b[i] == b'.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
            out.push(token(&literal(src, s0, i), start_line));
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            let s = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80)
            {
                i += 1;
            }
            let word = &src[s..i];
            let keywords = if lang == Lang::Rust { RUST_KEYWORDS } else { JS_KEYWORDS };
            let text = if keywords.contains(&word) { word.to_owned() } else { "$".to_owned() };
            out.push(Token { text, raw: word.to_owned(), line: start_line });
        } else {
            let len = punct_len(&b[i..]);
            let text = String::from_utf8_lossy(&b[i..i + len]).into_owned();
            match c {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            out.push(Token { text, raw: String::new(), line: start_line });
            i += len;
        }
    }
    out
}

/// The source text of a literal (clamped: an unterminated one runs to the end).
/// Lowercased, so that `'\u{FFFD}'` and `'\u{fffd}'` (or `0xFF` and `0xff`) are one literal.
fn literal(src: &str, start: usize, end: usize) -> String {
    src.get(start..end.min(src.len())).unwrap_or("\"").to_lowercase()
}

fn block_comment(b: &[u8], mut i: usize, lang: Lang, line: &mut usize) -> usize {
    let mut nest = 0;
    while i < b.len() {
        if b[i..].starts_with(b"/*") && (nest == 0 || lang == Lang::Rust) {
            nest += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            nest -= 1;
            i += 2;
            if nest == 0 {
                return i;
            }
        } else {
            if b[i] == b'\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// Skips a string body from just after its opening quote; returns the index after the close.
fn quoted(b: &[u8], mut i: usize, quote: u8, line: &mut usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            c => {
                if c == b'\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    i
}

/// Skips a template literal body; stops after the closing backtick (`false`) or after a
/// `${` (`true`: an expression follows, up to its closing brace).
fn template(b: &[u8], mut i: usize, line: &mut usize) -> (usize, bool) {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return (i + 1, false),
            b'$' if b.get(i + 1) == Some(&b'{') => return (i + 2, true),
            c => {
                if c == b'\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    (i, false)
}

/// `'x'`, `'\n'`, `'\u{..}'` are char literals; `'a` is a lifetime or label.
fn rust_quote(src: &str, i: usize, out: &mut Vec<Token>, line: usize) -> usize {
    let b = src.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        // Past the backslash and the escaped character (which may be a quote).
        let mut j = i + 3;
        while j < b.len() && b[j] != b'\'' {
            j += 1;
        }
        out.push(token(&literal(src, i, j + 1), line));
        return j + 1;
    }
    // One (possibly multi-byte) character, then a quote.
    let ch_len = std::str::from_utf8(&b[i + 1..(i + 5).min(b.len())])
        .or_else(|e| std::str::from_utf8(&b[i + 1..i + 1 + e.valid_up_to()]))
        .ok()
        .and_then(|s| s.chars().next())
        .map_or(1, char::len_utf8);
    if b.get(i + 1 + ch_len) == Some(&b'\'') {
        out.push(token(&literal(src, i, i + 2 + ch_len), line));
        return i + 2 + ch_len;
    }
    let mut j = i + 1;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    out.push(token("'$", line));
    j
}

/// `r"`, `r#"`, `br"`, `br#"`: the number of hashes and the index of the opening quote.
fn raw_string_start(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') || b.get(j) == Some(&b'c') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&b'"')).then_some((hashes, j))
}

fn raw_string(b: &[u8], open: usize, hashes: usize, line: &mut usize) -> usize {
    let mut i = open + 1;
    while i < b.len() {
        if b[i] == b'"' && b[i + 1..].iter().take(hashes).filter(|&&h| h == b'#').count() == hashes {
            return i + 1 + hashes;
        }
        if b[i] == b'\n' {
            *line += 1;
        }
        i += 1;
    }
    i
}

fn regex_allowed(out: &[Token]) -> bool {
    out.last().is_none_or(|t| JS_BEFORE_REGEX.contains(&t.text.as_str()))
}

fn regex(b: &[u8], mut i: usize) -> usize {
    let mut class = false;
    while i < b.len() && b[i] != b'\n' {
        match b[i] {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                i += 1;
                while i < b.len() && b[i].is_ascii_alphabetic() {
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

fn punct_len(b: &[u8]) -> usize {
    const LONG: &[&str] = &[
        "===", "!==", "...", "**=", "<<=", ">>=", "??=", "&&=", "||=", "::", "->", "=>", "==", "!=", "<=",
        ">=", "&&", "||", "??", "+=", "-=", "*=", "/=", "%=", "..", "?.",
    ];
    LONG.iter().find(|p| b.starts_with(p.as_bytes())).map_or_else(
        || {
            std::str::from_utf8(&b[..b.len().min(4)])
                .ok()
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8)
        },
        |p| p.len(),
    )
}

/// Whether every `{` of the file has its `}`: a file the tokenizer misreads (a string or
/// regex it did not see) would hide its bodies, so the copy test checks this first.
pub fn balanced(src: &str, lang: Lang) -> bool {
    let mut depth = 0i64;
    for t in tokens(src, lang) {
        match t.text.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// A function body: where it starts and ends and its normalised text.
pub struct Body {
    pub name: String,
    pub first_line: usize,
    pub last_line: usize,
    pub shape: String,
}

/// The bodies of every `fn` (Rust) and every `function` or block-bodied arrow function (JS).
pub fn bodies(src: &str, lang: Lang) -> Vec<Body> {
    let toks = tokens(src, lang);
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let opener = match (lang, t.text.as_str()) {
            (Lang::Rust, "fn") | (Lang::Js, "function") => signature_end(&toks, k + 1),
            (Lang::Js, "=>") => (toks.get(k + 1).map(|n| n.text.as_str()) == Some("{")).then_some(k + 1),
            _ => None,
        };
        let Some(open) = opener else { continue };
        let Some(close) = matching(&toks, open) else { continue };
        let shape: Vec<&str> = toks[open..=close].iter().map(|t| t.text.as_str()).collect();
        let name = match toks.get(k + 1) {
            Some(n) if t.text != "=>" && n.text == "$" => n.raw.clone(),
            _ => "(anonymous)".to_owned(),
        };
        out.push(Body {
            name,
            first_line: toks[open].line,
            last_line: toks[close].line,
            shape: shape.join(" "),
        });
    }
    out
}

/// After `fn`/`function`: the index of the body's `{`, or `None` for a declaration without
/// a body (a trait method, a `fn` pointer type).
fn signature_end(toks: &[Token], mut k: usize) -> Option<usize> {
    let mut nest = 0i32;
    let mut seen_paren = false;
    while let Some(t) = toks.get(k) {
        match t.text.as_str() {
            "(" | "[" => {
                nest += 1;
                seen_paren = true;
            }
            ")" | "]" => nest -= 1,
            "<" if !seen_paren => nest += 1,
            ">" if !seen_paren => nest -= 1,
            "{" if nest == 0 && seen_paren => return Some(k),
            ";" | "}" if nest == 0 => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

fn matching(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.text.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}
