//! `server_info` and `get_config`: what this server is, where it keeps things, and why each
//! setting has its value.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::{
    ErrorBody, HELPER_CHROMIUM_ID, HELPER_GECKO_ID, NATIVE_HOST_NAME, PROTOCOL_VERSION,
};

use crate::browsers::Engine;
use crate::config::Setting;
use crate::helper;

use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![SERVER_INFO, GET_CONFIG, ENABLE_TOOLSETS]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableArgs {
    /// Group names (see the description), `all` for every group.
    pub toolsets: Vec<String>,
}

const ENABLE_TOOLSETS: ToolDef = ToolDef {
    name: "enable_toolsets",
    title: "Show more tools",
    toolset: Toolset::Core,
    description: "Turn tool groups on for this session (tools/list then shows them; clients are told through tools/list_changed). Groups: core, templates, build, dev, pages, snapshot, input, observe, debug; `extension` and `browser` name several. Hidden tools are callable anyway.",
    effect: Effect::Idempotent,
    input_schema: schema_of::<EnableArgs>,
    run: |ctx, _call, args| Box::pin(enable_toolsets(ctx, args)),
};

async fn enable_toolsets(ctx: Ctx, args: Value) -> ToolResult {
    let EnableArgs { toolsets } = decode(args)?;
    let mut selection =
        ctx.toolsets.write().map_err(|_| ErrorBody::internal("the tool selection is poisoned"))?;
    let added = selection.enable(&toolsets)?;
    let now: Vec<Value> = Toolset::ALL
        .iter()
        .map(|t| json!({ "name": t.name(), "on": selection.groups.contains(t), "about": t.about() }))
        .collect();
    let new_tools: Vec<&str> =
        ctx.tools.iter().filter(|t| added.contains(&t.toolset)).map(|t| t.name).collect();
    let text = if added.is_empty() {
        "those groups were already on; nothing changed".to_owned()
    } else {
        format!("now listed: {}", new_tools.join(", "))
    };
    Ok(ToolOutput {
        structured: json!({ "added": added.iter().map(|t| t.name()).collect::<Vec<_>>(), "newTools": new_tools, "toolsets": now }),
        text: Some(text),
    })
}

/// The MCP protocol revision this server announces.
pub fn mcp_protocol_version() -> String {
    rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE.to_string()
}

/// Takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

const SERVER_INFO: ToolDef = ToolDef {
    name: "server_info",
    title: "Server info",
    toolset: Toolset::Core,
    description: "Versions of webext-mcp, the MCP and wire protocols, enabled toolsets, the directories it uses, and problems of this binary (ok false: e.g. no embedded helper).",
    effect: Effect::Read,
    input_schema: schema_of::<NoArgs>,
    run: |ctx, _call, args| Box::pin(server_info(ctx, args)),
};

async fn server_info(ctx: Ctx, args: Value) -> ToolResult {
    let NoArgs {} = decode(args)?;
    let selection = ctx
        .toolsets
        .read()
        .map(|s| s.clone())
        .unwrap_or(crate::tools::Selection { defaults: true, groups: vec![] });
    let enabled: Vec<&str> = selection.groups.iter().map(|t| t.name()).collect();
    let available: Vec<&str> = Toolset::ALL.iter().map(|t| t.name()).collect();
    let tool_count = ctx.tools.iter().filter(|t| selection.shows(t)).count();
    let problems = crate::doctor::binary_problems();
    let info = json!({
        "ok": problems.is_empty(),
        "name": env!("CARGO_PKG_NAME"),
        "version": env!("CARGO_PKG_VERSION"),
        "mcpProtocolVersion": mcp_protocol_version(),
        "wireProtocolVersion": PROTOCOL_VERSION,
        "toolsets": { "default": selection.defaults, "enabled": enabled, "available": available },
        "toolCount": tool_count,
        "paths": ctx.paths,
        "platform": { "os": std::env::consts::OS, "arch": std::env::consts::ARCH },
        "helper": {
            "nativeHost": NATIVE_HOST_NAME,
            "chromiumId": HELPER_CHROMIUM_ID,
            "geckoId": HELPER_GECKO_ID,
            "embedded": {
                "chromium": helper::is_embedded(Engine::Chromium),
                "firefox": helper::is_embedded(Engine::Gecko),
            },
        },
        "problems": problems,
    });
    Ok(ToolOutput { text: Some(info_text(&info)), structured: info })
}

