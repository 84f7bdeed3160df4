//! `ping`: a round trip to the helper extension's background through the native host.

use std::time::Instant;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::protocol::methods::{self, Method};

use crate::bridge::Timeout;
use crate::bridge::results::to_value;
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![PING]
}

/// Arguments of `ping`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingArgs {
    /// Browser name, profile label or session id.
    #[serde(default)]
    pub browser: Option<String>,
    /// Text echoed back by the extension.
    #[serde(default)]
    pub payload: Option<String>,
}

const PING: ToolDef = ToolDef {
    name: "ping",
    title: "Ping the browser",
    toolset: Toolset::Debug,
    description: "Round trip to the helper extension's background through the native host; reports the latency.",
    effect: Effect::Read,
    input_schema: schema_of::<PingArgs>,
    run: |ctx, _call, args| Box::pin(ping(ctx, args)),
};

async fn ping(ctx: Ctx, args: Value) -> ToolResult {
    let PingArgs { browser, payload } = decode(args)?;
    let started = Instant::now();
    let (d, reply) = ctx
        .browser
        .call(browser.as_deref(), methods::Ping { payload }, Timeout::fixed(methods::Ping::TIMEOUT_MS))
        .await?;
    let rtt = started.elapsed();
    Ok(ToolOutput::json(json!({
        "browser": d.browser,
        "label": d.label,
        "rttMs": (rtt.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
        "reply": to_value(&reply)?,
    })))
}
