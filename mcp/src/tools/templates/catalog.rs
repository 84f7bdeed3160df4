//! The template tools of the `extension` toolset: `extension_list_templates`,
//! `extension_get_template_source` and `extension_create`, over [`crate::catalog`].

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;

use crate::catalog::create::{self, CreateRequest};
use crate::catalog::search::{self, Filters, SURFACES};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset, decode, schema_of};
use std::sync::Arc;

use crate::catalog::remote::{self, Loaded, fetch::HttpFetch};
use crate::catalog::{Catalog, DEFAULT_TEMPLATE, Template};
use crate::paths::{find_executable, resolve_lexically};
use webext_mcp_engine::text::truncate_bytes;

pub fn tools() -> Vec<ToolDef> {
    vec![EXTENSION_LIST_TEMPLATES, EXTENSION_GET_TEMPLATE_SOURCE, EXTENSION_CREATE]
}

/// Results per page when `limit` is not given; small on purpose.
const DEFAULT_LIMIT: usize = 8;
const MAX_LIMIT: usize = 50;

/// Arguments of `extension_list_templates`.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListArgs {
    /// action (popup), content, sidebar, newtab, devtools, options or background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub surface: Option<String>,
    /// react, vue, svelte, preact, or "" for plain JavaScript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub framework: Option<String>,
    /// Every tag must match, e.g. ["ai", "chat"].
    #[serde(default)]
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, num_args = 0, default_missing_value = "true", help = "Only featured templates")]
    pub featured: Option<bool>,
    /// What the extension should do, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Page size (default 8, max 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub limit: Option<usize>,
    /// `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub cursor: Option<String>,
}

/// A listing entry: what choosing a template needs, nothing more.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Compact<'a> {
    slug: &'a str,
    title: &'a str,
    description: &'a str,
    ui_framework: &'a str,
    surfaces: &'a [String],
    tags: &'a [String],
    #[serde(skip_serializing_if = "str::is_empty")]
    difficulty: &'a str,
    use_cases: &'a [String],
    #[serde(skip_serializing_if = "str::is_empty")]
    repository_url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    downloads: Option<u64>,
    featured: bool,
    source: &'a str,
}

impl<'a> From<&'a Template> for Compact<'a> {
    fn from(t: &'a Template) -> Self {
        Compact {
            slug: &t.slug,
            title: &t.title,
            description: &t.description,
            ui_framework: &t.ui_framework,
            surfaces: &t.surfaces,
            tags: &t.tags,
            difficulty: &t.difficulty,
            use_cases: &t.use_cases,
            repository_url: &t.repository_url,
            downloads: t.downloads,
            featured: t.featured,
            source: &t.source,
        }
    }
}

/// Lists a catalog: the pure part of `extension_list_templates` (tests and benchmarks call it
/// with any catalog).
pub fn list(catalog: &Catalog, args: &ListArgs) -> Result<Value, ErrorBody> {
    if let Some(s) = &args.surface
        && search::canonical_surface(s).is_none()
    {
        return Err(ErrorBody::invalid_argument(format!("`surface`: unknown surface `{s}`"))
            .with_hint(format!("use one of: {}", SURFACES.join(", "))));
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ErrorBody::invalid_argument(format!("`limit`: {limit} is out of range"))
            .with_hint(format!("use 1 to {MAX_LIMIT}")));
    }
    let offset = match &args.cursor {
        None => 0,
        Some(c) => c.strip_prefix('o').and_then(|n| n.parse::<usize>().ok()).ok_or_else(|| {
            ErrorBody::invalid_argument(format!("`cursor`: `{c}` is not a cursor from this tool"))
                .with_hint("pass the nextCursor value of the previous page, or omit it to start over")
        })?,
    };
    let filters = Filters {
        surface: args.surface.clone(),
        framework: args.framework.clone(),
        tags: args.tags.clone(),
        featured: args.featured,
        query: args.query.clone(),
    };
    let found = search::search(catalog.templates(), &filters);
    let page: Vec<Compact> = found.iter().skip(offset).take(limit).map(|t| Compact::from(*t)).collect();
    let mut out = json!({ "templates": page, "total": found.len() });
    if offset + limit < found.len() {
        out["nextCursor"] = json!(format!("o{}", offset + limit));
    }
    Ok(out)
}

