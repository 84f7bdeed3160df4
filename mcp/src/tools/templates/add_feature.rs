//! `extension_add_feature` (the `templates` toolset) over [`crate::feature`]; the
//! CLI twin is `webext-mcp add-feature`.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;

use crate::feature::{self, AddRequest, Added, Feature, FeatureError};
use crate::paths::resolve_lexically;
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_ADD_FEATURE]
}

fn dot() -> String {
    ".".to_owned()
}

/// Arguments of `extension_add_feature`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddFeatureArgs {
    /// sidebar, popup, options, content-script, background, newtab, devtools, history, bookmarks.
    #[arg(value_name = "FEATURE")]
    pub feature: String,
    /// Project root (default: the current folder).
    #[serde(default = "dot")]
    #[arg(long, value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// vanilla, react or preact (default: the project's framework from package.json, else
    /// vanilla); vue and svelte are refused (their components need the project's compiler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub framework: Option<String>,
    /// List the files and the manifest diff; write nothing.
    #[serde(default)]
    #[arg(long)]
    pub dry_run: bool,
}

/// Turns arguments into a request (paths resolved against `cwd`).
pub fn add_request(args: &AddFeatureArgs, cwd: &Path) -> Result<AddRequest, ErrorBody> {
    let feature =
        Feature::parse(&args.feature).ok_or_else(|| FeatureError::UnknownFeature(args.feature.clone()))?;
    let project = resolve_lexically(cwd, Path::new(&args.project_path));
    if !project.is_dir() {
        return Err(ErrorBody::not_found(format!("project folder {} does not exist", project.display()))
            .with_hint("pass projectPath: the folder that holds manifest.json (or src/manifest.json); extension_create makes a new project"));
    }
    Ok(AddRequest { project, feature, framework: args.framework.clone(), dry_run: args.dry_run })
}

const EXTENSION_ADD_FEATURE: ToolDef = ToolDef {
    name: "extension_add_feature",
    title: "Add a feature surface",
    toolset: Toolset::Templates,
    description: "Add sidebar, popup, options, content-script, background, newtab, devtools, history or bookmarks (last two Chromium-only) to a project: writes the pattern's files (vanilla JS, or React/Preact JSX: `framework`, default from package.json), edits manifest.json keeping comments and browser prefixes, validates. Never overwrites; a surface already declared is ALREADY_EXISTS. `dryRun` returns files + manifest diff.",
    effect: Effect::Idempotent,
    input_schema: schema_of::<AddFeatureArgs>,
    run: |ctx, call, args| Box::pin(extension_add_feature(ctx, call, args)),
};

async fn extension_add_feature(_ctx: Ctx, _call: Call, args: Value) -> ToolResult {
    let args: AddFeatureArgs = decode(args)?;
    let cwd = std::env::current_dir()
        .map_err(|e| ErrorBody::internal(format!("cannot read the working folder: {e}")))?;
    let req = add_request(&args, &cwd)?;
    let added = tokio::task::spawn_blocking(move || feature::add(&req))
        .await
        .map_err(|e| ErrorBody::internal(format!("add_feature stopped: {e}")))??;
    added_output(&added)
}

/// The answer: what changed, the diff, what to do next.
pub fn added_output(added: &Added) -> ToolResult {
    let mut text = if !added.changed {
        format!("{} is already there as extension_add_feature adds it; nothing changed\n", added.feature)
    } else {
        let verb = if added.dry_run { "would add" } else { "added" };
        format!(
            "{verb} {} ({}) to {}: {} files, {}\n",
            added.feature,
            added.framework,
            added.project_path.display(),
            added.files.len(),
            added.manifest_path
        )
    };
    for f in &added.files {
        text.push_str(&format!("  {f}\n"));
    }
    text.push_str(&added.manifest_diff);
    if let Some(v) = &added.validation {
        text.push_str(&format!(
            "validation: {} ({} errors, {} warnings)\n",
            if v.valid { "valid" } else { "INVALID" },
            v.errors.len(),
            v.warnings
        ));
        for e in &v.errors {
            text.push_str(&format!("  error {e}\n"));
        }
    }
    for w in &added.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text.push_str("next:\n");
    for s in &added.next_steps {
        text.push_str(&format!("  {s}\n"));
    }
    let structured = serde_json::to_value(added).map_err(|e| ErrorBody::internal(e.to_string()))?;
    Ok(ToolOutput { structured, text: Some(text.trim_end().to_owned()) })
}
