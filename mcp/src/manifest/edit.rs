//! Editing `manifest.json` as text, so that what the user wrote stays as written: comments,
//! key order, browser prefixes, one-line objects and indentation. Used by
//! `extension_add_feature`.
//!
//! ```text
//! text ──tree (byte ranges of every key and value)──▶ insert_member / append_item ──▶ new text
//! ```
//!
//! An edit only inserts: a new key at the end of an object, a new item at the end of an
//! array. The new text follows its neighbours' layout (one line or one member per line, the
//! indentation of the sibling above) and goes after a trailing comma or a comment that ends
//! the last line, so no comment changes owner.

use serde_json::Value;

/// A value's place in the text: `start..end` are byte offsets of the value itself.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug, Clone)]
pub struct Member {
    /// The key as decoded (`chromium:permissions`).
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

/// Why a manifest text could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("manifest.json is not valid JSON at byte {0}")]
    Syntax(usize),
    #[error("manifest.json nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("manifest.json has no `{0}` to add to")]
    Missing(String),
}

/// Nesting deeper than this is refused (a hostile manifest must not overflow the stack).
pub const MAX_DEPTH: usize = 128;

/// Parses the JSONC text into a tree of byte ranges.
pub fn tree(text: &str) -> Result<Node, EditError> {
    let mut p = Parser { b: text.as_bytes(), i: 0 };
    p.skip();
    let root = p.value(0)?;
    p.skip();
    if p.i != p.b.len() {
        return Err(EditError::Syntax(p.i));
    }
    Ok(root)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    /// Skips whitespace and comments.
    fn skip(&mut self) {
        loop {
            while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            if self.b[self.i..].starts_with(b"//") {
                while self.i < self.b.len() && self.b[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if self.b[self.i..].starts_with(b"/*") {
                match find(&self.b[self.i + 2..], b"*/") {
                    Some(at) => self.i += 2 + at + 2,
                    None => self.i = self.b.len(),
                }
            } else {
                return;
            }
        }
    }

    fn string(&mut self) -> Result<(), EditError> {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Ok(());
                }
                _ => self.i += 1,
            }
        }
        Err(EditError::Syntax(start))
    }

    fn value(&mut self, depth: usize) -> Result<Node, EditError> {
        if depth > MAX_DEPTH {
            return Err(EditError::TooDeep);
        }
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.skip();
                    match self.b.get(self.i) {
                        Some(b'}') => break,
                        Some(b'"') => {}
                        _ => return Err(EditError::Syntax(self.i)),
                    }
                    let key_start = self.i;
                    self.string()?;
                    let raw = std::str::from_utf8(&self.b[key_start..self.i])
                        .map_err(|_| EditError::Syntax(key_start))?;
                    let key: String = serde_json::from_str(raw).map_err(|_| EditError::Syntax(key_start))?;
                    self.skip();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(EditError::Syntax(self.i));
                    }
                    self.i += 1;
                    self.skip();
                    let value = self.value(depth + 1)?;
                    members.push(Member { key, key_start, value });
                    self.skip();
                    if self.b.get(self.i) == Some(&b',') {
                        self.i += 1;
                    }
                }
                self.i += 1;
                Ok(Node { start, end: self.i, kind: Kind::Object(members) })
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.skip();
                    match self.b.get(self.i) {
                        Some(b']') => break,
                        None => return Err(EditError::Syntax(self.i)),
                        _ => {}
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip();
                    if self.b.get(self.i) == Some(&b',') {
                        self.i += 1;
                    }
                }
                self.i += 1;
                Ok(Node { start, end: self.i, kind: Kind::Array(items) })
            }
            Some(b'"') => {
                self.string()?;
                Ok(Node { start, end: self.i, kind: Kind::Scalar })
            }
            Some(_) => {
                while self.i < self.b.len() && !b",}]/ \t\r\n".contains(&self.b[self.i]) {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(EditError::Syntax(start));
                }
                Ok(Node { start, end: self.i, kind: Kind::Scalar })
            }
            None => Err(EditError::Syntax(start)),
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The node at `path` (object keys, as written in the source).
pub fn lookup<'a>(root: &'a Node, path: &[&str]) -> Option<&'a Node> {
    let mut node = root;
    for key in path {
        let Kind::Object(members) = &node.kind else { return None };
        node = &members.iter().rev().find(|m| m.key == *key)?.value;
    }
    Some(node)
}

