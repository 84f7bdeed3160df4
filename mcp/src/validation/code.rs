//! What the extension's scripts do, read with the one JS parser (never run): which
//! `chrome.*` / `browser.*` APIs they use, whether they `eval` or load code from the
//! network. Then, per browser, the findings: APIs used without their permission, permissions
//! never used (with what store review asks about them), `eval` and remote code.
//!
//! ```text
//! scripts (manifest + pages) ─parse─▶ visitor ─▶ Usage { apis, evals, remote, network }
//!   └─ module imports followed (relative only, ≤ MAX_FILES files)
//! Usage + resolved manifest ─judge─▶ MANIFEST_API_PERMISSION_MISSING, MANIFEST_PERMISSION_UNUSED,
//!                                    MANIFEST_DANGEROUS_EVAL, MANIFEST_REMOTE_CODE
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    AssignmentExpression, AssignmentTarget, BindingPattern, CallExpression, Expression, ImportDeclaration,
    ImportExpression, NewExpression, StaticMemberExpression, VariableDeclarator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::Span;
use serde::Serialize;

use super::files::Script;
use super::permissions;
use crate::build::boundary::Boundary;
use crate::build::js::{self, Goal};
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

/// What the scripts do.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// API path (`storage.local.get`, at most three names) → its first use.
    pub apis: BTreeMap<String, Location>,
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
    let mut queue: Vec<Script> = scripts.to_vec();
    let mut seen = std::collections::HashSet::new();
    while let Some(s) = queue.pop() {
        if !seen.insert(s.rel.clone()) || seen.len() > MAX_FILES {
            continue;
        }
        let Ok(Some(bytes)) = manifest::read_capped(&s.path, js::MAX_PARSE_BYTES as u64) else { continue };
        usage.files += 1;
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
        for (api, span) in found.apis {
            usage.apis.entry(api).or_insert_with(|| at(span));
        }
        usage.evals.extend(found.evals.into_iter().map(|(w, span)| (w, at(span))));
        usage.remote.extend(found.remote.into_iter().map(|(u, span)| (u, at(span))));
        usage.unsafe_html.extend(found.unsafe_html.into_iter().map(|(w, span)| (w, at(span))));
        usage.network |= found.network;
        let dir = s.rel.rsplit_once('/').map_or("", |(d, _)| d);
        for spec in found.imports {
            if !(spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/')) {
                continue;
            }
            let joined = if spec.starts_with('/') { spec.clone() } else { format!("{dir}/{spec}") };
            let Some(rel) = normalize(&joined) else { continue };
            let path = root.join(&rel);
            if is_script(&rel) && path.is_file() && boundary.check(&path).is_none() {
                queue.push(Script { rel, path, module: true });
            }
        }
    }
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

/// Parses one script (as it is loaded; a classic script that only parses as a module is
/// read as one: bundlers take such files) and visits it.
fn parse_one(text: &str, s: &Script, found: &mut Found) -> Result<(), js::SyntaxError> {
    let alloc = Allocator::default();
    let path = Path::new(&s.rel);
    let goal = if s.module { Goal::Module } else { Goal::Script };
    let program = match js::parse(&alloc, text, path, goal) {
        Ok(p) => p,
        Err(first) if goal == Goal::Script => {
            js::parse(&alloc, text, path, Goal::Module).map_err(|_| first)?
        }
        Err(e) => return Err(e),
    };
    found.visit_program(&program);
    Ok(())
}

#[derive(Default)]
struct Found {
    apis: Vec<(String, Span)>,
    evals: Vec<(String, Span)>,
    remote: Vec<(String, Span)>,
    unsafe_html: Vec<(String, Span)>,
    imports: Vec<String>,
    network: bool,
    /// Names bound to the extension API (`const api = globalThis.browser ?? globalThis.chrome`).
    aliases: Vec<String>,
}

fn is_url(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    l.starts_with("http://") || l.starts_with("https://") || l.starts_with("//")
}

/// A string literal, or a template literal without substitutions: HTML the author wrote.
fn is_literal(e: &Expression<'_>) -> bool {
    match e.get_inner_expression() {
        Expression::StringLiteral(_) => true,
        Expression::TemplateLiteral(t) => t.expressions.is_empty(),
        _ => false,
    }
}

fn string_arg(e: &Expression<'_>) -> Option<String> {
    match e.get_inner_expression() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) => t.quasis.first().map(|q| q.value.raw.to_string()),
        _ => None,
    }
}

impl Found {
    /// Whether `e` is the extension API object: `chrome`, `browser`, `globalThis.chrome`,
    /// an alias of one, or `a ?? b`, `a || b`, `c ? a : b` of those.
    fn is_api(&self, e: &Expression<'_>) -> bool {
        match e.get_inner_expression() {
            Expression::Identifier(id) => {
                matches!(id.name.as_str(), "chrome" | "browser")
                    || self.aliases.iter().any(|a| a == id.name.as_str())
            }
            Expression::StaticMemberExpression(m) => {
                matches!(m.property.name.as_str(), "chrome" | "browser")
                    && matches!(m.object.get_inner_expression(), Expression::Identifier(id) if matches!(id.name.as_str(), "globalThis" | "window" | "self"))
            }
            Expression::LogicalExpression(l) => self.is_api(&l.left) && self.is_api(&l.right),
            Expression::ConditionalExpression(c) => self.is_api(&c.consequent) && self.is_api(&c.alternate),
            _ => false,
        }
    }

