//! Small string tools shared by the modules: whitespace collapsing, truncation, quoting.

use std::borrow::Cow;

/// Appends `s` to `out`, turning every run of whitespace or control characters into one
/// space and never starting `out` with a space or doubling one at the seam.
pub fn push_collapsed(out: &mut String, s: &str) {
    let mut pending_space = out.ends_with(' ');
    for ch in s.chars() {
        if ch.is_whitespace() || ch.is_control() {
            pending_space = true;
        } else {
            if pending_space && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            pending_space = false;
            out.push(ch);
        }
    }
    if pending_space && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// `s` with whitespace collapsed and trimmed.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_collapsed(&mut out, s);
    let kept = out.trim_end().len();
    out.truncate(kept);
    out
}

/// At most `max` characters of `s`; a cut string ends with `…`.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((cut, _)) => {
            let mut out = s[..cut].trim_end().to_owned();
            out.push('…');
            Cow::Owned(out)
        }
    }
}

/// Appends `s` with `"` and `\` escaped, for the inside of a quoted string.
pub fn push_escaped(out: &mut String, s: &str) {
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Elements laid out inline by default: their text joins the surrounding text without a break.
/// Custom elements count as blocks: CSS makes them inline, but components are nearly always
/// styled as blocks, and gluing the text of two of them together reads worse than a break.
/// `label` too, for the same reason (forms stack them).
pub fn is_inline_tag(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "big"
            | "br"
            | "cite"
            | "code"
            | "data"
            | "del"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "ins"
            | "kbd"
            | "mark"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strike"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "tt"
            | "u"
            | "var"
            | "wbr"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_whitespace_and_controls() {
        assert_eq!(collapse("  a \n\t b  "), "a b");
        assert_eq!(collapse("a\u{0}b"), "a b");
        assert_eq!(collapse("   "), "");
        let mut s = String::from("x ");
        push_collapsed(&mut s, "  y");
        assert_eq!(s, "x y");
        let mut s = String::from("x");
        push_collapsed(&mut s, "y ");
        push_collapsed(&mut s, "z");
        assert_eq!(s, "xy z");
    }

    #[test]
    fn truncate_counts_chars() {
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "abc…");
        assert_eq!(truncate("éé é", 3), "éé…");
        assert_eq!(truncate("日本語テキスト", 2), "日本…");
    }

    #[test]
    fn escape_quotes_and_backslashes() {
        let mut s = String::new();
        push_escaped(&mut s, "say \"hi\" \\ now\n");
        assert_eq!(s, "say \\\"hi\\\" \\\\ now ");
    }

    #[test]
    fn inline_tags() {
        assert!(is_inline_tag("span") && is_inline_tag("code"));
        assert!(
            !is_inline_tag("div")
                && !is_inline_tag("my-widget")
                && !is_inline_tag("p")
                && !is_inline_tag("li")
        );
    }
}