/// The indentation of the line holding byte `at`, when only whitespace precedes `at` on it.
fn own_line_indent(text: &str, at: usize) -> Option<&str> {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let lead = &text[line_start..at];
    lead.chars().all(|c| c == ' ' || c == '\t').then_some(lead)
}

/// The indentation step of the file: the root's first member's indentation, else 2 spaces.
fn indent_unit(text: &str, root: &Node) -> String {
    if let Kind::Object(members) = &root.kind
        && let Some(first) = members.first()
        && let Some(lead) = own_line_indent(text, first.key_start)
        && !lead.is_empty()
    {
        return lead.to_owned();
    }
    "  ".to_owned()
}

/// Where new text goes after the last child ending at `end`: after a trailing comma and a
/// comment on the same line. Returns (insert position, whether a comma already follows).
fn after_last(text: &str, end: usize) -> (usize, bool) {
    let b = text.as_bytes();
    let mut i = end;
    let skip_blank = |i: &mut usize| {
        while *i < b.len() && (b[*i] == b' ' || b[*i] == b'\t') {
            *i += 1;
        }
    };
    skip_blank(&mut i);
    let comma = b.get(i) == Some(&b',');
    if comma {
        i += 1;
    }
    let mut pos = if comma { i } else { end };
    let mut j = i;
    skip_blank(&mut j);
    if b[j..].starts_with(b"//") {
        pos = text[j..].find('\n').map_or(b.len(), |n| j + n);
    } else if b[j..].starts_with(b"/*")
        && let Some(close) = find(&b[j..], b"*/")
        && !text[j..j + close].contains('\n')
    {
        pos = j + close + 2;
    }
    (pos, comma)
}

