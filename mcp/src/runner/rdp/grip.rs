//! Reading RDP values ("grips"): JSON values stand for themselves, a few types come as
//! objects (`{"type":"undefined"}`, `{"type":"longString",…}`, `{"type":"object",…}`).
//! Evaluations here return `JSON.stringify` of their value, so only strings (short or long)
//! and `undefined` matter; anything else is reported, not guessed at.

use serde_json::Value;

/// What an evaluation's `result` grip holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Grip {
    /// A value carried inline (string, number, boolean, null).
    Inline(Value),
    /// `undefined` (and `NaN`, `Infinity`, `-0`, which JSON cannot carry).
    Undefined,
    /// A string over the server's inline limit: fetch `length` characters from `actor`.
    LongString { actor: String, initial: String, length: u64 },
    /// An object or another non-JSON value, described by its class.
    Other(String),
}

pub fn read(grip: &Value) -> Grip {
    let Some(obj) = grip.as_object() else { return Grip::Inline(grip.clone()) };
    match obj.get("type").and_then(Value::as_str) {
        Some("undefined" | "NaN" | "Infinity" | "-Infinity" | "-0") => Grip::Undefined,
        Some("null") => Grip::Inline(Value::Null),
        Some("longString") => {
            // A long string names the actor that holds it; one that does not cannot be read.
            let (Some(actor), Some(length)) =
                (obj.get("actor").and_then(Value::as_str), obj.get("length").and_then(Value::as_u64))
            else {
                return Grip::Other("longString without its actor".to_owned());
            };
            let initial = obj.get("initial").and_then(Value::as_str).map(str::to_owned).unwrap_or_default();
            Grip::LongString { actor: actor.to_owned(), initial, length }
        }
        Some(other) => {
            let class = obj.get("class").and_then(Value::as_str).unwrap_or(other);
            Grip::Other(class.to_owned())
        }
        None => Grip::Other("object".to_owned()),
    }
}

/// A console message's arguments as one line of text: strings as they are, other inline
/// values as JSON, long strings by their first part, objects by their class.
pub fn arguments_text(args: &[Value]) -> String {
    args.iter()
        .map(|a| match read(a) {
            Grip::Inline(Value::String(s)) => s,
            Grip::Inline(v) => v.to_string(),
            Grip::Undefined => a["type"].as_str().unwrap_or("undefined").to_owned(),
            Grip::LongString { initial, .. } => format!("{initial}…"),
            Grip::Other(class) => class,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn grips_read_by_type() {
        assert_eq!(read(&json!("x")), Grip::Inline(json!("x")));
        assert_eq!(read(&json!(3)), Grip::Inline(json!(3)));
        assert_eq!(read(&json!({"type": "undefined"})), Grip::Undefined);
        assert_eq!(read(&json!({"type": "null"})), Grip::Inline(Value::Null));
        assert_eq!(
            read(&json!({"type": "longString", "actor": "ls1", "initial": "ab", "length": 9})),
            Grip::LongString { actor: "ls1".into(), initial: "ab".into(), length: 9 }
        );
        assert_eq!(
            read(&json!({"type": "object", "class": "Promise", "actor": "o"})),
            Grip::Other("Promise".into())
        );
    }

    #[test]
    fn console_arguments_read_as_text() {
        let args = [
            json!("boom"),
            json!(1),
            json!({"type": "object", "class": "Object"}),
            json!({"type": "undefined"}),
        ];
        assert_eq!(arguments_text(&args), "boom 1 Object undefined");
    }
}