/// The catalogs this server answers from: the embedded one and the configured remote
/// ones (cached; a cold, unreachable source is left out with a warning within 3 s).
/// Blocking: call from a blocking thread.
pub fn loaded(ctx: &Ctx) -> Result<Arc<Loaded>, ErrorBody> {
    let settings = remote::Settings::from_config(&ctx.config, &ctx.paths)?;
    let mirror = settings.mirror.clone();
    let sources: Vec<String> = settings.specs.iter().map(|s| s.location.clone()).collect();
    Ok(remote::shared(
        &settings,
        move || {
            Arc::new(HttpFetch::for_sources(mirror.as_deref(), &sources)) as Arc<dyn remote::fetch::Fetch>
        },
        std::time::SystemTime::now(),
    ))
}

/// The catalog to find one named template in: a bare name the embedded catalog has is
/// answered by it without loading remote sources (offline and instant), unless
/// `catalog.preferRemote` says otherwise.
pub enum Answering {
    Embedded,
    All(Arc<Loaded>),
}

impl Answering {
    pub fn catalog(&self) -> &Catalog {
        match self {
            Answering::Embedded => Catalog::embedded(),
            Answering::All(l) => &l.catalog,
        }
    }

    fn warnings(&self) -> &[String] {
        match self {
            Answering::Embedded => &[],
            Answering::All(l) => &l.warnings,
        }
    }
}

/// Blocking: call from a blocking thread.
pub fn answering(ctx: &Ctx, name: &str) -> Result<Answering, ErrorBody> {
    if !name.contains(':')
        && !ctx.config.flag("catalog.preferRemote")
        && Catalog::embedded().lookup(name).is_ok()
    {
        return Ok(Answering::Embedded);
    }
    loaded(ctx).map(Answering::All)
}

async fn loaded_async(ctx: &Ctx) -> Result<Arc<Loaded>, ErrorBody> {
    let ctx = Arc::clone(ctx);
    tokio::task::spawn_blocking(move || loaded(&ctx))
        .await
        .map_err(|e| ErrorBody::internal(format!("loading the catalogs stopped: {e}")))?
}

/// Adds which catalogs answered (`source`), each remote source's state and the warnings.
fn with_sources(out: &mut Value, loaded: &Loaded) {
    out["source"] = json!(loaded.answered_by());
    if !loaded.sources.is_empty() {
        out["sources"] = json!(loaded.sources);
    }
    if !loaded.warnings.is_empty() {
        out["warnings"] = json!(loaded.warnings);
    }
}

const EXTENSION_LIST_TEMPLATES: ToolDef = ToolDef {
    name: "extension_list_templates",
    title: "List extension templates",
    toolset: Toolset::Templates,
    description: "Find a starting point for a new extension. Filter by surface, framework, tags, featured; `query` (what the extension should do) ranks results. Compact entries; page with `cursor`.",
    effect: Effect::Read,
    input_schema: schema_of::<ListArgs>,
    run: |ctx, _call, args| Box::pin(list_templates(ctx, args)),
};

