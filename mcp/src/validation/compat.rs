//! Per-browser support of manifest keys, permissions and APIs, from the table that
//! `scripts/gen-compat` generates out of MDN's `@mdn/browser-compat-data` (pinned there;
//! the table's first line records the version, and a test keeps the two equal).
//!
//! ```text
//! compat-table.tsv ──(first use)──▶ path → [chrome, edge, firefox, opera] first versions
//! resolved manifest keys + permissions + APIs the code uses ──▶ unsupported findings,
//!                                                              minVersion = the highest first version
//! ```

use crate::browsers::Engine;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use super::code::Location;
use crate::manifest::{Finding, FindingCode, Json, Severity, Target};

const TABLE_TEXT: &str = include_str!("compat-table.tsv");

struct Table {
    version: &'static str,
    rows: HashMap<&'static str, [&'static str; 4]>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut lines = TABLE_TEXT.lines();
        let header = lines.next().unwrap_or("");
        let version = header
            .strip_prefix("# @mdn/browser-compat-data ")
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("");
        let mut rows = HashMap::new();
        for line in lines {
            let mut cells = line.split('\t');
            let Some(path) = cells.next() else { continue };
            let mut row = [""; 4];
            for slot in &mut row {
                *slot = cells.next().unwrap_or("");
            }
            rows.insert(path, row);
        }
        Table { version, rows }
    })
}

/// The `@mdn/browser-compat-data` version the table was generated from.
pub fn data_version() -> &'static str {
    table().version
}

/// Support of one feature in one browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    No,
    /// Supported since this version (`None`: since a version MDN does not know).
    Since(Option<&'static str>),
}

fn column(t: Target) -> usize {
    match (t.engine, t.name) {
        (Engine::Chromium, "edge") => 1,
        (Engine::Chromium, "opera") => 3,
        (Engine::Chromium, _) => 0,
        (Engine::Gecko, _) => 2,
    }
}

/// What MDN says of `path` (`manifest.side_panel`, `api.tabs.group`) for `t`; `None` when
/// MDN has no entry.
/// Reviewed corrections over the MDN data, each with its source: (feature, column
/// (chrome 0, edge 1, firefox 2, opera 3), first version or `y`, source).
pub const OVERRIDES: &[(&str, usize, &str, &str)] = &[
    (
        "manifest.permissions.search",
        0,
        "87",
        "chrome.search API reference (developer.chrome.com/docs/extensions/reference/api/search): Chrome 87+; MDN's optional_permissions.search row says 87, its permissions row is blank",
    ),
    ("manifest.permissions.search", 1, "87", "Edge ships Chromium's chrome.search since 87 (same source)"),
    ("manifest.permissions.search", 3, "73", "MDN's optional_permissions.search row (Opera 73)"),
    (
        "manifest.permissions.offscreen",
        0,
        "109",
        "chrome.offscreen API reference (developer.chrome.com/docs/extensions/reference/api/offscreen): Chrome 109+, MV3",
    ),
    ("manifest.permissions.offscreen", 1, "109", "Edge follows Chromium 109 (same source)"),
    ("api.offscreen", 0, "109", "chrome.offscreen API reference: Chrome 109+"),
    ("api.offscreen", 1, "109", "Edge follows Chromium 109"),
    (
        "manifest.permissions.menus",
        2,
        "55",
        "MDN's api.menus row and menus API page: Firefox 55 (the permissions.menus row is blank in every column)",
    ),
    (
        "manifest.browser_specific_settings.gecko_android",
        2,
        "y",
        "MDN browser_specific_settings: gecko_android is read by Firefox for Android and addons.mozilla.org; desktop Firefox's schema accepts it",
    ),
];

pub fn support(path: &str, t: Target) -> Option<Support> {
    let col = column(t);
    if let Some((_, _, v, _)) = OVERRIDES.iter().find(|(p, c, _, _)| *p == path && *c == col) {
        return Some(if *v == "y" { Support::Since(None) } else { Support::Since(Some(v)) });
    }
    let cell = table().rows.get(path)?[col];
    Some(match cell.trim_end_matches('*') {
        "" => Support::No,
        "y" => Support::Since(None),
        v => Support::Since(Some(v)),
    })
}

