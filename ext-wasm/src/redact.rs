//! Redaction: the one rule set for everything page-derived (snapshots, and through the
//! generated constants in `mcp/src/session/inspect.js`, `extension_source_inspect`'s HTML).
//! One marker, [`REDACTED`], and two levels:
//!
//! `safe` (the default) hides
//! - the whole value of a *sensitive field*: password and `type=hidden` inputs, fields whose
//!   `autocomplete` has a `cc-…` token or is `one-time-code` / `current-password` /
//!   `new-password`, fields whose `name` or `id` hints at a card or a secret ([`FIELD_HINTS`]);
//! - the whole value of any field, `data-*` attribute or textarea that *looks like a secret*
//!   ([`looks_secret`]: a known key prefix such as `sk_live_` or `ghp_`, a JWT, or a long
//!   mixed token of letters and digits);
//! - in any rendered string (names, text, values, URLs): every span that looks like a payment
//!   card number (13–19 digits, optionally grouped by single spaces or dashes, first digit 2–6,
//!   Luhn-valid), the value of secret-looking URL query parameters ([`SECRET_PARAMS`]:
//!   `access_token=`, `token=`, `key=`, `sig=`, `code=`, …), and secret-looking words;
//!
//! `strict` also hides every field value, attribute values longer than
//! [`STRICT_ATTR_MAX`], event-handler attributes (`on*`) and `javascript:` URLs.
//!
//! Hand-written scanners, no regex (the wasm size budget).

use std::borrow::Cow;

use crate::table::Node;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// `name`/`id` fragments that make a field's value a secret.
pub const FIELD_HINTS: [&str; 11] =
    ["card", "cc-num", "cc_num", "ccnum", "cvc", "cvv", "password", "passwd", "secret", "otp", "token"];

/// `autocomplete` tokens whose field's value is a secret (besides every `cc-…` token).
pub const SECRET_AUTOCOMPLETE: [&str; 3] = ["one-time-code", "current-password", "new-password"];

/// URL query (and fragment) parameters whose value is a secret, compared case-insensitively;
/// a name ending in `_token`, `-token`, `_key`, `-key` or `secret` counts too.
pub const SECRET_PARAMS: [&str; 16] = [
    "access_token",
    "token",
    "id_token",
    "refresh_token",
    "key",
    "api_key",
    "apikey",
    "sig",
    "signature",
    "code",
    "secret",
    "client_secret",
    "password",
    "auth",
    "session",
    "sessionid",
];

/// Prefixes of well-known API keys and tokens.
pub const SECRET_PREFIXES: [&str; 12] = [
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "pk_live_",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "AIza",
    "glpat-",
];

/// A word at least this long made of letters and digits (both) counts as a token.
pub const TOKEN_MIN: usize = 24;

/// In `strict`, attribute values longer than this are hidden.
pub const STRICT_ATTR_MAX: usize = 100;

/// How much is hidden; `Off` hides nothing.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Off,
    #[default]
    Safe,
    Strict,
}

/// Whether the value of this form field is a secret by its kind or its naming.
pub fn is_sensitive_field(node: &Node) -> bool {
    if node.t == "input" {
        let ty = node.input_type();
        if ty == "password" || ty == "hidden" {
            return true;
        }
    }
    if let Some(ac) = node.attr("autocomplete")
        && ac.split_ascii_whitespace().any(|tok| {
            let tok = tok.to_ascii_lowercase();
            tok.starts_with("cc-") || SECRET_AUTOCOMPLETE.contains(&tok.as_str())
        })
    {
        return true;
    }
    ["name", "id"].iter().filter_map(|k| node.attr(k)).any(|v| {
        let v = v.to_ascii_lowercase();
        FIELD_HINTS.iter().any(|hint| v.contains(hint))
    })
}

/// The value a field (or textarea) may show at `level`: `None` when it is hidden whole.
pub fn field_value<'s>(node: &Node, value: &'s str, level: Level) -> Option<Cow<'s, str>> {
    match level {
        Level::Off => Some(Cow::Borrowed(value)),
        Level::Strict => None,
        Level::Safe if is_sensitive_field(node) || looks_secret(value) => None,
        Level::Safe => Some(scrub(value)),
    }
}

