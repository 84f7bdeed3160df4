//! `extension_inspect`: what a built extension (`dist/<browser>/`) is made of, what it asks
//! for, and what store review will look at. Reads only the built folder; the tool builds it
//! first when it is missing.
//!
//! ```text
//! dist/<browser>/ ─walk─▶ files (bytes, gzip bytes) ─▶ totals, largest
//! manifest.json ─file_refs─▶ entries ─follow pages, styles, module imports─▶ entry map, unreachable
//! scripts ─code::scan─▶ permissions declared / used / unused, install warnings per browser
//! everything ─▶ store flags (broad hosts, remote code, minified code, size, icons, privacy)
//! ```

use crate::browsers::Engine;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;

use serde::Serialize;
use webext_mcp_engine::text::clip_bytes;

use super::code;
use super::files::Script;
use super::permissions;
use crate::build::boundary::Boundary;
use crate::build::glob::glob_match;
use crate::build::js;
use crate::build::plan::normalize;
use crate::build::scan::{HtmlRef, css_refs, html_refs};
use crate::manifest::{self, Json, RefKind, Target};

/// At most this many files are listed and hashed (a hostile folder could hold millions).
const MAX_FILES: usize = 5000;
/// At most this many files are listed in the result (totals count them all).
const MAX_LISTED: usize = 500;
/// Files above this are not gzipped to measure them (their size is reported as is).
const MAX_GZIP_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRow {
    pub path: String,
    pub bytes: u64,
    pub gzip_bytes: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub files: usize,
    pub bytes: u64,
    pub gzip_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The manifest key, e.g. `action.default_popup`.
    pub entry: String,
    pub file: String,
    /// Files it pulls in (scripts and styles of a page, imports of a module, …).
    pub pulls: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    pub declared: Vec<String>,
    pub host: Vec<String>,
    pub used: Vec<String>,
    pub unused: Vec<String>,
    /// The warnings the install dialog shows, per browser family.
    pub install_warnings: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Flag {
    pub flag: &'static str,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    pub browser: String,
    pub dist_path: String,
    /// True when this call built the folder first (it was missing).
    pub built: bool,
    pub totals: Totals,
    pub largest: Vec<FileRow>,
    pub files: Vec<FileRow>,
    pub entry_points: Vec<Entry>,
    pub unreachable: Vec<String>,
    pub permissions: Permissions,
    pub store_flags: Vec<Flag>,
    /// More files than were listed (`files` and `unreachable` stop at 500; totals count
    /// every file up to 5000).
    pub truncated: bool,
}

/// Inspects the built folder `dist` for `target`.
pub fn inspect(dist: &Path, target: Target, built: bool, has_source_zip: bool) -> Result<Inspection, String> {
    let manifest_path = dist.join("manifest.json");
    let bytes = manifest::read_capped(&manifest_path, manifest::MAX_JSON_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))?
        .ok_or("the built manifest.json is larger than 1 MiB")?;
    let m = manifest::parse_jsonc(&String::from_utf8_lossy(&bytes))
        .map_err(|e| format!("the built manifest.json is not valid JSON: {e}"))?;
    let (files, truncated) = list(dist);
    let totals = Totals {
        files: files.len(),
        bytes: files.iter().map(|f| f.bytes).sum(),
        gzip_bytes: files.iter().map(|f| f.gzip_bytes).sum(),
    };
    let mut largest = files.clone();
    largest.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.path.cmp(&b.path)));
    largest.truncate(5);
    let present: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut entry_points = Vec::new();
    let mut scripts = Vec::new();
    let mut war = Vec::new();
    for r in manifest::file_refs(&m) {
        if r.kind == RefKind::Pattern {
            war.push(r.path.trim_start_matches('/').to_owned());
            continue;
        }
        let Some(rel) = normalize(&r.path) else { continue };
        let pulls = follow(dist, &rel, r.kind, &present, &mut scripts);
        reached.insert(rel.clone());
        reached.extend(pulls.iter().cloned());
        entry_points.push(Entry { entry: r.json_path.clone(), file: rel, pulls });
    }
    let unreachable: Vec<String> = files
        .iter()
        .map(|f| f.path.clone())
        .filter(|p| {
            !reached.contains(p)
                && p != "manifest.json"
                && !p.starts_with("_locales/")
                && !p.starts_with(".webext-mcp")
                && !war.iter().any(|w| {
                    glob_match(w, p) || w == p || p.starts_with(&format!("{}/", w.trim_end_matches('/')))
                })
        })
        .collect();
    scripts.sort();
    scripts.dedup_by(|a, b| a.rel == b.rel);
    let usage = code::scan(dist, &Boundary::new(dist), &scripts);
    let permissions = permission_analysis(&m, &usage);
    let store_flags = flags(&m, target, &files, &usage, &permissions, has_source_zip, dist);
    let mut files = files;
    let mut unreachable = unreachable;
    let truncated = truncated || files.len() > MAX_LISTED || unreachable.len() > MAX_LISTED;
    files.truncate(MAX_LISTED);
    unreachable.truncate(MAX_LISTED);
    Ok(Inspection {
        browser: target.name.to_owned(),
        dist_path: dist.display().to_string(),
        built,
        totals,
        largest,
        files,
        entry_points,
        unreachable,
        permissions,
        store_flags,
        truncated,
    })
}

