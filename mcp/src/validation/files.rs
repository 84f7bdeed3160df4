//! The files a resolved manifest names: each must exist inside the project, not reach out
//! of it through a symlink, and be of the kind its key loads (a page is HTML, a script is
//! JavaScript, an icon an image whose pixel size matches its key). Pages are followed one
//! level for their `<script src>` (missing files, remote scripts, inline scripts) so that the
//! code scan sees every script the extension runs.

use std::path::{Path, PathBuf};

use crate::build::boundary::Boundary;
use crate::build::needs::needs_compile;
use crate::build::plan::{locate, normalize, outside};
use crate::build::scan::{HtmlRef, html_refs};
use crate::manifest::{self, FileRef, Finding, FindingCode, Json, RefKind, Severity};

/// A script of the extension, for the code scan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Script {
    /// Relative to the extension root (as the manifest names it).
    pub rel: String,
    pub path: PathBuf,
    pub module: bool,
    /// How the scan reached it: `manifest background.service_worker`, `<script src> in popup.html`.
    pub via: String,
}

/// What the file pass found for one target.
#[derive(Debug, Default)]
pub struct Files {
    pub findings: Vec<Finding>,
    pub scripts: Vec<Script>,
    /// `<script src>` URLs of pages (remote code), with the page that has them.
    pub remote_scripts: Vec<(String, String)>,
}

/// Where the project's files are.
pub struct Layout<'a> {
    pub project: &'a Path,
    pub root: &'a Path,
    pub public: Option<PathBuf>,
    pub boundary: &'a Boundary,
}

impl Layout<'_> {
    fn shown(&self, p: &Path) -> String {
        p.strip_prefix(self.project).unwrap_or(p).to_string_lossy().replace('\\', "/")
    }
}

/// Checks every file `m` references.
pub fn check(layout: &Layout<'_>, m: &Json, mv3: bool) -> Files {
    let mut files = Files::default();
    for r in manifest::file_refs(m) {
        if r.kind == RefKind::Pattern {
            resource(layout, &r, &mut files);
            continue;
        }
        one(layout, &r, mv3, &mut files);
    }
    files.scripts.sort();
    files.scripts.dedup_by(|a, b| a.rel == b.rel);
    files
}

fn one(layout: &Layout<'_>, r: &FileRef, mv3: bool, files: &mut Files) {
    let Some(rel) = normalize(&r.path) else {
        files.findings.push(outside(r));
        return;
    };
    if let Some(why) = wrong_kind(&rel, r) {
        files.findings.push(
            Finding::new(FindingCode::ManifestFileKind, format!("`{}` {why}", r.path), kind_fix(r))
                .at(&r.json_path),
        );
    }
    let Some(path) = locate(layout.root, layout.public.as_deref(), layout.project, &rel) else {
        files.findings.push(
            Finding::new(
                FindingCode::ManifestMissingFile,
                format!("`{rel}` does not exist"),
                format!("create {rel} next to manifest.json (or in public/), or fix the path"),
            )
            .at(&r.json_path),
        );
        return;
    };
    if let Some(f) = layout.boundary.check(&path) {
        files.findings.push(f.at(&r.json_path));
        return;
    }
    match r.kind {
        RefKind::ClassicScript | RefKind::ModuleScript => files.scripts.push(Script {
            rel,
            path,
            module: r.kind == RefKind::ModuleScript,
            via: format!("manifest {}", r.json_path),
        }),
        // Sandboxed pages run under their own CSP, which allows inline scripts and handlers
        // (developer.chrome.com/docs/extensions/reference/manifest/sandbox).
        RefKind::Page => page(layout, &rel, &path, mv3 && !r.json_path.starts_with("sandbox."), files),
        RefKind::Asset if is_icon(&r.json_path) => icon(&rel, &path, &r.json_path, files),
        RefKind::Asset if r.json_path.starts_with("declarative_net_request.") => {
            files.findings.extend(ruleset(&rel, &path, &r.json_path))
        }
        _ => {}
    }
}