/// An attribute's value at `level` (for HTML output): `None` drops the attribute.
pub fn attr_value<'s>(name: &str, value: &'s str, level: Level) -> Option<Cow<'s, str>> {
    if level == Level::Off {
        return Some(Cow::Borrowed(value));
    }
    let n = name.to_ascii_lowercase();
    if level == Level::Strict {
        if n.starts_with("on") {
            return None;
        }
        if value.trim_start().get(..11).is_some_and(|p| p.eq_ignore_ascii_case("javascript:"))
            || value.len() > STRICT_ATTR_MAX
        {
            return Some(Cow::Borrowed(REDACTED));
        }
    }
    if n.starts_with("data-") && looks_secret(value) {
        return Some(Cow::Borrowed(REDACTED));
    }
    Some(scrub(value))
}

/// HTTP headers whose whole value is a credential, compared case-insensitively; a name
/// ending in `-token`, `-key` or containing `secret` counts too.
pub const SECRET_HEADERS: [&str; 5] =
    ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"];

/// An HTTP header's value at `level` (network requests): credentials hidden whole, every
/// other value scrubbed like any rendered string; `strict` hides every value.
pub fn header_value<'s>(name: &str, value: &'s str, level: Level) -> Cow<'s, str> {
    let n = name.to_ascii_lowercase();
    match level {
        Level::Off => Cow::Borrowed(value),
        Level::Strict => Cow::Borrowed(REDACTED),
        Level::Safe
            if SECRET_HEADERS.contains(&n.as_str())
                || n.ends_with("-token")
                || n.ends_with("-key")
                || n.contains("secret")
                || looks_secret(value) =>
        {
            Cow::Borrowed(REDACTED)
        }
        Level::Safe => scrub(value),
    }
}

/// A form field's value sent in a request body, by the field's name (the [`FIELD_HINTS`]
/// of `is_sensitive_field`) and its look; `strict` hides every value.
pub fn form_value<'s>(name: &str, value: &'s str, level: Level) -> Cow<'s, str> {
    let n = name.to_ascii_lowercase();
    match level {
        Level::Off => Cow::Borrowed(value),
        Level::Strict => Cow::Borrowed(REDACTED),
        Level::Safe if FIELD_HINTS.iter().any(|h| n.contains(h)) || looks_secret(value) => {
            Cow::Borrowed(REDACTED)
        }
        Level::Safe => scrub(value),
    }
}

/// Whether a whole value looks like a secret: a known key prefix, a JWT, or one long word of
/// letters and digits (see [`is_token`]).
pub fn looks_secret(value: &str) -> bool {
    let v = value.trim();
    !v.contains(char::is_whitespace) && is_token(v)
}

/// No shorter word can be a token: the shortest prefix plus its 12 characters.
const SHORTEST_TOKEN: usize = 16;

fn is_token(word: &str) -> bool {
    if word.len() < SHORTEST_TOKEN {
        return false;
    }
    if SECRET_PREFIXES.iter().any(|p| word.starts_with(p) && word.len() >= p.len() + 12) {
        return true;
    }
    // A JWT: three base64url parts, the first starting with `eyJ` (`{"`).
    if word.starts_with("eyJ") && word.split('.').count() == 3 && word.len() >= 30 {
        return true;
    }
    let b = word.as_bytes();
    b.len() >= TOKEN_MIN
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'))
        && b.iter().any(u8::is_ascii_digit)
        && b.iter().any(u8::is_ascii_alphabetic)
        && b.iter().filter(|c| c.is_ascii_digit()).count() * 8 >= b.len()
}

/// `s` with card numbers, secret URL parameters and secret-looking words replaced.
pub fn scrub(s: &str) -> Cow<'_, str> {
    let cards = scrub_cards(s);
    let params = scrub_params(&cards);
    let words = scrub_words(&params);
    let changed =
        matches!(cards, Cow::Owned(_)) || matches!(params, Cow::Owned(_)) || matches!(words, Cow::Owned(_));
    if changed { Cow::Owned(words.into_owned()) } else { Cow::Borrowed(s) }
}

