//! Redaction of stored values (localStorage, sessionStorage): the same rules as every other
//! page-derived output ([`crate::redact`]), applied to a key and its value. A value is hidden
//! whole when its key names a secret ([`KEY_HINTS`]) or the value itself looks like one; any
//! other value keeps its text with secret-looking spans (card numbers, tokens, secret URL
//! parameters) replaced.

use std::borrow::Cow;

use crate::redact::{FIELD_HINTS, Level, REDACTED, looks_secret, scrub};

/// Key fragments (compared case-insensitively) that make a stored value a secret, besides the
/// form-field hints ([`FIELD_HINTS`]).
pub const KEY_HINTS: [&str; 10] =
    ["auth", "session", "jwt", "apikey", "api_key", "api-key", "credential", "bearer", "csrf", "xsrf"];

/// Whether `key` names a secret.
pub fn secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    KEY_HINTS.iter().chain(FIELD_HINTS.iter()).any(|h| k.contains(h))
}

/// The value shown for `key` at `level`, and whether anything was hidden.
pub fn stored_value<'s>(key: &str, value: &'s str, level: Level) -> (Cow<'s, str>, bool) {
    match level {
        Level::Off => (Cow::Borrowed(value), false),
        Level::Strict => (Cow::Borrowed(REDACTED), true),
        Level::Safe if secret_key(key) || looks_secret(value) => (Cow::Borrowed(REDACTED), true),
        Level::Safe => {
            let out = scrub(value);
            let changed = matches!(out, Cow::Owned(_));
            (out, changed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_and_token_values_are_hidden_whole() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl";
        for (key, value) in [
            ("authToken", "short"),
            ("SESSION_ID", "abc"),
            ("user", jwt),
            ("stripe", "sk_live_0123456789abcdefghij"),
            ("my-password", "hunter2"),
        ] {
            assert_eq!(stored_value(key, value, Level::Safe), (Cow::Borrowed(REDACTED), true), "{key}");
        }
    }

    #[test]
    fn other_values_keep_their_text_with_secret_spans_replaced() {
        assert_eq!(stored_value("theme", "dark", Level::Safe), (Cow::Borrowed("dark"), false));
        let (v, hidden) = stored_value("prefs", "{\"next\":\"/cb?code=abcdef123456&x=1\"}", Level::Safe);
        assert!(hidden && v.contains(REDACTED) && v.contains("x=1"), "{v}");
        assert_eq!(stored_value("authToken", "s", Level::Off), (Cow::Borrowed("s"), false));
        assert!(stored_value("theme", "dark", Level::Strict).1);
    }
}
