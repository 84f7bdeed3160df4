//! Per-browser manifest resolution, matching Extension.js 4.1 (`filterKeysForThisBrowser`,
//! `patchGeckoBackground`, `patchChromiumBackground` in `programs/develop`).
//!
//! ```text
//! source manifest ──▶ resolve_keys (prefixes, any depth) ──▶ background rules ──▶ resolved
//! ```
//!
//! Key rules, per object, at every depth (arrays are walked too):
//! - a key without `:` is plain; `prefix:key` is prefixed (split at the first `:`);
//! - a prefix equal to the target name is *exact*; `chromium`/`chrome`/`edge` on a Chromium
//!   target and `gecko`/`firefox` on a Gecko target are *family*; any other prefix is dropped;
//! - precedence plain < family < exact, whatever the source order;
//! - `zen` (unknown to Extension.js 4.1) is a Gecko browser: `gecko:`/`firefox:` apply;
//! - two family keys for one name (`chromium:x` and `edge:x` on `chrome`, `chrome:x` and
//!   `chromium:x` on `chromium-based`): the later one in the source wins — Extension.js
//!   writes both into one object in source order;
//! - a prefixed key that overrides a plain key takes the plain key's position; a new one goes
//!   after every plain key, family ones first (in first-seen order), then exact ones.

use super::findings::{Finding, FindingCode};
use super::json::Json;
use super::object::Object;
use super::target::{Target, is_known_prefix};
use crate::browsers::Engine;

/// The manifest for one target, and what resolving it noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub target: Target,
    pub manifest: Json,
    /// Warnings met while resolving (unknown prefixes).
    pub findings: Vec<Finding>,
    /// For Chromium MV3: the `background.scripts` that were dropped (the first one, or an
    /// existing `service_worker`, became the service worker).
    pub dropped_background_scripts: Vec<String>,
}

/// Resolves a source manifest for one target: prefixed keys, `$schema` removed, background
/// rules applied. Pure.
pub fn resolve(source: &Json, target: Target) -> Resolved {
    let mut findings = Vec::new();
    let mut manifest = resolve_keys_at(source, target, "", &mut findings);
    let mut dropped = Vec::new();
    if let Some(root) = manifest.as_object_mut() {
        root.remove("$schema");
        match target.engine {
            Engine::Gecko => gecko_background(root),
            Engine::Chromium => dropped = chromium_background(root),
        }
    }
    Resolved { target, manifest, findings, dropped_background_scripts: dropped }
}

/// Resolves browser-prefixed keys at any depth for a target, without the background rules.
pub fn resolve_keys(node: &Json, target: Target) -> Json {
    resolve_keys_at(node, target, "", &mut Vec::new())
}

fn resolve_keys_at(node: &Json, target: Target, path: &str, findings: &mut Vec<Finding>) -> Json {
    match node {
        Json::Array(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| resolve_keys_at(item, target, &format!("{path}[{i}]"), findings))
                .collect(),
        ),
        Json::Object(object) => {
            let mut result = Object::new();
            let mut family = Object::new();
            let mut exact = Object::new();
            for (key, value) in object.iter() {
                let child_path = if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
                let Some((prefix, stripped)) = key.split_once(':') else {
                    result.insert(key, resolve_keys_at(value, target, &child_path, findings));
                    continue;
                };
                if prefix == target.name {
                    exact.insert(stripped, resolve_keys_at(value, target, &child_path, findings));
                } else if target.family_prefixes().contains(&prefix) {
                    family.insert(stripped, resolve_keys_at(value, target, &child_path, findings));
                } else if !is_known_prefix(prefix) {
                    findings.push(
                        Finding::new(
                            FindingCode::ManifestUnknownPrefix,
                            format!("`{prefix}:` names no known browser, so `{key}` is dropped for every target"),
                            "use a browser prefix (chromium:, chrome:, edge:, firefox:, gecko:, or a browser name such as brave:) or remove the key",
                        )
                        .at(child_path),
                    );
                }
            }
            for (key, value) in family.iter().chain(exact.iter()) {
                result.insert(key, value.clone());
            }
            Json::Object(result)
        }
        other => other.clone(),
    }
}

/// JavaScript truthiness of a JSON value, which the Extension.js rules test.
fn truthy(v: Option<&Json>) -> bool {
    match v {
        None | Some(Json::Null) | Some(Json::Bool(false)) => false,
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Number(n)) => n.parse::<f64>().map(|x| x != 0.0 && !x.is_nan()).unwrap_or(true),
        Some(_) => true,
    }
}