/// Numeric comparison of dotted versions (`"109" > "88"`, `"14.1" > "14"`).
pub fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.trim().parse::<u32>().unwrap_or(0)).collect()
}

/// The browser's name as MDN and users know it, for messages.
pub fn browser_label(t: Target) -> &'static str {
    match column(t) {
        1 => "Edge",
        2 => "Firefox",
        3 => "Opera",
        _ => "Chrome",
    }
}

/// What the compat pass found for one target.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The lowest browser version that supports everything used, and the feature that needs it.
    pub min_version: Option<(String, String)>,
    pub findings: Vec<Finding>,
}

impl Outcome {
    fn need(&mut self, s: Support, feature: &str) {
        if let Support::Since(Some(v)) = s {
            let higher = self.min_version.as_ref().is_none_or(|(cur, _)| version_key(v) > version_key(cur));
            if higher {
                self.min_version = Some((v.to_owned(), feature.to_owned()));
            }
        }
    }
}

/// Keys, permissions and APIs (`apis`: `storage.session.get` → where the code first uses
/// it) against the table.
/// Whether any browser supports `path` (a key or permission of another browser, not a typo).
fn supported_somewhere(path: &str) -> bool {
    TARGETS
        .iter()
        .any(|n| Target::named(n).is_some_and(|t| matches!(support(path, t), Some(Support::Since(_)))))
}

const TARGETS: [&str; 4] = ["chrome", "edge", "firefox", "opera"];

/// One info per browser for the keys and permissions of other browsers in a shared manifest
/// (browsers ignore them; nothing to fix), instead of one warning each.
fn foreign_info(t: Target, foreign: &[String], out: &mut Outcome) {
    if foreign.is_empty() {
        return;
    }
    let label = browser_label(t);
    let shown: Vec<String> = foreign.iter().take(12).map(|p| format!("`{p}`")).collect();
    let more = if foreign.len() > shown.len() {
        format!(" and {} more", foreign.len() - shown.len())
    } else {
        String::new()
    };
    out.findings.push(
        Finding::new(
            FindingCode::ManifestKeyUnsupported,
            format!("{label} ignores {} of other browsers in this shared manifest: {}{more}", if foreign.len() == 1 { "one key or permission" } else { "keys and permissions" }, shown.join(", ")),
            format!(
                "nothing to fix for a cross-browser manifest; a \"{}:\" prefix keeps them out of {label}'s build",
                other_family_prefix(t)
            ),
        )
        .severity(Severity::Info),
    );
}