async fn list_templates(ctx: Ctx, args: Value) -> ToolResult {
    let args: ListArgs = decode(args)?;
    let loaded = loaded_async(&ctx).await?;
    let mut out = list(&loaded.catalog, &args)?;
    with_sources(&mut out, &loaded);
    let mut lines = String::new();
    for t in out["templates"].as_array().into_iter().flatten() {
        lines.push_str(&format!(
            "{} ({}) — {}: {}\n",
            t["slug"].as_str().unwrap_or_default(),
            t["surfaces"]
                .as_array()
                .map(|s| s.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
                .unwrap_or_default(),
            t["title"].as_str().unwrap_or_default(),
            t["description"].as_str().unwrap_or_default(),
        ));
    }
    // Slugs, titles and descriptions are the catalog's (a remote one is anyone's): inside the
    // untrusted block, one line each.
    let mut text = String::new();
    if lines.is_empty() {
        text.push_str("no template matches; loosen the filters or reword the query\n");
    } else {
        text.push_str(&crate::text::untrusted_from("catalog", &lines));
        text.push('\n');
    }
    if let Some(c) = out["nextCursor"].as_str() {
        text.push_str(&format!("{} in all; more with cursor \"{c}\"\n", out["total"]));
    }
    for w in &loaded.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    Ok(ToolOutput { structured: out, text: Some(text.trim_end().to_owned()) })
}

/// Arguments of `extension_get_template_source`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SourceArgs {
    /// Template slug, or source:slug.
    pub slug: String,
    /// Paths to read, e.g. ["src/manifest.json"].
    #[serde(default)]
    pub files: Option<Vec<String>>,
    /// Cap per file (default 16000).
    #[serde(default)]
    pub max_bytes: Option<usize>,
    /// Cap for all files together (default 48000).
    #[serde(default)]
    pub max_total_bytes: Option<usize>,
}

const TEMPLATE_FILE_CAP: usize = 16_000;
const DEFAULT_MAX_TOTAL_BYTES: usize = 48_000;

/// The pure part of `extension_get_template_source`.
pub fn template_source(catalog: &Catalog, args: &SourceArgs) -> Result<Value, ErrorBody> {
    let (source, t) = catalog.lookup(&args.slug)?;
    let Some(wanted) = &args.files else {
        let mut files = Vec::new();
        for path in &t.files {
            let bytes = source.read(&t.slug, path).ok().flatten().map(|b| b.len());
            files.push(json!({ "path": path, "bytes": bytes }));
        }
        return Ok(json!({
            "slug": t.slug,
            "source": t.source,
            "title": t.title,
            "description": t.description,
            "surfaces": t.surfaces,
            "uiFramework": t.ui_framework,
            "permissions": t.permissions,
            "hostPermissions": t.host_permissions,
            "hasBackground": t.has_background,
            "patternExplanation": t.pattern_explanation,
            "keyFiles": t.key_files,
            "firstSteps": t.first_steps,
            "files": files,
        }));
    };
    let max_bytes = args.max_bytes.unwrap_or(TEMPLATE_FILE_CAP);
    let mut remaining = args.max_total_bytes.unwrap_or(DEFAULT_MAX_TOTAL_BYTES);
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for raw in wanted {
        let Some(path) = clean_path(raw) else {
            return Err(ErrorBody::invalid_argument(format!("`files`: `{raw}` leaves the template folder"))
                .with_hint("use template-relative paths such as src/manifest.json"));
        };
        let Some(bytes) = source.read(&t.slug, &path)? else {
            missing.push(path);
            continue;
        };
        let mut entry = json!({ "path": path, "bytes": bytes.len() });
        match std::str::from_utf8(&bytes) {
            Err(_) => entry["binary"] = json!(true),
            Ok(text) => {
                let cap = max_bytes.min(remaining);
                let (content, truncated) = truncate_bytes(text, cap);
                remaining -= content.len();
                entry["content"] = json!(content);
                if truncated {
                    entry["truncated"] = json!(true);
                }
            }
        }
        out.push(entry);
    }
    if out.is_empty() && !missing.is_empty() {
        return Err(ErrorBody::not_found(format!(
            "template `{}` has none of: {}",
            t.slug,
            missing.join(", ")
        ))
        .with_hint("call extension_get_template_source without `files` to see its file list")
        .with_data(json!({ "files": t.files })));
    }
    let mut value = json!({ "slug": t.slug, "source": t.source, "files": out });
    if !missing.is_empty() {
        value["missing"] = json!(missing);
    }
    Ok(value)
}