fn is_icon(json_path: &str) -> bool {
    json_path.starts_with("icons.") || json_path.contains("default_icon") || json_path.contains("theme_icons")
}

/// A `web_accessible_resources` path without wildcards must name a file or folder (a
/// warning: the browser loads the extension and the page's request fails).
fn resource(layout: &Layout<'_>, r: &FileRef, files: &mut Files) {
    if crate::build::glob::has_glob_chars(&r.path) {
        return;
    }
    let Some(rel) = normalize(&r.path) else {
        files.findings.push(outside(r));
        return;
    };
    let exists = locate(layout.root, layout.public.as_deref(), layout.project, &rel).is_some()
        || layout.root.join(&rel).is_dir();
    if !exists {
        files.findings.push(
            Finding::new(
                FindingCode::ManifestMissingFile,
                format!("web-accessible resource `{}` does not exist", r.path),
                "create the file or remove it from web_accessible_resources",
            )
            .at(&r.json_path)
            .severity(Severity::Warning),
        );
    }
}

/// Why a file of this name cannot be what `r` loads.
fn wrong_kind(rel: &str, r: &FileRef) -> Option<String> {
    let lower = rel.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    let compiled = needs_compile(rel).is_some();
    let ok = match r.kind {
        RefKind::Page => matches!(ext, "html" | "htm") || compiled,
        RefKind::ClassicScript | RefKind::ModuleScript => matches!(ext, "js" | "mjs" | "cjs") || compiled,
        RefKind::Style => ext == "css" || compiled,
        RefKind::Asset if is_icon(&r.json_path) => {
            matches!(ext, "png" | "jpg" | "jpeg" | "gif" | "bmp" | "ico" | "svg" | "webp")
        }
        _ => true,
    };
    let what = match r.kind {
        RefKind::Page => "an HTML page",
        RefKind::ClassicScript | RefKind::ModuleScript => "a JavaScript file",
        RefKind::Style => "a CSS file",
        _ => "an image",
    };
    (!ok).then(|| format!("is loaded as {what}, but its name says otherwise"))
}

fn kind_fix(r: &FileRef) -> &'static str {
    match r.kind {
        RefKind::Page => "point the key at an .html file",
        RefKind::ClassicScript | RefKind::ModuleScript => "point the key at a .js file",
        RefKind::Style => "point the key at a .css file",
        _ => "point the key at a PNG image",
    }
}

/// Reads at most this much of a page (real ones are small).
const MAX_PAGE_BYTES: u64 = 2 * 1024 * 1024;

fn page(layout: &Layout<'_>, rel: &str, path: &Path, mv3: bool, files: &mut Files) {
    let Ok(Some(bytes)) = manifest::read_capped(path, MAX_PAGE_BYTES) else { return };
    let html = String::from_utf8_lossy(&bytes);
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let shown = layout.shown(path);
    for r in html_refs(&html) {
        let HtmlRef::Script { src, module } = r else { continue };
        if src.contains("://") || src.starts_with("//") {
            files.remote_scripts.push((src, shown.clone()));
            continue;
        }
        if manifest::is_external(&src) {
            continue;
        }
        let joined =
            if src.starts_with('/') || dir.is_empty() { src.clone() } else { format!("{dir}/{src}") };
        let Some(script_rel) = normalize(&joined) else { continue };
        match locate(layout.root, layout.public.as_deref(), layout.project, &script_rel) {
            Some(p) if layout.boundary.check(&p).is_none() => files.scripts.push(Script {
                rel: script_rel,
                path: p,
                module,
                via: format!("<script src> in {rel}"),
            }),
            Some(_) => {}
            None => files.findings.push(
                Finding::new(
                    FindingCode::ManifestMissingFile,
                    format!("{shown} loads `{src}`, which does not exist"),
                    format!("create {script_rel} or fix the <script src>"),
                )
                .in_file(shown.clone()),
            ),
        }
    }
    if mv3 && let Some(line) = inline_handler_line(&html) {
        files.findings.push(
            Finding::new(
                FindingCode::ManifestUnsafeHtml,
                format!(
                    "{shown} has an inline event handler (on…=\"…\"); MV3 extension pages never run them"
                ),
                "attach the handler in a .js file with addEventListener",
            )
            .in_file(shown.clone())
            .at_position(line, 1)
            .severity(Severity::Error),
        );
    }
    if mv3 && let Some(line) = inline_script_line(&html) {
        files.findings.push(
            Finding::new(
                FindingCode::ManifestCspRemoteScript,
                format!("{shown} has an inline <script>; MV3 extension pages never run inline scripts"),
                "move the code into a .js file and load it with <script src=\"…\">",
            )
            .in_file(shown)
            .at_position(line, 1),
        );
    }
}

