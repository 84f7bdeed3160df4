//! An order-preserving JSON tree and a JSON-with-comments parser that reports line and column.
//!
//! `manifest.json` files in the wild carry `//` and `/* */` comments (Chrome accepts them) and
//! the occasional trailing comma; key order matters because the resolved manifest is written
//! back out and compared with what Extension.js emits. Duplicate keys follow `JSON.parse`: the
//! last value wins, at the position of the first occurrence.

use super::object::Object;
use super::pretty::write_value;
use super::spans::{Lenient, Recorder, Spans};

/// A JSON value whose objects keep their source key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written in the source (already validated as a JSON number).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Object),
}

impl Json {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The number's value, when it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// Member access that yields `None` on anything but an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// Pretty text with two-space indentation, like `JSON.stringify(v, null, 2)`.
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        write_value(self, 0, &mut out);
        out
    }

    /// Converts to a `serde_json` value (key order follows `serde_json`'s map).
    pub fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_serde).collect()),
            Json::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.to_owned(), v.to_serde())).collect()),
        }
    }
}

/// Where and why the text is not valid JSON. Line and column are 1-based; the column
/// counts characters, not bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at line {}, column {}", self.message, self.line, self.column)
    }
}

/// Parses JSON that may contain `//` and `/* */` comments, trailing commas and a leading
/// byte-order mark.
pub fn parse_jsonc(text: &str) -> Result<Json, SyntaxError> {
    parse_with(text, None).map(|(v, _)| v)
}

/// [`parse_jsonc`] that also records where every key is, the duplicate keys and the lenient
/// syntax met ([`Spans`]), for findings with lines.
pub fn parse_jsonc_spanned(text: &str) -> Result<(Json, Spans), SyntaxError> {
    parse_with(text, Some(Recorder::default()))
}

fn parse_with(text: &str, rec: Option<Recorder>) -> Result<(Json, Spans), SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = Parser { src: text.as_bytes(), text, pos: 0, depth: 0, rec };
    p.skip_trivia()?;
    let value = p.value()?;
    p.skip_trivia()?;
    if p.pos < p.src.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok((value, p.rec.map(|r| r.finish(text)).unwrap_or_default()))
}