/// `./src/x.js` and `/src/x.js` → `src/x.js`; `None` for paths with `..`.
fn clean_path(raw: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in raw.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

const EXTENSION_GET_TEMPLATE_SOURCE: ToolDef = ToolDef {
    name: "extension_get_template_source",
    title: "Read template source",
    toolset: Toolset::Templates,
    description: "A template's file list and keyFiles, or with `files` their contents (capped).",
    effect: Effect::Read,
    input_schema: schema_of::<SourceArgs>,
    run: |ctx, call, args| Box::pin(get_template_source(ctx, call, args)),
};

async fn get_template_source(ctx: Ctx, call: crate::tools::Call, args: Value) -> ToolResult {
    let args: SourceArgs = decode(args)?;
    let out = tokio::task::spawn_blocking(move || {
        let loaded = answering(&ctx, &args.slug)?;
        // Reading files of a remote template needs its archive: fetched and verified once.
        let provenance = match &args.files {
            Some(_) => {
                let (source, t) = loaded.catalog().lookup(&args.slug)?;
                source.prepare(&t.slug, &mut |m| call.status(m))?
            }
            None => None,
        };
        let mut out = template_source(loaded.catalog(), &args)?;
        if let Some(p) = provenance {
            out["provenance"] = json!(p);
        }
        if !loaded.warnings().is_empty() {
            out["warnings"] = json!(loaded.warnings());
        }
        Ok::<Value, ErrorBody>(out)
    })
    .await
    .map_err(|e| ErrorBody::internal(format!("reading the template stopped: {e}")))??;
    Ok(ToolOutput::json(out))
}

/// Arguments of `extension_create`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateArgs {
    /// Also the folder name without `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(value_name = "NAME")]
    pub project_name: Option<String>,
    /// Folder to create (`path` is the earlier name).
    #[serde(default, alias = "path", skip_serializing_if = "Option::is_none")]
    #[arg(long, alias = "path", value_name = "DIR")]
    pub project_path: Option<String>,
    /// Template slug or source:slug (default starter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long)]
    pub template: Option<String>,
    /// Default false. Always --ignore-scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long = "install",
        num_args = 0,
        default_missing_value = "true",
        help = "Install the dependencies, with --ignore-scripts"
    )]
    pub install: Option<bool>,
    /// List the files; write nothing.
    #[serde(default)]
    #[arg(long)]
    pub dry_run: bool,
    /// git init (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long = "no-git", num_args = 0, default_missing_value = "false", help = "Do not run `git init`")]
    pub git: Option<bool>,
}

/// Turns arguments into a request: the folder, the name and the tools to use.
pub fn create_request(
    args: CreateArgs,
    cwd: &Path,
    path_env: Option<&str>,
    consent: crate::build::consent::Consent,
) -> Result<CreateRequest, ErrorBody> {
    let dest = match (&args.project_path, &args.project_name) {
        (Some(p), _) if !p.trim().is_empty() => {
            let p = Path::new(p);
            resolve_lexically(cwd, p)
        }
        (_, Some(name)) => {
            create::validate_project_name(name)?;
            cwd.join(name)
        }
        _ => {
            return Err(ErrorBody::invalid_argument("give `projectName` or `path`")
                .with_hint("e.g. {\"projectName\": \"my-extension\"}"));
        }
    };
    let project_name = match args.project_name {
        Some(n) => n,
        None => dest.file_name().and_then(|n| n.to_str()).map(str::to_owned).ok_or_else(|| {
            ErrorBody::invalid_argument(format!("`path`: {} has no folder name", dest.display()))
                .with_hint("pass `projectName` too, or a path ending in the new folder's name")
        })?,
    };
    let git = if args.git == Some(false) {
        None
    } else {
        find_executable("git", path_env.map(std::ffi::OsStr::new))
    };
    Ok(CreateRequest {
        dest,
        project_name,
        template: args.template.unwrap_or_else(|| DEFAULT_TEMPLATE.to_owned()),
        install: args.install.unwrap_or(false),
        consent,
        dry_run: args.dry_run,
        git,
    })
}

