//! The `extension` toolset: building the extension under development.
//!
//! `extension_build` decodes its arguments here and hands them to `crate::build`, on a
//! blocking thread (it copies files and may run the project's toolchain).

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use crate::build::{self, BrowserBuild, BuildRequest, delegate::DELEGATED_ENV};
use crate::manifest;
use crate::paths::resolve_lexically;
use crate::tools::registry::schema::word;
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_BUILD]
}

/// One browser name or several.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Browsers {
    One(String),
    Many(Vec<String>),
}

/// Arguments of `extension_build`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BuildArgs {
    /// Project root.
    #[arg(value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// Browser(s): chrome, edge, firefox, … or all; list or comma-separated (default chrome).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST", value_parser = word::<Browsers>)]
    pub browser: Option<Browsers>,
    /// Write the store zip dist/<name>-<version>-<browser>.zip.
    #[serde(default)]
    #[arg(long)]
    pub zip: bool,
    /// Write dist/<name>-<version>-source.zip (honours .gitignore, no secrets).
    #[serde(default)]
    #[arg(long)]
    pub zip_source: bool,
    /// Output root, relative to the project (default dist). An existing one must be empty or built by webext-mcp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<String>,
}

/// Turns decoded arguments and the environment into a build request.
pub fn request(ctx: &Ctx, args: BuildArgs) -> Result<BuildRequest, ErrorBody> {
    let names = match args.browser {
        None => Vec::new(),
        Some(Browsers::One(s)) => vec![s],
        Some(Browsers::Many(v)) => v,
    };
    let targets = manifest::parse_targets(&names).map_err(|e| {
        ErrorBody::invalid_argument(format!("`browser`: {e}"))
            .with_hint("e.g. \"chrome,firefox\" or [\"chrome\", \"firefox\"]")
    })?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let project = resolve_lexically(&cwd, Path::new(&args.project_path));
    let out_dir = match &args.out_dir {
        Some(o) if !o.trim().is_empty() => o.as_str(),
        _ => "dist",
    };
    let out_dir = resolve_lexically(&project, Path::new(out_dir));
    Ok(BuildRequest {
        project,
        targets,
        zip: args.zip,
        zip_source: args.zip_source,
        out_dir,
        session: ctx.env.get("WEBEXT_MCP_SESSION").map(str::to_owned),
        allow_delegation: ctx.env.get(DELEGATED_ENV) != Some("1"),
        allow_npx: ctx.config.flag("build.allowNpx"),
        node: ctx.env.get("WEBEXT_MCP_NODE").map(PathBuf::from),
        timeout: Duration::from_millis(webext_mcp_host::protocol::timeouts::BUILD_MS),
        consent: build::consent::Consent::from_config(&ctx.config, &ctx.paths.data_dir),
        cancel: None,
    })
}

const EXTENSION_BUILD: ToolDef = ToolDef {
    name: "extension_build",
    title: "Build extension",
    toolset: Toolset::Build,
    description: "Build an extension into dist/<browser>/ per browser (manifest resolved per browser). Plain-script projects build natively; bundled ones by their own toolchain (Extension.js, WXT, build script). Optional store and source zips.",
    effect: Effect::Destructive,
    input_schema: schema_of::<BuildArgs>,
    run: |ctx, call, args| Box::pin(extension_build(ctx, call, args)),
};

/// Builds as a job ([`super::jobs`]): a build longer than the caller waits (a delegated
/// first build installing dependencies) answers with its status in time and goes on; the
/// same call again gets its result. The toolchain's output lines are the progress.
async fn extension_build(ctx: Ctx, call: Call, args: Value) -> ToolResult {
    let key = crate::tools::registry::jobs::key("extension_build", &args);
    let args: BuildArgs = decode(args)?;
    let mut req = request(&ctx, args)?;
    let work: crate::tools::registry::jobs::Work = Box::new(move |cancel, out| {
        req.cancel = Some(cancel);
        let builds = build::build(&req, &mut |line: &str| {
            tracing::debug!(target: "webext_mcp::build", bytes = line.len(), "toolchain output");
            out(line);
        })
        .map_err(ErrorBody::from)?;
        Ok(ToolOutput { structured: json!({ "builds": builds }), text: Some(summary(&builds)) })
    });
    crate::tools::registry::jobs::run_or_join(&call, "extension_build", key, work).await
}

/// One line per browser, then its warnings.
pub fn summary(builds: &[BrowserBuild]) -> String {
    let mut text = String::new();
    for b in builds {
        text.push_str(&format!(
            "{}: {}, {} bytes in {} ({}, {} ms)",
            b.browser,
            crate::text::counted(b.files.len(), "file", "files"),
            b.bytes,
            b.output_path.display(),
            if b.pipeline == build::Pipeline::Native { "native" } else { "delegated" },
            b.duration_ms
        ));
        if let Some(z) = &b.zip_path {
            text.push_str(&format!("; zip {}", z.display()));
        }
        text.push('\n');
        if let Some(d) = &b.delegation {
            text.push_str(&format!(
                "  delegated to {} because {}\n  ran: {}\n",
                d.toolchain, d.reason, d.command
            ));
        }
        for w in &b.warnings {
            text.push_str(&format!("  warning {}\n", w.line_text()));
        }
    }
    if let Some(s) = builds.first().and_then(|b| b.source_zip_path.as_ref()) {
        text.push_str(&format!("source zip {}\n", s.display()));
    }
    text.trim_end().to_owned()
}
