//! `__MSG_name__` placeholders, resolved from the default locale's `messages.json`.
//!
//! Message names are case-insensitive (as in Chrome and Firefox). Resolution is done only
//! where webext-mcp needs a value (the zip name, result summaries); the built manifest keeps
//! its placeholders for the browser to resolve.

use std::collections::HashMap;

use super::json::{Json, SyntaxError, parse_jsonc};

/// The messages of one locale, keyed by lowercased name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Messages {
    map: HashMap<String, String>,
    /// The `placeholders` each message declares (names lowercased), for the validator.
    declared: HashMap<String, Vec<String>>,
}

impl Messages {
    /// Parses a `messages.json` text (comments allowed).
    pub fn parse(text: &str) -> Result<Messages, SyntaxError> {
        let json = parse_jsonc(text)?;
        let mut map = HashMap::new();
        let mut declared = HashMap::new();
        if let Some(o) = json.as_object() {
            for (name, entry) in o.iter() {
                if let Some(message) = entry.get("message").and_then(Json::as_str) {
                    map.insert(name.to_ascii_lowercase(), message.to_owned());
                }
                if let Some(p) = entry.get("placeholders").and_then(Json::as_object) {
                    declared
                        .insert(name.to_ascii_lowercase(), p.keys().map(str::to_ascii_lowercase).collect());
                }
            }
        }
        Ok(Messages { map, declared })
    }

    /// Every message: lowercased name, text, declared placeholder names (lowercased).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &[String])> {
        self.map.iter().map(|(name, text)| {
            (name.as_str(), text.as_str(), self.declared.get(name).map_or(&[][..], Vec::as_slice))
        })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
}

/// The result of substituting placeholders in one string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substituted {
    pub text: String,
    /// Placeholder names that had no message (left in the text as written).
    pub missing: Vec<String>,
}

/// Replaces every `__MSG_name__` in `value` with its message. Pure.
pub fn substitute(value: &str, messages: Option<&Messages>) -> Substituted {
    let mut text = String::with_capacity(value.len());
    let mut missing = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("__MSG_") {
        let after = &rest[start + 6..];
        let Some(end) = after.find("__") else { break };
        let name = &after[..end];
        let valid =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@');
        text.push_str(&rest[..start]);
        if !valid {
            text.push_str("__MSG_");
            rest = after;
            continue;
        }
        match messages.and_then(|m| m.get(name)) {
            Some(message) => text.push_str(message),
            None => {
                missing.push(name.to_owned());
                text.push_str(&rest[start..start + 6 + end + 2]);
            }
        }
        rest = &after[end + 2..];
    }
    text.push_str(rest);
    Substituted { text, missing }
}

/// Store-file base name rule of DESIGN.md: lowercase, drop everything but `[a-z0-9 -]`, then
/// runs of spaces and hyphens → one `-`, none at either end. Extension.js's zip plugin drops
/// hyphens too (`my-ext` → `myext`); a name's own hyphens are kept here, as Extension.js
/// keeps those of an explicit zip file name.
pub fn sanitize_file_stem(name: &str) -> String {
    let kept: String = name
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == ' ' || *c == '-')
        .map(|c| if c == '-' { ' ' } else { c })
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_table() {
        let m = Messages::parse(r#"{"appName":{"message":"My App"},"x_y":{"message":"XY"}}"#).unwrap();
        let cases: &[(&str, &str, &[&str])] = &[
            ("__MSG_appName__", "My App", &[]),
            ("__MSG_APPNAME__", "My App", &[]),
            ("Hi __MSG_x_y__!", "Hi XY!", &[]),
            ("__MSG_nope__", "__MSG_nope__", &["nope"]),
            ("__MSG_appName__ / __MSG_x_y__", "My App / XY", &[]),
            ("plain", "plain", &[]),
            ("__MSG_ unclosed", "__MSG_ unclosed", &[]),
            ("__MSG___", "__MSG___", &[]),
        ];
        for (input, text, missing) in cases {
            let s = substitute(input, Some(&m));
            assert_eq!(s.text, *text, "{input}");
            assert_eq!(s.missing, *missing, "{input}");
        }
        assert_eq!(substitute("__MSG_appName__", None).missing, ["appName"]);
    }

    #[test]
    fn file_stems() {
        for (name, stem) in [
            ("My Extension", "my-extension"),
            ("  Tab   Saver 2000! ", "tab-saver-2000"),
            ("Émoji 🎉 Helper", "moji-helper"),
            ("a_b-c", "ab-c"),
            ("my-ext", "my-ext"),
            ("Tab - Saver--Pro-", "tab-saver-pro"),
            ("", ""),
        ] {
            assert_eq!(sanitize_file_stem(name), stem, "{name}");
        }
    }
}
