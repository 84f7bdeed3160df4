//! Small string tools shared by the modules: whitespace collapsing, truncation, quoting.

use std::borrow::Cow;

/// Appends `s` to `out`, turning every run of whitespace or control characters into one
/// space and never starting `out` with a space or doubling one at the seam.
pub fn push_collapsed(out: &mut String, s: &str) {
    let mut pending_space = out.ends_with(' ');
    let mut rest = s;
    while !rest.is_empty() {
        // The longest run of characters that stand for themselves, copied at once.
        let run = plain_run(rest);
        if run > 0 {
            if pending_space && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            pending_space = false;
            out.push_str(&rest[..run]);
        }
        let mut tail = rest[run..].chars();
        if tail.next().is_some() {
            pending_space = true;
        }
        rest = tail.as_str();
    }
    if pending_space && !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// Byte length of the prefix of `s` without whitespace or control characters.
fn plain_run(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii() {
            if b <= b' ' || b == 0x7f {
                break;
            }
            i += 1;
        } else {
            match s[i..].chars().next() {
                Some(ch) if !ch.is_whitespace() && !ch.is_control() => i += ch.len_utf8(),
                _ => break,
            }
        }
    }
    i
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

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary, and
/// whether anything was cut: the one byte-budget cut of the workspace (pages, summaries, HTML).
pub fn truncate_bytes(s: &str, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

/// At most `max` bytes of `s` (whole characters); a cut string ends with `…`.
pub fn clip_bytes(s: &str, max: usize) -> String {
    match truncate_bytes(s, max) {
        (kept, true) => format!("{kept}…"),
        (kept, false) => kept.to_owned(),
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

name_set!(
    /// Elements laid out inline by default: their text joins the surrounding text without a break.
    /// Custom elements count as blocks: CSS makes them inline, but components are nearly always
    /// styled as blocks, and gluing the text of two of them together reads worse than a break.
    /// `label` too, for the same reason (forms stack them).
    INLINE_TAGS,
    /// Whether `tag` is one of [`INLINE_TAGS`].
    is_inline_tag,
    [
        "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i",
        "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt",
        "u", "var", "wbr",
    ]
);

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
        assert_eq!(collapse("\u{a0}é\u{2003}日本\u{85}語\u{7f} "), "é 日本 語");
    }

    /// The run-at-a-time version agrees with the plain per-character rule.
    #[test]
    fn collapse_agrees_with_the_per_character_rule() {
        fn reference(out: &mut String, s: &str) {
            let mut pending = out.ends_with(' ');
            for ch in s.chars() {
                if ch.is_whitespace() || ch.is_control() {
                    pending = true;
                } else {
                    if pending && !out.is_empty() && !out.ends_with(' ') {
                        out.push(' ');
                    }
                    pending = false;
                    out.push(ch);
                }
            }
            if pending && !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        }
        let alphabet = ['a', ' ', '\n', '\u{a0}', 'é', '\u{0}', '日', '\u{2028}', 'Z', '\u{7f}'];
        let mut seed = 0x2545_f491_u32;
        for _ in 0..2000 {
            let mut s = String::new();
            let mut prefix = String::new();
            for k in 0..12 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let ch = alphabet[(seed % alphabet.len() as u32) as usize];
                if k < 2 { prefix.push(ch) } else { s.push(ch) }
            }
            let (mut fast, mut slow) = (prefix.clone(), prefix);
            push_collapsed(&mut fast, &s);
            reference(&mut slow, &s);
            assert_eq!(fast, slow, "{s:?}");
        }
    }

    #[test]
    fn truncate_counts_chars() {
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "abc…");
        assert_eq!(truncate("éé é", 3), "éé…");
        assert_eq!(truncate("日本語テキスト", 2), "日本…");
    }

    #[test]
    fn truncation_keeps_whole_characters() {
        assert_eq!(truncate_bytes("abc", 5), ("abc", false));
        assert_eq!(truncate_bytes("aé", 2), ("a", true));
        assert_eq!(truncate_bytes("aé", 3), ("aé", false));
        assert_eq!(truncate_bytes("", 0), ("", false));
        assert_eq!(clip_bytes("aé", 2), "a…");
        assert_eq!(clip_bytes("ab", 2), "ab");
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