/// Renders `value` on one line: `{ "a": 1 }`, `["x", "y"]`.
pub fn render_inline(value: &Value) -> String {
    match value {
        Value::Object(o) if o.is_empty() => "{}".into(),
        Value::Object(o) => {
            let parts: Vec<String> =
                o.iter().map(|(k, v)| format!("{}: {}", quote(k), render_inline(v))).collect();
            format!("{{ {} }}", parts.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(render_inline).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// Renders `value` one member per line at `indent` (arrays of scalars stay on one line).
fn render_block(value: &Value, indent: &str, unit: &str) -> String {
    match value {
        Value::Object(o) if !o.is_empty() => {
            let inner = format!("{indent}{unit}");
            let parts: Vec<String> = o
                .iter()
                .map(|(k, v)| format!("{inner}{}: {}", quote(k), render_block(v, &inner, unit)))
                .collect();
            format!("{{\n{}\n{indent}}}", parts.join(",\n"))
        }
        Value::Array(a) if a.iter().any(|v| v.is_object() || v.is_array()) => {
            let inner = format!("{indent}{unit}");
            let parts: Vec<String> =
                a.iter().map(|v| format!("{inner}{}", render_block(v, &inner, unit))).collect();
            format!("[\n{}\n{indent}]", parts.join(",\n"))
        }
        other => render_inline(other),
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Inserts `"key": value` at the end of the object at `object_path`.
pub fn insert_member(
    text: &str,
    object_path: &[&str],
    key: &str,
    value: &Value,
) -> Result<String, EditError> {
    let root = tree(text)?;
    let unit = indent_unit(text, &root);
    let node = lookup(&root, object_path).ok_or_else(|| EditError::Missing(object_path.join(".")))?;
    let Kind::Object(members) = &node.kind else { return Err(EditError::Missing(object_path.join("."))) };
    let children: Vec<(usize, usize)> = members.iter().map(|m| (m.key_start, m.value.end)).collect();
    let is_root = object_path.is_empty();
    let entry = |indent: &str, block: bool| {
        let rendered = if block { render_block(value, indent, &unit) } else { render_inline(value) };
        format!("{}: {rendered}", quote(key))
    };
    Ok(insert_child(text, node, &children, is_root, &unit, entry))
}

/// Appends `value` to the array at `array_path`.
pub fn append_item(text: &str, array_path: &[&str], value: &Value) -> Result<String, EditError> {
    let root = tree(text)?;
    let unit = indent_unit(text, &root);
    let node = lookup(&root, array_path).ok_or_else(|| EditError::Missing(array_path.join(".")))?;
    let Kind::Array(items) = &node.kind else { return Err(EditError::Missing(array_path.join("."))) };
    let children: Vec<(usize, usize)> = items.iter().map(|n| (n.start, n.end)).collect();
    let entry = |indent: &str, block: bool| {
        if block { render_block(value, indent, &unit) } else { render_inline(value) }
    };
    Ok(insert_child(text, node, &children, false, &unit, entry))
}

/// Inserts a child rendered by `entry(indent, one_per_line)` after the last of `children`
/// (start, end) of the container `node`, in the container's layout.
fn insert_child(
    text: &str,
    node: &Node,
    children: &[(usize, usize)],
    is_root: bool,
    unit: &str,
    entry: impl Fn(&str, bool) -> String,
) -> String {
    let mut out = String::with_capacity(text.len() + 128);
    match children.last() {
        None => {
            // `{}` / `[]`: the root gets one member per line, anything else one line.
            let open = node.start + 1;
            let inside = &text[open..node.end - 1];
            if is_root {
                let body = entry(unit, true);
                out.push_str(&text[..open]);
                out.push_str(&format!("\n{unit}{body}\n"));
                out.push_str(inside.trim_start_matches([' ', '\t', '\r', '\n']));
                out.push_str(&text[node.end - 1..]);
            } else {
                out.push_str(&text[..open]);
                out.push_str(&entry("", false));
                out.push_str(&text[open..]);
            }
        }
        Some(&(last_start, last_end)) => {
            let first_start = children[0].0;
            // One member per line when the first child has a line of its own (the root: when
            // the file has more than one line).
            let block = (own_line_indent(text, first_start).is_some()
                && text[node.start..first_start].contains('\n'))
                || (is_root && text[node.start..node.end].contains('\n'));
            let indent = if block {
                own_line_indent(text, last_start).unwrap_or(unit).to_owned()
            } else {
                String::new()
            };
            let (pos, comma) = after_last(text, last_end);
            let body = entry(&indent, block);
            let child = if block { format!("\n{indent}{body}") } else { format!(" {body}") };
            if comma {
                out.push_str(&text[..pos]);
                out.push_str(&child);
                out.push_str(&text[pos..]);
            } else {
                out.push_str(&text[..last_end]);
                out.push(',');
                if pos > last_end {
                    out.push_str(&text[last_end..pos]);
                }
                out.push_str(&child);
                out.push_str(&text[pos..]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn members_follow_the_layout_and_keep_comments() {
        let text = "{\n  // head\n  \"a\": 1, // about a\n  \"o\": { \"x\": 1 }\n}\n";
        let out = insert_member(text, &[], "b", &json!({"k": ["v"]})).unwrap();
        assert_eq!(
            out,
            "{\n  // head\n  \"a\": 1, // about a\n  \"o\": { \"x\": 1 },\n  \"b\": {\n    \"k\": [\"v\"]\n  }\n}\n"
        );
        let out = insert_member(text, &["o"], "y", &json!(true)).unwrap();
        assert!(out.contains("\"o\": { \"x\": 1, \"y\": true }"), "{out}");
        let out = insert_member("{\"a\": 1 // c\n}", &[], "b", &json!(2)).unwrap();
        assert_eq!(out, "{\"a\": 1, // c\n  \"b\": 2\n}");
    }

    #[test]
    fn items_append_in_line_or_per_line() {
        let out = append_item("{ \"p\": [\"a\", \"b\",] }", &["p"], &json!("c")).unwrap();
        assert_eq!(out, "{ \"p\": [\"a\", \"b\", \"c\"] }");
        let out = append_item("{\n  \"p\": [\n    \"a\"\n  ]\n}", &["p"], &json!("c")).unwrap();
        assert_eq!(out, "{\n  \"p\": [\n    \"a\",\n    \"c\"\n  ]\n}");
        let out = append_item("{\"p\": []}", &["p"], &json!("c")).unwrap();
        assert_eq!(out, "{\"p\": [\"c\"]}");
        assert_eq!(insert_member("{}", &[], "a", &json!(1)).unwrap(), "{\n  \"a\": 1\n}");
    }

    #[test]
    fn hostile_text_is_refused_not_panicked_on() {
        assert_eq!(tree(&"[".repeat(10_000)).unwrap_err(), EditError::TooDeep);
        for bad in ["", "{", "{\"a\" 1}", "{\"a\": }", "\"x", "{} x", "/* open"] {
            assert!(tree(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(insert_member("{}", &["nope"], "a", &json!(1)), Err(EditError::Missing(_))));
    }
}