const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
    rec: Option<Recorder>,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: &str) -> SyntaxError {
        let pos = pos.min(self.text.len());
        let before = self.text.get(..pos).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        SyntaxError { message: message.to_owned(), line, column }
    }

    fn note(&mut self, kind: Lenient, at: usize) {
        if let Some(r) = self.rec.as_mut() {
            r.lenient(kind, at);
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => match self.src.get(self.pos + 1) {
                    Some(b'/') => {
                        let line_start =
                            self.src[..self.pos].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
                        let alone = self.src[line_start..self.pos].iter().all(u8::is_ascii_whitespace);
                        self.note(
                            if alone { Lenient::LineComment } else { Lenient::InlineComment },
                            self.pos,
                        );
                        while let Some(c) = self.peek() {
                            if c == b'\n' {
                                break;
                            }
                            self.pos += 1;
                        }
                    }
                    Some(b'*') => {
                        let start = self.pos;
                        self.note(Lenient::BlockComment, start);
                        self.pos += 2;
                        loop {
                            match self.peek() {
                                None => return Err(self.error_at(start, "unterminated /* comment")),
                                Some(b'*') if self.src.get(self.pos + 1) == Some(&b'/') => {
                                    self.pos += 2;
                                    break;
                                }
                                Some(_) => self.pos += 1,
                            }
                        }
                    }
                    _ => return Err(self.error("unexpected `/`")),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Json, SyntaxError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input, expected a value")),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'\'') => Err(self.error("strings must use double quotes")),
            Some(_) => Err(self.error("unexpected character, expected a value")),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, SyntaxError> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("unexpected word, expected a value"))
        }
    }

    fn number(&mut self) -> Result<Json, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: digits expected after `.`"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: digits expected in the exponent"));
            }
            self.digits();
        }
        Ok(Json::Number(self.text[start..self.pos].to_owned()))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => return Err(self.error_at(start, "unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let esc = self.peek().ok_or_else(|| self.error_at(start, "unterminated string"))?;
                    self.pos += 1;
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
                        _ => return Err(self.error_at(self.pos - 2, "invalid escape in string")),
                    }
                }
                Some(_) => return Err(self.error("control character in string (escape it, e.g. \\n)")),
            }
        }
    }

    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let (c, next) = webext_mcp_engine::json::unicode_escape(self.src, self.pos)
            .map_err(|at| self.error_at(at, "invalid \\u escape"))?;
        self.pos = next;
        Ok(c)
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Json, SyntaxError> {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        let mut comma = None;
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b']') {
                if let Some(at) = comma {
                    self.note(Lenient::TrailingComma, at);
                }
                self.pos += 1;
                break;
            }
            if let Some(r) = self.rec.as_mut() {
                r.enter_index(items.len(), self.pos);
            }
            items.push(self.value()?);
            if let Some(r) = self.rec.as_mut() {
                r.leave();
            }
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => {
                    comma = Some(self.pos);
                    self.pos += 1;
                }
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.error("unexpected end of input, expected `,` or `]`")),
                Some(_) => return Err(self.error("expected `,` or `]`")),
            }
        }
        self.depth -= 1;
        Ok(Json::Array(items))
    }

    fn object(&mut self) -> Result<Json, SyntaxError> {
        self.enter()?;
        self.pos += 1;
        let mut object = Object::new();
        let mut comma = None;
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(b'}') => {
                    if let Some(at) = comma {
                        self.note(Lenient::TrailingComma, at);
                    }
                    self.pos += 1;
                    break;
                }
                Some(b'"') => {}
                None => return Err(self.error("unexpected end of input, expected a key or `}`")),
                Some(_) => return Err(self.error("expected a double-quoted key")),
            }
            let key_at = self.pos;
            let key = self.string()?;
            self.skip_trivia()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after the key"));
            }
            self.pos += 1;
            self.skip_trivia()?;
            if let Some(r) = self.rec.as_mut() {
                r.enter_key(&key, key_at, object.contains_key(&key));
            }
            let value = self.value()?;
            if let Some(r) = self.rec.as_mut() {
                r.leave();
            }
            object.insert(key, value);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => {
                    comma = Some(self.pos);
                    self.pos += 1;
                }
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.error("unexpected end of input, expected `,` or `}`")),
                Some(_) => return Err(self.error("expected `,` or `}`")),
            }
        }
        self.depth -= 1;
        Ok(Json::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_trailing_commas_and_bom_are_accepted() {
        let v = parse_jsonc("\u{feff}// head\n{\n /* a */ \"a\": 1, // tail\n \"b\": [1, 2,],\n}\n").unwrap();
        assert_eq!(v.get("a"), Some(&Json::Number("1".into())));
        assert_eq!(v.get("b").and_then(Json::as_array).map(<[Json]>::len), Some(2));
    }

    #[test]
    fn comment_markers_inside_strings_are_text() {
        let v = parse_jsonc(r#"{"url": "https://x/*", "c": "// no"}"#).unwrap();
        assert_eq!(v.get("url").and_then(Json::as_str), Some("https://x/*"));
        assert_eq!(v.get("c").and_then(Json::as_str), Some("// no"));
    }

    #[test]
    fn errors_report_line_and_column() {
        let cases: &[(&str, usize, usize)] = &[
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3),
            ("{\n  \"name\": \"x\",\n  \"v\": tru\n}", 3, 8),
            ("{\"a\": 1", 1, 8),
            ("{\n \"é\": 'x'\n}", 2, 7),
            ("{\"a\": \"x\ny\"}", 1, 9),
            ("[1,]]", 1, 5),
            ("/* open", 1, 1),
            ("", 1, 1),
        ];
        for (text, line, column) in cases {
            let e = parse_jsonc(text).unwrap_err();
            assert_eq!((e.line, e.column), (*line, *column), "{text:?}: {e}");
        }
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        let v = parse_jsonc(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(o.get("a"), Some(&Json::Number("3".into())));
    }

    #[test]
    fn pretty_output_matches_json_stringify_layout() {
        let v = parse_jsonc(r#"{"a":[1,{"b":"q\"\n"}],"e":{},"f":[],"g":null,"h":true,"i":-1.5e3}"#).unwrap();
        let expected = "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"q\\\"\\n\"\n    }\n  ],\n  \"e\": {},\n  \"f\": [],\n  \"g\": null,\n  \"h\": true,\n  \"i\": -1.5e3\n}";
        assert_eq!(v.to_pretty(), expected);
        assert_eq!(parse_jsonc(&v.to_pretty()).unwrap(), v);
    }

    #[test]
    fn escapes_and_surrogate_pairs_decode() {
        let v = parse_jsonc(r#"["\u00e9\ud83d\ude00\/"]"#).unwrap();
        assert_eq!(v.as_array().unwrap()[0].as_str(), Some("é😀/"));
    }

    #[test]
    fn spans_give_lines_duplicates_and_lenient_syntax() {
        let text =
            "{\n  // head\n  \"a\": [1, {\"b\": 2}], /* c */\n  \"chromium:p\": [\"x\",],\n  \"a\": 3\n}";
        let (v, spans) = parse_jsonc_spanned(text).unwrap();
        assert_eq!(v.get("a"), Some(&Json::Number("3".into())));
        let at = |p: &str| spans.get(p).map(|p| (p.line, p.column));
        assert_eq!(at("a"), Some((3, 3)));
        assert_eq!(at("a[1].b"), Some((3, 13)));
        assert_eq!(at("chromium:p[0]"), Some((4, 18)));
        assert_eq!(
            spans.duplicates.iter().map(|(p, pos)| (p.as_str(), pos.line)).collect::<Vec<_>>(),
            [("a", 5)]
        );
        let kinds: Vec<Lenient> = spans.lenient.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, [Lenient::LineComment, Lenient::BlockComment, Lenient::TrailingComma]);
        let chrome = crate::manifest::Target::named("chrome");
        assert_eq!(spans.locate("p[0]", chrome).map(|p| p.line), Some(4));
        assert_eq!(spans.locate("p[0]", crate::manifest::Target::named("firefox")), None);
        assert_eq!(spans.locate_near("a[1].b.zz", chrome).map(|p| p.column), Some(13));
    }

    #[test]
    fn large_objects_keep_order_and_last_values_through_the_index() {
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{i}\": {i}, "));
        }
        text.push_str("\"k5\": \"again\"}");
        let v = parse_jsonc(&text).unwrap();
        let mut o = v.as_object().unwrap().clone();
        assert_eq!(o.len(), 100);
        assert_eq!(o.get("k5").and_then(Json::as_str), Some("again"));
        assert_eq!(o.keys().nth(99), Some("k99"));
        assert_eq!(o.remove("k0"), Some(Json::Number("0".into())));
        assert_eq!(o.get("k1"), Some(&Json::Number("1".into())));
        assert_eq!(o.keys().next(), Some("k1"));
        o.insert("new", Json::Null);
        assert_eq!(o.keys().last(), Some("new"));
        assert!(o.get("k0").is_none());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(100_000);
        assert!(parse_jsonc(&text).unwrap_err().message.contains("deep"));
    }
}
