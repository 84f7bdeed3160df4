//! Redaction: what the `safe` mode hides.
//!
//! - the whole value of a *sensitive field*: password inputs, `type=hidden` inputs, inputs
//!   whose `autocomplete` has a `cc-…` token, and inputs whose `name` or `id` hints at a card
//!   (`card`, `cc-num`, `cc_num`, `ccnum`, `cvc`, `cvv`);
//! - in any rendered string (names, text, values, URLs), every span that looks like a
//!   payment card number: 13–19 digits, optionally grouped by single spaces or dashes, first
//!   digit 2–6 (the issuer ranges of the card networks in use: this keeps millisecond
//!   timestamps and most ids out), and Luhn-valid. It becomes `<redacted>`.
//!
//! Hand-written scanner, no regex (the wasm size budget).

use std::borrow::Cow;

use crate::table::Node;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Whether the value of this form field is a secret by its kind or its naming.
pub fn is_sensitive_field(node: &Node) -> bool {
    if node.t == "input" {
        let ty = node.input_type();
        if ty == "password" || ty == "hidden" {
            return true;
        }
    }
    if let Some(ac) = node.attr("autocomplete")
        && ac.split_ascii_whitespace().any(|tok| tok.to_ascii_lowercase().starts_with("cc-"))
    {
        return true;
    }
    ["name", "id"].iter().filter_map(|k| node.attr(k)).any(|v| {
        let v = v.to_ascii_lowercase();
        ["card", "cc-num", "cc_num", "ccnum", "cvc", "cvv"].iter().any(|hint| v.contains(hint))
    })
}

/// `s` with every card-number-looking span replaced by `<redacted>`.
pub fn scrub(s: &str) -> Cow<'_, str> {
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
    match out {
        None => Cow::Borrowed(s),
        Some(mut buf) => {
            buf.push_str(&s[copied..]);
            Cow::Owned(buf)
        }
    }
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
    fn sensitive_fields() {
        assert!(is_sensitive_field(&node("input", &[("type", "password")])));
        assert!(is_sensitive_field(&node("input", &[("type", "HIDDEN")])));
        assert!(is_sensitive_field(&node("input", &[("autocomplete", "billing cc-number")])));
        assert!(is_sensitive_field(&node("input", &[("name", "cardNumber")])));
        assert!(is_sensitive_field(&node("input", &[("id", "cvv2")])));
        assert!(is_sensitive_field(&node("input", &[("name", "x_CC-Number")])));
        assert!(!is_sensitive_field(&node("input", &[("name", "email")])));
        assert!(!is_sensitive_field(&node("input", &[])));
    }
}
