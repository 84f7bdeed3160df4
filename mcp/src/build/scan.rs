//! Hand-written scanners for the three kinds of source the native pipeline reads: JavaScript
//! (is it a classic script?), HTML (what does the page load?) and CSS (what does it pull in?).
//! They skip comments and strings; they do not build a syntax tree.

/// A module-only construct found in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EsmUse {
    /// `import`, `export` or `import.meta`.
    pub what: &'static str,
    pub line: usize,
    pub column: usize,
}

/// Finds the first static `import`/`export` statement or `import.meta` in a script.
/// Dynamic `import(…)` is allowed in classic scripts and is not reported.
pub fn find_esm(src: &str) -> Option<EsmUse> {
    let b = src.as_bytes();
    let mut i = 0;
    // The last significant byte before `i`, to tell regex literals from division and
    // property names (`x.import`) from keywords.
    let mut prev: u8 = b'\n';
    // Whether a `/` here would start a regular expression rather than divide.
    let mut regex_ok = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' | b'\'' => {
                i = skip_quoted(b, i, c);
                prev = c;
                regex_ok = false;
            }
            b'`' => {
                i = skip_template(b, i);
                prev = c;
                regex_ok = false;
            }
            b'/' => {
                if regex_ok {
                    i = skip_regex(b, i);
                    regex_ok = false;
                } else {
                    i += 1;
                    regex_ok = true;
                }
                prev = b'/';
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                    i += 1;
                }
                let word = &src[start..i];
                let after_dot = prev == b'.';
                if !after_dot && (word == "import" || word == "export") {
                    let next = next_significant(b, i);
                    let hit = match word {
                        "import" => match next {
                            Some((b'.', j)) => {
                                let k = skip_ws(b, j + 1);
                                src.get(k..).is_some_and(|s| s.starts_with("meta")).then_some("import.meta")
                            }
                            Some((b'{' | b'*' | b'"' | b'\'', _)) => Some("import"),
                            Some((n, _)) if n.is_ascii_alphabetic() || n == b'_' || n == b'$' => {
                                Some("import")
                            }
                            _ => None,
                        },
                        _ => match next {
                            Some((b'{' | b'*', _)) => Some("export"),
                            Some((n, _)) if n.is_ascii_alphabetic() => Some("export"),
                            _ => None,
                        },
                    };
                    if let Some(what) = hit {
                        let (line, column) = position(src, start);
                        return Some(EsmUse { what, line, column });
                    }
                }
                prev = b'a';
                // After these keywords an expression starts, so `/` begins a regex.
                regex_ok = matches!(
                    word,
                    "return"
                        | "typeof"
                        | "case"
                        | "do"
                        | "else"
                        | "in"
                        | "of"
                        | "void"
                        | "throw"
                        | "new"
                        | "delete"
                );
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                    i += 1;
                }
                prev = b'0';
                regex_ok = false;
            }
            b')' | b']' | b'}' => {
                i += 1;
                prev = c;
                regex_ok = c == b'}';
            }
            _ => {
                i += 1;
                prev = c;
                regex_ok = true;
            }
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The next byte that is not whitespace or a comment, and its index.
fn next_significant(b: &[u8], mut i: usize) -> Option<(u8, usize)> {
    loop {
        i = skip_ws(b, i);
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else {
            return b.get(i).map(|&c| (c, i));
        }
    }
}

fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i + 1,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn skip_template(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return i + 1,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                // Skip the substitution, counting braces; strings inside are skipped too.
                i += 2;
                let mut depth = 1;
                while i < b.len() && depth > 0 {
                    match b[i] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        b'"' | b'\'' => {
                            i = skip_quoted(b, i, b[i]);
                            continue;
                        }
                        b'`' => {
                            i = skip_template(b, i);
                            continue;
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    i
}

fn skip_regex(b: &[u8], mut i: usize) -> usize {
    i += 1;
    let mut in_class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b'[' => {
                in_class = true;
                i += 1;
            }
            b']' => {
                in_class = false;
                i += 1;
            }
            b'/' if !in_class => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn position(src: &str, byte: usize) -> (usize, usize) {
    let before = &src[..byte];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// What an HTML element loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HtmlRef {
    /// `<script src>`; `module` when `type="module"`.
    Script { src: String, module: bool },
    /// `<link rel=stylesheet href>`.
    Style(String),
    /// `<link href>` of another kind, `<img src>`.
    Asset(String),
}

/// Lists the `<script src>`, `<link href>` and `<img src>` of a page, skipping comments.
/// Also reports whether the page has inline module code (`<script type="module">` with no src).
pub fn html_refs(html: &str) -> Vec<HtmlRef> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = lower[i..].find('<') {
        let start = i + off;
        if lower[start..].starts_with("<!--") {
            i = lower[start..].find("-->").map_or(lower.len(), |e| start + e + 3);
            continue;
        }
        let name_end = lower[start + 1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(lower.len(), |e| start + 1 + e);
        let name = &lower[start + 1..name_end];
        let tag_end = find_tag_end(html, name_end);
        let attrs = parse_attrs(&html[name_end..tag_end]);
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        match name {
            "script" => {
                if let Some(src) = get("src") {
                    let module = get("type").is_some_and(|t| t.eq_ignore_ascii_case("module"));
                    out.push(HtmlRef::Script { src, module });
                }
                // Skip the script body: it may contain `<` that is not markup.
                i = lower[tag_end..].find("</script").map_or(lower.len(), |e| tag_end + e);
                continue;
            }
            "link" => {
                if let Some(href) = get("href") {
                    let rel = get("rel").unwrap_or_default().to_ascii_lowercase();
                    if rel.split_whitespace().any(|r| r == "stylesheet") {
                        out.push(HtmlRef::Style(href));
                    } else if !rel.split_whitespace().any(|r| {
                        matches!(
                            r,
                            "preconnect"
                                | "dns-prefetch"
                                | "canonical"
                                | "alternate"
                                | "author"
                                | "help"
                                | "license"
                                | "next"
                                | "prev"
                                | "search"
                        )
                    }) {
                        out.push(HtmlRef::Asset(href));
                    }
                }
            }
            "img" => {
                if let Some(src) = get("src") {
                    out.push(HtmlRef::Asset(src));
                }
            }
            "style" => {
                i = lower[tag_end..].find("</style").map_or(lower.len(), |e| tag_end + e);
                continue;
            }
            _ => {}
        }
        i = tag_end.max(start + 1);
    }
    out
}

fn find_tag_end(html: &str, from: usize) -> usize {
    let b = html.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        match (quote, b[i]) {
            (None, b'"' | b'\'') => quote = Some(b[i]),
            (Some(q), c) if c == q => quote = None,
            (None, b'>') => return i + 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Attributes of a start tag, names lowercased, values unquoted and entity-light decoded.
fn parse_attrs(s: &str) -> Vec<(String, String)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/' || b[i] == b'>') {
            i += 1;
        }
        let ns = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        if ns == i {
            i += 1;
            continue;
        }
        let name = s[ns..i].to_ascii_lowercase();
        let j = skip_ws(b, i);
        if b.get(j) != Some(&b'=') {
            out.push((name, String::new()));
            continue;
        }
        i = skip_ws(b, j + 1);
        let value = match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let vs = i + 1;
                let ve = s[vs..].find(q as char).map_or(s.len(), |e| vs + e);
                i = (ve + 1).min(s.len());
                &s[vs..ve]
            }
            _ => {
                let vs = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                &s[vs..i]
            }
        };
        out.push((name, value.replace("&amp;", "&").trim().to_owned()));
    }
    out
}

