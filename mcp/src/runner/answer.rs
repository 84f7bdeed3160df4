//! Reading the browsers' own protocol answers (CDP, the Firefox remote debugging protocol):
//! a field the answer must carry is required here, so a browser that renamed or dropped it
//! fails as [`RunnerError::Answer`] naming the field, instead of the runner going on with an
//! empty id or URL standing in.

use serde_json::Value;

use super::RunnerError;

/// The string `key` of `answer`, which `what` (e.g. `Target.getTargets target`) must carry.
pub fn text<'a>(answer: &'a Value, key: &str, what: &str) -> Result<&'a str, RunnerError> {
    answer
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| RunnerError::Answer { what: what.to_owned(), field: key.to_owned() })
}

/// [`text`], owned.
pub fn owned(answer: &Value, key: &str, what: &str) -> Result<String, RunnerError> {
    text(answer, key, what).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_missing_or_mistyped_field_is_an_error_naming_it() {
        let v = json!({"actor": "server1.conn0.tab2", "url": 3});
        assert_eq!(text(&v, "actor", "listTabs tab").unwrap(), "server1.conn0.tab2");
        for key in ["url", "consoleActor"] {
            let e = text(&v, key, "listTabs tab").unwrap_err();
            assert!(
                e.to_string().contains(&format!("`{key}`")) && e.to_string().contains("listTabs tab"),
                "{e}"
            );
        }
    }
}
