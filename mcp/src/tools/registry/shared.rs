//! Argument groups many tools share, each declared once: [`TabTarget`] (which tab), [`Wait`]
//! (`timeoutMs`) and [`Paging`] (`cursor` + `maxBytes`); a toolset may declare its own (the
//! actions' `Diff`). A tool names the groups it takes and
//! its own struct; the groups' keys are split off the call's arguments before the tool's own
//! are decoded (serde's `flatten` would turn `deny_unknown_fields` off), and the input
//! schema is the tool's own plus the groups' properties.
//!
//! ```text
//! {"tabId": 7, "timeoutMs": 500, "uid": "e3"} ─▶ (TabTarget{tab_id: 7}, Wait{500}) + UidArgs{uid: "e3"}
//! ```

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use webext_mcp_host::protocol::ErrorBody;

use super::schema::{decode, schema_of};
use crate::bridge::TabTarget;

/// A group of arguments several tools take: a struct (`deny_unknown_fields`, every field
/// optional) that names its keys.
pub trait ArgGroup: Sized {
    /// The group's keys, as the arguments spell them.
    const KEYS: &'static [&'static str];

    /// Takes the group's keys out of `args` and decodes them.
    fn take(args: &mut Map<String, Value>) -> Result<Self, ErrorBody>
    where
        Self: DeserializeOwned,
    {
        decode(split_off(args, Self::KEYS))
    }

    /// Adds the group's properties to a tool's schema properties.
    fn add_properties(props: &mut Map<String, Value>)
    where
        Self: JsonSchema,
    {
        if let Some(Value::Object(extra)) = schema_of::<Self>().get("properties") {
            for (k, v) in extra {
                props.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Moves `keys` from `args` into a map of their own.
fn split_off(args: &mut Map<String, Value>, keys: &[&str]) -> Value {
    let mut group = Map::new();
    for key in keys {
        if let Some(v) = args.remove(*key) {
            group.insert((*key).to_owned(), v);
        }
    }
    Value::Object(group)
}

impl ArgGroup for TabTarget {
    const KEYS: &'static [&'static str] = &["browser", "tabId", "pageIdx", "expectTabSet"];

    fn take(args: &mut Map<String, Value>) -> Result<Self, ErrorBody> {
        let target: TabTarget = decode(split_off(args, Self::KEYS))?;
        if target.tab_id.is_some() && target.page_idx.is_some() {
            return Err(ErrorBody::invalid_argument("give `tabId` or `pageIdx`, not both")
                .with_hint("prefer `tabId`"));
        }
        Ok(target)
    }
}

/// How long a call may wait for its page (`timeoutMs`); each tool has its own default.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Wait {
    // No doc comment on purpose: explained once, in the server's instructions, like the tab's
    // address, instead of in every tools/list entry.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl ArgGroup for Wait {
    const KEYS: &'static [&'static str] = &["timeoutMs"];
}

/// One page of a long answer: where to go on from, and how big a page is.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Paging {
    /// nextCursor of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size (default 16384).
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

impl ArgGroup for Paging {
    const KEYS: &'static [&'static str] = &["cursor", "maxBytes"];
}

/// What a tool takes besides its own arguments: one [`ArgGroup`], or a tuple of them.
pub trait Groups: Sized {
    fn take_group(args: &mut Map<String, Value>) -> Result<Self, ErrorBody>;
    fn add_group(props: &mut Map<String, Value>);
}

impl<G: ArgGroup + DeserializeOwned + JsonSchema> Groups for G {
    fn take_group(args: &mut Map<String, Value>) -> Result<Self, ErrorBody> {
        G::take(args)
    }

    fn add_group(props: &mut Map<String, Value>) {
        G::add_properties(props);
    }
}

impl<A: Groups, B: Groups> Groups for (A, B) {
    fn take_group(args: &mut Map<String, Value>) -> Result<Self, ErrorBody> {
        Ok((A::take_group(args)?, B::take_group(args)?))
    }

    fn add_group(props: &mut Map<String, Value>) {
        A::add_group(props);
        B::add_group(props);
    }
}

