//! Value grammars of a resolved manifest: `version`, match patterns, where host patterns
//! go, the content security policy, `web_accessible_resources`, `commands`, and the keys
//! that belong to the other manifest version. Pure functions over one target's manifest.
//!
//! The grammars follow what the browsers enforce at load time (Chrome's
//! `extensions/common/manifest_handlers`, Firefox's `Schemas.sys.mjs` formats `manifestVersion`,
//! `matchPattern`, `contentSecurityPolicy`), not what stores merely recommend.

use crate::browsers::Engine;
use crate::manifest::{Finding, FindingCode, Json, Severity, Target};

/// The manifest version as a number, when it is 2 or 3 (anything else is reported here).
pub fn manifest_version(m: &Json) -> Option<u32> {
    let v = m.get("manifest_version")?.as_f64()?;
    [2, 3].into_iter().find(|n| f64::from(*n) == v)
}

/// Every value rule for one target.
pub fn check(m: &Json, t: Target, out: &mut Vec<Finding>) {
    let mv = manifest_version(m);
    version_rules(m, t, mv, out);
    if let Some(v) = m.get("version").and_then(Json::as_str)
        && let Err(why) = version_grammar(v)
    {
        out.push(
            Finding::new(
                FindingCode::ManifestVersionInvalid,
                format!("`version` \"{v}\" is invalid: {why}"),
                "use 1 to 4 dot-separated integers from 0 to 65535 without leading zeros, e.g. \"1.2.0\"; put labels such as \"1.2 beta\" in version_name",
            )
            .at("version"),
        );
    }
    if m.get("version_name").and_then(Json::as_str).is_some_and(|s| s.trim().is_empty()) {
        out.push(
            Finding::new(
                FindingCode::ManifestShape,
                "`version_name` is empty",
                "remove it or write a label such as \"1.2 beta\"",
            )
            .at("version_name"),
        );
    }
    patterns(m, mv, out);
    if let Some(list) = m.get("content_scripts").and_then(Json::as_array) {
        for (i, cs) in list.iter().enumerate() {
            if cs.as_object().is_some() && cs.get("matches").is_none() {
                out.push(
                    Finding::new(
                        FindingCode::ManifestMissingField,
                        format!("content_scripts[{i}] has no `matches`, which browsers require"),
                        "add \"matches\": [\"https://example.com/*\"]",
                    )
                    .at(format!("content_scripts[{i}]")),
                );
            }
        }
    }
    if let Some(csp) = m.get("content_security_policy") {
        super::csp::check(csp, mv, out);
    }
    web_accessible(m, mv, out);
    commands(m, out);
    keys_needing_permissions(m, t, out);
}

/// Manifest keys that do nothing without a permission: static rule sets need
/// `declarativeNetRequest` (or `…WithHostAccess`), `side_panel` needs `sidePanel`.
fn keys_needing_permissions(m: &Json, t: Target, out: &mut Vec<Finding>) {
    let declared: Vec<&str> = m
        .get("permissions")
        .and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(Json::as_str)
        .collect();
    let rules = m
        .get("declarative_net_request")
        .and_then(|d| d.get("rule_resources"))
        .and_then(Json::as_array)
        .is_some_and(|r| !r.is_empty());
    let rows: [(bool, &str, &[&str]); 2] = [
        (rules, "declarative_net_request", &["declarativeNetRequest", "declarativeNetRequestWithHostAccess"]),
        // Firefox has no side_panel at all (MANIFEST_KEY_UNSUPPORTED says so).
        (m.get("side_panel").is_some() && t.engine == Engine::Chromium, "side_panel", &["sidePanel"]),
    ];
    for (present, key, needs) in rows {
        if present && !needs.iter().any(|p| declared.contains(p)) {
            out.push(
                Finding::new(
                    FindingCode::ManifestApiPermissionMissing,
                    format!(
                        "`{key}` needs the `{}` permission; without it the browser ignores the key",
                        needs[0]
                    ),
                    format!("add \"{}\" to \"permissions\"", needs[0]),
                )
                .at(key),
            );
        }
    }
}