    /// `chrome.a.b.c` (or `browser.…`, `globalThis.chrome.…`, `api.…`) as `["a", "b", "c"]`.
    fn api_chain(&self, it: &StaticMemberExpression<'_>) -> Option<Vec<String>> {
        let mut names = vec![it.property.name.to_string()];
        let mut cur = it.object.get_inner_expression();
        while !self.is_api(cur) {
            match cur {
                Expression::StaticMemberExpression(m) => {
                    names.push(m.property.name.to_string());
                    cur = m.object.get_inner_expression();
                }
                _ => return None,
            }
        }
        names.reverse();
        names.truncate(3);
        Some(names)
    }
}

impl<'a> Visit<'a> for Found {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&it.id, &it.init)
            && self.is_api(init)
        {
            self.aliases.push(id.name.to_string());
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if let Some(names) = self.api_chain(it) {
            self.apis.push((names.join("."), it.span));
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let first = it.arguments.first().and_then(|a| a.as_expression());
        if let Expression::StaticMemberExpression(m) = it.callee.get_inner_expression() {
            let html_arg = match m.property.name.as_str() {
                "insertAdjacentHTML" => it.arguments.get(1).and_then(|a| a.as_expression()),
                "write" | "writeln" if m.object.is_specific_id("document") => first,
                _ => None,
            };
            if html_arg.is_some_and(|e| !is_literal(e)) {
                self.unsafe_html.push((format!("{}()", m.property.name), it.span));
            }
        }
        if let Expression::Identifier(id) = it.callee.get_inner_expression() {
            match id.name.as_str() {
                "eval" | "Function" => self.evals.push((format!("{}()", id.name), it.span)),
                "setTimeout" | "setInterval" if first.and_then(string_arg).is_some() => {
                    self.evals.push((format!("{} with a string", id.name), it.span))
                }
                "importScripts" => {
                    for a in &it.arguments {
                        if let Some(url) = a.as_expression().and_then(string_arg).filter(|u| is_url(u)) {
                            self.remote.push((url, it.span));
                        }
                    }
                }
                "fetch" => self.network = true,
                _ => {}
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left
            && matches!(m.property.name.as_str(), "innerHTML" | "outerHTML")
            && !is_literal(&it.right)
        {
            self.unsafe_html.push((format!("{} =", m.property.name), it.span));
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        match it.callee.get_inner_expression() {
            Expression::Identifier(id) if id.name.as_str() == "Function" => {
                self.evals.push(("new Function()".into(), it.span))
            }
            Expression::Identifier(id)
                if matches!(id.name.as_str(), "XMLHttpRequest" | "WebSocket" | "EventSource") =>
            {
                self.network = true
            }
            _ => {}
        }
        walk::walk_new_expression(self, it);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Some(spec) = string_arg(&it.source) {
            if is_url(&spec) {
                self.remote.push((spec, it.span));
            } else {
                self.imports.push(spec);
            }
        }
        walk::walk_import_expression(self, it);
    }

    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        let spec = it.source.value.to_string();
        if is_url(&spec) {
            self.remote.push((spec, it.span));
        } else {
            self.imports.push(spec);
        }
    }
}

/// Whether a manifest key needs permission `p` to work: `side_panel` needs `sidePanel`
/// (Chrome ignores the panel without it), rule sets need `declarativeNetRequest`.
fn needed_by_key(m: &Json, p: &str) -> bool {
    match p {
        "sidePanel" => m.get("side_panel").is_some(),
        "declarativeNetRequest" => m.get("declarative_net_request").is_some(),
        _ => false,
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
    for (i, p) in list("permissions").iter().enumerate() {
        let unused = match p.as_str() {
            s if s == "<all_urls>" || s.contains("://") => None,
            // The manifest's own key needs it, whatever the code calls.
            s if needed_by_key(m, s) => None,
            s => permissions::is_used(s, &apis).map(|used| !used),
        };
        if unused == Some(true) {
            out.push(unused_finding(p, &format!("permissions[{i}]"), usage.files));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Found {
        let mut f = Found::default();
        let s = Script { rel: "a.js".into(), path: "a.js".into(), module: false };
        parse_one(text, &s, &mut f).unwrap();
        f
    }

    #[test]
    fn api_uses_evals_and_remote_code_are_found() {
        let f = found(
            "chrome.storage.local.get('k'); browser.tabs.query({}); globalThis.chrome.sidePanel?.open({});\n\
             const api = globalThis.browser ?? globalThis.chrome; api.alarms.create('a');\n\
             const s = 'chrome.cookies.getAll'; // chrome.history.search\n\
             eval('1'); new Function('a', 'return a'); setTimeout('x()', 1); setTimeout(() => 1, 1);\n\
             importScripts('https://cdn.example.com/x.js'); import('https://cdn.example.com/m.js'); fetch('/x');\n\
             el.innerHTML = '<b>ok</b>'; el.innerHTML = data; el.insertAdjacentHTML('beforeend', `<i>${x}</i>`); document.write(s);",
        );
        let apis: Vec<&str> = f.apis.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(apis, ["storage.local.get", "tabs.query", "sidePanel.open", "alarms.create"]);
        let evals: Vec<&str> = f.evals.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(evals, ["eval()", "new Function()", "setTimeout with a string"]);
        assert_eq!(f.remote.len(), 2);
        let html: Vec<&str> = f.unsafe_html.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(html, ["innerHTML =", "insertAdjacentHTML()", "write()"]);
        assert!(f.network);
    }
}
