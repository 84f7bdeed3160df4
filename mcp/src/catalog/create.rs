//! Scaffolding a project from a template.
//!
//! ```text
//! validate name ─▶ look up template ─▶ render files (manifest name, package.json, .gitignore)
//!   ─▶ dry run? return the list
//!   ─▶ destination empty or absent? else ALREADY_EXISTS, untouched
//!   ─▶ write into a hidden sibling folder, `git init` there ─▶ rename onto the destination
//!   ─▶ install dependencies (only when the template has any)
//! ```
//!
//! Writing aside and renaming means a failure at any step before the rename leaves nothing
//! behind but the sibling folder, which is removed; the destination is never half-written.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;
use serde_json::{Value, json};

use super::{Catalog, CatalogError, Provenance, Template};
use crate::manifest::{self, Json};

/// What to create. The caller resolves paths and tools; this module only decides and writes.
#[derive(Debug, Clone)]
pub struct CreateRequest {
    /// The project folder to create (absolute). It may exist if it is empty.
    pub dest: PathBuf,
    /// The name written into the manifest and `package.json`.
    pub project_name: String,
    /// `slug` or `source:slug`.
    pub template: String,
    /// Run the package manager (`--ignore-scripts`) when the template has dependencies.
    pub install: bool,
    /// What the user said about running a package manager on a template's files.
    pub consent: crate::build::consent::Consent,
    /// List the files, write nothing.
    pub dry_run: bool,
    /// The `git` binary to `git init` with; `None` skips it.
    pub git: Option<PathBuf>,
}

/// What was created.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    pub project_path: PathBuf,
    pub project_name: String,
    pub template: String,
    pub source: String,
    pub deps_installed: bool,
    /// Packages (and the project itself) whose install scripts were not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_scripts: Vec<super::install::Skipped>,
    /// Project-relative paths, sorted.
    pub files: Vec<String>,
    pub dry_run: bool,
    pub git_initialized: bool,
    pub next_steps: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where a remote template's files came from (archive, commit, sha256, trust).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// Entries of the generated `.gitignore`.
pub const GITIGNORE: &str = "dist/\n.extension-js/\n.env*\nnode_modules/\n*.pem\n";