/// The `url(…)` and `@import` targets of a stylesheet, comments skipped.
pub fn css_refs(css: &str) -> Vec<String> {
    let mut text = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(s) = rest.find("/*") {
        text.push_str(&rest[..s]);
        rest = rest[s + 2..].find("*/").map_or("", |e| &rest[s + 2 + e + 2..]);
    }
    text.push_str(rest);
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = lower[i..].find("url(") {
        let s = i + off + 4;
        let e = lower[s..].find(')').map_or(lower.len(), |e| s + e);
        let raw = text[s..e].trim().trim_matches(|c| c == '"' || c == '\'').trim();
        if !raw.is_empty() {
            out.push(raw.to_owned());
        }
        i = e;
    }
    let mut i = 0;
    while let Some(off) = lower[i..].find("@import") {
        let s = i + off + 7;
        let rest = text[s..].trim_start();
        if let Some(q @ ('"' | '\'')) = rest.chars().next()
            && let Some(e) = rest[1..].find(q)
        {
            out.push(rest[1..1 + e].to_owned());
        }
        i = s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    type EsmCase = (&'static str, Option<(&'static str, usize, usize)>);

    #[test]
    fn esm_detection_table() {
        let cases: &[EsmCase] = &[
            ("console.log(1)", None),
            ("import x from './x.js'", Some(("import", 1, 1))),
            ("\n  import { a } from 'a'", Some(("import", 2, 3))),
            ("import * as ns from 'ns'", Some(("import", 1, 1))),
            ("import './styles.css'", Some(("import", 1, 1))),
            ("import logo from './logo.png'", Some(("import", 1, 1))),
            ("export const a = 1", Some(("export", 1, 1))),
            ("export default function () {}", Some(("export", 1, 1))),
            ("export { a }", Some(("export", 1, 1))),
            ("const u = import.meta.url", Some(("import.meta", 1, 11))),
            // dynamic import is fine in a classic script
            ("const m = await import('./m.js')", None),
            ("import('./m.js').then(f)", None),
            // words inside strings, comments, templates and regexes do not count
            ("const s = 'import x from \"y\"'", None),
            ("// import x from 'y'\nlet a", None),
            ("/* export default 1 */", None),
            ("const t = `import ${'x'} from y`", None),
            ("const r = /import x/g; r.test(s)", None),
            // property names
            ("obj.import(x); obj.export = 1; ({ import: 1, export: 2 })", None),
            ("chrome.bookmarks.import()", None),
            // division is not a regex
            ("const a = b / 2; const c = d / 3;\nimport z from 'z'", Some(("import", 2, 1))),
            ("var exported = 1, importer = 2", None),
        ];
        for (src, expected) in cases {
            let got = find_esm(src).map(|e| (e.what, e.line, e.column));
            assert_eq!(got, *expected, "{src}");
        }
    }

    #[test]
    fn html_reference_table() {
        let html = r#"<!doctype html><html><head>
          <!-- <script src="commented.js"></script> -->
          <link rel="stylesheet" href="popup.css">
          <link rel=icon href=icon.png>
          <link rel="preconnect" href="https://x">
          <script src="popup.js"></script>
          <script type="module" src='./app.mjs'></script>
          <script>if (a < b) { document.write('<img src="fake.png">') }</script>
          <style>.x { background: url(inline.png) }</style>
        </head><body><IMG SRC="logo.svg" alt="a > b"></body></html>"#;
        assert_eq!(
            html_refs(html),
            [
                HtmlRef::Style("popup.css".into()),
                HtmlRef::Asset("icon.png".into()),
                HtmlRef::Script { src: "popup.js".into(), module: false },
                HtmlRef::Script { src: "./app.mjs".into(), module: true },
                HtmlRef::Asset("logo.svg".into()),
            ]
        );
    }

    #[test]
    fn css_reference_table() {
        let css = r#"@import "base.css"; @import url('theme.css');
          /* url(commented.png) */
          .a { background: url( "img/bg.png" ) } .b { mask: url(data:image/svg+xml;x) }"#;
        assert_eq!(css_refs(css), ["theme.css", "img/bg.png", "data:image/svg+xml;x", "base.css"]);
    }
}
