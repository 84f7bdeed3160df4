//! The tool registry: every tool, its group, its input schema and the one function that runs
//! it. The MCP server (`server.rs`) and the CLI twin (`webext-mcp call`) both dispatch here.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use webext_mcp_host::protocol::ErrorBody;

use crate::config::Config;
use crate::paths::{Env, Paths};

pub mod actions;
pub mod browser;
pub mod catalog;
mod debug;
pub mod dev;
mod extension;
pub mod inspect;
mod install;
mod meta;
pub mod pages;
pub mod snapshot;

/// A group of tools that `--toolsets` switches on or off in `tools/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Toolset {
    /// The server itself: versions, paths, configuration.
    Core,
    /// Building the extension under development: `extension_build`.
    Extension,
    /// Seeing and driving real browsers through the helper extension.
    Browser,
    /// Diagnostics for developing webext-mcp; off unless asked for.
    Debug,
}

impl Toolset {
    pub const ALL: [Toolset; 4] = [Toolset::Core, Toolset::Extension, Toolset::Browser, Toolset::Debug];

    pub const fn name(self) -> &'static str {
        match self {
            Toolset::Core => "core",
            Toolset::Extension => "extension",
            Toolset::Browser => "browser",
            Toolset::Debug => "debug",
        }
    }

    /// Whether the group is on when the user names none.
    pub const fn on_by_default(self) -> bool {
        !matches!(self, Toolset::Debug)
    }

    /// Resolves names from `--toolsets` / config: `default`, `all`, or group names.
    pub fn parse_list(names: &[String]) -> Result<Vec<Toolset>, ErrorBody> {
        let mut out = Vec::new();
        let names: Vec<&str> =
            if names.is_empty() { vec!["default"] } else { names.iter().map(String::as_str).collect() };
        for name in names {
            match name {
                "default" => out.extend(Toolset::ALL.into_iter().filter(|t| t.on_by_default())),
                "all" => out.extend(Toolset::ALL),
                other => match Toolset::ALL.into_iter().find(|t| t.name() == other) {
                    Some(t) => out.push(t),
                    None => {
                        let known: Vec<&str> = Toolset::ALL.iter().map(|t| t.name()).collect();
                        return Err(ErrorBody::invalid_argument(format!("unknown toolset `{other}`"))
                            .with_hint(format!("use `default`, `all` or any of: {}", known.join(", "))));
                    }
                },
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// What a successful tool returns: the structured value and, when the tool has a better
/// human form than JSON, its text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub structured: Value,
    pub text: Option<String>,
}

impl ToolOutput {
    pub fn json(structured: Value) -> Self {
        ToolOutput { structured, text: None }
    }

    /// The text content block: the tool's own text, or compact JSON.
    pub fn text(&self) -> String {
        match &self.text {
            Some(t) => t.clone(),
            None => self.structured.to_string(),
        }
    }
}

pub type ToolResult = Result<ToolOutput, ErrorBody>;
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

/// Everything a tool may use. Shared by every call of one server (or one CLI run).
pub struct Context {
    pub paths: Paths,
    pub config: Config,
    pub env: Env,
    pub toolsets: Vec<Toolset>,
    /// Connections to browser hosts and the browser chosen by `select_browser`.
    pub browser: browser::BrowserState,
}

pub type Ctx = Arc<Context>;

/// One tool.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub toolset: Toolset,
    pub description: &'static str,
    /// The tool changes nothing outside webext-mcp.
    pub read_only: bool,
    pub input_schema: fn() -> Map<String, Value>,
    pub run: fn(Ctx, Value) -> ToolFuture,
}

/// Every tool, in a stable order.
pub fn registry() -> &'static [ToolDef] {
    static TOOLS: OnceLock<Vec<ToolDef>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        meta::tools()
            .into_iter()
            .chain(install::tools())
            .chain(extension::tools())
            .chain(dev::tools())
            .chain(inspect::tools())
            .chain(catalog::tools())
            .chain(browser::tools())
            .chain(pages::tools())
            .chain(snapshot::tools())
            .chain(actions::tools())
            .chain(debug::tools())
            .collect()
    })
}

pub fn find(name: &str) -> Option<&'static ToolDef> {
    registry().iter().find(|t| t.name == name)
}

/// Runs a tool by name. `None` when no tool has that name.
pub async fn call(ctx: &Ctx, name: &str, args: Value) -> Option<ToolResult> {
    let def = find(name)?;
    tracing::debug!(tool = name, "call");
    Some((def.run)(Arc::clone(ctx), args).await)
}

/// Decodes a tool's arguments. Wrong types and unknown fields become `INVALID_ARGUMENT`
/// naming the offending field, never a generic deserializer message.
pub fn decode<T: DeserializeOwned>(args: Value) -> Result<T, ErrorBody> {
    let args = if args.is_null() { Value::Object(Map::new()) } else { args };
    if !args.is_object() {
        return Err(ErrorBody::invalid_argument("arguments must be a JSON object")
            .with_hint("pass named arguments, e.g. {}"));
    }
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let message =
            if path == "." { format!("bad arguments: {inner}") } else { format!("`{path}`: {inner}") };
        ErrorBody::invalid_argument(message).with_hint("see the tool's inputSchema in tools/list")
    })
}