/// Checks a project name: it names a folder and goes into the manifest, so it must be one
/// path component of printable characters, at most 75 long (Chrome's limit for `name`).
pub fn validate_project_name(name: &str) -> Result<(), CatalogError> {
    let bad = |why: &str| {
        CatalogError::InvalidArgument {
        message: format!("project name {name:?} {why}"),
        hint: "use letters, digits, spaces, `-`, `_` or `.`, e.g. \"my-extension\"; pass `path` to choose the folder".into(),
    }
    };
    if name.trim().is_empty() {
        return Err(bad("is empty"));
    }
    if name != name.trim() {
        return Err(bad("starts or ends with spaces"));
    }
    if name.chars().count() > 75 {
        return Err(bad("is longer than 75 characters"));
    }
    if name.starts_with('.') || name.starts_with('-') {
        return Err(bad("starts with `.` or `-`"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'))
    {
        return Err(bad(&format!("contains {c:?}, which cannot be in a folder name")));
    }
    Ok(())
}

/// The `package.json` name for a project name: lowercase, anything outside `[a-z0-9._-]`
/// becomes `-`, no leading or repeated `-`.
pub fn package_name(project_name: &str) -> String {
    let mut out = String::new();
    for c in project_name.to_lowercase().chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' };
        if c == '-' && (out.is_empty() || out.ends_with('-')) {
            continue;
        }
        out.push(c);
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { "extension".to_owned() } else { out }
}

/// Creates the project (or, for a dry run, lists what it would write).
pub fn create(catalog: &Catalog, req: &CreateRequest) -> Result<Created, CatalogError> {
    create_with(catalog, req, &mut |_| {})
}

/// [`create`], reporting progress (a remote template's download) as text.
pub fn create_with(
    catalog: &Catalog,
    req: &CreateRequest,
    progress: &mut dyn FnMut(String),
) -> Result<Created, CatalogError> {
    validate_project_name(&req.project_name)?;
    let (source, template) = catalog.lookup(&req.template)?;
    let pkg = package_name(&req.project_name);
    // A remote template's files are downloaded and verified before anything is written.
    let provenance = source.prepare(&template.slug, progress)?;
    // The whole template folder when the source has it (the catalog's `files` can leave out
    // package.json and config files), else the catalog's list.
    let paths = source.list_files(&template.slug).unwrap_or_else(|| template.files.clone());

    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for path in &paths {
        let bytes = source
            .read(&template.slug, path)?
            .ok_or_else(|| CatalogError::FilesUnavailable {
                source_name: source.name().to_owned(),
                slug: template.slug.clone(),
            })?
            .into_owned();
        let bytes = match path.as_str() {
            "src/manifest.json" | "manifest.json" => rename_manifest(&bytes, &req.project_name, &pkg)?,
            "README.md" => retitle_readme(&bytes, &req.project_name),
            "package.json" => patch_package_json(&bytes, &pkg)?,
            _ => bytes,
        };
        files.push((path.clone(), bytes));
    }
    if !files.iter().any(|(p, _)| p == "package.json") {
        files.push(("package.json".into(), package_json(&pkg, &template.description)));
    }
    if !files.iter().any(|(p, _)| p == ".gitignore") {
        files.push((".gitignore".into(), GITIGNORE.as_bytes().to_vec()));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, _) in &files {
        if manifest_relative_escape(path) {
            return Err(CatalogError::InvalidArgument {
                message: format!("template `{}` has a file outside its folder: {path}", template.slug),
                hint: "report this catalog entry; pick another template".into(),
            });
        }
    }

    let needs_install =
        needs_install(files.iter().find(|(p, _)| p == "package.json").map(|(_, b)| b.as_slice()));
    let mut created = Created {
        project_path: req.dest.clone(),
        project_name: req.project_name.clone(),
        template: template.slug.clone(),
        source: source.name().to_owned(),
        deps_installed: false,
        skipped_scripts: Vec::new(),
        files: files.iter().map(|(p, _)| p.clone()).collect(),
        dry_run: req.dry_run,
        git_initialized: false,
        next_steps: next_steps(
            &req.dest,
            (needs_install && !req.install).then(|| package_manager(&template.setup)),
            template,
        ),
        warnings: Vec::new(),
        provenance,
    };
    if let Some(p) = &created.provenance
        && p.trust == "unpinned"
    {
        created.warnings.push(format!(
            "the `{}` catalog names a branch, not a commit, so this archive is not pinned and cannot be checked against an earlier download; pin one with catalog.sources `…#<commit>`",
            p.source
        ));
    }
    check_destination(&req.dest)?;
    if req.dry_run {
        return Ok(created);
    }

    let parent = req.dest.parent().unwrap_or(Path::new("/"));
    let staging = tempfile::Builder::new()
        .prefix(".webext-mcp-create-")
        .tempdir_in(parent)
        .map_err(|e| io(format!("cannot create a folder in {}", parent.display()), e))?;
    for (path, bytes) in &files {
        let target = staging.path().join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(format!("cannot create {}", dir.display()), e))?;
        }
        std::fs::write(&target, bytes).map_err(|e| io(format!("cannot write {path}"), e))?;
    }
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(staging.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("cannot set the project folder's permissions".into(), e))?;
    }
    if let Some(git) = &req.git {
        created.git_initialized =
            run_quiet(Command::new(git).args(["init", "-q"]).current_dir(staging.path()));
        if !created.git_initialized {
            created.warnings.push("`git init` failed; the project is not a git repository".into());
        }
    }
    // Another process may have filled the destination meanwhile: re-check just before.
    check_destination(&req.dest)?;
    std::fs::rename(staging.path(), &req.dest).map_err(|e| match e.kind() {
        std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists => {
            CatalogError::AlreadyExists { path: req.dest.clone() }
        }
        _ => io(format!("cannot move the project into {}", req.dest.display()), e),
    })?;
    // Renamed away: nothing left for the guard to remove.
    let _ = staging.keep();

    if needs_install && req.install {
        let manager = package_manager(&template.setup);
        let trusted = source.name() == super::EMBEDDED;
        match super::install::install(&req.dest, manager, trusted, &req.consent) {
            super::install::Outcome::Installed { skipped } => {
                created.deps_installed = true;
                if !skipped.is_empty() {
                    let names: Vec<&str> = skipped.iter().map(|s| s.package.as_str()).collect();
                    created.warnings.push(format!(
                        "installed with --ignore-scripts: the install scripts of {} did not run (see skippedScripts); run one yourself only after reading it",
                        names.join(", ")
                    ));
                }
                created.skipped_scripts = skipped;
            }
            super::install::Outcome::Failed { command } => {
                created.warnings.push(format!("`{command}` failed; run it in the project folder"));
                created.next_steps.insert(1, command);
            }
            super::install::Outcome::NotAllowed { message, hint } => {
                created.warnings.push(format!(
                    "dependencies not installed: PROJECT_SCRIPTS_NOT_ALLOWED: {message} — {hint}"
                ));
                created.next_steps.insert(1, super::install::command_line(manager));
            }
        }
    }
    Ok(created)
}