/// The line of the first `<script>` without `src` that holds code (data blocks such as
/// `type="application/json"` are not scripts).
fn inline_script_line(html: &str) -> Option<usize> {
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    while let Some(off) = lower[i..].find("<script") {
        let start = i + off;
        let tag_end = lower[start..].find('>').map(|e| start + e)?;
        let tag = &lower[start..tag_end];
        let close = lower[tag_end..].find("</script").map_or(lower.len(), |e| tag_end + e);
        let body = &lower[tag_end + 1..close.max(tag_end + 1)];
        let data =
            ["json", "importmap", "text/template", "text/html", "text/plain"].iter().any(|t| tag.contains(t));
        if !tag.contains("src=") && !data && !body.trim().is_empty() {
            return Some(lower[..start].matches('\n').count() + 1);
        }
        i = close.max(start + 7);
    }
    None
}

/// Largest rule set read (Chrome's static rule limit fits well inside).
const MAX_RULESET_BYTES: u64 = 64 * 1024 * 1024;
/// Problems reported per rule set before stopping.
const MAX_RULE_PROBLEMS: usize = 5;

const RULE_ACTIONS: [&str; 6] =
    ["block", "allow", "allowAllRequests", "upgradeScheme", "redirect", "modifyHeaders"];

/// A `declarative_net_request` rule set: a JSON array of rules, each with a unique positive
/// integer `id`, an `action` with a known `type` and a `condition` object. Chrome refuses
/// to load the extension when a static rule set does not parse or a rule is malformed.
fn ruleset(rel: &str, path: &Path, json_path: &str) -> Vec<Finding> {
    let bad = |message: String, at: Option<crate::manifest::Pos>| {
        let f = Finding::new(
            FindingCode::ManifestShape,
            message,
            "each rule is { \"id\": 1, \"priority\": 1, \"action\": { \"type\": \"block\" }, \"condition\": { \"urlFilter\": \"||ads.example.com^\" } }",
        )
        .in_file(rel.to_owned());
        match at {
            Some(p) => f.at_position(p.line, p.column),
            None => f.at(json_path),
        }
    };
    let text = match manifest::read_capped(path, MAX_RULESET_BYTES) {
        Ok(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
        Ok(None) => return vec![bad(format!("rule set {rel} is larger than 64 MiB"), None)],
        Err(_) => return Vec::new(),
    };
    let (json, spans) = match manifest::parse_jsonc_spanned(&text) {
        Ok(v) => v,
        Err(e) => {
            return vec![bad(
                format!("rule set {rel} is not valid JSON: {}", e.message),
                Some(crate::manifest::Pos { line: e.line, column: e.column }),
            )];
        }
    };
    let Some(rules) = json.as_array() else {
        return vec![bad(format!("rule set {rel} must be a JSON array of rules"), None)];
    };
    let mut out = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for (i, rule) in rules.iter().enumerate() {
        let at = spans.get(&format!("[{i}]"));
        let id = rule.get("id").and_then(Json::as_f64);
        let problem = match (id, rule.get("action").and_then(|a| a.get("type")).and_then(Json::as_str)) {
            _ if rule.as_object().is_none() => Some("is not an object".to_owned()),
            (None, _) => Some("has no integer `id`".to_owned()),
            (Some(n), _) if n < 1.0 || n.fract() != 0.0 => {
                Some(format!("has id {n}; ids are integers from 1"))
            }
            (Some(n), _) if !ids.insert(n.to_bits()) => Some(format!("repeats id {n}")),
            (_, None) => Some("has no `action.type`".to_owned()),
            (_, Some(t)) if !RULE_ACTIONS.contains(&t) => Some(format!("has action type \"{t}\"")),
            _ if rule.get("condition").and_then(Json::as_object).is_none() => {
                Some("has no `condition` object".to_owned())
            }
            _ => None,
        };
        if let Some(p) = problem {
            out.push(bad(format!("rule {i} of {rel} {p}; Chrome refuses the rule set"), at));
            if out.len() >= MAX_RULE_PROBLEMS {
                break;
            }
        }
    }
    out
}

/// The line of the first inline event handler attribute (`onclick="…"`) inside a tag.
fn inline_handler_line(html: &str) -> Option<usize> {
    let lower = html.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut in_tag = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => in_tag = bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic),
            b'>' => in_tag = false,
            b' ' | b'\t' | b'\n' | b'\r' if in_tag && bytes.get(i + 1..i + 3) == Some(b"on") => {
                let name_end = bytes[i + 3..]
                    .iter()
                    .position(|c| !c.is_ascii_alphabetic())
                    .map_or(bytes.len(), |p| i + 3 + p);
                let rest = lower[name_end..].trim_start();
                if name_end > i + 3 && rest.starts_with('=') {
                    return Some(lower[..i].matches('\n').count() + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The pixel size of a PNG (from its IHDR chunk).
pub fn png_size(path: &Path) -> Option<(u32, u32)> {
    use std::io::Read as _;
    let mut head = [0u8; 24];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    if &head[..8] != b"\x89PNG\r\n\x1a\n" || &head[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes([head[16], head[17], head[18], head[19]]);
    let h = u32::from_be_bytes([head[20], head[21], head[22], head[23]]);
    Some((w, h))
}

fn icon(rel: &str, path: &Path, json_path: &str, files: &mut Files) {
    if !rel.to_ascii_lowercase().ends_with(".png") {
        return;
    }
    let Some((w, h)) = png_size(path) else {
        files.findings.push(
            Finding::new(
                FindingCode::ManifestFileKind,
                format!("`{rel}` is not a PNG image"),
                "save the icon as PNG",
            )
            .at(json_path),
        );
        return;
    };
    let key = json_path.rsplit('.').next().and_then(|k| k.parse::<u32>().ok());
    let problem = if w != h {
        Some(format!("`{rel}` is {w}×{h} pixels, not square"))
    } else {
        key.filter(|k| *k != w)
            .map(|k| format!("`{rel}` is {w}×{h} pixels but is declared as the {k} px icon"))
    };
    if let Some(message) = problem {
        let size = key.unwrap_or(w.max(h));
        // A square icon larger than its key is scaled down and looks right: worth knowing
        // (a bigger package), nothing a browser or store refuses.
        let larger = w == h && key.is_some_and(|k| w > k);
        files.findings.push(
            Finding::new(
                FindingCode::ManifestIconSize,
                if larger { format!("{message}; browsers scale it down") } else { message },
                format!("resize it to {size}×{size} pixels"),
            )
            .at(json_path)
            .severity(if larger { Severity::Info } else { Severity::Warning }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_handlers_are_found_in_tags_only() {
        assert_eq!(inline_handler_line("<p>\n<button onclick=\"go()\">x</button>"), Some(2));
        assert_eq!(inline_handler_line("<p>click on = here</p><a href=x>"), None);
        assert_eq!(inline_handler_line("<img src=x ONLOAD = 'y'>"), Some(1));
        assert_eq!(inline_handler_line("<div data-on=\"x\" one>"), None);
    }

    #[test]
    fn inline_scripts_are_found_and_data_blocks_are_not() {
        assert_eq!(inline_script_line("<p>\n<script src=\"a.js\"></script>\n<script>go()</script>"), Some(3));
        assert_eq!(
            inline_script_line("<script type=\"application/json\">{}</script><script src=x></script>"),
            None
        );
        assert_eq!(inline_script_line("<script>  </script>"), None);
        assert_eq!(inline_script_line("<script"), None);
    }
}