/// `manifest_version` per browser, and keys that belong to the other version.
fn version_rules(m: &Json, t: Target, mv: Option<u32>, out: &mut Vec<Finding>) {
    match (m.get("manifest_version"), mv) {
        (None, _) => {}
        (Some(_), Some(2)) if t.engine == Engine::Chromium => out.push(
            Finding::new(
                FindingCode::ManifestVersionUnsupported,
                "manifest_version 2 does not load in Chromium browsers, which only load MV3",
                "set \"manifest_version\": 3 (action instead of browser_action, background.service_worker instead of scripts), or give Chromium its own value with \"chromium:manifest_version\": 3",
            )
            .at("manifest_version"),
        ),
        (Some(_), Some(2)) => out.push(
            Finding::new(
                FindingCode::ManifestVersionUnsupported,
                "manifest_version 2 still loads in Firefox, but it is deprecated and new features are MV3-only",
                "move to \"manifest_version\": 3 when you can",
            )
            .at("manifest_version")
            .severity(Severity::Warning),
        ),
        (Some(Json::Number(n)), None) => out.push(
            Finding::new(
                FindingCode::ManifestVersionUnsupported,
                format!("manifest_version {n} does not exist; browsers load 2 (Firefox only) and 3"),
                "set \"manifest_version\": 3",
            )
            .at("manifest_version"),
        ),
        _ => {}
    }
    let Some(mv) = mv else { return };
    let chromium = t.engine == Engine::Chromium;
    // (key, manifest version it belongs to, whether only Chromium enforces it)
    let rows: [(&str, &str, u32, bool); 7] = [
        ("browser_action", "", 2, false),
        ("page_action", "", 2, true),
        ("background", "page", 2, true),
        ("background", "persistent", 2, true),
        ("action", "", 3, false),
        ("host_permissions", "", 3, false),
        ("optional_host_permissions", "", 3, false),
    ];
    for (key, sub, wants, chromium_only) in rows {
        if wants == mv || (chromium_only && !chromium) {
            continue;
        }
        let present =
            if sub.is_empty() { m.get(key).is_some() } else { m.get(key).and_then(|o| o.get(sub)).is_some() };
        if !present {
            continue;
        }
        let path = if sub.is_empty() { key.to_owned() } else { format!("{key}.{sub}") };
        let fix = match (key, sub) {
            ("browser_action" | "page_action", _) => "rename it to \"action\" (MV3)".to_owned(),
            ("background", _) => "use \"background\": { \"service_worker\": \"background.js\" } for Chromium (\"chromium:service_worker\")".to_owned(),
            ("action", _) => "rename it to \"browser_action\" for MV2".to_owned(),
            _ => "put the host patterns in \"permissions\" for MV2".to_owned(),
        };
        out.push(
            Finding::new(
                FindingCode::ManifestKeyWrongVersion,
                format!("`{path}` belongs to manifest version {wants}; in version {mv} it is ignored"),
                fix,
            )
            .at(path),
        );
    }
}