fn io(context: String, source: std::io::Error) -> CatalogError {
    CatalogError::Io { context, source }
}

fn manifest_relative_escape(path: &str) -> bool {
    Path::new(path).components().any(|c| !matches!(c, std::path::Component::Normal(_)))
}

/// The destination must be absent or an empty folder, and its parent must exist.
fn check_destination(dest: &Path) -> Result<(), CatalogError> {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if m.is_dir() => {
            let mut entries =
                std::fs::read_dir(dest).map_err(|e| io(format!("cannot read {}", dest.display()), e))?;
            if entries.next().is_some() {
                return Err(CatalogError::AlreadyExists { path: dest.to_path_buf() });
            }
            Ok(())
        }
        Ok(_) => Err(CatalogError::AlreadyExists { path: dest.to_path_buf() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = dest.parent().unwrap_or(Path::new("/"));
            if parent.is_dir() {
                Ok(())
            } else {
                Err(CatalogError::ParentMissing { path: parent.to_path_buf() })
            }
        }
        Err(e) => Err(io(format!("cannot look at {}", dest.display()), e)),
    }
}

fn run_quiet(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    cmd.status().map(|s| s.success()).unwrap_or(false)
}

/// Whether `package.json` declares dependencies to install.
pub fn needs_install(package_json: Option<&[u8]>) -> bool {
    let Some(Ok(pkg)) = package_json.map(serde_json::from_slice::<Value>) else {
        return false;
    };
    ["dependencies", "devDependencies"]
        .iter()
        .any(|k| pkg.get(*k).and_then(Value::as_object).is_some_and(|o| !o.is_empty()))
}

fn package_manager(setup: &Option<Value>) -> &'static str {
    match setup.as_ref().and_then(|s| s.get("packageManager")).and_then(Value::as_str) {
        Some("pnpm") => "pnpm",
        Some("yarn") => "yarn",
        Some("bun") => "bun",
        _ => "npm",
    }
}

/// The scripts every project gets: the `webext-mcp` verbs, per browser. Builds and sessions
/// (`dev`, `start`, `preview`) cover both families; without `--browser` sessions use config
/// `browser` or the first browser installed.
fn scripts() -> Value {
    json!({
        "build": "webext-mcp build . --browser chrome,firefox",
        "build:chrome": "webext-mcp build . --browser chrome",
        "build:firefox": "webext-mcp build . --browser firefox",
        "dev": "webext-mcp dev .",
        "dev:chrome": "webext-mcp dev . --browser chrome",
        "dev:chromium": "webext-mcp dev . --browser chromium",
        "dev:firefox": "webext-mcp dev . --browser firefox",
        "start": "webext-mcp start .",
        "start:chrome": "webext-mcp start . --browser chrome",
        "start:chromium": "webext-mcp start . --browser chromium",
        "start:firefox": "webext-mcp start . --browser firefox",
        "preview": "webext-mcp preview .",
        "zip": "webext-mcp build . --browser chrome,firefox --zip --zip-source"
    })
}

