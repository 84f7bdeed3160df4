//! `page_html` and the page-derived strings of the other inspect events, redacted by the one
//! rule set of the engine (`webext_mcp_engine::redact`, the snapshot's own): `inspect.js`
//! sends the page's HTML as unredacted tokens, and nothing page-derived leaves the session
//! before it passed through here.
//!
//! Besides the engine's rules, which say what is secret, HTML has structure of its own to
//! hide: script and style bodies (kept only with `redact: off`), comments (dropped in
//! `strict`), and long `data:` URIs (replaced by their size: bulk, not secrets).

use serde_json::Value;
use webext_mcp_engine::redact::{self, Level, REDACTED};
use webext_mcp_engine::table::{Attrs, Node};

use super::Redact;

/// A `data:` URI longer than this is replaced by its size.
const DATA_URI_MAX: usize = 100;

pub fn level(r: Redact) -> Level {
    match r {
        Redact::Off => Level::Off,
        Redact::Safe => Level::Safe,
        Redact::Strict => Level::Strict,
    }
}

/// The serialized HTML and how many script/style bodies were left out.
#[derive(Debug, Default, PartialEq)]
pub struct Html {
    pub html: String,
    pub stripped: u64,
}

/// Serializes `inspect.js`'s tokens at `level`. Malformed tokens are skipped.
pub fn render(tokens: &[Value], level: Level) -> Html {
    let mut out = Html::default();
    let mut open: Vec<Node> = Vec::new();
    for token in tokens {
        let Some(parts) = token.as_array() else { continue };
        let (Some(kind), Some(text)) =
            (parts.first().and_then(Value::as_str), parts.get(1).and_then(Value::as_str))
        else {
            continue;
        };
        match kind {
            "o" => {
                let node = element(text, parts.get(2));
                write_open(&mut out.html, &node, level);
                if !parts.get(3).and_then(Value::as_bool).unwrap_or(false) {
                    open.push(node);
                }
            }
            "c" => {
                if open.last().is_some_and(|n| n.t == text) {
                    open.pop();
                }
                out.html.push_str("</");
                out.html.push_str(&tag_name(text));
                out.html.push('>');
            }
            "t" => match open.last() {
                Some(p) if p.t == "script" || p.t == "style" => {
                    if level == Level::Off {
                        out.html.push_str(text);
                    } else if !text.trim().is_empty() {
                        out.stripped += 1;
                    }
                }
                Some(p) if p.t == "textarea" && level != Level::Off && redact::is_secret_textarea(p, "") => {
                    out.html.push_str("&lt;redacted&gt;")
                }
                Some(p) if p.t == "textarea" => match redact::field_value(p, text, level) {
                    Some(v) => escape_text(&mut out.html, &v),
                    None => out.html.push_str("&lt;redacted&gt;"),
                },
                _ => escape_text(&mut out.html, &scrubbed(text, level)),
            },
            "m" if level != Level::Strict => {
                out.html.push_str("<!--");
                out.html.push_str(&scrubbed(text, level).replace("-->", "--&gt;"));
                out.html.push_str("-->");
            }
            "d" => {
                out.html.push_str("<!DOCTYPE ");
                out.html.push_str(&tag_name(text));
                out.html.push('>');
            }
            _ => {}
        }
    }
    out
}

fn element(tag: &str, attrs: Option<&Value>) -> Node {
    let a = attrs
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|pair| {
            let name = pair.get(0)?.as_str()?;
            let value = pair.get(1)?.as_str()?;
            Some((name.to_ascii_lowercase(), value.to_owned()))
        })
        .collect();
    Node { t: tag.to_ascii_lowercase(), a: Attrs(a), ..Node::default() }
}

/// Tag and attribute names as the DOM gave them, minus anything that could break out.
fn tag_name(name: &str) -> String {
    name.chars().filter(|c| !c.is_whitespace() && !matches!(c, '<' | '>' | '"' | '\'' | '/' | '=')).collect()
}

fn write_open(out: &mut String, node: &Node, level: Level) {
    out.push('<');
    out.push_str(&tag_name(&node.t));
    for (name, value) in &node.a.0 {
        let shown =
            if name == "value" && matches!(node.t.as_str(), "input" | "option" | "textarea" | "select") {
                Some(redact::field_value(node, value, level).unwrap_or(REDACTED.into()))
            } else {
                redact::attr_value(name, value, level)
            };
        let Some(shown) = shown else { continue };
        out.push(' ');
        out.push_str(&tag_name(name));
        if shown.is_empty() {
            continue;
        }
        out.push_str("=\"");
        if level != Level::Off && shown.len() > DATA_URI_MAX && shown.trim_start().starts_with("data:") {
            out.push_str(&format!("data:[{} bytes]", shown.len()));
        } else {
            escape_attr(out, &shown);
        }
        out.push('"');
    }
    out.push('>');
}