/// Chrome's rule: 1–4 dot-separated integers, each 0–65535, no leading zeros.
pub fn version_grammar(v: &str) -> Result<(), String> {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.len() > 4 {
        return Err(format!("it has {} parts, at most 4 are allowed", parts.len()));
    }
    for p in &parts {
        if p.is_empty() {
            return Err("it has an empty part".into());
        }
        if !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{p}` is not an integer"));
        }
        if p.len() > 1 && p.starts_with('0') {
            return Err(format!("`{p}` has a leading zero"));
        }
        if p.len() > 5 || !p.parse::<u32>().is_ok_and(|n| n <= 65535) {
            return Err(format!("`{p}` is larger than 65535"));
        }
    }
    Ok(())
}

/// Schemes a match pattern may name (`*` means http and https).
const SCHEMES: [&str; 9] = ["*", "http", "https", "ws", "wss", "ftp", "file", "data", "urn"];

/// Why `p` is not a valid match pattern, or `None` when it is.
pub fn match_pattern_error(p: &str) -> Option<String> {
    if p == "<all_urls>" {
        return None;
    }
    let Some((scheme, rest)) = p.split_once("://") else {
        return Some("it has no `://` (write scheme://host/path, e.g. https://example.com/*)".into());
    };
    if !SCHEMES.contains(&scheme) {
        return Some(format!(
            "the scheme `{scheme}` is not allowed (use *, http, https, ws, wss, file or ftp)"
        ));
    }
    let Some(slash) = rest.find('/') else {
        return Some("it has no path: add `/*` after the host".into());
    };
    let host = &rest[..slash];
    if scheme == "file" {
        return None;
    }
    if host.is_empty() {
        return Some("the host is empty".into());
    }
    let name = match host.rsplit_once(':') {
        Some((h, port)) if !port.is_empty() && (port == "*" || port.bytes().all(|b| b.is_ascii_digit())) => h,
        Some(_) => return Some(format!("`{host}` has a bad port")),
        None => host,
    };
    if name == "*" {
        return None;
    }
    let bare = name.strip_prefix("*.").unwrap_or(name);
    if bare.contains('*') {
        return Some(format!(
            "`{host}` has a `*` that is not the whole host or a leading `*.` (use *.example.com)"
        ));
    }
    if bare.is_empty()
        || bare.starts_with('.')
        || bare.ends_with("..")
        || bare.contains([' ', '\\', '?', '#'])
    {
        return Some(format!("`{host}` is not a host name"));
    }
    None
}

fn is_host_pattern(s: &str) -> bool {
    s == "<all_urls>" || s.contains("://")
}

/// Match patterns everywhere they occur, and host patterns in the wrong list.
fn patterns(m: &Json, mv: Option<u32>, out: &mut Vec<Finding>) {
    let mut lists: Vec<(String, &Json)> = Vec::new();
    for key in ["host_permissions", "optional_host_permissions"] {
        if let Some(v) = m.get(key) {
            lists.push((key.to_owned(), v));
        }
    }
    if let Some(ext) = m.get("externally_connectable").and_then(|e| e.get("matches")) {
        lists.push(("externally_connectable.matches".into(), ext));
    }
    if let Some(cs) = m.get("content_scripts").and_then(Json::as_array) {
        for (i, c) in cs.iter().enumerate() {
            for key in ["matches", "exclude_matches"] {
                if let Some(v) = c.get(key) {
                    lists.push((format!("content_scripts[{i}].{key}"), v));
                }
            }
        }
    }
    for key in ["permissions", "optional_permissions"] {
        let Some(items) = m.get(key).and_then(Json::as_array) else { continue };
        for (i, item) in items.iter().enumerate() {
            let Some(s) = item.as_str().filter(|s| is_host_pattern(s)) else { continue };
            if mv == Some(3) {
                let target =
                    if key == "permissions" { "host_permissions" } else { "optional_host_permissions" };
                out.push(
                    Finding::new(
                        FindingCode::ManifestHostInPermissions,
                        format!("`{s}` is a host pattern in `{key}`, which MV3 browsers ignore there: the extension gets no access to those sites"),
                        format!("move it to \"{target}\": [\"{s}\"]"),
                    )
                    .at(format!("{key}[{i}]")),
                );
            } else if let Some(why) = match_pattern_error(s) {
                out.push(bad_pattern(s, &why, &format!("{key}[{i}]")));
            }
        }
    }
    for (path, v) in lists {
        let Some(items) = v.as_array() else { continue };
        for (i, item) in items.iter().enumerate() {
            if let Some(s) = item.as_str()
                && let Some(why) = match_pattern_error(s)
            {
                out.push(bad_pattern(s, &why, &format!("{path}[{i}]")));
            }
        }
    }
}

fn bad_pattern(p: &str, why: &str, path: &str) -> Finding {
    Finding::new(
        FindingCode::ManifestMatchPattern,
        format!("`{p}` is not a valid match pattern: {why}"),
        "write scheme://host/path: \"https://*.example.com/*\", \"*://*/*\" or \"<all_urls>\"",
    )
    .at(path)
}

