//! `extension_manifest_validate` and `extension_inspect` (the `build` toolset): decode the
//! arguments, call `crate::validation`, and shape the text forms. The CLI twins
//! `webext-mcp validate` and `webext-mcp inspect-build` run the same functions.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::extension_build::{Browsers, BuildArgs};
use crate::manifest::{self, Severity, Target};
use crate::paths::resolve_lexically;
use crate::tools::registry::schema::{display_as_word, word};
use crate::tools::{Call, Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};
use crate::validation::{self, Report, ValidateError, inspect};

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_MANIFEST_VALIDATE, EXTENSION_INSPECT]
}

fn dot() -> String {
    ".".to_owned()
}

/// Arguments of `extension_manifest_validate`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ValidateArgs {
    /// Project root (default: the folder of manifestPath, else the current folder).
    #[serde(default = "dot")]
    #[arg(value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// Path to manifest.json (default: src/manifest.json or manifest.json of the project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "FILE")]
    pub manifest_path: Option<String>,
    /// Browsers to validate for (default chrome,firefox); list or comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "LIST", value_parser = word::<Browsers>)]
    pub browsers: Option<Browsers>,
    /// Skip the scan of the extension's scripts (API use, eval, remote code).
    #[serde(default)]
    #[arg(long)]
    pub skip_code_scan: bool,
}

/// How `extension_inspect` prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InspectFormat {
    /// A few lines, under 4 KB.
    #[default]
    Summary,
    /// Every file with sizes, as a tree.
    Tree,
    /// The whole analysis as JSON text.
    Json,
}

display_as_word!(InspectFormat);

/// Arguments of `extension_inspect`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InspectBuildArgs {
    /// Project root.
    #[arg(value_name = "PATH", default_value = ".")]
    pub project_path: String,
    /// The build to inspect: dist/<browser>/ (default chrome).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub browser: Option<String>,
    #[serde(default)]
    #[arg(long, default_value_t, value_parser = word::<InspectFormat>, help = "summary, tree or json")]
    pub format: InspectFormat,
}

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// Turns the arguments into a validation request.
pub fn validate_request(args: &ValidateArgs) -> Result<validation::Request, ErrorBody> {
    let names = match &args.browsers {
        None => vec!["chrome".to_owned(), "firefox".to_owned()],
        Some(Browsers::One(s)) => vec![s.clone()],
        Some(Browsers::Many(v)) => v.clone(),
    };
    let targets = manifest::parse_targets(&names).map_err(|e| {
        ErrorBody::invalid_argument(format!("`browsers`: {e}")).with_hint("e.g. [\"chrome\", \"firefox\"]")
    })?;
    let cwd = cwd();
    let manifest = args.manifest_path.as_deref().map(|m| resolve_lexically(&cwd, Path::new(m)));
    let project = match (&manifest, args.project_path.as_str()) {
        (Some(m), ".") => validation::project_of(m),
        (_, p) => resolve_lexically(&cwd, Path::new(p)),
    };
    if !project.is_dir() {
        return Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!("project folder {} does not exist", project.display()),
        )
        .with_hint("pass projectPath: the folder that holds manifest.json (or src/manifest.json)"));
    }
    Ok(validation::Request { project, manifest, targets, scan_code: !args.skip_code_scan })
}

/// Validates in-process: the function both the tool and the benchmark call.
pub fn run_validate(args: &ValidateArgs) -> Result<Report, ErrorBody> {
    let req = validate_request(args)?;
    validation::validate(&req).map_err(|e| match e {
        ValidateError::NotFound { message, hint } => {
            ErrorBody::new(ErrorCode::NotFound, message).with_hint(hint)
        }
    })
}

const EXTENSION_MANIFEST_VALIDATE: ToolDef = ToolDef {
    name: "extension_manifest_validate",
    title: "Validate manifest",
    toolset: Toolset::Build,
    description: "Check manifest.json per browser before loading: types, required fields, version, match patterns, CSP, web_accessible_resources, commands, icons, locales, files, MDN support and minVersion, and the scripts' API use against the permissions (eval, remote code). Returns {valid, errors, warnings, info, browserSupport, scanned (files and how each was reached), similarTemplates}.",
    effect: Effect::Read,
    input_schema: schema_of::<ValidateArgs>,
    run: |ctx, call, args| Box::pin(extension_manifest_validate(ctx, call, args)),
};