/// Values of [`SECRET_PARAMS`] after `?`, `&`, `#` or `;` become [`REDACTED`].
fn scrub_params(s: &str) -> Cow<'_, str> {
    if !s.contains('=') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !matches!(b[i], b'?' | b'&' | b'#' | b';') {
            i += 1;
            continue;
        }
        let name_start = i + 1;
        let mut j = name_start;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'-' | b'.')) {
            j += 1;
        }
        if j < b.len() && b[j] == b'=' && is_secret_param(&s[name_start..j]) {
            let value_start = j + 1;
            let mut k = value_start;
            while k < b.len()
                && !matches!(b[k], b'&' | b';' | b'#' | b'"' | b'\'' | b'<' | b'>')
                && !b[k].is_ascii_whitespace()
            {
                k += 1;
            }
            if k > value_start {
                let buf = out.get_or_insert_with(|| String::with_capacity(s.len()));
                buf.push_str(&s[copied..value_start]);
                buf.push_str(REDACTED);
                copied = k;
            }
            i = k;
        } else {
            i = j.max(i + 1);
        }
    }
    finish(s, out, copied)
}

fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_PARAMS.contains(&n.as_str())
        || ["_token", "-token", "_key", "-key", "secret"].iter().any(|suffix| n.ends_with(suffix))
}

/// Whitespace-separated words that [`is_token`] (trimmed of punctuation) become [`REDACTED`].
fn scrub_words(s: &str) -> Cow<'_, str> {
    if s.len() < 15 {
        return Cow::Borrowed(s);
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut start = None;
    let b = s.as_bytes();
    for i in 0..=b.len() {
        let boundary = i == b.len()
            || b[i].is_ascii_whitespace()
            || matches!(b[i], b'"' | b'\'' | b'(' | b')' | b'[' | b']' | b',' | b'<' | b'>' | b'=' | b':');
        match (start, boundary) {
            (None, false) => start = Some(i),
            (Some(a), true) => {
                let word = s[a..i].trim_end_matches(['.', ';', '!', '?']);
                if is_token(word) {
                    let buf = out.get_or_insert_with(|| String::with_capacity(s.len()));
                    buf.push_str(&s[copied..a]);
                    buf.push_str(REDACTED);
                    copied = a + word.len();
                }
                start = None;
            }
            _ => {}
        }
    }
    finish(s, out, copied)
}

fn finish(s: &str, out: Option<String>, copied: usize) -> Cow<'_, str> {
    match out {
        None => Cow::Borrowed(s),
        Some(mut buf) => {
            buf.push_str(&s[copied..]);
            Cow::Owned(buf)
        }
    }
}

/// `s` with every card-number-looking span replaced by `<redacted>`.
fn scrub_cards(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    if bytes.iter().filter(|b| b.is_ascii_digit()).count() < 13 {
        return Cow::Borrowed(s);
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let chunks = digit_group(bytes, i);
        let group_end = chunks.last().map_or(i + 1, |c| c.1);
        let mut a = 0;
        while a < chunks.len() {
            match card_window(bytes, &chunks, a) {
                Some(b) => {
                    let (start, end) = (chunks[a].0, chunks[b].1);
                    let buf = out.get_or_insert_with(|| String::with_capacity(s.len()));
                    buf.push_str(&s[copied..start]);
                    buf.push_str(REDACTED);
                    copied = end;
                    a = b + 1;
                }
                None => a += 1,
            }
        }
        i = group_end;
    }
    finish(s, out, copied)
}

/// The digit runs of the group starting at `start`: runs separated by exactly one space or
/// dash. Returned as byte ranges.
fn digit_group(bytes: &[u8], start: usize) -> Vec<(usize, usize)> {
    let mut chunks = Vec::new();
    let mut i = start;
    loop {
        let run_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        chunks.push((run_start, i));
        let sep = i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'-');
        if sep && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            i += 1;
        } else {
            return chunks;
        }
    }
}

/// The last chunk index `b` such that chunks `a..=b` form a card number, longest first.
fn card_window(bytes: &[u8], chunks: &[(usize, usize)], a: usize) -> Option<usize> {
    let first = bytes[chunks[a].0];
    if !(b'2'..=b'6').contains(&first) {
        return None;
    }
    let mut digits: Vec<u8> = Vec::with_capacity(19);
    let mut ends = Vec::new();
    for (b, &(s, e)) in chunks.iter().enumerate().skip(a) {
        if digits.len() + (e - s) > 19 {
            break;
        }
        digits.extend(bytes[s..e].iter().map(|d| d - b'0'));
        ends.push((b, digits.len()));
    }
    ends.iter().rev().find(|&&(_, n)| n >= 13 && luhn(&digits[..n])).map(|&(b, _)| b)
}

