//! What the extension's scripts do, read with the one JS parser (never run): which
//! `chrome.*` / `browser.*` APIs they use, whether they `eval` or load code from the
//! network. Then, per browser, the findings: APIs used without their permission, permissions
//! never used (with what store review asks about them), `eval` and remote code.
//!
//! ```text
//! scripts (manifest + pages) ─parse─▶ visitor ─▶ Usage { apis, evals, remote, network }
//!   └─ scripts they load followed (imports, importScripts, scripting.executeScript; ≤ MAX_FILES)
//! Usage + resolved manifest ─judge─▶ MANIFEST_API_PERMISSION_MISSING, MANIFEST_PERMISSION_UNUSED,
//!                                    MANIFEST_DANGEROUS_EVAL, MANIFEST_REMOTE_CODE
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use oxc_span::Span;
use serde::Serialize;

use super::files::Script;
use super::permissions;
use super::script::{Found, Reach, parse_one};
use crate::build::boundary::Boundary;
use crate::build::js;
use crate::build::plan::normalize;
use crate::manifest::{self, Finding, FindingCode, Json, Severity, Target};

/// At most this many scripts are scanned (imports included).
const MAX_FILES: usize = 500;

/// Where something is in the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// One script the scan read, and how it was reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScannedFile {
    pub file: String,
    /// `manifest background.service_worker`, `importScripts in bg.js`, `import from a.js`,
    /// `scripting.executeScript in bg.js`, `<script src> in popup.html`.
    pub via: String,
}

/// What the scripts do.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// API path (`storage.local.get`, at most three names) → its first use.
    pub apis: BTreeMap<String, Location>,
    /// APIs only ever used behind a feature test (`if (chrome.x)`, `chrome.x?.y()`,
    /// `typeof chrome.x.y === "function"`): a browser without them still works.
    pub guarded: std::collections::BTreeSet<String>,
    /// Each script read, and how it was reached.
    pub scanned: Vec<ScannedFile>,
    /// `eval`-like calls: what, where.
    pub evals: Vec<(String, Location)>,
    /// Code loaded from a URL: the URL, where.
    pub remote: Vec<(String, Location)>,
    /// HTML built from non-literal values (`innerHTML = x`): what, where.
    pub unsafe_html: Vec<(String, Location)>,
    /// Whether the code makes network requests (`fetch`, `XMLHttpRequest`, `WebSocket`),
    /// which is what host permissions are often for.
    pub network: bool,
    /// Scripts that do not parse.
    #[serde(skip)]
    pub syntax: Vec<(String, js::SyntaxError)>,
    pub files: usize,
    pub bytes: u64,
}

