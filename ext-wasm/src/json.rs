//! A small JSON reader and string writer: the engine's only JSON code.
//!
//! `serde_json` alone would take half of the wasm size budget (float formatting and parsing,
//! generic visitors), and the engine needs little: one parse of the input into a tree of
//! [`Json`] values, and writing a few strings and integers out.
//!
//! Numbers become `f64`; integer literals of up to 15 digits are exact. Nesting is limited to
//! [`MAX_NESTING`] levels so a hostile input cannot exhaust the stack.

use std::borrow::Cow;

/// A parsed JSON value. Objects keep their members in input order. Strings without escapes
/// borrow from the input (most member names and values do), so parsing allocates little.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'a, str>),
    Arr(Vec<Json<'a>>),
    Obj(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// Deepest nesting accepted.
pub const MAX_NESTING: usize = 64;

/// Where and why parsing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the input.
    pub offset: usize,
    pub what: &'static str,
}

/// Parses one JSON document (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Json<'_>, ParseError> {
    let mut p = Parser { s: text, b: text.as_bytes(), i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("trailing characters after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: &'static str) -> ParseError {
        ParseError { offset: self.i, what }
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Json<'a>, ParseError> {
        if depth > MAX_NESTING {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
            None => Err(self.err("unexpected end of input")),
        }
    }

    fn literal(&mut self, word: &str, v: Json<'a>) -> Result<Json<'a>, ParseError> {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected word"))
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json<'a>, ParseError> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Json::Obj(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a member name"));
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.err("expected ':'"));
            }
            self.i += 1;
            let v = self.value(depth + 1)?;
            members.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(members));
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json<'a>, ParseError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.i += 1;
        let start = self.i;
        self.plain_run();
        if self.peek() == Some(b'"') {
            // No escapes: the common case borrows.
            self.i += 1;
            return Ok(Cow::Borrowed(&self.s[start..self.i - 1]));
        }
        let mut out = String::from(&self.s[start..self.i]);
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.i += 1;
                    let esc = self.peek().ok_or_else(|| self.err("unexpected end of input"))?;
                    self.i += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return Err(self.err("bad escape")),
                    }
                }
                Some(_) => return Err(self.err("control character in a string")),
                None => return Err(self.err("unterminated string")),
            }
            let start = self.i;
            self.plain_run();
            out.push_str(&self.s[start..self.i]);
        }
    }

    /// Skips bytes that stand for themselves in a string. It stops at an ASCII byte (or the
    /// end), so the position is a char boundary.
    fn plain_run(&mut self) {
        while self.i < self.b.len() && !matches!(self.b[self.i], b'"' | b'\\' | 0..=0x1f) {
            self.i += 1;
        }
    }

    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let (c, next) =
            unicode_escape(self.b, self.i).map_err(|at| ParseError { offset: at, what: "bad \\u escape" })?;
        self.i = next;
        Ok(c)
    }

    fn number(&mut self) -> Result<Json<'a>, ParseError> {
        let neg = self.peek() == Some(b'-');
        if neg {
            self.i += 1;
        }
        let mut mantissa = 0f64;
        let mut exp10 = 0i32;
        let mut any = false;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            mantissa = mantissa * 10.0 + f64::from(d - b'0');
            self.i += 1;
            any = true;
        }
        if !any {
            return Err(self.err("bad number"));
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            let mut frac = false;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                mantissa = mantissa * 10.0 + f64::from(d - b'0');
                exp10 -= 1;
                self.i += 1;
                frac = true;
            }
            if !frac {
                return Err(self.err("bad number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            let eneg = match self.peek() {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let mut e = 0i32;
            let mut digits = false;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                e = e.saturating_mul(10).saturating_add(i32::from(d - b'0'));
                self.i += 1;
                digits = true;
            }
            if !digits {
                return Err(self.err("bad number"));
            }
            exp10 = exp10.saturating_add(if eneg { -e } else { e });
        }
        let mut v = mantissa;
        if exp10 != 0 {
            v = if exp10 > 0 { v * 10f64.powi(exp10) } else { v / 10f64.powi(-exp10) };
        }
        Ok(Json::Num(if neg { -v } else { v }))
    }
}