fn web_accessible(m: &Json, mv: Option<u32>, out: &mut Vec<Finding>) {
    let Some(war) = m.get("web_accessible_resources") else { return };
    let Some(items) = war.as_array() else {
        out.push(
            Finding::new(
                FindingCode::ManifestWebAccessibleResources,
                "`web_accessible_resources` must be an array",
                if mv == Some(2) {
                    "write [\"images/*.png\"]"
                } else {
                    "write [{ \"resources\": [\"images/*.png\"], \"matches\": [\"<all_urls>\"] }]"
                },
            )
            .at("web_accessible_resources"),
        );
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("web_accessible_resources[{i}]");
        let bad = |msg: String, fix: &str| {
            Finding::new(FindingCode::ManifestWebAccessibleResources, msg, fix).at(path.clone())
        };
        match (mv, item) {
            (Some(2), Json::String(_)) => {}
            (Some(2), _) => {
                out.push(bad(format!("`{path}` must be a path string in MV2"), "write \"images/*.png\""))
            }
            (_, Json::String(s)) => out.push(bad(
                format!("`{path}` is the MV2 form \"{s}\"; MV3 wants an object"),
                &format!("write {{ \"resources\": [\"{s}\"], \"matches\": [\"<all_urls>\"] }}"),
            )),
            (_, Json::Object(o)) => {
                if !o.contains_key("resources") {
                    out.push(bad(
                        format!("`{path}` has no `resources`"),
                        "add \"resources\": [\"images/*.png\"]",
                    ));
                }
                if !o.contains_key("matches") && !o.contains_key("extension_ids") {
                    out.push(bad(
                        format!("`{path}` has neither `matches` nor `extension_ids`, so nothing may load its resources"),
                        "add \"matches\": [\"https://example.com/*\"]",
                    ));
                }
                for key in ["resources", "matches", "extension_ids"] {
                    if let Some(v) = o.get(key)
                        && v.as_array().is_none()
                    {
                        out.push(bad(
                            format!("`{path}.{key}` must be an array of strings"),
                            "wrap the value in [ … ]",
                        ));
                    }
                }
                for (j, p) in o.get("matches").and_then(Json::as_array).unwrap_or(&[]).iter().enumerate() {
                    let Some(p) = p.as_str() else { continue };
                    if let Some(why) = match_pattern_error(p) {
                        out.push(bad_pattern(p, &why, &format!("{path}.matches[{j}]")));
                    } else if p != "<all_urls>" && !p.ends_with("/*") {
                        out.push(
                            Finding::new(
                                FindingCode::ManifestWebAccessibleResources,
                                format!("`{p}` in web_accessible_resources must have the path `/*` (Chrome refuses other paths)"),
                                format!("write \"{}/*\"", p.rsplit_once('/').map_or(p, |(a, _)| a)),
                            )
                            .at(format!("{path}.matches[{j}]")),
                        );
                    }
                }
            }
            _ => out.push(bad(
                format!("`{path}` must be an object"),
                "write { \"resources\": [ … ], \"matches\": [ … ] }",
            )),
        }
    }
}

const SHORTCUT_KEYS: [&str; 13] = [
    "Comma", "Period", "Home", "End", "PageUp", "PageDown", "Space", "Insert", "Delete", "Up", "Down",
    "Left", "Right",
];
const MEDIA_KEYS: [&str; 4] = ["MediaNextTrack", "MediaPlayPause", "MediaPrevTrack", "MediaStop"];