fn scrubbed(s: &str, level: Level) -> std::borrow::Cow<'_, str> {
    if level == Level::Off { s.into() } else { redact::scrub(s) }
}

fn escape_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn escape_attr(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// A page-derived string (a title, a URL) at `level`.
pub fn redact_described_text(s: &str, level: Level) -> String {
    scrubbed(s, level).into_owned()
}

/// Redacts, in place, every `attrs` object and `text` string of `inspect.js`'s element
/// descriptions (probe samples, extension-root trees) at `level`.
pub fn redact_described(v: &mut Value, level: Level) {
    if level == Level::Off {
        return;
    }
    match v {
        Value::Array(items) => items.iter_mut().for_each(|i| redact_described(i, level)),
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    ("attrs", Value::Object(attrs)) => {
                        let names: Vec<String> = attrs.keys().cloned().collect();
                        for name in names {
                            let Some(Value::String(raw)) = attrs.get(&name) else { continue };
                            match redact::attr_value(&name, raw, level).map(|s| s.into_owned()) {
                                Some(s) => attrs.insert(name, Value::String(s)),
                                None => attrs.remove(&name),
                            };
                        }
                    }
                    ("text", Value::String(s)) => *s = redact::scrub(s).into_owned(),
                    (_, other) => redact_described(other, level),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn html(tokens: Value, level: Level) -> Html {
        render(tokens.as_array().unwrap(), level)
    }

    #[test]
    fn fields_cards_keys_and_tokens_are_hidden_by_level() {
        let page = json!([
            ["d", "html"],
            ["o", "input", [["type", "password"], ["value", "hunter2"]], true],
            ["o", "input", [["autocomplete", "cc-number"], ["value", "4111 1111 1111 1111"]], true],
            ["o", "input", [["name", "q"], ["value", "Ada"]], true],
            ["o", "div", [["data-api-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"], ["onclick", "go()"]]],
            ["t", "Card 5555 5555 5555 4444 & more"],
            ["c", "div"],
            ["o", "textarea", []],
            ["t", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng99"],
            ["c", "textarea"],
            ["o", "a", [["href", "/cb?access_token=abc&x=1"]]],
            ["c", "a"],
            ["o", "script", []],
            ["t", "var secret = 1;"],
            ["c", "script"],
            ["m", " note "],
        ]);
        let safe = html(page.clone(), Level::Safe);
        assert_eq!(
            safe.html,
            "<!DOCTYPE html><input type=\"password\" value=\"<redacted>\"><input autocomplete=\"cc-number\" value=\"<redacted>\">\
             <input name=\"q\" value=\"Ada\"><div data-api-key=\"<redacted>\" onclick=\"go()\">Card &lt;redacted&gt; &amp; more</div>\
             <textarea>&lt;redacted&gt;</textarea><a href=\"/cb?access_token=<redacted>&amp;x=1\"></a><script></script><!-- note -->"
        );
        assert_eq!(safe.stripped, 1);
        let strict = html(page.clone(), Level::Strict);
        assert!(strict.html.contains("<input name=\"q\" value=\"<redacted>\">"), "{}", strict.html);
        assert!(!strict.html.contains("onclick") && !strict.html.contains("note"), "{}", strict.html);
        assert!(!strict.html.contains("5555"), "{}", strict.html);
        let off = html(page, Level::Off);
        assert!(off.html.contains("hunter2") && off.html.contains("var secret"), "{}", off.html);
    }

    #[test]
    fn names_cannot_break_out_and_bad_tokens_are_skipped() {
        let out =
            html(json!([["o", "a\"><script>", [["x onload", "1"]]], 7, ["zz"], ["c", "a"]]), Level::Safe);
        assert_eq!(out.html, "<ascript xonload=\"1\"></a>");
    }

    #[test]
    fn described_elements_are_redacted_in_place() {
        let mut v = json!({"samples": [{"attrs": {"href": "/x?token=abc", "onclick": "x()"}, "text": "4111 1111 1111 1111"}]});
        redact_described(&mut v, Level::Strict);
        assert_eq!(v, json!({"samples": [{"attrs": {"href": "/x?token=<redacted>"}, "text": "<redacted>"}]}));
    }
}