/// Scans `scripts` and the modules they import.
pub fn scan(root: &Path, boundary: &Boundary, scripts: &[Script]) -> Usage {
    let mut usage = Usage::default();
    let mut queue: Vec<Script> = scripts.iter().rev().cloned().collect();
    let mut seen = std::collections::HashSet::new();
    let mut unguarded = std::collections::BTreeSet::new();
    while let Some(s) = queue.pop() {
        if !seen.insert(s.rel.clone()) || seen.len() > MAX_FILES {
            continue;
        }
        let Ok(Some(bytes)) = manifest::read_capped(&s.path, js::MAX_PARSE_BYTES as u64) else { continue };
        usage.files += 1;
        usage.scanned.push(ScannedFile { file: s.rel.clone(), via: s.via.clone() });
        usage.bytes += bytes.len() as u64;
        let text = String::from_utf8_lossy(&bytes);
        let mut found = Found::default();
        match js::guarded(&text, || parse_one(&text, &s, &mut found)) {
            Ok(()) => {}
            Err(e) if e.message.contains("too large") || e.message.contains("nesting deeper") => continue,
            Err(e) => {
                usage.syntax.push((s.rel.clone(), e));
                continue;
            }
        }
        let at = |span: Span| {
            let (line, column) = js::line_column(&text, span.start as usize);
            Location { file: s.rel.clone(), line, column }
        };
        for (api, span, optional) in found.apis {
            let detected = found.detected.iter().any(|d| api == *d || api.starts_with(&format!("{d}.")));
            if !(optional || detected) {
                unguarded.insert(api.clone());
            }
            usage.apis.entry(api).or_insert_with(|| at(span));
        }
        usage.evals.extend(found.evals.into_iter().map(|(w, span)| (w, at(span))));
        usage.remote.extend(found.remote.into_iter().map(|(u, span)| (u, at(span))));
        usage.unsafe_html.extend(found.unsafe_html.into_iter().map(|(w, span)| (w, at(span))));
        usage.network |= found.network;
        let dir = s.rel.rsplit_once('/').map_or("", |(d, _)| d);
        for (spec, how) in found.imports {
            let relative = spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/');
            if how == Reach::Import && !relative {
                continue;
            }
            let joined = if spec.starts_with('/') || how == Reach::ExecuteScript || dir.is_empty() {
                spec.clone()
            } else {
                format!("{dir}/{spec}")
            };
            let Some(rel) = normalize(&joined) else { continue };
            let path = root.join(&rel);
            if is_script(&rel) && path.is_file() && boundary.check(&path).is_none() {
                let via = format!("{} in {}", how.label(), s.rel);
                queue.push(Script { rel, path, module: how == Reach::Import, via });
            }
        }
    }
    usage.guarded = usage.apis.keys().filter(|a| !unguarded.contains(*a)).cloned().collect();
    usage
}

/// Whether an imported file is JavaScript (or TypeScript/JSX) to scan: a stylesheet, JSON,
/// an image or a Vue/Svelte component a bundler imports is not parsed as a script.
fn is_script(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    match name.rsplit_once('.') {
        None => true,
        Some((_, ext)) => {
            matches!(
                ext.to_ascii_lowercase().as_str(),
                "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts"
            )
        }
    }
}

fn located(f: Finding, at: &Location) -> Finding {
    f.in_file(at.file.clone()).at_position(at.line, at.column)
}