/// Why `s` is not a shortcut browsers accept, or `None`.
pub fn shortcut_error(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.split('+').map(str::trim).collect();
    let Some((key, mods)) = parts.split_last() else { return Some("it is empty".into()) };
    if MEDIA_KEYS.contains(key) {
        return (!mods.is_empty()).then(|| "media keys take no modifiers".into());
    }
    let letter = key.len() == 1 && key.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    let function =
        key.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()).is_some_and(|n| (1..=12).contains(&n));
    if !letter && !function && !SHORTCUT_KEYS.contains(key) {
        return Some(format!(
            "`{key}` is not a key shortcuts may use (A–Z, 0–9, F1–F12, Comma, Period, Home, End, PageUp, PageDown, Space, Insert, Delete, arrows)"
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    for m in mods {
        if !["Ctrl", "Alt", "Shift", "Command", "MacCtrl", "Search"].contains(m) {
            return Some(format!("`{m}` is not a modifier (Ctrl, Alt, Shift, Command, MacCtrl)"));
        }
        if seen.contains(m) {
            return Some(format!("`{m}` is given twice"));
        }
        seen.push(m);
    }
    if seen.len() > 2 {
        return Some("at most two modifiers are allowed".into());
    }
    if seen.contains(&"Ctrl") && seen.contains(&"Alt") {
        return Some("Ctrl+Alt is refused (it is AltGr on many keyboards)".into());
    }
    let primary = seen.iter().any(|m| *m != "Shift");
    if !primary && !function {
        return Some("it needs Ctrl, Alt, Command or MacCtrl".into());
    }
    None
}

fn commands(m: &Json, out: &mut Vec<Finding>) {
    let Some(cmds) = m.get("commands").and_then(Json::as_object) else { return };
    let mut with_keys = 0;
    for (name, cmd) in cmds.iter() {
        let Some(keys) = cmd.get("suggested_key").and_then(Json::as_object) else { continue };
        with_keys += 1;
        for (platform, v) in keys.iter() {
            let Some(s) = v.as_str() else { continue };
            if let Some(why) = shortcut_error(s) {
                out.push(
                    Finding::new(
                        FindingCode::ManifestCommands,
                        format!("shortcut \"{s}\" of command `{name}` is refused: {why}"),
                        "use a modifier and a key, e.g. \"Ctrl+Shift+Y\" (\"Command+Shift+Y\" for mac)",
                    )
                    .at(format!("commands.{name}.suggested_key.{platform}")),
                );
            }
        }
    }
    if with_keys > 4 {
        out.push(
            Finding::new(
                FindingCode::ManifestCommands,
                format!("{with_keys} commands suggest a shortcut; Chrome allows at most 4"),
                "keep suggested_key on 4 commands; users can assign the rest in the browser's shortcut settings",
            )
            .at("commands"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_table() {
        for ok in ["1", "1.0", "0.1.2.3", "65535.0.0.1", "10.20"] {
            assert!(version_grammar(ok).is_ok(), "{ok}");
        }
        for bad in
            ["", "1.", ".1", "1.0.0.0.0", "01.2", "1.2a", "65536", "1.-2", "v1", "1.0 beta", "9999999999"]
        {
            assert!(version_grammar(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn match_pattern_table() {
        for ok in [
            "<all_urls>",
            "*://*/*",
            "https://example.com/*",
            "https://*.example.com/a/*b",
            "http://localhost:8080/*",
            "file:///*",
            "wss://x.org/",
            "http://127.0.0.1/*",
        ] {
            assert_eq!(match_pattern_error(ok), None, "{ok}");
        }
        for bad in [
            "example.com",
            "https://example.com",
            "https://*example.com/*",
            "https://www.*.com/*",
            "https://example.*/*",
            "chrome://extensions/*",
            "https:///*",
            "https://a b/*",
            "http://x:port/*",
        ] {
            assert!(match_pattern_error(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn shortcut_table() {
        for ok in [
            "Ctrl+Shift+Y",
            "Alt+1",
            "Command+Shift+Comma",
            "MacCtrl+Space",
            "F5",
            "MediaPlayPause",
            "Ctrl+F12",
        ] {
            assert_eq!(shortcut_error(ok), None, "{ok}");
        }
        for bad in [
            "Y",
            "Shift+Y",
            "Ctrl+Alt+Y",
            "Ctrl+Ctrl+Y",
            "Ctrl+Shift+Alt+Y",
            "Ctrl+Enter",
            "Hyper+Y",
            "Ctrl+MediaStop",
            "",
        ] {
            assert!(shortcut_error(bad).is_some(), "{bad}");
        }
    }
}
