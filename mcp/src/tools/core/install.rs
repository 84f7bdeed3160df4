//! `install`, `uninstall` and `doctor` as tools (core toolset); the CLI verbs of the same
//! names call these through the registry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;

use crate::browsers::ChannelId;
use crate::doctor;
use crate::install::{self, Setup};

use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![DOCTOR, INSTALL, UNINSTALL]
}

/// Arguments of `install`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstallArgs {
    /// Comma list (chrome, firefox, zen, chrome-beta, …, all); default: the detected ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST")]
    pub browser: Option<String>,
    /// Only list what would be written.
    #[serde(default)]
    #[arg(long)]
    pub dry_run: bool,
}

/// Arguments of `uninstall`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UninstallArgs {
    /// Only list what would be removed.
    #[serde(default)]
    #[arg(long)]
    pub dry_run: bool,
}

/// Arguments of `doctor`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DoctorArgs {
    /// Comma list, as for install.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST")]
    pub browser: Option<String>,
    /// A browser error message (from the status page) to explain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "TEXT")]
    pub browser_error: Option<String>,
}

fn targets(browser: Option<&str>) -> Result<Option<Vec<ChannelId>>, ErrorBody> {
    browser
        .map(|b| {
            ChannelId::parse_list(b).map_err(|m| {
                ErrorBody::invalid_argument(m).with_hint("name a browser such as chromium or firefox")
            })
        })
        .transpose()
}

fn setup(ctx: &Ctx) -> Result<Setup, ErrorBody> {
    Ok(Setup::current(&ctx.paths, &ctx.env)?)
}

const INSTALL: ToolDef = ToolDef {
    name: "install",
    title: "Install the browser bridge",
    toolset: Toolset::Core,
    description: "Register the native host in every detected browser (or `browser`), unpack the helper, and say what the user does next.",
    effect: Effect::Idempotent,
    input_schema: schema_of::<InstallArgs>,
    run: |ctx, _call, args| Box::pin(run_install(ctx, args)),
};

async fn run_install(ctx: Ctx, args: Value) -> ToolResult {
    let InstallArgs { browser, dry_run } = decode(args)?;
    let request = install::Request { browsers: targets(browser.as_deref())?, dry_run };
    let report = install::install(&setup(&ctx)?, &request)?;
    Ok(ToolOutput {
        text: Some(install::install_text(&report).trim_end().to_owned()),
        structured: serde_json::to_value(&report).unwrap_or_default(),
    })
}

const UNINSTALL: ToolDef = ToolDef {
    name: "uninstall",
    title: "Uninstall the browser bridge",
    toolset: Toolset::Core,
    description: "Remove exactly what `install` wrote (host manifests, the unpacked helper), restoring any file it replaced.",
    effect: Effect::Destructive,
    input_schema: schema_of::<UninstallArgs>,
    run: |ctx, _call, args| Box::pin(run_uninstall(ctx, args)),
};

async fn run_uninstall(ctx: Ctx, args: Value) -> ToolResult {
    let UninstallArgs { dry_run } = decode(args)?;
    let report = install::uninstall(&setup(&ctx)?, dry_run)?;
    Ok(ToolOutput {
        text: Some(install::uninstall_text(&report).trim_end().to_owned()),
        structured: serde_json::to_value(&report).unwrap_or_default(),
    })
}

const DOCTOR: ToolDef = ToolDef {
    name: "doctor",
    title: "Diagnose the browser bridge",
    toolset: Toolset::Core,
    description: "Why the helper does or does not connect, per browser: host manifest, unpacked helper, running hosts, version skew; each problem with a code and its fix.",
    effect: Effect::Read,
    input_schema: schema_of::<DoctorArgs>,
    run: |ctx, _call, args| Box::pin(run_doctor(ctx, args)),
};

async fn run_doctor(ctx: Ctx, args: Value) -> ToolResult {
    let DoctorArgs { browser, browser_error } = decode(args)?;
    let request = doctor::Request { browsers: targets(browser.as_deref())?, browser_error };
    let report = doctor::doctor(&setup(&ctx)?, &request, &ctx.browser).await;
    Ok(ToolOutput { text: Some(doctor::text(&report).trim_end().to_owned()), structured: report })
}