impl<'a> Json<'a> {
    /// Member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Appends `s` as a JSON string literal.
/// The character of a JSON `\u` escape, `at` the index just after the `\u`: one UTF-16 unit,
/// or a surrogate pair (`\ud83d\ude00`); a lone surrogate becomes U+FFFD. Returns the
/// character and the index after the escape (after its pair, if it has one), or the index of
/// four characters that are not hex digits. The one decoder of both JSON readers (this one and
/// the JSONC reader of `webext-mcp`'s manifest module).
pub fn unicode_escape(b: &[u8], at: usize) -> Result<(char, usize), usize> {
    let hi = hex4(b, at)?;
    let after = at + 4;
    if (0xD800..0xDC00).contains(&hi) && b[after..].starts_with(b"\\u") {
        let lo = hex4(b, after + 2)?;
        if (0xDC00..0xE000).contains(&lo) {
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return Ok((char::from_u32(c).unwrap_or('\u{FFFD}'), after + 6));
        }
    }
    Ok((char::from_u32(hi).unwrap_or('\u{FFFD}'), after))
}

/// Four hex digits at `at` (no sign, no fewer).
fn hex4(b: &[u8], at: usize) -> Result<u32, usize> {
    let digits = b.get(at..at + 4).ok_or(at)?;
    digits.iter().try_fold(0u32, |v, &d| Ok(v * 16 + (d as char).to_digit(16).ok_or(at)?))
}

pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_escape_table() {
        type Decoded = Result<(char, usize), usize>;
        let cases: &[(&str, Decoded)] = &[
            ("0041", Ok(('A', 4))),
            ("00e9x", Ok(('é', 4))),
            ("d83d\\ude00", Ok(('😀', 10))),
            ("D83D\\u0041", Ok(('\u{FFFD}', 4))),
            ("dc00", Ok(('\u{FFFD}', 4))),
            ("d83d", Ok(('\u{FFFD}', 4))),
            ("d83d\\uzz00", Err(6)),
            ("+041", Err(0)),
            ("00g1", Err(0)),
            ("004", Err(0)),
        ];
        for (text, want) in cases {
            assert_eq!(unicode_escape(text.as_bytes(), 0), *want, "{text}");
        }
    }

    #[test]
    fn parses_documents() {
        let v = parse(r#" {"a":[1,-2.5,3e2,true,false,null],"b":{"c":"x\"y\\z\u00e9\ud83d\ude00"},"e":{}} "#)
            .unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Json::Arr(vec![
                Json::Num(1.0),
                Json::Num(-2.5),
                Json::Num(300.0),
                Json::Bool(true),
                Json::Bool(false),
                Json::Null
            ]))
        );
        assert_eq!(v.get("b").and_then(|b| b.get("c")), Some(&Json::Str("x\"y\\zé😀".into())));
        assert_eq!(v.get("e"), Some(&Json::Obj(vec![])));
        assert_eq!(parse("\"日本\"").unwrap(), Json::Str("日本".into()));
        assert_eq!(parse("\"\\ud800x\"").unwrap(), Json::Str("\u{FFFD}x".into()));
        assert_eq!(parse("123456789012345").unwrap(), Json::Num(123_456_789_012_345.0));
    }

    /// Special bytes are seen wherever they sit in a string.
    #[test]
    fn strings_with_escapes_at_every_offset() {
        for special in ["\\\"", "\\\\", "\\n", "\\u00e9", "é", "日"] {
            for at in 0..20 {
                let body = format!("{}{}{}", "x".repeat(at), special, "yz".repeat(at % 7));
                let doc = format!("\"{body}\"");
                let want: String = serde_json::from_str(&doc).unwrap();
                assert_eq!(parse(&doc).unwrap(), Json::Str(want.into()), "{doc}");
            }
        }
        for raw in ["abcdefg\u{1}hij", "abcdefghijklmno\u{1f}"] {
            assert!(parse(&format!("\"{raw}\"")).is_err(), "{raw:?}");
        }
        assert!(matches!(parse("\"plain text here\"").unwrap(), Json::Str(Cow::Borrowed(_))));
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "tru",
            "\"abc",
            "01x",
            "1.",
            "-",
            "{\"a\":1}}",
            "\"\u{1}\"",
            "[1 2]",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(MAX_NESTING + 2);
        assert_eq!(parse(&deep).unwrap_err().what, "nested too deeply");
    }

    #[test]
    fn writes_strings() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\nd\u{1}é");
        assert_eq!(s, r#""a\"b\\c\nd\u0001é""#);
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\"b\\c\nd\u{1}é");
    }
}