/// The Luhn checksum over decimal digits (values 0–9).
pub fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (k, &d) in digits.iter().rev().enumerate() {
        let mut v = u32::from(d);
        if k % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Attrs;

    fn node(tag: &str, attrs: &[(&str, &str)]) -> Node {
        Node {
            t: tag.into(),
            a: Attrs(attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
            ..Node::default()
        }
    }

    /// read_page writes images as `![alt]` and links as `[text](url)`: a token right before
    /// a bracket was one word with it and passed unredacted.
    #[test]
    fn a_token_next_to_a_bracket_is_redacted() {
        assert_eq!(scrub("![token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c]"), "![token <redacted>]");
        assert_eq!(scrub("[9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c](/x)[e3]"), "[<redacted>](/x)[e3]");
    }

    #[test]
    fn luhn_checksum() {
        let d = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<_>>();
        assert!(luhn(&d("4111111111111111")));
        assert!(luhn(&d("378282246310005")));
        assert!(!luhn(&d("4111111111111112")));
    }

    #[test]
    fn card_numbers_in_text() {
        assert_eq!(scrub("pay 4111 1111 1111 1111 now"), "pay <redacted> now");
        assert_eq!(scrub("4111-1111-1111-1111"), "<redacted>");
        assert_eq!(scrub("4111111111111111"), "<redacted>");
        assert_eq!(scrub("amex 3782 822463 10005."), "amex <redacted>.");
        assert_eq!(scrub("a 5555555555554444 b 4012888888881881"), "a <redacted> b <redacted>");
        assert_eq!(scrub("ref 12 4111 1111 1111 1111"), "ref 12 <redacted>");
    }

    #[test]
    fn non_cards_are_kept() {
        for s in [
            "4111 1111 1111 1112",
            "1700000000000 ms",
            "call 555-123-4567",
            "2024-01-15",
            "4111  1111 1111 1111",
            "12345678901234567890123",
            "",
            "ééé 4111",
        ] {
            assert_eq!(scrub(s), s, "{s}");
        }
    }

    #[test]
    fn no_token_is_shorter_than_the_shortest_prefix_allows() {
        let shortest = SECRET_PREFIXES.iter().map(|p| p.len() + 12).min().unwrap();
        assert_eq!(SHORTEST_TOKEN, shortest.min(TOKEN_MIN).min(30));
    }

    #[test]
    fn secret_url_parameters() {
        for (s, want) in [
            (
                "https://x.test/cb?access_token=abc123&state=1",
                "https://x.test/cb?access_token=<redacted>&state=1",
            ),
            ("/a?token=t0k&key=K&sig=S9", "/a?token=<redacted>&key=<redacted>&sig=<redacted>"),
            ("/oauth#code=xyz", "/oauth#code=<redacted>"),
            ("/p?X-Api-Key=zz", "/p?X-Api-Key=<redacted>"),
            ("/p?stripe_secret=zz;a=1", "/p?stripe_secret=<redacted>;a=1"),
            ("/search?q=token&page=2", "/search?q=token&page=2"),
            ("/p?keyboard=1", "/p?keyboard=1"),
            ("a = b", "a = b"),
        ] {
            assert_eq!(scrub(s), want, "{s}");
        }
    }

    #[test]
    fn secret_looking_words() {
        for (s, want) in [
            ("key sk_live_4eC39HqLyjWDarjtT1zdp7dc here", "key <redacted> here"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123", "<redacted>"),
            ("AKIAIOSFODNN7EXAMPLE", "<redacted>"),
            ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig123abc.", "jwt <redacted>."),
            ("tok: 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c", "tok: <redacted>"),
            ("(Ab3dEf6hIj9kLm2nOp5qRs8tUv)", "(<redacted>)"),
        ] {
            assert_eq!(scrub(s), want, "{s}");
        }
        for s in [
            "__rust_alloc_error_handler_should_panic",
            "std::collections::HashMap",
            "Internationalization",
            "2024-01-15T10:00:00Z",
            "a plain sentence with words",
            "core::arch::x86_64::_mm256_cvtepi32_ps",
        ] {
            assert_eq!(scrub(s), s, "{s}");
        }
    }

    #[test]
    fn field_values_by_level() {
        let text = node("input", &[("type", "text")]);
        let key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
        assert_eq!(field_value(&text, key, Level::Safe), None);
        assert_eq!(field_value(&text, key, Level::Off).as_deref(), Some(key));
        assert_eq!(field_value(&text, "Ada", Level::Safe).as_deref(), Some("Ada"));
        assert_eq!(field_value(&text, "Ada", Level::Strict), None);
        assert_eq!(field_value(&text, "4111 1111 1111 1111", Level::Safe).as_deref(), Some("<redacted>"));
        let otp = node("input", &[("autocomplete", "one-time-code")]);
        assert_eq!(field_value(&otp, "123456", Level::Safe), None);
        let area = node("textarea", &[]);
        assert_eq!(
            field_value(&area, "-----BEGIN KEY----- c2VjcmV0c2VjcmV0c2VjcmV0MTIz", Level::Safe).as_deref(),
            Some("-----BEGIN KEY----- <redacted>")
        );
    }

    #[test]
    fn attribute_values_by_level() {
        let cases: [(&str, &str, Level, Option<&str>); 10] = [
            ("data-api-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", Level::Safe, Some("<redacted>")),
            ("data-id", "42", Level::Safe, Some("42")),
            ("alt", "token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c", Level::Safe, Some("token <redacted>")),
            ("href", "/cb?access_token=abc", Level::Safe, Some("/cb?access_token=<redacted>")),
            ("onclick", "go()", Level::Safe, Some("go()")),
            ("onclick", "go()", Level::Strict, None),
            ("href", " JavaScript:go()", Level::Strict, Some("<redacted>")),
            ("title", &"x".repeat(101), Level::Strict, Some("<redacted>")),
            ("title", "short", Level::Strict, Some("short")),
            (
                "data-api-key",
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
                Level::Off,
                Some("sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
            ),
        ];
        for (name, value, level, want) in cases {
            assert_eq!(attr_value(name, value, level).as_deref(), want, "{name}={value} at {level:?}");
        }
    }

    #[test]
    fn sensitive_fields() {
        assert!(is_sensitive_field(&node("input", &[("type", "password")])));
        assert!(is_sensitive_field(&node("input", &[("type", "HIDDEN")])));
        assert!(is_sensitive_field(&node("input", &[("autocomplete", "billing cc-number")])));
        assert!(is_sensitive_field(&node("input", &[("name", "cardNumber")])));
        assert!(is_sensitive_field(&node("input", &[("id", "cvv2")])));
        assert!(is_sensitive_field(&node("input", &[("name", "x_CC-Number")])));
        assert!(!is_sensitive_field(&node("input", &[("name", "email")])));
        assert!(is_sensitive_field(&node("input", &[("autocomplete", "one-time-code")])));
        assert!(is_sensitive_field(&node("input", &[("autocomplete", "current-password")])));
        assert!(is_sensitive_field(&node("input", &[("name", "api_token")])));
        assert!(!is_sensitive_field(&node("input", &[])));
    }

    #[test]
    fn credential_headers_are_hidden_whole_and_others_scrubbed() {
        use Level::*;
        assert_eq!(header_value("Authorization", "Bearer abc", Safe), REDACTED);
        assert_eq!(header_value("cookie", "sid=1", Safe), REDACTED);
        assert_eq!(header_value("Set-Cookie", "sid=1; HttpOnly", Safe), REDACTED);
        assert_eq!(header_value("X-CSRF-Token", "short", Safe), REDACTED);
        assert_eq!(header_value("Content-Type", "application/json", Safe), "application/json");
        assert_eq!(
            header_value("Referer", "http://a.test/?token=abc&x=1", Safe),
            "http://a.test/?token=<redacted>&x=1"
        );
        assert_eq!(header_value("Authorization", "Bearer abc", Off), "Bearer abc");
        assert_eq!(header_value("Content-Type", "text/html", Strict), REDACTED);
        assert_eq!(form_value("password", "hunter2", Safe), REDACTED);
        assert_eq!(form_value("name", "Ada", Safe), "Ada");
        assert_eq!(form_value("name", "Ada", Strict), REDACTED);
        assert_eq!(form_value("password", "hunter2", Off), "hunter2");
    }
}
