//! MV3-shaped keys in an MV2 manifest (Firefox still loads MV2), converted the way
//! Extension.js 4.1 converts them instead of failing the build or shipping keys Firefox
//! ignores:
//!
//! ```text
//! host_permissions: [h]           ─▶ permissions: [...permissions, h]   (unique, in order)
//! optional_host_permissions: [h]  ─▶ optional_permissions: [..., h]
//! content_security_policy: {extension_pages: p, sandbox: s}  ─▶ content_security_policy: p
//!                                    (Firefox MV2 accepts 'wasm-unsafe-eval' there; s dropped)
//! web_accessible_resources: [{resources: [r], matches}]      ─▶ [r]   (unique, in order)
//! ```
//!
//! Pure: one finding per conversion (`MANIFEST_CONVERTED_FOR_MV2`, a warning) says what
//! changed, so the build result names it.

use super::{Finding, FindingCode, Json, Object};

/// Converts `m` in place when it is an MV2 manifest; returns what was converted.
pub fn convert(m: &mut Json) -> Vec<Finding> {
    let mut out = Vec::new();
    let is_mv2 = m.get("manifest_version").and_then(Json::as_f64) == Some(2.0);
    let Some(o) = m.as_object_mut().filter(|_| is_mv2) else { return out };
    for (from, into) in
        [("host_permissions", "permissions"), ("optional_host_permissions", "optional_permissions")]
    {
        if let Some(hosts) = take_strings(o, from) {
            let mut list = strings(o.get(into));
            let n = hosts.len();
            for h in hosts {
                if !list.contains(&h) {
                    list.push(h);
                }
            }
            o.insert(into, Json::Array(list.into_iter().map(Json::String).collect()));
            out.push(converted(
                format!("`{from}` ({n}) moved into `{into}`: MV2 has no `{from}` and Firefox ignores it"),
                into,
            ));
        }
    }
    if let Some(Json::Object(policy)) = o.get("content_security_policy") {
        let pages = policy.get("extension_pages").and_then(Json::as_str).map(str::to_owned);
        let sandbox = policy.contains_key("sandbox");
        let what = match &pages {
            Some(p) => {
                let dropped = if sandbox { "; its `sandbox` policy has no MV2 form and was dropped" } else { "" };
                format!("`content_security_policy.extension_pages` became the MV2 policy string `{p}`{dropped}")
            }
            None => "`content_security_policy` is an MV3 object with no `extension_pages`; MV2 takes a string, so it was dropped and the default policy applies".to_owned(),
        };
        match pages {
            Some(p) => o.insert("content_security_policy", Json::String(p)),
            None => {
                o.remove("content_security_policy");
            }
        }
        out.push(converted(what, "content_security_policy"));
    }
    if let Some(Json::Array(items)) = o.get("web_accessible_resources")
        && items.iter().any(|i| matches!(i, Json::Object(_)))
    {
        let mut paths: Vec<String> = Vec::new();
        for item in items {
            let found = match item {
                Json::String(s) => vec![s.clone()],
                Json::Object(e) => strings(e.get("resources")),
                _ => Vec::new(),
            };
            for r in found {
                if !paths.contains(&r) {
                    paths.push(r);
                }
            }
        }
        let n = paths.len();
        o.insert("web_accessible_resources", Json::Array(paths.into_iter().map(Json::String).collect()));
        out.push(converted(
            format!("`web_accessible_resources` objects became the MV2 list of {n} paths (MV2 has no `matches` there: any page may load them)"),
            "web_accessible_resources",
        ));
    }
    out
}

fn converted(message: String, at: &str) -> Finding {
    Finding::new(
        FindingCode::ManifestConvertedForMv2,
        message,
        "nothing to do for this build; write the MV2 form in a `firefox:` key to choose it yourself, or move to MV3",
    )
    .at(at)
}

/// The strings of an array value (anything else: none).
fn strings(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array).unwrap_or(&[]).iter().filter_map(Json::as_str).map(str::to_owned).collect()
}

/// Removes `key` when it holds an array, returning its strings.
fn take_strings(o: &mut Object, key: &str) -> Option<Vec<String>> {
    if !matches!(o.get(key), Some(Json::Array(_))) {
        return None;
    }
    let v = o.remove(key);
    Some(strings(v.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_jsonc;

    fn run(text: &str) -> (Json, Vec<Finding>) {
        let mut m = parse_jsonc(text).unwrap();
        let f = convert(&mut m);
        (m, f)
    }

    #[test]
    fn hosts_move_into_permissions_without_duplicates() {
        let (m, f) = run(
            r#"{"manifest_version":2,"permissions":["storage","https://a.test/*"],"host_permissions":["https://a.test/*","<all_urls>"],"optional_host_permissions":["*://b.test/*"]}"#,
        );
        assert_eq!(
            m.to_serde(),
            serde_json::json!({"manifest_version":2,"permissions":["storage","https://a.test/*","<all_urls>"],"optional_permissions":["*://b.test/*"]})
        );
        assert_eq!(f.len(), 2);
        assert!(f.iter().all(|f| f.code == FindingCode::ManifestConvertedForMv2 && !f.is_error()));
    }

    #[test]
    fn an_object_policy_becomes_its_extension_pages_string_with_wasm_kept() {
        let (m, f) = run(
            r#"{"manifest_version":2,"content_security_policy":{"extension_pages":"script-src 'self' 'wasm-unsafe-eval'; object-src 'self'","sandbox":"sandbox allow-scripts"}}"#,
        );
        assert_eq!(
            m.to_serde()["content_security_policy"],
            "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'"
        );
        assert!(f[0].message.contains("sandbox"), "{f:?}");
        let (m, _) = run(r#"{"manifest_version":2,"content_security_policy":{"sandbox":"x"}}"#);
        assert!(m.get("content_security_policy").is_none());
    }

    #[test]
    fn resource_objects_become_paths() {
        let (m, f) = run(
            r#"{"manifest_version":2,"web_accessible_resources":[{"resources":["a.png","b/*"],"matches":["<all_urls>"]},"c.css",{"resources":["a.png"],"extension_ids":["x"]}]}"#,
        );
        assert_eq!(m.to_serde()["web_accessible_resources"], serde_json::json!(["a.png", "b/*", "c.css"]));
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn mv3_and_mv2_shaped_manifests_are_left_alone() {
        for text in [
            r#"{"manifest_version":3,"host_permissions":["<all_urls>"],"content_security_policy":{"extension_pages":"script-src 'self'"}}"#,
            r#"{"manifest_version":2,"permissions":["<all_urls>"],"content_security_policy":"script-src 'self'","web_accessible_resources":["a.png"]}"#,
        ] {
            let (m, f) = run(text);
            assert!(f.is_empty(), "{f:?}");
            assert_eq!(m, parse_jsonc(text).unwrap());
        }
    }
}
