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
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use super::code::Location;
use crate::manifest::{Finding, FindingCode, Json, Target};

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
pub fn support(path: &str, t: Target) -> Option<Support> {
    let cell = table().rows.get(path)?[column(t)];
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
pub fn check(m: &Json, t: Target, apis: &BTreeMap<String, Location>, out: &mut Outcome) {
    let label = browser_label(t);
    if let Some(mv) = crate::manifest::rules::values::manifest_version(m)
        && let Some(s) = support(&format!("manifest.manifest_version.v{mv}"), t)
    {
        out.need(s, &format!("manifest_version {mv}"));
    }
    if let Some(o) = m.as_object() {
        for (key, v) in o.iter() {
            if key != "manifest_version" {
                keys(v, &format!("manifest.{key}"), key, t, label, out);
            }
        }
    }
    for list in ["permissions", "optional_permissions"] {
        let Some(items) = m.get(list).and_then(Json::as_array) else { continue };
        for (i, p) in items.iter().enumerate() {
            let Some(p) = p.as_str().filter(|p| !p.contains("://") && *p != "<all_urls>") else { continue };
            let path = format!("{list}[{i}]");
            match support(&format!("manifest.permissions.{p}"), t) {
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
                    out.findings.push(
                        Finding::new(
                            FindingCode::ManifestPermissionUnsupported,
                            format!("{label} does not have the `{p}` permission; it is ignored there"),
                            format!(
                                "declare it only where it exists, e.g. \"{}:{list}\"",
                                other_family_prefix(t)
                            ),
                        )
                        .at(path),
                    )
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
    let mut reported: Vec<&str> = Vec::new();
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
                    s => out.need(s, api),
                }
                break;
            }
            match probe.rfind('.') {
                Some(i) if i > 3 => probe = &probe[..i],
                _ => break,
            }
        }
    }
}

fn other_family_prefix(t: Target) -> &'static str {
    match t.engine {
        Engine::Chromium => "firefox",
        Engine::Gecko => "chromium",
    }
}

/// One manifest key and what is under it; stops at the first unsupported key of a branch.
fn keys(v: &Json, feature: &str, path: &str, t: Target, label: &str, out: &mut Outcome) {
    if let Some(s) = support(feature, t) {
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
                keys(child, &format!("{feature}.{k}"), &format!("{path}.{k}"), t, label, out);
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.as_object().is_some() {
                    keys(item, feature, &format!("{path}[{i}]"), t, label, out);
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