fn package_json(pkg: &str, description: &str) -> Vec<u8> {
    let value = json!({
        "name": pkg,
        "version": "0.1.0",
        "private": true,
        "description": description,
        "scripts": scripts(),
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text.into_bytes()
}

/// A template's own `package.json`: its name set, our scripts added where it has none.
fn patch_package_json(bytes: &[u8], pkg: &str) -> Result<Vec<u8>, CatalogError> {
    let mut value: Value = serde_json::from_slice(bytes).map_err(|e| CatalogError::InvalidArgument {
        message: format!("the template's package.json is not JSON: {e}"),
        hint: "pick another template".into(),
    })?;
    if let Some(o) = value.as_object_mut() {
        o.insert("name".into(), Value::String(pkg.to_owned()));
        let scripts = o.entry("scripts").or_insert_with(|| json!({}));
        if let (Some(have), Value::Object(ours)) = (scripts.as_object_mut(), self::scripts()) {
            for (k, v) in ours {
                have.entry(k).or_insert(v);
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    Ok(text.into_bytes())
}

/// Sets the manifest's top-level `name` (and a Gecko id ending in `@webext-mcp.example`) in
/// the JSONC text, keeping its comments and layout.
fn rename_manifest(bytes: &[u8], project_name: &str, pkg: &str) -> Result<Vec<u8>, CatalogError> {
    let broken = |why: String| CatalogError::InvalidArgument {
        message: format!("the template's manifest cannot be renamed: {why}"),
        hint: "pick another template".into(),
    };
    let text = std::str::from_utf8(bytes).map_err(|_| broken("not UTF-8".into()))?;
    let parsed = manifest::parse_jsonc(text).map_err(|e| broken(e.to_string()))?;
    let old = parsed.get("name").and_then(Json::as_str).ok_or_else(|| broken("no name".into()))?;
    let old_literal = serde_json::to_string(old).unwrap_or_default();
    let new_literal = serde_json::to_string(project_name).unwrap_or_default();
    let mut out = replace_after_key(text, "\"name\"", &old_literal, &new_literal)
        .ok_or_else(|| broken("no top-level \"name\" string".into()))?;
    if let Some(at) = out.find("@webext-mcp.example\"") {
        let start = out[..at].rfind('"').map_or(at, |q| q + 1);
        out.replace_range(start..at, pkg);
    }
    let check = manifest::parse_jsonc(&out).map_err(|e| broken(e.to_string()))?;
    if check.get("name").and_then(Json::as_str) != Some(project_name) {
        return Err(broken("the name did not change".into()));
    }
    Ok(out.into_bytes())
}

/// Replaces `value` where it follows `key` and a colon (first such place).
fn replace_after_key(text: &str, key: &str, value: &str, new: &str) -> Option<String> {
    let mut from = 0;
    while let Some(rel) = text[from..].find(key) {
        let after_key = from + rel + key.len();
        let rest = &text[after_key..];
        let trimmed = rest.trim_start();
        if let Some(after_colon) = trimmed.strip_prefix(':') {
            let value_text = after_colon.trim_start();
            if value_text.starts_with(value) {
                let start = text.len() - value_text.len();
                let mut out = String::with_capacity(text.len() + new.len());
                out.push_str(&text[..start]);
                out.push_str(new);
                out.push_str(&text[start + value.len()..]);
                return Some(out);
            }
        }
        from = after_key;
    }
    None
}

fn retitle_readme(bytes: &[u8], project_name: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    match text.strip_prefix("# ").and_then(|rest| rest.split_once('\n')) {
        Some((title, rest)) => {
            format!("# {project_name}\n\nFrom the `{title}` template.\n{rest}").into_bytes()
        }
        None => bytes.to_vec(),
    }
}

/// How a template builds: natively, or only through its own toolchain (docs/build.md: Vue
/// and Svelte components and Less are delegated; Sass is compiled natively by grass).
pub fn build_note(t: &Template) -> Option<String> {
    let delegated =
        matches!(t.ui_framework.as_str(), "vue" | "svelte") || matches!(t.css.as_str(), "less" | "stylus");
    if delegated {
        let what = if t.ui_framework.is_empty() { t.css.clone() } else { t.ui_framework.clone() };
        return Some(format!(
            "builds through the project's own toolchain ({what} is not bundled natively): install the dependencies first; the build runs the project's code only once you allow it (`webext-mcp build . --allow-project-scripts`)"
        ));
    }
    let bundled = !t.ui_framework.is_empty()
        || matches!(t.css.as_str(), "sass" | "scss")
        || t.entrypoints.iter().any(|e| e.ends_with(".ts") || e.ends_with(".tsx"));
    bundled.then(|| {
        "builds natively (TypeScript, JSX, Sass and node_modules are bundled) once dependencies are installed"
            .to_owned()
    })
}

fn next_steps(dest: &Path, install_skipped: Option<&str>, template: &Template) -> Vec<String> {
    let mut steps = vec![format!("cd {}", dest.display())];
    if let Some(manager) = install_skipped {
        steps.push(format!(
            "{} (installs the dependencies without running their install scripts; read package.json and .npmrc first)",
            super::install::command_line(manager)
        ));
    }
    steps.extend(build_note(template));
    steps.extend([
        "webext-mcp build . --browser chrome,firefox (tool extension_build; npm run build)".to_owned(),
        "load dist/chrome/ unpacked (chrome://extensions) or dist/firefox/manifest.json (about:debugging)"
            .to_owned(),
        "edit src/manifest.json and the files it names, then build again".to_owned(),
    ]);
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_folders_are_refused() {
        for bad in ["", " x", "a/b", "..", ".hidden", "-x", "a\\b", "nul\0", "a:b", &"x".repeat(76)] {
            assert!(validate_project_name(bad).is_err(), "{bad:?}");
        }
        for good in ["my-extension", "My Extension 2", "tab_tools.v2", "Ünïcode"] {
            assert!(validate_project_name(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn package_names_are_npm_safe() {
        assert_eq!(package_name("My Extension 2"), "my-extension-2");
        assert_eq!(package_name("--A  B!!"), "a-b");
        assert_eq!(package_name("Ünï"), "n");
        assert_eq!(package_name("!!!"), "extension");
    }

    #[test]
    fn manifest_rename_keeps_comments() {
        let src = "{\n  // note\n  \"manifest_version\": 3,\n  \"name\": \"Old\",\n  \"x\": {\"name\": \"inner\"},\n  \"firefox:browser_specific_settings\": {\"gecko\": {\"id\": \"old@webext-mcp.example\"}}\n}";
        let out =
            String::from_utf8(rename_manifest(src.as_bytes(), "New \"One\"", "new-one").unwrap()).unwrap();
        assert!(out.contains("// note"));
        assert!(out.contains(r#""name": "New \"One\"""#), "{out}");
        assert!(out.contains(r#""name": "inner""#));
        assert!(out.contains(r#""new-one@webext-mcp.example""#), "{out}");
    }

    #[test]
    fn the_next_step_says_how_a_template_builds() {
        let t = |framework: &str, css: &str, entry: &str| Template {
            ui_framework: framework.into(),
            css: css.into(),
            entrypoints: vec![entry.into()],
            ..Template::default()
        };
        assert!(build_note(&t("vue", "css", "a.ts")).unwrap().contains("toolchain"));
        assert!(build_note(&t("", "less", "a.js")).unwrap().contains("less"));
        assert!(build_note(&t("", "sass", "a.js")).unwrap().contains("natively"));
        assert!(build_note(&t("react", "css", "a.tsx")).unwrap().contains("natively"));
        assert!(build_note(&t("", "css", "background.ts")).unwrap().contains("natively"));
        assert_eq!(build_note(&t("", "css", "background.js")), None);
    }

    #[test]
    fn install_only_with_dependencies() {
        assert!(!needs_install(None));
        assert!(!needs_install(Some(br#"{"scripts":{}}"#)));
        assert!(!needs_install(Some(br#"{"dependencies":{}}"#)));
        assert!(needs_install(Some(br#"{"devDependencies":{"x":"1"}}"#)));
    }
}
