//! The engine's one error type and its stable codes.

use std::fmt;

/// Why a call could not produce a result. Messages never carry page content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The input is malformed (bad JSON, wrong shape, a ref that cannot be a ref, a bad
    /// offset); the message says which.
    InvalidArgument(String),
    /// The root ref names no element of this snapshot's table: the element is gone or belongs
    /// to an earlier page.
    Stale,
}

impl EngineError {
    /// The stable code the extension reports.
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::InvalidArgument(_) => "INVALID_ARGUMENT",
            EngineError::Stale => "STALE",
        }
    }

    /// `{"error":{"code":…,"message":…}}`, what the wasm exports return on failure.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"error\":{\"code\":");
        crate::json::write_str(&mut out, self.code());
        out.push_str(",\"message\":");
        crate::json::write_str(&mut out, &self.to_string());
        out.push_str("}}");
        out
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidArgument(m) => f.write_str(m),
            EngineError::Stale => {
                f.write_str("the element is gone or belongs to an earlier page; take a new snapshot")
            }
        }
    }
}

impl std::error::Error for EngineError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let v: serde_json::Value = serde_json::from_str(&EngineError::Stale.to_json()).unwrap();
        assert_eq!(v["error"]["code"], "STALE");
        assert!(v["error"]["message"].as_str().unwrap().contains("new snapshot"));
        let e = EngineError::InvalidArgument("bad \"x\"".into());
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(v["error"]["message"], "bad \"x\"");
    }
}