pub fn check(
    m: &Json,
    t: Target,
    apis: &BTreeMap<String, Location>,
    guarded: &BTreeSet<String>,
    out: &mut Outcome,
) {
    let label = browser_label(t);
    let mut foreign = Vec::new();
    if let Some(mv) = crate::manifest::rules::values::manifest_version(m)
        && let Some(s) = support(&format!("manifest.manifest_version.v{mv}"), t)
    {
        out.need(s, &format!("manifest_version {mv}"));
    }
    if let Some(o) = m.as_object() {
        for (key, v) in o.iter() {
            if key != "manifest_version" {
                keys(v, &format!("manifest.{key}"), key, t, label, out, &mut foreign);
            }
        }
    }
    for list in ["permissions", "optional_permissions"] {
        let Some(items) = m.get(list).and_then(Json::as_array) else { continue };
        for (i, p) in items.iter().enumerate() {
            let Some(p) = p.as_str().filter(|p| !p.contains("://") && *p != "<all_urls>") else { continue };
            let path = format!("{list}[{i}]");
            if list == "permissions"
                && p == "webRequestBlocking"
                && t.engine == Engine::Chromium
                && crate::manifest::rules::values::manifest_version(m) == Some(3)
            {
                out.findings.push(
                    Finding::new(
                        FindingCode::ManifestPermissionUnsupported,
                        format!("{label} grants `webRequestBlocking` to MV3 extensions only when enterprise policy installs them; elsewhere blocking webRequest listeners fail"),
                        "block with declarativeNetRequest, or keep it for Firefox only with \"firefox:permissions\"",
                    )
                    .at(path),
                );
                continue;
            }
            // Optional-only permissions have their own rows (userScripts in Firefox 136+).
            let optional = format!("manifest.optional_permissions.{p}");
            let feature = if list == "optional_permissions" && table().rows.contains_key(optional.as_str()) {
                optional
            } else {
                format!("manifest.permissions.{p}")
            };
            match support(&feature, t) {
                Some(Support::No)
                    if supported_somewhere(&feature)
                        || matches!(super::permissions::engines_of(p), Some(Some(f)) if f != t.engine) =>
                {
                    foreign.push(format!("{path} ({p})"))
                }
                Some(Support::No) => out.findings.push(
                    Finding::new(
                        FindingCode::ManifestPermissionUnsupported,
                        format!("{label} does not support the `{p}` permission; it is ignored there"),
                        format!(
                            "declare it only where it exists, e.g. \"{}:{list}\"",
                            other_family_prefix(t)
                        ),
                    )
                    .at(path),
                ),
                Some(s) => out.need(s, &format!("the {p} permission")),
                None if matches!(super::permissions::engines_of(p), Some(Some(f)) if f != t.engine) => {
                    foreign.push(format!("{path} ({p})"))
                }
                None if super::permissions::engines_of(p).is_none() => {
                    let close = crate::manifest::rules::keys::closest(p, super::permissions::known_names());
                    out.findings.push(
                        Finding::new(
                            FindingCode::ManifestBadPermission,
                            format!("`{p}` is not a permission {label} knows; it is ignored"),
                            match close {
                                Some(c) => format!("did you mean \"{c}\"?"),
                                None => {
                                    "remove it, or check its spelling against the browser's permission list"
                                        .into()
                                }
                            },
                        )
                        .at(path),
                    );
                }
                None => {}
            }
        }
    }
    // A Firefox background that is only a service worker does not run: not another
    // browser's key there, a real problem.
    let bg = m.get("background");
    if t.engine == Engine::Gecko
        && bg.is_some_and(|b| b.get("scripts").is_none() && b.get("page").is_none())
        && let Some(i) = foreign.iter().position(|p| p == "background.service_worker")
    {
        foreign.remove(i);
        out.findings.push(
            Finding::new(
                FindingCode::ManifestKeyUnsupported,
                format!("{label} does not run `background.service_worker`, and this manifest gives no background.scripts: the background does not start there"),
                "add \"scripts\": [\"<the same file>\"] to \"background\" (Chrome ignores it when service_worker is set)",
            )
            .at("background.service_worker"),
        );
    }
    let mut reported: Vec<&str> = Vec::new();
    let mut noted: Vec<&str> = Vec::new();
    for (api, at) in apis {
        let namespace = api.split('.').next().unwrap_or(api);
        if reported.contains(&namespace) {
            continue;
        }
        let full = format!("api.{api}");
        let mut probe = full.as_str();
        loop {
            if let Some(s) = support(probe, t) {
                match s {
                    Support::No if guarded.contains(api) => {
                        if noted.contains(&namespace) {
                            break;
                        }
                        noted.push(namespace);
                        out.findings.push(
                            Finding::new(
                                FindingCode::ManifestApiUnsupported,
                                format!(
                                    "the code tests for `{}` before using it; {label} does not have it, so that branch does not run there",
                                    probe.trim_start_matches("api.")
                                ),
                                "nothing to fix: the feature test handles it",
                            )
                            .severity(Severity::Info)
                            .in_file(at.file.clone())
                            .at_position(at.line, at.column),
                        )
                    }
                    Support::No => {
                        reported.push(namespace);
                        out.findings.push(
                            Finding::new(
                                FindingCode::ManifestApiUnsupported,
                                format!(
                                    "the code uses `{}`, which {label} does not have",
                                    probe.trim_start_matches("api.")
                                ),
                                "feature-detect it (`if (chrome.x?.y)`) or use the browser's own API; ignore this if the code already does",
                            )
                            .in_file(at.file.clone())
                            .at_position(at.line, at.column),
                        )
                    }
                    // A feature-tested call does not raise the minimum version.
                    s if !guarded.contains(api) => out.need(s, api),
                    _ => {}
                }
                break;
            }
            match probe.rfind('.') {
                Some(i) if i > 3 => probe = &probe[..i],
                _ => break,
            }
        }
    }
    foreign_info(t, &foreign, out);
}