const EXTENSION_CREATE: ToolDef = ToolDef {
    name: "extension_create",
    title: "Create extension project",
    toolset: Toolset::Templates,
    description: "Scaffold an extension project from a template (default starter) into a new or empty folder; never overwrites.",
    effect: Effect::Additive,
    input_schema: schema_of::<CreateArgs>,
    run: |ctx, call, args| Box::pin(extension_create(ctx, call, args)),
};

/// Creates as a job ([`super::jobs`]): a dependency install longer than the caller waits
/// answers with its status in time and goes on; the same call again gets its result.
async fn extension_create(ctx: Ctx, call: crate::tools::Call, args: Value) -> ToolResult {
    let key = crate::tools::registry::jobs::key("extension_create", &args);
    let args: CreateArgs = decode(args)?;
    let cwd = std::env::current_dir()
        .map_err(|e| ErrorBody::internal(format!("cannot read the working folder: {e}")))?;
    // PATH is not part of the captured `Env` (it only holds webext-mcp's own variables).
    let path_env = ctx.env.get("PATH").map(str::to_owned).or_else(|| std::env::var("PATH").ok());
    let consent = crate::build::consent::Consent::from_config(&ctx.config, &ctx.paths.data_dir);
    let req = create_request(args, &cwd, path_env.as_deref(), consent)?;
    let work: crate::tools::registry::jobs::Work = Box::new(move |_cancel, out| {
        let answering = answering(&ctx, &req.template)?;
        let mut created = create::create_with(answering.catalog(), &req, &mut |m| out(&m))?;
        created.warnings.extend(answering.warnings().iter().cloned());
        created_output(&created)
    });
    crate::tools::registry::jobs::run_or_join(&call, "extension_create", key, work).await
}

/// The answer of `extension_create`: what was made, and what to do next.
fn created_output(created: &create::Created) -> ToolResult {
    let verb = if created.dry_run { "would create" } else { "created" };
    let mut text = format!(
        "{verb} {} from {}:{} ({} files)\n",
        created.project_path.display(),
        created.source,
        created.template,
        created.files.len()
    );
    if let Some(p) = &created.provenance {
        text.push_str(&format!(
            "files from {} ({}sha256 {}, trust: {})\n",
            p.archive_url,
            p.commit.as_ref().map(|c| format!("commit {c}, ")).unwrap_or_default(),
            p.sha256,
            p.trust
        ));
    }
    for w in &created.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text.push_str("next:\n");
    for s in &created.next_steps {
        text.push_str(&format!("  {s}\n"));
    }
    let structured = serde_json::to_value(created).map_err(|e| ErrorBody::internal(e.to_string()))?;
    Ok(ToolOutput { structured, text: Some(text.trim_end().to_owned()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cleaned_and_parent_steps_refused() {
        assert_eq!(clean_path("./src//manifest.json").as_deref(), Some("src/manifest.json"));
        assert_eq!(clean_path("/README.md").as_deref(), Some("README.md"));
        assert_eq!(clean_path("src/../../etc/passwd"), None);
        assert_eq!(clean_path("."), None);
    }

    #[test]
    fn cut_respects_char_boundaries() {
        assert_eq!(truncate_bytes("héllo", 2), ("h", true));
        assert_eq!(truncate_bytes("abc", 3), ("abc", false));
    }

    #[test]
    fn create_request_resolves_name_and_folder() {
        let cwd = Path::new("/w");
        let args = |v: Value| serde_json::from_value::<CreateArgs>(v).unwrap();
        let r = create_request(args(json!({"projectName": "x"})), cwd, None, Default::default()).unwrap();
        assert_eq!(
            (r.dest.as_path(), r.project_name.as_str(), r.template.as_str()),
            (Path::new("/w/x"), "x", "starter")
        );
        let r = create_request(args(json!({"path": "a/../b/y"})), cwd, None, Default::default()).unwrap();
        assert_eq!((r.dest.as_path(), r.project_name.as_str()), (Path::new("/w/b/y"), "y"));
        assert!(
            create_request(args(json!({"projectName": "../up"})), cwd, None, Default::default()).is_err()
        );
        assert!(create_request(args(json!({})), cwd, None, Default::default()).is_err());
        assert!(r.git.is_none());
    }
}
