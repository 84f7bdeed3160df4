//! How `find_by_text` decides that a text matches its query.
//!
//! Literal queries are matched here, in Rust: whitespace-normalized, whole text (`exact`) or
//! substring, with case folding. ASCII texts fold with ASCII rules (nearly every text on
//! nearly every page, and no tables needed). Anything beyond ASCII folds with Unicode rules,
//! which the engine borrows from JavaScript's `RegExp` (flags `iu`) instead of carrying
//! Unicode's case tables in its wasm (about a fifth of its size). `/regex/flags` queries are
//! JavaScript's `RegExp` too (the background splits the query and checks the pattern; see
//! `extension/src/reading.js`).
//!
//! A pattern runs on at most [`MAX_TESTED`] characters of each text: the pattern is the
//! agent's, the text the page's, and a backtracking engine's cost grows with the text.
//! Native builds (the engine's own tests) have no JavaScript: Unicode folding uses Rust's
//! `to_lowercase` there and a regex query matches nothing.

use crate::table::Find;

/// The most characters of one text a JavaScript pattern is run on.
pub const MAX_TESTED: usize = 2000;

/// A compiled query.
pub struct Matcher {
    needle: String,
    exact: bool,
    case_sensitive: bool,
    /// The JavaScript pattern: the regex query, or the literal query folded by Unicode rules.
    pattern: Option<js::Pattern>,
    regex: bool,
}

impl Matcher {
    /// The matcher for `q`, or `None` when the query is empty.
    pub fn new(q: &Find) -> Option<Matcher> {
        if let Some(source) = q.regex.as_deref() {
            // `g` and `y` make `test` remember where it stopped: one text must not affect the next.
            let mut flags: String = q.flags.chars().filter(|&c| c != 'g' && c != 'y').collect();
            if !q.case_sensitive && !flags.contains('i') {
                flags.push('i');
            }
            return Some(Matcher {
                needle: String::new(),
                exact: false,
                case_sensitive: true,
                pattern: js::Pattern::new(source, &flags),
                regex: true,
            });
        }
        let needle = normalize(&q.query);
        if needle.is_empty() {
            return None;
        }
        let pattern = if q.case_sensitive {
            None
        } else {
            let body = escape(&needle);
            let source = if q.exact { format!("^(?:{body})$") } else { body };
            js::Pattern::new(&source, "iu")
        };
        let needle = if q.case_sensitive { needle } else { needle.to_ascii_lowercase() };
        Some(Matcher { needle, exact: q.exact, case_sensitive: q.case_sensitive, pattern, regex: false })
    }

    /// Whether `hay` (any text; whitespace is normalized here) matches.
    pub fn matches(&self, hay: &str) -> bool {
        let hay = normalize(hay);
        if self.regex {
            return self.pattern.as_ref().is_some_and(|p| p.test(capped(&hay)));
        }
        if self.case_sensitive {
            return self.literal(&hay);
        }
        if hay.is_ascii() && self.needle.is_ascii() {
            return self.literal(&hay.to_ascii_lowercase());
        }
        match &self.pattern {
            Some(p) => p.test(capped(&hay)),
            None => {
                let (hay, needle) = (js::lowercase(&hay), js::lowercase(&self.needle));
                if self.exact { hay == needle } else { hay.contains(&needle) }
            }
        }
    }

    fn literal(&self, hay: &str) -> bool {
        if self.exact { hay == self.needle } else { hay.contains(&self.needle) }
    }
}

/// Runs of whitespace become one space; leading and trailing whitespace goes.
pub fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first [`MAX_TESTED`] characters of `s`.
fn capped(s: &str) -> &str {
    match s.char_indices().nth(MAX_TESTED) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}

/// `text` as a `RegExp` source matching it literally under the `u` flag, which allows
/// escapes of syntax characters only.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if "\\^$.*+?()[]{}|/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(target_arch = "wasm32")]
mod js {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        type RegExp;
        #[wasm_bindgen(constructor, catch)]
        fn new(source: &str, flags: &str) -> Result<RegExp, JsValue>;
        #[wasm_bindgen(method)]
        fn test(this: &RegExp, text: &str) -> bool;
    }

    /// A JavaScript `RegExp`.
    pub struct Pattern(RegExp);

    impl Pattern {
        /// `None` when JavaScript rejects the pattern (the background checked it first).
        pub fn new(source: &str, flags: &str) -> Option<Pattern> {
            RegExp::new(source, flags).ok().map(Pattern)
        }

        pub fn test(&self, text: &str) -> bool {
            self.0.test(text)
        }
    }

    /// Only reached when no pattern could be built: ASCII rules, so that Rust's Unicode case
    /// tables stay out of the wasm.
    pub fn lowercase(s: &str) -> String {
        s.to_ascii_lowercase()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod js {
    /// No JavaScript outside wasm: no pattern is ever built.
    pub struct Pattern(());

    impl Pattern {
        pub fn new(_source: &str, _flags: &str) -> Option<Pattern> {
            None
        }

        pub fn test(&self, _text: &str) -> bool {
            false
        }
    }

    pub fn lowercase(s: &str) -> String {
        s.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(query: &str, exact: bool, case_sensitive: bool) -> Matcher {
        Matcher::new(&Find { query: query.into(), exact, case_sensitive, ..Find::default() }).unwrap()
    }

    #[test]
    fn literal_queries_normalize_whitespace_and_fold_case() {
        let m = literal("  sign   in ", false, false);
        assert!(m.matches("Please SIGN\n in now"));
        assert!(!m.matches("signin"));
        assert!(literal("Sign in", true, true).matches(" Sign  in "));
        assert!(!literal("Sign in", true, true).matches("sign in"));
        assert!(!literal("Sign", true, false).matches("Sign in"));
        assert!(Matcher::new(&Find { query: " \n".into(), ..Find::default() }).is_none());
    }

    #[test]
    fn texts_beyond_ascii_fold_by_unicode_rules() {
        // Natively by Rust's tables; in wasm by RegExp `iu` (the browser tests cover that).
        assert!(literal("ärger", false, false).matches("GROSSER ÄRGER"));
        assert!(literal("ΣΟΦΊΑ", true, false).matches("σοφία"));
        assert!(!literal("ärger", false, true).matches("ÄRGER"));
    }

    #[test]
    fn escaped_text_has_no_syntax_left() {
        assert_eq!(escape("a.b*(c)|d/e"), "a\\.b\\*\\(c\\)\\|d\\/e");
        // `-` and letters are not escaped: under the `u` flag `\-` is a syntax error.
        assert_eq!(escape("x-y"), "x-y");
    }

    #[test]
    fn patterns_see_at_most_the_cap() {
        let long = "é".repeat(MAX_TESTED + 10);
        assert_eq!(capped(&long).chars().count(), MAX_TESTED);
        assert_eq!(capped("short"), "short");
    }

    #[test]
    fn regex_queries_need_javascript() {
        let m = Matcher::new(&Find { regex: Some("pu.h".into()), ..Find::default() }).unwrap();
        assert!(!m.matches("push"), "no RegExp outside wasm: nothing matches");
    }
}
