//! The `debug` toolset: tools for checking a client's wiring. Off unless `--toolsets` names it.

use serde_json::Value;

use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![ECHO]
}

fn echo_schema() -> serde_json::Map<String, Value> {
    let mut schema = serde_json::Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(serde_json::Map::new()));
    schema.insert("additionalProperties".into(), Value::Bool(true));
    schema
}

const ECHO: ToolDef = ToolDef {
    name: "echo",
    title: "Echo arguments",
    toolset: Toolset::Debug,
    description: "Returns the arguments exactly as the server decoded them.",
    effect: Effect::Read,
    input_schema: echo_schema,
    run: |ctx, _call, args| Box::pin(echo(ctx, args)),
};

async fn echo(_ctx: Ctx, args: Value) -> ToolResult {
    Ok(ToolOutput::json(serde_json::json!({ "arguments": args })))
}