/// `server_info` for people: what runs, where it keeps things, and what is wrong with it.
fn info_text(info: &Value) -> String {
    let s = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let on: Vec<String> = info["toolsets"]["enabled"].as_array().into_iter().flatten().map(&s).collect();
    let mut text = format!(
        "{} {} (MCP {}, wire protocol {}) on {}/{}\ntools listed: {} (default set{}{})\n",
        s(&info["name"]),
        s(&info["version"]),
        s(&info["mcpProtocolVersion"]),
        info["wireProtocolVersion"],
        s(&info["platform"]["os"]),
        s(&info["platform"]["arch"]),
        info["toolCount"],
        if info["toolsets"]["default"] == true { "" } else { " off" },
        if on.is_empty() { String::new() } else { format!(", plus {}", on.join(", ")) },
    );
    if let Some(paths) = info["paths"].as_object() {
        for (key, value) in paths {
            if let Some(v) = value.as_str() {
                text.push_str(&format!("{key}: {v}\n"));
            }
        }
    }
    let embedded = &info["helper"]["embedded"];
    text.push_str(&format!(
        "helper {} (chromium id {}, gecko id {}): embedded for chromium {}, firefox {}\n",
        s(&info["helper"]["nativeHost"]),
        s(&info["helper"]["chromiumId"]),
        s(&info["helper"]["geckoId"]),
        if embedded["chromium"] == true { "yes" } else { "NO" },
        if embedded["firefox"] == true { "yes" } else { "NO" },
    ));
    let problems = info["problems"].as_array().cloned().unwrap_or_default();
    if problems.is_empty() {
        text.push_str("no problems with this binary");
    }
    for p in &problems {
        text.push_str(&format!("{}: {}\n  fix: {}\n", s(&p["code"]), s(&p["message"]), s(&p["fix"])));
    }
    text.trim_end().to_owned()
}

/// Arguments of `get_config`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigArgs {
    /// Only this key (e.g. `browsers.chromium.binary`); all keys when absent.
    pub key: Option<String>,
}

const GET_CONFIG: ToolDef = ToolDef {
    name: "get_config",
    title: "Effective configuration",
    toolset: Toolset::Core,
    description: "Every setting with its effective value and where it came from (flag, env, file, default).",
    effect: Effect::Read,
    input_schema: schema_of::<ConfigArgs>,
    run: |ctx, _call, args| Box::pin(get_config(ctx, args)),
};

async fn get_config(ctx: Ctx, args: Value) -> ToolResult {
    let ConfigArgs { key } = decode(args)?;
    if let Some(key) = key {
        let Some(setting) = ctx.config.settings.iter().find(|s| s.key == key) else {
            let known: Vec<&str> = ctx.config.settings.iter().map(|s| s.key).collect();
            return Err(ErrorBody::not_found(format!("no setting `{key}`"))
                .with_hint(format!("known keys: {}", known.join(", "))));
        };
        let structured = serde_json::to_value(setting).unwrap_or_default();
        return Ok(ToolOutput { text: Some(setting_line(setting)), structured });
    }
    let mut text = format!(
        "config file: {} ({})\n",
        ctx.config.file.display(),
        if ctx.config.file_exists { "present" } else { "absent: defaults apply" }
    );
    for s in &ctx.config.settings {
        text.push_str(&setting_line(s));
        text.push('\n');
    }
    Ok(ToolOutput { structured: serde_json::to_value(&ctx.config).unwrap_or_default(), text: Some(text) })
}

fn setting_line(s: &Setting) -> String {
    let value = match &s.value {
        Value::String(v) if v.is_empty() => "(unset)".to_owned(),
        Value::String(v) => v.clone(),
        other => other.to_string(),
    };
    let source = serde_json::to_value(s.source).unwrap_or_default();
    format!("{:<26} = {:<24} [{}; env {}]", s.key, value, source.as_str().unwrap_or(""), s.env)
}
