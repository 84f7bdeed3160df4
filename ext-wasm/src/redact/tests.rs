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

#[test]
fn a_textarea_named_or_labelled_like_a_secret_is_secret() {
    let area = |attrs: &[(&str, &str)]| node("textarea", attrs);
    assert!(is_secret_textarea(&area(&[("name", "private_key")]), ""));
    assert!(is_secret_textarea(&area(&[]), "SSH Key"));
    assert!(is_secret_textarea(&area(&[("aria-label", "Recovery password")]), ""));
    assert!(is_secret_textarea(&area(&[("id", "apiToken")]), "Notes"));
    assert!(!is_secret_textarea(&area(&[("name", "notes")]), "Notes"));
    assert!(!is_secret_textarea(&node("input", &[("name", "key")]), "Key"));
}

#[test]
fn bearer_credentials_and_what_screenshots_mask() {
    assert_eq!(scrub("Authorization: Bearer s3cr3t-value"), "Authorization: Bearer <redacted>");
    assert_eq!(scrub("bearer   abcdefgh1, next"), "bearer   <redacted>, next");
    assert_eq!(scrub("the bearer of bad news"), "the bearer of bad news");
    assert_eq!(scrub("Bearer <redacted>"), "Bearer <redacted>");
    assert!(hides("5555 5555 5555 4444"));
    assert!(hides("sk_live_4eC39HqLyjWDarjtT1zdp7dc"));
    assert!(hides("token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"));
    assert!(!hides("Ada Lovelace"));
}
