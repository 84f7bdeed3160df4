//! Request and response bodies: the same rules as every other page-derived string, plus the
//! fields a body names. A body is often cut (`maxBytes`) and often not quite JSON, so it is
//! scanned, never parsed: a urlencoded form (`user=ada&password=…`) goes field by field
//! through [`super::form_value`]; anywhere else, a JSON member whose name names a secret
//! (`"password": …`, `"access_token": …`, `"session_token": …`) has its value replaced by
//! `"<redacted>"`; then the whole text is scrubbed (cards, secret URL parameters, `Bearer`
//! credentials, token-looking words). `strict` hides any non-empty body whole.

use std::borrow::Cow;

use super::{Level, REDACTED, form_value, is_secret_param, scrub};

/// `text`, a request or response body, at `level`.
pub fn body(text: &str, level: Level) -> Cow<'_, str> {
    match level {
        Level::Off => Cow::Borrowed(text),
        Level::Strict if text.is_empty() => Cow::Borrowed(text),
        Level::Strict => Cow::Borrowed(REDACTED),
        Level::Safe => {
            let fields = if is_form(text) { form_fields(text) } else { json_members(text) };
            let changed = matches!(fields, Cow::Owned(_));
            let scrubbed = scrub(&fields);
            if !changed && matches!(scrubbed, Cow::Borrowed(_)) {
                return Cow::Borrowed(text);
            }
            Cow::Owned(scrubbed.into_owned())
        }
    }
}

/// Whether a member or field named `name` holds a secret: the names stored values and form
/// fields are judged by, and secret URL parameter names.
fn secret_name(name: &str) -> bool {
    crate::stored::secret_key(name) || is_secret_param(name)
}

/// `application/x-www-form-urlencoded`: one line, no spaces, every `&` part a `name=value`.
fn is_form(text: &str) -> bool {
    let t = text.trim_end_matches(['\r', '\n']);
    !t.is_empty()
        && !t.contains(|c: char| c.is_whitespace() || matches!(c, '{' | '[' | '"'))
        && t.split('&').all(|part| part.is_empty() || part.contains('='))
}

fn form_fields(text: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for (i, part) in text.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        let Some((name, value)) = part.split_once('=') else {
            out.push_str(part);
            continue;
        };
        let decoded = name.replace('+', " ");
        let shown = if secret_name(&decoded) {
            Cow::Borrowed(REDACTED)
        } else {
            form_value(&decoded, value, Level::Safe)
        };
        changed |= shown != value;
        out.push_str(name);
        out.push('=');
        out.push_str(&shown);
    }
    if changed { Cow::Owned(out) } else { Cow::Borrowed(text) }
}

/// Every `"name": value` whose name is a secret gets `"<redacted>"` for a string or number
/// value (objects and arrays are walked into, `true`/`false`/`null` kept).
fn json_members(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let name_end = string_end(b, i);
        let mut j = skip_space(b, name_end);
        if j >= b.len() || b[j] != b':' {
            i = name_end;
            continue;
        }
        let name = &text[i + 1..name_end.saturating_sub(1).max(i + 1)];
        j = skip_space(b, j + 1);
        if !secret_name(name) || j >= b.len() {
            i = j;
            continue;
        }
        let value_end = match b[j] {
            b'"' => string_end(b, j),
            b'-' | b'0'..=b'9' => {
                let mut k = j + 1;
                while k < b.len() && matches!(b[k], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    k += 1;
                }
                k
            }
            _ => {
                i = j;
                continue;
            }
        };
        let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
        buf.push_str(&text[copied..j]);
        buf.push('"');
        buf.push_str(REDACTED);
        buf.push('"');
        copied = value_end;
        i = value_end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut buf) => {
            buf.push_str(&text[copied..]);
            Cow::Owned(buf)
        }
    }
}

/// The index after the string literal opening at `start` (a `"`), escapes skipped; the end
/// of the text when it is cut inside the string.
fn string_end(b: &[u8], start: usize) -> usize {
    let mut k = start + 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

fn skip_space(b: &[u8], mut k: usize) -> usize {
    while k < b.len() && b[k].is_ascii_whitespace() {
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_members_named_like_secrets_are_hidden_at_any_depth() {
        let got = body(
            r#"{"user":"ada","password":"hunter2","auth":{"access_token":"at-1","session_token":"st-2","expires":3600},"otp":839201,"ok":true,"token":null}"#,
            Level::Safe,
        );
        assert_eq!(
            got,
            r#"{"user":"ada","password":"<redacted>","auth":{"access_token":"<redacted>","session_token":"<redacted>","expires":3600},"otp":"<redacted>","ok":true,"token":null}"#
        );
        // Pretty-printed, escaped, and cut in the middle of a secret.
        let got = body("{\n  \"note\": \"say \\\"hi\\\"\",\n  \"refresh_token\" : \"rt-\\\"x", Level::Safe);
        assert_eq!(got, "{\n  \"note\": \"say \\\"hi\\\"\",\n  \"refresh_token\" : \"<redacted>\"");
        // A value that merely mentions a secret word is kept.
        assert_eq!(body(r#"{"q":"password reset","n":2}"#, Level::Safe), r#"{"q":"password reset","n":2}"#);
    }

    #[test]
    fn form_bodies_bearer_credentials_and_token_shapes() {
        assert_eq!(
            body("user=ada&password=hunter2&api_key=k1", Level::Safe),
            "user=ada&password=<redacted>&api_key=<redacted>"
        );
        assert_eq!(body("grant=x&code=abc", Level::Safe), "grant=x&code=<redacted>");
        assert_eq!(
            body("send Authorization: Bearer s3cr3t-value now", Level::Safe),
            "send Authorization: Bearer <redacted> now"
        );
        assert_eq!(body("key sk_live_4eC39HqLyjWDarjtT1zdp7dc", Level::Safe), "key <redacted>");
        assert_eq!(body("card 4242 4242 4242 4242", Level::Safe), "card <redacted>");
        assert_eq!(body("plain text", Level::Safe), "plain text");
        assert!(matches!(body("plain text", Level::Safe), Cow::Borrowed(_)));
        assert_eq!(body("password=x", Level::Off), "password=x");
        assert_eq!(body("anything", Level::Strict), REDACTED);
        assert_eq!(body("", Level::Strict), "");
    }
}