/// Drops what costs bytes in every tools/list without telling a client anything: `null` in
/// the types of optional fields (`required` already says they are optional), `default:
/// null`, integer `format`s and their `minimum: 0`, line breaks in descriptions.
fn compact_schema(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(types)) = o.get("type")
                && types.len() == 2
                && types.iter().any(|t| t == "null")
                && let Some(t) = types.iter().find(|t| *t != "null").cloned()
            {
                o.insert("type".into(), t);
            }
            if let Some(Value::Array(alts)) = o.get("anyOf")
                && alts.len() == 2
                && let Some(null_at) = alts.iter().position(|a| a.get("type") == Some(&Value::from("null")))
                && let Some(Value::Object(other)) = alts.get(1 - null_at).cloned()
            {
                o.remove("anyOf");
                for (k, val) in other {
                    o.entry(k).or_insert(val);
                }
            }
            if o.get("default") == Some(&Value::Null) {
                o.remove("default");
            }
            if o.remove("format").is_some() && o.get("minimum") == Some(&Value::from(0)) {
                o.remove("minimum");
            }
            if let Some(Value::String(d)) = o.get_mut("description") {
                *d = d.replace('\n', " ");
            }
            for child in o.values_mut() {
                compact_schema(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(compact_schema),
        _ => {}
    }
}

/// Replaces `$ref`s to string enums (schemars writes `oneOf` of `const`s with a description
/// each) with a plain `enum`, keeping the field's own description; other `$ref`s are inlined.
fn inline_enums(v: &mut Value, defs: &Map<String, Value>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
                && let Some(def) = defs.get(name)
            {
                let consts: Option<Vec<Value>> = def
                    .get("oneOf")
                    .or_else(|| def.get("anyOf"))
                    .and_then(Value::as_array)
                    .and_then(|alts| alts.iter().map(|a| a.get("const").cloned()).collect());
                o.remove("$ref");
                match consts.or_else(|| def.get("enum").and_then(Value::as_array).cloned()) {
                    Some(values) => {
                        o.insert("type".into(), Value::from("string"));
                        o.insert("enum".into(), Value::Array(values));
                    }
                    None => {
                        let mut def = def.clone();
                        compact_schema(&mut def);
                        if let Value::Object(d) = def {
                            for (k, val) in d {
                                if k != "description" {
                                    o.entry(k).or_insert(val);
                                }
                            }
                        }
                    }
                }
            }
            for child in o.values_mut() {
                inline_enums(child, defs);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| inline_enums(i, defs)),
        _ => {}
    }
}

/// The JSON Schema of a tool's argument struct, kept small: no `$schema`, no `title`.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.meta_schema = None);
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut object = match serde_json::to_value(schema) {
        Ok(Value::Object(o)) => o,
        _ => Map::new(),
    };
    object.remove("title");
    object.remove("$schema");
    // The struct's own doc comment says nothing the tool's description does not.
    object.remove("description");
    let defs = object.remove("$defs");
    for v in object.values_mut() {
        compact_schema(v);
        if let Some(Value::Object(defs)) = &defs {
            inline_enums(v, defs);
            compact_schema(v);
        }
    }
    object.entry("type").or_insert_with(|| Value::String("object".into()));
    object.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Probe {
        count: u32,
        name: Option<String>,
    }

    #[test]
    fn decode_names_the_field_with_the_wrong_type() {
        let err = decode::<Probe>(serde_json::json!({"count": "three"})).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_ARGUMENT");
        assert!(err.message.starts_with("`count`:"), "{}", err.message);
        let err = decode::<Probe>(serde_json::json!({"count": 1, "nmae": "x"})).unwrap_err();
        assert!(err.message.contains("nmae"), "{}", err.message);
        let err = decode::<Probe>(serde_json::json!([1])).unwrap_err();
        assert!(err.message.contains("JSON object"));
        assert!(decode::<Probe>(serde_json::json!({"count": 2})).is_ok());
    }

    #[test]
    fn toolset_lists_resolve() {
        assert_eq!(
            Toolset::parse_list(&[]).unwrap(),
            vec![Toolset::Core, Toolset::Extension, Toolset::Browser]
        );
        assert_eq!(Toolset::parse_list(&["all".into()]).unwrap(), Toolset::ALL.to_vec());
        assert_eq!(
            Toolset::parse_list(&["debug".into(), "core".into()]).unwrap(),
            vec![Toolset::Core, Toolset::Debug]
        );
        let err = Toolset::parse_list(&["pages2".into()]).unwrap_err();
        assert!(err.message.contains("pages2") && err.hint.unwrap().contains("core"));
    }

    #[test]
    fn every_tool_has_an_object_schema_and_unique_name() {
        let mut names = std::collections::HashSet::new();
        for t in registry() {
            assert!(names.insert(t.name), "duplicate tool {}", t.name);
            let schema = (t.input_schema)();
            assert_eq!(schema.get("type"), Some(&Value::String("object".into())), "{}", t.name);
            assert!(!t.description.is_empty());
        }
    }
}
