//! `server_info` and `get_config`: what this server is, where it keeps things, and why each
//! setting has its value.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::PROTOCOL_VERSION;

use super::{Ctx, ToolDef, ToolOutput, ToolResult, Toolset, decode, registry, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "server_info",
            title: "Server info",
            toolset: Toolset::Core,
            description: "Versions of webext-mcp, the MCP and wire protocols, enabled toolsets and the directories it uses.",
            read_only: true,
            input_schema: schema_of::<NoArgs>,
            run: |ctx, args| Box::pin(server_info(ctx, args)),
        },
        ToolDef {
            name: "get_config",
            title: "Effective configuration",
            toolset: Toolset::Core,
            description: "Every setting with its effective value and where it came from (flag, env, file, default).",
            read_only: true,
            input_schema: schema_of::<NoArgs>,
            run: |ctx, args| Box::pin(get_config(ctx, args)),
        },
    ]
}

/// Takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

async fn server_info(ctx: Ctx, args: Value) -> ToolResult {
    let NoArgs {} = decode(args)?;
    let enabled: Vec<&str> = ctx.toolsets.iter().map(|t| t.name()).collect();
    let available: Vec<&str> = Toolset::ALL.iter().map(|t| t.name()).collect();
    let tool_count = registry().iter().filter(|t| ctx.toolsets.contains(&t.toolset)).count();
    let info = json!({
        "name": env!("CARGO_PKG_NAME"),
        "version": env!("CARGO_PKG_VERSION"),
        "mcpProtocolVersion": crate::server::mcp_protocol_version(),
        "wireProtocolVersion": PROTOCOL_VERSION,
        "toolsets": { "enabled": enabled, "available": available },
        "toolCount": tool_count,
        "paths": ctx.paths,
        "platform": { "os": std::env::consts::OS, "arch": std::env::consts::ARCH },
    });
    Ok(ToolOutput::json(info))
}

async fn get_config(ctx: Ctx, args: Value) -> ToolResult {
    let NoArgs {} = decode(args)?;
    let mut text = format!(
        "config file: {} ({})\n",
        ctx.config.file.display(),
        if ctx.config.file_exists { "present" } else { "absent: defaults apply" }
    );
    for s in &ctx.config.settings {
        let value = match &s.value {
            Value::String(v) if v.is_empty() => "(unset)".to_owned(),
            Value::String(v) => v.clone(),
            other => other.to_string(),
        };
        text.push_str(&format!(
            "{:<26} = {:<24} [{}; env {}]\n",
            s.key,
            value,
            serde_json::to_value(s.source).unwrap_or_default().as_str().unwrap_or(""),
            s.env
        ));
    }
    Ok(ToolOutput { structured: serde_json::to_value(&ctx.config).unwrap_or_default(), text: Some(text) })
}