fn other_family_prefix(t: Target) -> &'static str {
    match t.engine {
        Engine::Chromium => "firefox",
        Engine::Gecko => "chromium",
    }
}

/// One manifest key and what is under it; stops at the first unsupported key of a branch.
fn keys(
    v: &Json,
    feature: &str,
    path: &str,
    t: Target,
    label: &str,
    out: &mut Outcome,
    foreign: &mut Vec<String>,
) {
    if let Some(s) = support(feature, t) {
        if s == Support::No && supported_somewhere(feature) {
            foreign.push(path.to_owned());
            return;
        }
        if s == Support::No {
            out.findings.push(
                Finding::new(
                    FindingCode::ManifestKeyUnsupported,
                    format!("{label} does not support `{path}`; it is ignored there"),
                    format!(
                        "give it a prefix for the browsers that have it, e.g. \"{}:{}\"",
                        other_family_prefix(t),
                        path.rsplit('.').next().unwrap_or(path)
                    ),
                )
                .at(path.to_owned()),
            );
            return;
        }
        out.need(s, path);
    }
    match v {
        Json::Object(o) => {
            for (k, child) in o.iter() {
                keys(child, &format!("{feature}.{k}"), &format!("{path}.{k}"), t, label, out, foreign);
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.as_object().is_some() {
                    keys(item, feature, &format!("{path}[{i}]"), t, label, out, foreign);
                }
            }
        }
        _ => {}
    }
}

/// The minimum version the manifest declares for `t` (`strict_min_version`,
/// `minimum_chrome_version`), and where.
pub fn declared_min(m: &Json, t: Target) -> Option<(String, &'static str)> {
    match t.engine {
        Engine::Gecko => m
            .get("browser_specific_settings")
            .and_then(|b| b.get("gecko"))
            .and_then(|g| g.get("strict_min_version"))
            .and_then(Json::as_str)
            .map(|v| (v.to_owned(), "browser_specific_settings.gecko.strict_min_version")),
        Engine::Chromium if column(t) != 3 => m
            .get("minimum_chrome_version")
            .and_then(Json::as_str)
            .map(|v| (v.to_owned(), "minimum_chrome_version")),
        Engine::Chromium => None,
    }
}

/// A declared minimum below what is used: the browser between the two would load the
/// extension and then miss a feature (addons-linter `KEY_FIREFOX_UNSUPPORTED_BY_MIN_VERSION`).
pub fn min_version_finding(m: &Json, t: Target, needed: &(String, String)) -> Option<Finding> {
    let (declared, path) = declared_min(m, t)?;
    let (need, feature) = needed;
    let d = version_key(&declared);
    if d.first() >= version_key(need).first() {
        return None;
    }
    let label = browser_label(t);
    let fixed = if t.engine == Engine::Gecko { format!("{need}.0") } else { need.clone() };
    Some(
        Finding::new(
            FindingCode::ManifestMinVersion,
            format!("{path} is {declared}, but {feature} needs {label} {need}"),
            format!(
                "set \"{}\": \"{fixed}\", or stop using {feature}",
                path.rsplit('.').next().unwrap_or(path)
            ),
        )
        .at(path),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> Target {
        Target::named(name).unwrap()
    }

    /// The checked-in table was generated for the version `scripts/gen-compat` pins.
    #[test]
    fn compat_table_matches_the_pinned_version() {
        let script = include_str!("../../../scripts/gen-compat");
        let pin = script.lines().find_map(|l| l.strip_prefix("PIN=")).expect("PIN= line");
        assert_eq!(data_version(), pin.trim(), "run scripts/gen-compat");
        assert!(table().rows.len() > 1000);
    }

    #[test]
    fn the_table_knows_the_cross_browser_facts() {
        assert_eq!(support("manifest.side_panel", t("chrome")), Some(Support::Since(Some("114"))));
        assert_eq!(support("manifest.side_panel", t("firefox")), Some(Support::No));
        assert_eq!(
            support("manifest.content_scripts.world", t("firefox")),
            Some(Support::Since(Some("128")))
        );
        assert_eq!(support("manifest.sidebar_action", t("chrome")), Some(Support::No));
        assert_eq!(support("manifest.no_such_key", t("chrome")), None);
        assert!(version_key("109") > version_key("88"));
        assert!(version_key("14.1") > version_key("14"));
    }
}
