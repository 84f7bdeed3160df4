//! CSS imported from scripts: plain stylesheets are collected into the bundle's one CSS file
//! (relative `@import`s inlined, `url()`s copied as assets), CSS modules (`*.module.css`)
//! get their class names made unique per file and export the mapping. A small scanner, not
//! a CSS parser: comments and strings are skipped, and class selectors are only renamed
//! outside declaration blocks (so `url(a.png)` and `1.5em` stay as they are).

use std::collections::BTreeMap;

/// Renames the class selectors of CSS module `css` with `suffix`; returns the new text and
/// the mapping (original → unique name; `foo-bar` also as `fooBar`). `:global(.x)` keeps `x`.
pub fn scope_classes(css: &str, suffix: &str) -> (String, BTreeMap<String, String>) {
    let b = css.as_bytes();
    let mut out = String::with_capacity(css.len() + 64);
    let mut map = BTreeMap::new();
    // One entry per open `{`: whether its contents are declarations.
    let mut blocks: Vec<bool> = Vec::new();
    let mut prelude_start = 0usize;
    let mut global_depth: Option<usize> = None;
    let mut parens = 0usize;
    let mut i = 0usize;
    let mut copied = 0usize;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = css[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        if c == b'"' || c == b'\'' {
            i = skip_string(b, i);
            continue;
        }
        let in_declarations = blocks.last().copied().unwrap_or(false);
        match c {
            b'{' => {
                let prelude = css[prelude_start..i].trim_start().to_ascii_lowercase();
                let rules_inside = [
                    "@media",
                    "@supports",
                    "@container",
                    "@layer",
                    "@document",
                    "@scope",
                    "@keyframes",
                    "@-webkit-keyframes",
                ]
                .iter()
                .any(|a| prelude.starts_with(a));
                blocks.push(!rules_inside);
                prelude_start = i + 1;
            }
            b'}' => {
                blocks.pop();
                prelude_start = i + 1;
            }
            b';' => prelude_start = i + 1,
            b'(' => parens += 1,
            b')' => {
                parens = parens.saturating_sub(1);
                if global_depth.is_some_and(|d| parens < d) {
                    global_depth = None;
                }
            }
            b':' if !in_declarations && css[i..].starts_with(":global(") => {
                out.push_str(&css[copied..i]);
                i += ":global(".len();
                copied = i;
                parens += 1;
                global_depth = Some(parens);
                // Drop the wrapper's closing parenthesis too.
                if let Some(close) = matching_paren(b, i) {
                    out.push_str(&css[copied..close]);
                    let inner_end = close;
                    copied = inner_end + 1;
                    i = inner_end + 1;
                    parens -= 1;
                    global_depth = None;
                }
                continue;
            }
            b'.' if !in_declarations && global_depth.is_none() => {
                let start = i + 1;
                let end = ident_end(b, start);
                let prev_digit = i > 0 && b[i - 1].is_ascii_digit();
                if end > start && !b[start].is_ascii_digit() && !prev_digit {
                    let name = &css[start..end];
                    let unique = format!("{name}_{suffix}");
                    out.push_str(&css[copied..start]);
                    out.push_str(&unique);
                    copied = end;
                    let camel = camel_case(name);
                    if camel != name {
                        map.entry(camel).or_insert_with(|| unique.clone());
                    }
                    map.insert(name.to_owned(), unique);
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&css[copied.min(css.len())..]);
    (out, map)
}

fn skip_string(b: &[u8], start: usize) -> usize {
    let q = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q || c == b'\n' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

fn matching_paren(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' => depth += 1,
            b')' => {
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

fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b'_' || b[i] >= 0x80) {
        i += 1;
    }
    i
}

fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        if ch == '-' {
            upper = true;
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// `url(...)` references and `@import "x"` of `css`: (byte range of the reference text,
/// the reference), for rewriting. Data URLs, absolute URLs and fragments are left out.
pub fn references(css: &str) -> Vec<(std::ops::Range<usize>, String, bool)> {
    let b = css.as_bytes();
    let lower = css.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i = css[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        let import = lower[i..].starts_with("@import");
        if lower[i..].starts_with("url(") || import {
            let mut j = i + if import { 7 } else { 4 };
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if import && lower[j..].starts_with("url(") {
                j += 4;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
            }
            let (start, end) = if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                let e = skip_string(b, j);
                (j + 1, e.saturating_sub(1).max(j + 1))
            } else {
                let e = css[j..]
                    .find(|c: char| c == ')' || c == ';' || c.is_whitespace())
                    .map_or(b.len(), |e| j + e);
                (j, e)
            };
            let raw = css[start..end].to_owned();
            let keep = raw.is_empty()
                || raw.starts_with("data:")
                || raw.starts_with('#')
                || raw.contains("://")
                || raw.starts_with("//");
            if !keep {
                out.push((start..end, raw, import));
            }
            i = end.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_scoped_outside_declarations_only() {
        let css = "/* .no */ .title, .box-inner > p { background: url(a.png); width: 1.5em }\n@media (min-width: 1px) { .title { color: red } }\n:global(.keep) .x { content: \".no\" }";
        let (out, map) = scope_classes(css, "abc");
        assert!(
            out.contains(".title_abc, .box-inner_abc > p { background: url(a.png); width: 1.5em }"),
            "{out}"
        );
        assert!(out.contains("{ .title_abc { color: red } }"), "{out}");
        assert!(out.contains(".keep .x_abc { content: \".no\" }"), "{out}");
        assert!(out.contains("/* .no */"), "{out}");
        assert_eq!(map["title"], "title_abc");
        assert_eq!(map["boxInner"], "box-inner_abc");
        assert!(!map.contains_key("keep") && !map.contains_key("no"), "{map:?}");
    }

    #[test]
    fn references_skip_data_and_absolute_urls() {
        let css = "@import './base.css';\na { b: url(\"img/x.png\") url(data:image/png;base64,AA) url(https://e.x/y) }";
        let refs: Vec<(String, bool)> = references(css).into_iter().map(|(_, r, i)| (r, i)).collect();
        assert_eq!(refs, [("./base.css".to_owned(), true), ("img/x.png".to_owned(), false)]);
    }
}
