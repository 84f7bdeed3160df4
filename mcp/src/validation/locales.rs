//! `default_locale` and `_locales/`: Chrome refuses an extension with `_locales/` and no
//! `default_locale` (and the reverse), every `__MSG_name__` must be defined in the default
//! locale, and every `$placeholder$` a message uses must be declared in its `placeholders`
//! (Chrome: "Variable $x$ used but not defined").

use std::path::Path;

use crate::manifest::{self, Finding, FindingCode, Json, Messages, Severity, SourceManifest, substitute};

/// At most this many locale folders are read (a hostile project could have millions).
const MAX_LOCALES: usize = 200;

pub fn check(source: &SourceManifest, out: &mut Vec<Finding>) {
    let locales = &source.locales;
    let default = source.json.get("default_locale").and_then(Json::as_str);
    if default.is_none() && locales.is_dir() {
        out.push(
            Finding::new(
                FindingCode::ManifestNoDefaultLocale,
                "_locales/ exists but manifest.json sets no default_locale; Chrome refuses to load it",
                "add \"default_locale\": \"en\" (the folder name of your main language in _locales/)",
            )
            .at("default_locale"),
        );
    }
    if let Some(messages) = &source.messages {
        let mut strings = Vec::new();
        collect_strings(&source.json, "", &mut strings);
        for (path, s) in strings {
            for name in substitute(&s, Some(messages)).missing {
                out.push(
                    Finding::new(
                        FindingCode::ManifestMessageMissing,
                        format!("`__MSG_{name}__` has no message in the default locale"),
                        format!(
                            "add \"{name}\": {{ \"message\": \"…\" }} to _locales/{}/messages.json",
                            default.unwrap_or("en")
                        ),
                    )
                    .at(path.clone()),
                );
            }
        }
        let rel = format!("_locales/{}/messages.json", default.unwrap_or("en"));
        placeholders(messages, &rel, out);
    }
    if locales.is_dir() {
        other_locales(locales, default, out);
    }
}

fn collect_strings(v: &Json, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        Json::String(s) if s.contains("__MSG_") => out.push((path.to_owned(), s.clone())),
        Json::Object(o) => {
            for (k, child) in o.iter() {
                let p = if path.is_empty() { k.to_owned() } else { format!("{path}.{k}") };
                collect_strings(child, &p, out);
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_strings(item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The `$name$` placeholders a message uses (lowercased); `$$` is a literal dollar and
/// `$1`…`$9` are positional substitutions, neither declared.
pub fn used_placeholders(message: &str) -> Vec<String> {
    let bytes = message.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'$') {
            i += 2;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b'@') {
            j += 1;
        }
        if j > start && bytes.get(j) == Some(&b'$') && !bytes[start..j].iter().all(u8::is_ascii_digit) {
            out.push(message[start..j].to_ascii_lowercase());
            i = j + 1;
        } else {
            i = j.max(i + 1);
        }
    }
    out
}

fn placeholders(messages: &Messages, rel: &str, out: &mut Vec<Finding>) {
    let mut rows: Vec<(&str, &str, &[String])> = messages.iter().collect();
    rows.sort();
    for (name, text, declared) in rows {
        let used = used_placeholders(text);
        for u in &used {
            if !declared.contains(u) {
                out.push(
                    Finding::new(
                        FindingCode::ManifestPlaceholder,
                        format!("message `{name}` uses ${u}$, which its placeholders do not declare; Chrome refuses the locale"),
                        format!("add \"placeholders\": {{ \"{u}\": {{ \"content\": \"$1\" }} }} to `{name}`"),
                    )
                    .in_file(rel),
                );
            }
        }
        for d in declared {
            if !used.contains(d) {
                out.push(
                    Finding::new(
                        FindingCode::ManifestPlaceholder,
                        format!("message `{name}` declares the placeholder `{d}` but never uses ${d}$"),
                        format!("use ${d}$ in the message or remove the placeholder"),
                    )
                    .in_file(rel)
                    .severity(Severity::Warning),
                );
            }
        }
    }
}

fn other_locales(dir: &Path, default: Option<&str>, out: &mut Vec<Finding>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten().take(MAX_LOCALES) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if Some(name.as_str()) == default || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let rel = format!("_locales/{name}/messages.json");
        let problem =
            match manifest::read_capped(&entry.path().join("messages.json"), manifest::MAX_JSON_BYTES) {
                Ok(Some(bytes)) => Messages::parse(&String::from_utf8_lossy(&bytes))
                    .err()
                    .map(|e| (format!("{rel} is not valid JSON: {e}"), Some((e.line, e.column)))),
                Ok(None) => Some((format!("{rel} is larger than 1 MiB"), None)),
                Err(_) => Some((format!("_locales/{name}/ has no messages.json"), None)),
            };
        if let Some((message, pos)) = problem {
            let mut f = Finding::new(
                FindingCode::ManifestLocaleMissing,
                format!("{message}; browsers refuse the extension"),
                format!("fix or remove _locales/{name}/"),
            )
            .in_file(rel);
            if let Some((l, c)) = pos {
                f = f.at_position(l, c);
            }
            out.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_table() {
        assert_eq!(used_placeholders("Hello $USER$, you have $count$ items"), ["user", "count"]);
        assert_eq!(used_placeholders("costs $$5 and $1"), Vec::<String>::new());
        assert_eq!(used_placeholders("$ broken $x"), Vec::<String>::new());
        assert_eq!(used_placeholders("é$a_b$é"), ["a_b"]);
    }
}