/// Firefox does not run `background.service_worker`: it becomes `scripts: [service_worker]`,
/// unless `scripts` is already there. `"type": "module"` stays: Firefox loads module
/// background scripts (issue 21: a module worker with imports builds natively for both).
fn gecko_background(root: &mut Object) {
    let Some(Json::Object(bg)) = root.get_mut("background") else { return };
    if !truthy(bg.get("service_worker")) || truthy(bg.get("scripts")) {
        return;
    }
    let sw = bg.remove("service_worker").unwrap_or(Json::Null);
    bg.insert("scripts", Json::Array(vec![sw]));
}

/// Chromium MV3 refuses `background.scripts` (even beside a service worker): it is dropped,
/// and its first entry becomes the service worker when there is none.
fn chromium_background(root: &mut Object) -> Vec<String> {
    let mv3 = match root.get("manifest_version") {
        Some(Json::Number(n)) => n.parse::<f64>().ok() == Some(3.0),
        Some(Json::String(s)) => s.trim().parse::<f64>().ok() == Some(3.0),
        _ => false,
    };
    if !mv3 {
        return Vec::new();
    }
    let Some(Json::Object(bg)) = root.get_mut("background") else { return Vec::new() };
    let Some(Json::Array(scripts)) = bg.get("scripts").cloned() else { return Vec::new() };
    bg.remove("scripts");
    let names: Vec<String> = scripts.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect();
    if !truthy(bg.get("service_worker")) {
        match scripts.first() {
            Some(first) => bg.insert("service_worker", first.clone()),
            None => {
                bg.remove("service_worker");
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::super::json::parse_jsonc;
    use super::super::target::Target;
    use super::*;

    fn t(name: &str) -> Target {
        Target::named(name).unwrap()
    }

    fn keys(text: &str, target: &str) -> String {
        let src = parse_jsonc(text).unwrap();
        compact(&resolve_keys(&src, t(target)))
    }

    fn compact(v: &Json) -> String {
        // Order-preserving compact form for table comparisons.
        match v {
            Json::Object(o) => {
                let inner: Vec<String> = o.iter().map(|(k, v)| format!("\"{k}\":{}", compact(v))).collect();
                format!("{{{}}}", inner.join(","))
            }
            Json::Array(a) => format!("[{}]", a.iter().map(compact).collect::<Vec<_>>().join(",")),
            Json::String(s) => format!("\"{s}\""),
            Json::Number(n) => n.clone(),
            Json::Bool(b) => b.to_string(),
            Json::Null => "null".into(),
        }
    }

    /// (source, target, expected) — every precedence case.
    const PRECEDENCE: &[(&str, &str, &str)] = &[
        // plain only
        (r#"{"a":1}"#, "chrome", r#"{"a":1}"#),
        // exact beats plain, either order
        (r#"{"a":1,"chrome:a":2}"#, "chrome", r#"{"a":2}"#),
        (r#"{"chrome:a":2,"a":1}"#, "chrome", r#"{"a":2}"#),
        // family beats plain, either order
        (r#"{"a":1,"chromium:a":2}"#, "chrome", r#"{"a":2}"#),
        (r#"{"chromium:a":2,"a":1}"#, "chrome", r#"{"a":2}"#),
        (r#"{"edge:a":2,"a":1}"#, "chrome", r#"{"a":2}"#),
        // exact beats family, either order
        (r#"{"chrome:a":3,"chromium:a":2}"#, "chrome", r#"{"a":3}"#),
        (r#"{"chromium:a":2,"chrome:a":3}"#, "chrome", r#"{"a":3}"#),
        (r#"{"a":1,"edge:a":3,"chromium:a":2}"#, "edge", r#"{"a":3}"#),
        (r#"{"a":1,"chromium:a":3,"chrome:a":2}"#, "chromium", r#"{"a":3}"#),
        // forks: their own name is exact, chromium/chrome/edge are family
        (r#"{"a":1,"brave:a":3,"chrome:a":2}"#, "brave", r#"{"a":3}"#),
        (r#"{"a":1,"edge:a":2}"#, "brave", r#"{"a":2}"#),
        (r#"{"a":1,"chrome:a":2}"#, "opera", r#"{"a":2}"#),
        (r#"{"a":1,"vivaldi:a":3,"chromium:a":2}"#, "vivaldi", r#"{"a":3}"#),
        // gecko
        (r#"{"a":1,"gecko:a":2}"#, "firefox", r#"{"a":2}"#),
        (r#"{"firefox:a":3,"gecko:a":2,"a":1}"#, "firefox", r#"{"a":3}"#),
        (r#"{"a":1,"librewolf:a":3,"firefox:a":2}"#, "librewolf", r#"{"a":3}"#),
        // zen is not an Extension.js 4.1 target (it refuses the name); here it is Gecko, so
        // firefox:/gecko: keys apply — the one row Extension.js cannot be compared on.
        (r#"{"a":1,"firefox:a":2}"#, "zen", r#"{"a":2}"#),
        (r#"{"a":1,"firefox:a":2,"zen:a":3}"#, "zen", r#"{"a":3}"#),
        // other family and other browsers dropped
        (r#"{"a":1,"firefox:a":2,"gecko:b":3}"#, "chrome", r#"{"a":1}"#),
        (r#"{"a":1,"chrome:a":2,"edge:b":3}"#, "firefox", r#"{"a":1}"#),
        (r#"{"a":1,"brave:a":2}"#, "chrome", r#"{"a":1}"#),
        (r#"{"a":1,"edge:a":2}"#, "chrome", r#"{"a":2}"#),
        (r#"{"a":1,"opera:a":2}"#, "edge", r#"{"a":1}"#),
        (r#"{"a":1,"zen:a":2}"#, "firefox", r#"{"a":1}"#),
        // family aliases: only family keys, no exact key exists for them in practice
        (r#"{"a":1,"chrome:a":2}"#, "chromium-based", r#"{"a":2}"#),
        (r#"{"a":1,"gecko:a":2}"#, "gecko-based", r#"{"a":2}"#),
        (r#"{"a":1,"chromium-based:a":3,"chrome:a":2}"#, "chromium-based", r#"{"a":3}"#),
        // unknown prefixes are dropped
        (r#"{"a":1,"foo:a":2,"safari:a":3}"#, "chrome", r#"{"a":1}"#),
        // prefixed-only keys: present for the target, absent elsewhere
        (r#"{"chrome:only":1}"#, "chrome", r#"{"only":1}"#),
        (r#"{"chrome:only":1}"#, "firefox", r#"{}"#),
        // the value of a prefixed key may be any JSON
        (r#"{"gecko:o":{"x":[1,{"firefox:y":2}]}}"#, "firefox", r#"{"o":{"x":[1,{"y":2}]}}"#),
    ];

    #[test]
    fn precedence_table() {
        for (src, target, expected) in PRECEDENCE {
            assert_eq!(keys(src, target), *expected, "{src} for {target}");
        }
    }

    /// Ties between two family prefixes on one target: the later key in the source wins,
    /// as in Extension.js 4.1 (both land in one object in source order).
    const TIES: &[(&str, &str, &str)] = &[
        (r#"{"chromium:a":1,"edge:a":2}"#, "chrome", r#"{"a":2}"#),
        (r#"{"edge:a":2,"chromium:a":1}"#, "chrome", r#"{"a":1}"#),
        (r#"{"chrome:a":1,"chromium:a":2}"#, "chromium-based", r#"{"a":2}"#),
        (r#"{"chromium:a":2,"chrome:a":1}"#, "chromium-based", r#"{"a":1}"#),
        (r#"{"chrome:a":1,"edge:a":2}"#, "brave", r#"{"a":2}"#),
        (r#"{"firefox:a":1,"gecko:a":2}"#, "gecko-based", r#"{"a":2}"#),
        (r#"{"gecko:a":2,"firefox:a":1}"#, "gecko-based", r#"{"a":1}"#),
        (r#"{"gecko:a":1,"firefox:a":2}"#, "librewolf", r#"{"a":2}"#),
    ];

    #[test]
    fn family_ties_go_to_the_later_key() {
        for (src, target, expected) in TIES {
            assert_eq!(keys(src, target), *expected, "{src} for {target}");
        }
    }

    #[test]
    fn key_positions_follow_extension_js() {
        // Overriding keeps the plain key's slot; new keys go after the plain ones, family
        // keys before exact keys, each group in first-seen order.
        assert_eq!(
            keys(r#"{"chrome:z":1,"a":1,"chromium:y":2,"b":2,"chromium:a":3}"#, "chrome"),
            r#"{"a":3,"b":2,"y":2,"z":1}"#
        );
        assert_eq!(keys(r#"{"edge:x":1,"chromium:w":2,"edge:x":3}"#, "chrome"), r#"{"x":3,"w":2}"#);
    }

    #[test]
    fn nested_keys_resolve_at_any_depth() {
        let src = r#"{
          "name": "n",
          "background": {"chromium:service_worker": "sw.js", "firefox:scripts": ["bg.js"]},
          "content_scripts": [{"matches": ["<all_urls>"], "js": ["a.js"], "firefox:js": ["a.ff.js"]}],
          "browser_specific_settings": {"gecko": {"id": "x@y", "firefox:strict_min_version": "115.0"}},
          "deep": {"l1": {"l2": {"l3": {"edge:v": "e", "v": "p"}}}}
        }"#;
        assert_eq!(
            keys(src, "chrome"),
            r#"{"name":"n","background":{"service_worker":"sw.js"},"content_scripts":[{"matches":["<all_urls>"],"js":["a.js"]}],"browser_specific_settings":{"gecko":{"id":"x@y"}},"deep":{"l1":{"l2":{"l3":{"v":"e"}}}}}"#
        );
        assert_eq!(
            keys(src, "firefox"),
            r#"{"name":"n","background":{"scripts":["bg.js"]},"content_scripts":[{"matches":["<all_urls>"],"js":["a.ff.js"]}],"browser_specific_settings":{"gecko":{"id":"x@y","strict_min_version":"115.0"}},"deep":{"l1":{"l2":{"l3":{"v":"p"}}}}}"#
        );
    }

    #[test]
    fn plain_key_named_gecko_is_not_a_prefix() {
        // `browser_specific_settings.gecko` has no colon: it is a plain key for every target.
        assert_eq!(keys(r#"{"gecko":{"id":"a"}}"#, "chrome"), r#"{"gecko":{"id":"a"}}"#);
    }

    #[test]
    fn only_the_first_colon_splits() {
        assert_eq!(keys(r#"{"chrome:a:b":1}"#, "chrome"), r#"{"a:b":1}"#);
    }

    #[test]
    fn unknown_prefixes_are_reported_with_their_path() {
        let src = parse_jsonc(r#"{"foo:a":1,"safari:b":1,"o":{"bar:c":[1]}}"#).unwrap();
        let r = resolve(&src, t("chrome"));
        let paths: Vec<_> = r.findings.iter().map(|f| f.path.clone().unwrap()).collect();
        assert_eq!(paths, ["foo:a", "o.bar:c"]);
        assert!(r.findings.iter().all(|f| f.code == FindingCode::ManifestUnknownPrefix));
    }

    fn bg(text: &str, target: &str) -> (String, Vec<String>) {
        let r = resolve(&parse_jsonc(text).unwrap(), t(target));
        (compact(r.manifest.get("background").unwrap_or(&Json::Null)), r.dropped_background_scripts)
    }

    #[test]
    fn background_rules() {
        // Gecko: service_worker → scripts, a module stays a module
        assert_eq!(
            bg(r#"{"manifest_version":3,"background":{"service_worker":"sw.js","type":"module","persistent":false}}"#, "firefox").0,
            r#"{"type":"module","persistent":false,"scripts":["sw.js"]}"#
        );
        // Gecko: scripts already there → untouched (even an empty list, which JS finds truthy)
        assert_eq!(
            bg(r#"{"manifest_version":3,"background":{"service_worker":"sw.js","scripts":["a.js"]}}"#, "zen")
                .0,
            r#"{"service_worker":"sw.js","scripts":["a.js"]}"#
        );
        assert_eq!(
            bg(r#"{"manifest_version":3,"background":{"service_worker":"sw.js","scripts":[]}}"#, "firefox").0,
            r#"{"service_worker":"sw.js","scripts":[]}"#
        );
        // Chromium MV3: scripts dropped, first becomes the worker
        assert_eq!(
            bg(
                r#"{"manifest_version":3,"background":{"scripts":["a.js","b.js"],"type":"module"}}"#,
                "chrome"
            ),
            (
                r#"{"type":"module","service_worker":"a.js"}"#.to_owned(),
                vec!["a.js".to_owned(), "b.js".to_owned()]
            )
        );
        // Chromium MV3: an existing worker stays, in place
        assert_eq!(
            bg(
                r#"{"manifest_version":3,"background":{"service_worker":"sw.js","scripts":["a.js"]}}"#,
                "edge"
            )
            .0,
            r#"{"service_worker":"sw.js"}"#
        );
        // Chromium MV3 with the version as a string counts too
        assert_eq!(
            bg(r#"{"manifest_version":"3","background":{"scripts":["a.js"]}}"#, "chrome").0,
            r#"{"service_worker":"a.js"}"#
        );
        // Chromium MV3: empty scripts → no worker key at all
        assert_eq!(bg(r#"{"manifest_version":3,"background":{"scripts":[]}}"#, "chrome").0, "{}");
        // Chromium MV2 keeps scripts
        assert_eq!(
            bg(r#"{"manifest_version":2,"background":{"scripts":["a.js"]}}"#, "chrome").0,
            r#"{"scripts":["a.js"]}"#
        );
        // Prefixed background keys resolve before the rules apply
        assert_eq!(
            bg(r#"{"manifest_version":3,"background":{"chromium:service_worker":"sw.js","firefox:scripts":["ff.js"]}}"#, "firefox").0,
            r#"{"scripts":["ff.js"]}"#
        );
        assert_eq!(
            bg(r#"{"manifest_version":3,"background":{"chromium:service_worker":"sw.js","firefox:scripts":["ff.js"]}}"#, "chrome").0,
            r#"{"service_worker":"sw.js"}"#
        );
    }

    #[test]
    fn schema_key_is_removed() {
        let r = resolve(&parse_jsonc(r#"{"$schema":"x","name":"n"}"#).unwrap(), t("chrome"));
        assert_eq!(compact(&r.manifest), r#"{"name":"n"}"#);
    }
}