/// The findings for one target.
pub fn judge(
    usage: &Usage,
    remote_pages: &[(String, String)],
    m: &Json,
    t: Target,
    mv3: bool,
    out: &mut Vec<Finding>,
) {
    let list = |key: &str| -> Vec<String> {
        m.get(key)
            .and_then(Json::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    let declared: Vec<String> = list("permissions").into_iter().chain(list("optional_permissions")).collect();
    let apis: Vec<&str> = usage.apis.keys().map(String::as_str).collect();
    let mut missing: BTreeMap<&str, (&str, &Location)> = BTreeMap::new();
    for (api, at) in &usage.apis {
        let Some(needed) = permissions::needed_for(api) else { continue };
        if needed.iter().any(|p| declared.iter().any(|d| d == p)) {
            continue;
        }
        // Code shared between browsers feature-detects what one of them lacks.
        let namespace = api.split('.').next().unwrap_or(api);
        if super::compat::support(&format!("api.{namespace}"), t) == Some(super::compat::Support::No) {
            continue;
        }
        let first = needed.first().copied().unwrap_or_default();
        missing.entry(first).or_insert((api.as_str(), at));
    }
    for (p, (api, at)) in missing {
        out.push(located(
            Finding::new(
                FindingCode::ManifestApiPermissionMissing,
                format!("the code uses `chrome.{api}`, which needs the `{p}` permission; the manifest does not declare it, so the call fails"),
                format!("add \"{p}\" to \"permissions\""),
            ),
            at,
        ));
    }
    let by_keys = permissions::needed_by_keys(m);
    let mut unchecked = Vec::new();
    let perms = list("permissions");
    for (i, p) in perms.iter().enumerate() {
        let unused = match p.as_str() {
            s if s == "<all_urls>" || s.contains("://") || by_keys.contains(&s) => None,
            s => permissions::is_used(s, &apis).map(|used| !used),
        };
        if unused != Some(true) {
            continue;
        }
        if usage.files == 0 {
            unchecked.push(p.as_str());
        } else {
            out.push(unused_finding(p, &format!("permissions[{i}]"), usage.files));
        }
    }
    if !unchecked.is_empty() {
        out.push(
            Finding::new(
                FindingCode::ManifestPermissionUnused,
                format!(
                    "no script was scanned (the manifest names none that exist yet, e.g. build outputs), so whether {} {} used could not be checked",
                    unchecked.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
                    if unchecked.len() == 1 { "is" } else { "are" }
                ),
                "build the extension and validate the built manifest (manifestPath dist/<browser>/manifest.json) to check permission use",
            )
            .severity(Severity::Info)
            .at("permissions"),
        );
    }
    let host_users = [
        "scripting.",
        "tabs.executeScript",
        "tabs.insertCSS",
        "tabs.captureVisibleTab",
        "webRequest.",
        "cookies.",
        "declarativeNetRequest.",
        "proxy.",
    ];
    let host_used = usage.network || apis.iter().any(|a| host_users.iter().any(|u| a.starts_with(u)));
    for key in ["host_permissions", "permissions"] {
        for (i, p) in list(key).iter().enumerate() {
            let broad = permissions::review_cost(p).is_some() && (p == "<all_urls>" || p.contains("://"));
            if broad && !host_used && usage.files > 0 {
                out.push(unused_finding(p, &format!("{key}[{i}]"), usage.files));
            }
        }
    }
    let severity = if mv3 { Severity::Error } else { Severity::Warning };
    for (what, at) in &usage.evals {
        out.push(located(
            Finding::new(
                FindingCode::ManifestDangerousEval,
                format!(
                    "`{what}` runs a string as code{}",
                    if mv3 { "; MV3 forbids it and the call throws" } else { "; store review rejects it" }
                ),
                "parse data with JSON.parse, call functions directly, or run user code in a sandboxed page",
            )
            .severity(severity),
            at,
        ));
    }
    let remote_text = |url: &str| {
        format!(
            "code is loaded from {url}{}",
            if mv3 { "; MV3 only runs code from the package" } else { "; store review rejects remote code" }
        )
    };
    let remote_fix = "download the script into the extension and load it by its relative path";
    for (url, at) in &usage.remote {
        out.push(located(
            Finding::new(FindingCode::ManifestRemoteCode, remote_text(url), remote_fix).severity(severity),
            at,
        ));
    }
    for (url, page) in remote_pages {
        out.push(
            Finding::new(FindingCode::ManifestRemoteCode, remote_text(url), remote_fix)
                .severity(severity)
                .in_file(page.clone()),
        );
    }
    for (what, at) in usage.unsafe_html.iter().take(20) {
        out.push(located(
            Finding::new(
                FindingCode::ManifestUnsafeHtml,
                format!("`{what}` builds HTML from a value that is not a literal; store review rejects unsanitized HTML"),
                "set textContent, build nodes with createElement, or sanitize (DOMPurify) before inserting",
            ),
            at,
        ));
    }
    for (file, e) in &usage.syntax {
        out.push(
            Finding::new(
                FindingCode::ManifestScriptSyntax,
                format!("{file} does not parse: {}", e.message),
                format!("fix the syntax at line {}, column {}", e.line, e.column),
            )
            .in_file(file.clone())
            .at_position(e.line, e.column),
        );
    }
}

fn unused_finding(p: &str, path: &str, files: usize) -> Finding {
    let cost = permissions::review_cost(p).map(|c| format!(" ({c})")).unwrap_or_default();
    Finding::new(
        FindingCode::ManifestPermissionUnused,
        format!("`{p}` is declared but none of the {files} scanned scripts uses it{cost}"),
        format!("remove \"{p}\" unless code the scan cannot see (a bundle, eval'd code) needs it"),
    )
    .at(path)
}
