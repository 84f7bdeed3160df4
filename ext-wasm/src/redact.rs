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

/// Words (compared case-insensitively, anywhere) that make a textarea's contents a secret when
/// its label, `name`, `id` or `aria-label` holds one: a textarea is where a private key, a
/// recovery phrase or a token is pasted. "key" also catches "keyboard": hiding a note by
/// mistake costs less than showing a key.
pub const TEXTAREA_HINTS: [&str; 5] = ["secret", "password", "passwd", "token", "key"];

/// Whether a textarea's contents are a secret by its naming: `label` is its accessible name.
pub fn is_secret_textarea(node: &Node, label: &str) -> bool {
    node.t == "textarea"
        && [Some(label), node.attr("name"), node.attr("id"), node.attr("aria-label")]
            .into_iter()
            .flatten()
            .any(|v| {
                let v = v.to_ascii_lowercase();
                TEXTAREA_HINTS.iter().any(|hint| v.contains(hint))
            })
}

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

/// Whether the `safe` level hides `text` or a part of it: a value that looks like a secret,
/// or a card number, secret URL parameter, `Bearer` credential or token-looking word in it.
pub fn hides(text: &str) -> bool {
    looks_secret(text) || matches!(scrub(text), Cow::Owned(_))
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
    let bearer = scrub_bearer(&params);
    let words = scrub_words(&bearer);
    let changed = [&cards, &params, &bearer, &words].iter().any(|c| matches!(c, Cow::Owned(_)));
    if changed { Cow::Owned(words.into_owned()) } else { Cow::Borrowed(s) }
}

/// The shortest credential after `Bearer ` that is hidden (shorter words are prose:
/// "bearer of bad news").
const BEARER_MIN: usize = 8;

/// The word after `Bearer ` (any case: `Authorization: Bearer …` quoted in text, a body or a
/// log line) becomes [`REDACTED`] when it is at least [`BEARER_MIN`] characters long.
fn scrub_bearer(s: &str) -> Cow<'_, str> {
    let lower = s.to_ascii_lowercase();
    if !lower.contains("bearer") {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = lower[from..].find("bearer").map(|i| i + from) {
        let after = at + "bearer".len();
        from = after;
        if at > 0 && b[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        let mut start = after;
        while start < b.len() && (b[start] == b' ' || b[start] == b'\t') {
            start += 1;
        }
        if start == after {
            continue;
        }
        let mut end = start;
        while end < b.len()
            && !b[end].is_ascii_whitespace()
            && !matches!(b[end], b'"' | b'\'' | b',' | b'<' | b'>' | b'}' | b')' | b']')
        {
            end += 1;
        }
        if end - start >= BEARER_MIN && s[start..end] != *REDACTED {
            let buf = out.get_or_insert_with(|| String::with_capacity(s.len()));
            buf.push_str(&s[copied..start]);
            buf.push_str(REDACTED);
            copied = end;
        }
        from = end.max(from);
    }
    finish(s, out, copied)
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

pub(crate) fn is_secret_param(name: &str) -> bool {
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

mod body;
pub use body::body;

#[cfg(test)]
mod tests;