impl<A: Groups, B: Groups, C: Groups> Groups for (A, B, C) {
    fn take_group(args: &mut Map<String, Value>) -> Result<Self, ErrorBody> {
        Ok((A::take_group(args)?, B::take_group(args)?, C::take_group(args)?))
    }

    fn add_group(props: &mut Map<String, Value>) {
        A::add_group(props);
        B::add_group(props);
        C::add_group(props);
    }
}

fn object(args: Value) -> Result<Map<String, Value>, ErrorBody> {
    match args {
        Value::Null => Ok(Map::new()),
        Value::Object(m) => Ok(m),
        _ => Err(ErrorBody::invalid_argument("arguments must be a JSON object")
            .with_hint("pass named arguments, e.g. {}")),
    }
}

/// Splits a tool's arguments into the shared groups `S` and the tool's own `T`.
pub fn decode_with<S: Groups, T: DeserializeOwned>(args: Value) -> Result<(S, T), ErrorBody> {
    let mut own = object(args)?;
    let shared = S::take_group(&mut own)?;
    Ok((shared, decode(Value::Object(own))?))
}

/// The input schema of a tool that takes the groups `S` besides its own `T`.
pub fn schema_with<S: Groups, T: JsonSchema>() -> Map<String, Value> {
    let mut schema = schema_of::<T>();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        S::add_group(props);
    }
    schema
}

/// A per-tab tool's arguments: its [`TabTarget`] and its own.
pub fn decode_with_target<T: DeserializeOwned>(args: Value) -> Result<(TabTarget, T), ErrorBody> {
    decode_with::<TabTarget, T>(args)
}

/// The input schema of a per-tab tool: its own arguments plus [`TabTarget`]'s.
pub fn schema_with_target<T: JsonSchema>() -> Map<String, Value> {
    schema_with::<TabTarget, T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_fields_split_from_the_tools_own() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Own {
            #[serde(default)]
            url: Option<String>,
        }
        let (t, own): (TabTarget, Own) =
            decode_with_target(serde_json::json!({"tabId": 7, "url": "http://x/", "browser": "firefox"}))
                .unwrap();
        assert_eq!(t.tab_id, Some(7));
        assert_eq!(t.browser.as_deref(), Some("firefox"));
        assert_eq!(own.url.as_deref(), Some("http://x/"));
        let err = decode_with_target::<Own>(serde_json::json!({"tabId": 1, "pageIdx": 0})).unwrap_err();
        assert_eq!(err.code, webext_mcp_host::protocol::ErrorCode::InvalidArgument);
        let err = decode_with_target::<Own>(serde_json::json!({"tabId": "7"})).unwrap_err();
        assert!(err.message.contains("tabId"), "{}", err.message);
        let err = decode_with_target::<Own>(serde_json::json!({"tabid": 7})).unwrap_err();
        assert!(err.message.contains("tabid"), "{}", err.message);
    }

    #[test]
    fn groups_split_off_together_and_leave_the_tools_own() {
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        struct Own {
            uid: String,
        }
        let ((t, w), own): ((TabTarget, Wait), Own) =
            decode_with(serde_json::json!({"tabId": 3, "timeoutMs": 500, "uid": "e1"})).unwrap();
        assert_eq!((t.tab_id, w.timeout_ms, own.uid.as_str()), (Some(3), Some(500), "e1"));
        let err = decode_with::<Wait, Own>(serde_json::json!({"uid": "e1", "cursor": "x"})).unwrap_err();
        assert!(err.message.contains("cursor"), "{}", err.message);
        let err =
            decode_with::<Paging, Own>(serde_json::json!({"uid": "e1", "maxBytes": "big"})).unwrap_err();
        assert!(err.message.contains("maxBytes"), "{}", err.message);
        let schema = Value::Object(schema_with::<(TabTarget, Paging), Own>());
        let props = schema["properties"].as_object().unwrap();
        let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["browser", "cursor", "expectTabSet", "maxBytes", "pageIdx", "tabId", "uid"]);
        assert_eq!(schema["required"], serde_json::json!(["uid"]));
    }
}