async fn extension_manifest_validate(_ctx: Ctx, _call: Call, args: Value) -> ToolResult {
    let args: ValidateArgs = decode(args)?;
    let report = run_validate(&args)?;
    let text = validate_text(&report);
    let structured = serde_json::to_value(&report).map_err(|e| ErrorBody::internal(e.to_string()))?;
    Ok(ToolOutput { structured, text: Some(text) })
}

/// `valid`/`invalid`, one line per browser, then each finding with its fix.
pub fn validate_text(r: &Report) -> String {
    let mut s = format!(
        "{}: {} ({} errors, {} warnings, {} info)\n",
        r.manifest_path,
        if r.valid { "valid" } else { "INVALID" },
        r.errors.len(),
        r.warnings.len(),
        r.info.len()
    );
    for (b, sup) in &r.browser_support {
        let min = sup.min_version.as_ref().map(|v| format!(", needs {b} ≥ {v}")).unwrap_or_default();
        s.push_str(&format!("  {b}: {}{min}\n", if sup.ok { "ok" } else { "refuses it" }));
    }
    for f in r.errors.iter().chain(&r.warnings).chain(&r.info) {
        let at = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!(" ({file}:{line})"),
            _ => String::new(),
        };
        let only =
            if f.browsers.is_empty() { String::new() } else { format!(" [{}]", f.browsers.join(", ")) };
        s.push_str(&format!(
            "{} {}{at}{only}\n    fix: {}\n",
            match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            },
            f.line_text(),
            f.fix
        ));
    }
    if r.truncated {
        s.push_str(&format!(
            "(more than {} findings for a browser: the rest are left out)\n",
            validation::MAX_FINDINGS
        ));
    }
    if !r.similar_templates.is_empty() {
        let names: Vec<&str> = r.similar_templates.iter().map(|t| t.slug.as_str()).collect();
        s.push_str(&format!("similar templates: {}\n", names.join(", ")));
    }
    s.trim_end().to_owned()
}

const EXTENSION_INSPECT: ToolDef = ToolDef {
    name: "extension_inspect",
    title: "Inspect built extension",
    toolset: Toolset::Build,
    description: "Analyze dist/<browser>/ (built first if missing): files with sizes and gzip sizes, entry points and what each pulls in, unreachable files, permissions declared/used/unused with install warnings, store review flags.",
    effect: Effect::Additive,
    input_schema: schema_of::<InspectBuildArgs>,
    run: |ctx, call, args| Box::pin(extension_inspect(ctx, call, args)),
};

async fn extension_inspect(ctx: Ctx, _call: Call, args: Value) -> ToolResult {
    let args: InspectBuildArgs = decode(args)?;
    let target = match &args.browser {
        None => Target::named("chrome"),
        Some(b) => Target::named(b),
    }
    .ok_or_else(|| {
        ErrorBody::invalid_argument(format!(
            "`browser`: unknown browser `{}`",
            args.browser.clone().unwrap_or_default()
        ))
        .with_hint("e.g. chrome, edge or firefox")
    })?;
    let project = resolve_lexically(&cwd(), Path::new(&args.project_path));
    if !project.is_dir() {
        return Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!("project folder {} does not exist", project.display()),
        )
        .with_hint("pass projectPath: the extension project's folder"));
    }
    let build_args = BuildArgs {
        project_path: project.display().to_string(),
        browser: Some(Browsers::One(target.name.to_owned())),
        zip: false,
        zip_source: false,
        out_dir: None,
    };
    let req = super::extension_build::request(&ctx, build_args)?;
    let dist = req.out_dir.join(target.name);
    let format = args.format;
    let inspection = tokio::task::spawn_blocking(move || {
        let built = !dist.join("manifest.json").is_file();
        if built {
            crate::build::build(&req, &mut |_: &str| {}).map_err(ErrorBody::from)?;
        }
        let has_source_zip = std::fs::read_dir(&req.out_dir)
            .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().ends_with("-source.zip")))
            .unwrap_or(false);
        inspect::inspect(&dist, target, built, has_source_zip)
            .map_err(|m| ErrorBody::new(ErrorCode::NotFound, m).with_hint("build again with extension_build"))
    })
    .await
    .map_err(|e| ErrorBody::internal(format!("the inspection stopped: {e}")))??;
    let structured = serde_json::to_value(&inspection).map_err(|e| ErrorBody::internal(e.to_string()))?;
    let text = match format {
        InspectFormat::Summary => inspect::summary(&inspection),
        InspectFormat::Tree => inspect::tree(&inspection),
        InspectFormat::Json => serde_json::to_string_pretty(&structured).unwrap_or_default(),
    };
    Ok(ToolOutput { structured: json!(structured), text: Some(text) })
}