fn gzip_len(path: &Path, bytes: u64) -> u64 {
    if bytes > MAX_GZIP_BYTES {
        return bytes;
    }
    let Ok(data) = std::fs::read(path) else { return bytes };
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    if enc.write_all(&data).is_err() {
        return bytes;
    }
    enc.finish().map_or(bytes, |v| v.len() as u64)
}

/// Every regular file under `dir` (symlinks are not followed), sorted.
fn list(dir: &Path) -> (Vec<FileRow>, bool) {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut truncated = false;
    while let Some((d, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push((e.path(), rel));
            } else if ft.is_file() {
                if out.len() >= MAX_FILES {
                    truncated = true;
                    continue;
                }
                let bytes = e.metadata().map_or(0, |m| m.len());
                out.push(FileRow { gzip_bytes: gzip_len(&e.path(), bytes), path: rel, bytes });
            }
        }
    }
    out.retain(|f| !f.path.starts_with(".webext-mcp"));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    (out, truncated)
}

/// What an entry pulls in, transitively (pages → scripts, styles, images; styles → url();
/// modules → relative imports). Scripts met are added to `scripts` for the code scan.
fn follow(
    dist: &Path,
    rel: &str,
    kind: RefKind,
    present: &BTreeSet<&str>,
    scripts: &mut Vec<Script>,
) -> Vec<String> {
    let mut out = BTreeSet::new();
    let mut queue = vec![(rel.to_owned(), kind)];
    let mut seen = BTreeSet::new();
    while let Some((cur, kind)) = queue.pop() {
        if !seen.insert(cur.clone()) || seen.len() > MAX_FILES || !present.contains(cur.as_str()) {
            continue;
        }
        if cur != rel {
            out.insert(cur.clone());
        }
        let path = dist.join(&cur);
        let dir = cur.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        let join = |raw: &str| -> Option<String> {
            if manifest::is_external(raw) {
                return None;
            }
            normalize(&if raw.starts_with('/') || dir.is_empty() {
                raw.to_owned()
            } else {
                format!("{dir}/{raw}")
            })
        };
        let text = || {
            manifest::read_capped(&path, js::MAX_PARSE_BYTES as u64)
                .ok()
                .flatten()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        match kind {
            RefKind::Page => {
                let Some(html) = text() else { continue };
                for r in html_refs(&html) {
                    let (raw, k) = match r {
                        HtmlRef::Script { src, module } => {
                            (src, if module { RefKind::ModuleScript } else { RefKind::ClassicScript })
                        }
                        HtmlRef::Style(h) => (h, RefKind::Style),
                        HtmlRef::Asset(h) => (h, RefKind::Asset),
                    };
                    if let Some(n) = join(&raw) {
                        queue.push((n, k));
                    }
                }
            }
            RefKind::Style => {
                let Some(css) = text() else { continue };
                for raw in css_refs(&css) {
                    if let Some(n) = join(&raw) {
                        queue.push((n, RefKind::Asset));
                    }
                }
            }
            RefKind::ClassicScript | RefKind::ModuleScript => {
                scripts.push(Script {
                    rel: cur.clone(),
                    path: path.clone(),
                    module: kind == RefKind::ModuleScript,
                    via: if cur == rel { "manifest".into() } else { format!("pulled in by {rel}") },
                });
                if kind == RefKind::ModuleScript
                    && let Some(t) = text()
                    && let Ok(imports) = js::module_imports(&t, &path)
                {
                    for i in imports {
                        if let Some(n) = join(&i.specifier) {
                            queue.push((n, RefKind::ModuleScript));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}

fn strings(m: &Json, key: &str) -> Vec<String> {
    m.get(key)
        .and_then(Json::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

fn permission_analysis(m: &Json, usage: &code::Usage) -> Permissions {
    let all = strings(m, "permissions");
    let (host_in_perms, declared): (Vec<String>, Vec<String>) =
        all.into_iter().partition(|p| p == "<all_urls>" || p.contains("://"));
    let mut host = strings(m, "host_permissions");
    host.extend(host_in_perms);
    let apis: Vec<&str> = usage.apis.keys().map(String::as_str).collect();
    let mut used = Vec::new();
    let mut unused = Vec::new();
    for p in &declared {
        match permissions::is_used(p, &apis) {
            Some(true) => used.push(p.clone()),
            Some(false) => unused.push(p.clone()),
            None => {}
        }
    }
    let mut install_warnings = BTreeMap::new();
    for (name, family) in [("chrome", Engine::Chromium), ("firefox", Engine::Gecko)] {
        let mut w: Vec<String> =
            declared.iter().chain(&host).filter_map(|p| permissions::install_warning(p, family)).collect();
        w.dedup();
        install_warnings.insert(name.to_owned(), w);
    }
    Permissions { declared, host, used, unused, install_warnings }
}

/// Whether a script looks minified: long lines and little whitespace.
fn minified(path: &Path) -> bool {
    let Ok(Some(bytes)) = manifest::read_capped(path, 4 * 1024 * 1024) else { return false };
    let lines = bytes.split(|b| *b == b'\n').count().max(1);
    bytes.len() > 2000 && bytes.len() / lines > 500
}

fn flags(
    m: &Json,
    target: Target,
    files: &[FileRow],
    usage: &code::Usage,
    perms: &Permissions,
    has_source_zip: bool,
    dist: &Path,
) -> Vec<Flag> {
    let mut out = Vec::new();
    let broad: Vec<&String> = perms.host.iter().filter(|h| permissions::review_cost(h).is_some()).collect();
    let content_everywhere = m.get("content_scripts").and_then(Json::as_array).is_some_and(|cs| {
        cs.iter().any(|c| strings(c, "matches").iter().any(|p| permissions::review_cost(p).is_some()))
    });
    if !broad.is_empty() || content_everywhere {
        out.push(Flag {
            flag: "broad-host-access",
            detail: format!(
                "{} — in-depth review in the Chrome Web Store; prefer activeTab or listed sites",
                if broad.is_empty() {
                    "content scripts on every site".to_owned()
                } else {
                    format!(
                        "host access to {}",
                        broad.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )
                }
            ),
        });
    }
    for p in perms
        .declared
        .iter()
        .filter(|p| matches!(p.as_str(), "debugger" | "nativeMessaging" | "tabs" | "scripting"))
    {
        if let Some(cost) = permissions::review_cost(p) {
            out.push(Flag { flag: "sensitive-permission", detail: cost.to_owned() });
        }
    }
    if !usage.remote.is_empty() {
        out.push(Flag {
            flag: "remote-code",
            detail: format!("code loaded from {}: both stores reject it", usage.remote[0].0),
        });
    }
    if !usage.evals.is_empty() {
        out.push(Flag { flag: "eval", detail: format!("{} in {}", usage.evals[0].0, usage.evals[0].1.file) });
    }
    let min: Vec<&str> = files
        .iter()
        .filter(|f| f.path.ends_with(".js") && minified(&dist.join(&f.path)))
        .map(|f| f.path.as_str())
        .collect();
    if target.engine == Engine::Gecko && !min.is_empty() && !has_source_zip {
        out.push(Flag {
            flag: "minified-without-source",
            detail: format!(
                "{} look minified; addons.mozilla.org needs the source code (build with zipSource)",
                min.join(", ")
            ),
        });
    }
    let total: u64 = files.iter().map(|f| f.bytes).sum();
    if let Some(big) = files.iter().find(|f| f.bytes > 5 * 1024 * 1024 && f.path.ends_with(".js")) {
        out.push(Flag { flag: "size", detail: format!("{} is {} bytes: addons.mozilla.org does not lint JavaScript files above 5 MB (manual review)", big.path, big.bytes) });
    }
    if total > 200 * 1024 * 1024 {
        out.push(Flag {
            flag: "size",
            detail: format!("{total} bytes in all: addons.mozilla.org accepts at most 200 MB"),
        });
    }
    let icons: Vec<String> = m
        .get("icons")
        .and_then(Json::as_object)
        .map(|o| o.keys().map(str::to_owned).collect())
        .unwrap_or_default();
    let needed: &[&str] = if target.engine == Engine::Gecko { &["48", "96"] } else { &["16", "48", "128"] };
    let missing: Vec<&str> = needed.iter().copied().filter(|s| !icons.iter().any(|i| i == s)).collect();
    if !missing.is_empty() {
        out.push(Flag {
            flag: "icons",
            detail: format!(
                "no {} px icon{} in `icons` (the store listing and the extensions page use them)",
                missing.join(", "),
                if missing.len() > 1 { "s" } else { "" }
            ),
        });
    }
    if target.engine == Engine::Gecko
        && m.get("browser_specific_settings")
            .and_then(|b| b.get("gecko"))
            .and_then(|g| g.get("data_collection_permissions"))
            .is_none()
    {
        out.push(Flag {
            flag: "privacy",
            detail: "no data_collection_permissions: addons.mozilla.org requires it for new add-ons".into(),
        });
    }
    if m.get("homepage_url").is_none() && m.get("developer").is_none() {
        out.push(Flag {
            flag: "privacy",
            detail: "no homepage_url: the stores ask for a support or privacy-policy page".into(),
        });
    }
    out
}

/// The `summary` text: under 4 KB whatever the extension's size.
pub fn summary(i: &Inspection) -> String {
    let mut s = format!(
        "{} build {}{}: {} files, {} bytes ({} gzipped)\n",
        i.browser,
        i.dist_path,
        if i.built { " (built now: it was missing)" } else { "" },
        i.totals.files,
        i.totals.bytes,
        i.totals.gzip_bytes
    );
    s.push_str("largest: ");
    s.push_str(&i.largest.iter().map(|f| format!("{} {} B", f.path, f.bytes)).collect::<Vec<_>>().join(", "));
    s.push('\n');
    for e in i.entry_points.iter().take(12) {
        let pulls = if e.pulls.is_empty() { String::new() } else { format!(" (+{} files)", e.pulls.len()) };
        s.push_str(&format!("entry {} → {}{pulls}\n", e.entry, e.file));
    }
    if !i.unreachable.is_empty() {
        s.push_str(&format!("unreachable: {}\n", clip_bytes(&i.unreachable.join(", "), 300)));
    }
    let p = &i.permissions;
    s.push_str(&format!(
        "permissions: {} declared, {} host; unused: {}\n",
        p.declared.len(),
        p.host.len(),
        if p.unused.is_empty() { "none".into() } else { p.unused.join(", ") }
    ));
    for (b, w) in &p.install_warnings {
        if !w.is_empty() {
            s.push_str(&format!("{b} install warnings: {}\n", clip_bytes(&w.join("; "), 400)));
        }
    }
    for f in i.store_flags.iter().take(10) {
        s.push_str(&format!("flag {}: {}\n", f.flag, clip_bytes(&f.detail, 240)));
    }
    clip_bytes(s.trim_end(), 3900)
}

/// A tree of the files with sizes (the `tree` format).
pub fn tree(i: &Inspection) -> String {
    let mut s = format!("{}/ ({} bytes)\n", i.dist_path, i.totals.bytes);
    let mut open: Vec<&str> = Vec::new();
    for f in &i.files {
        let parts: Vec<&str> = f.path.split('/').collect();
        let (name, dirs) = parts.split_last().unwrap_or((&"", &[]));
        let same = open.iter().zip(dirs.iter()).take_while(|(a, b)| a == b).count();
        open.truncate(same);
        for d in &dirs[same..] {
            s.push_str(&format!("{}{d}/\n", "  ".repeat(open.len() + 1)));
            open.push(d);
        }
        s.push_str(&format!("{}{name}  {} B ({} gz)\n", "  ".repeat(dirs.len() + 1), f.bytes, f.gzip_bytes));
    }
    s.trim_end().to_owned()
}
