//! What is derived from [`PERMISSIONS`]: the manifests' four permission keys (checked and
//! blessed in place), the generated `extension/src/permissions.js`, and a loaded helper's
//! granted set with what it lacks.

use serde_json::{Map, Value, json};

use super::*;

/// The four manifest keys, in the order they are written.
pub const MANIFEST_KEYS: [&str; 4] =
    ["permissions", "optional_permissions", "host_permissions", "optional_host_permissions"];

fn key_of(kind: Kind, need: Need) -> Option<&'static str> {
    match (kind, need) {
        (_, Need::Absent) => None,
        (Kind::Api, Need::Required) => Some(MANIFEST_KEYS[0]),
        (Kind::Api, Need::Optional) => Some(MANIFEST_KEYS[1]),
        (Kind::Host, Need::Required) => Some(MANIFEST_KEYS[2]),
        (Kind::Host, Need::Optional) => Some(MANIFEST_KEYS[3]),
    }
}

/// The permission keys `engine`'s manifest must carry: the non-empty ones of
/// [`MANIFEST_KEYS`], each a list of names in table order.
pub fn manifest_keys(engine: Engine) -> Vec<(&'static str, Vec<&'static str>)> {
    MANIFEST_KEYS
        .iter()
        .filter_map(|key| {
            let names: Vec<&str> = PERMISSIONS
                .iter()
                .filter(|p| key_of(p.kind, p.need(engine)) == Some(*key))
                .map(|p| p.name)
                .collect();
            (!names.is_empty()).then_some((*key, names))
        })
        .collect()
}

/// The permission lines of `engine`'s manifest, as [`manifest_keys`] says, two-space indented,
/// each ending in a comma.
pub fn manifest_lines(engine: Engine) -> Vec<String> {
    manifest_keys(engine)
        .into_iter()
        .map(|(key, names)| {
            let list: Vec<String> = names.iter().map(|n| Value::from(*n).to_string()).collect();
            format!("  \"{key}\": [{}],", list.join(", "))
        })
        .collect()
}

/// Permissions as `permissions.getAll()` reports them (the helper's `hello` carries them), or
/// as a manifest declares them ([`PermissionSet::required_by_manifest`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PermissionSet {
    /// API permissions.
    #[serde(default)]
    pub permissions: Vec<String>,
    /// Host match patterns.
    #[serde(default)]
    pub origins: Vec<String>,
}

impl PermissionSet {
    /// Whether the set holds `p`.
    pub fn holds(&self, p: &Permission) -> bool {
        let list = match p.kind {
            Kind::Api => &self.permissions,
            Kind::Host => &self.origins,
        };
        list.iter().any(|n| n == p.name)
    }

    /// What a manifest grants at install: its `permissions` and `host_permissions`. A
    /// manifest that is not an object, or a key that is not a list of strings, holds nothing.
    pub fn required_by_manifest(manifest: &Value) -> PermissionSet {
        let names = |key: &str| -> Vec<String> {
            manifest
                .get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        PermissionSet { permissions: names(MANIFEST_KEYS[0]), origins: names(MANIFEST_KEYS[2]) }
    }
}

/// The permissions `engine` requires by this table that `have` lacks, in table order: empty
/// when a helper (its grants, or its manifest) is up to date.
pub fn missing_required(engine: Engine, have: &PermissionSet) -> Vec<&'static Permission> {
    PERMISSIONS.iter().filter(|p| p.need(engine) == Need::Required && !have.holds(p)).collect()
}

/// Path of the generated JS copy of the table, relative to the workspace root.
pub const PERMISSIONS_JS_PATH: &str = "extension/src/permissions.js";

/// The full text of `extension/src/permissions.js`: the table, with `neededBy.methods` of
/// [`NeededBy::Everything`] spelled out as every extension method.
pub fn permissions_js() -> String {
    let extension_methods: Vec<&str> =
        METHODS.iter().filter(|m| m.target == Target::Extension).map(|m| m.name).collect();
    let rows: Vec<Value> = PERMISSIONS
        .iter()
        .map(|p| {
            let (every, methods, tools) = match p.needed_by {
                NeededBy::Everything => (true, extension_methods.clone(), Vec::new()),
                NeededBy::Only { methods, tools } => (false, methods.to_vec(), tools.to_vec()),
            };
            json!({
                "name": p.name,
                "kind": p.kind,
                "chromium": p.chromium,
                "gecko": p.gecko,
                "why": p.why,
                "neededBy": { "everything": every, "methods": methods, "tools": tools },
            })
        })
        .collect();
    let text = serde_json::to_string_pretty(&rows).unwrap_or_default();
    format!(
        "// Generated from host/src/protocol/permissions.rs (webext-mcp-host); do not edit by hand.\n\
         // Regenerate: WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host permissions\n\n\
         // Every permission of the helper: `chromium` / `gecko` is how that engine's manifest\n\
         // declares it (required | optional | absent); `kind` is api or host (a match pattern).\n\
         export const PERMISSIONS = Object.freeze({text});\n"
    )
}

/// `manifest` (the text of a committed manifest) with its permission keys replaced by
/// [`manifest_lines`]: every top-level line that starts one of [`MANIFEST_KEYS`] is dropped and
/// the new lines go where the first of them was. `None` when it has none of them (write them
/// by hand once).
pub fn bless_manifest(engine: Engine, manifest: &str) -> Option<String> {
    let starts_key = |line: &str| MANIFEST_KEYS.iter().any(|k| line.starts_with(&format!("  \"{k}\":")));
    let mut out = Vec::new();
    let mut placed = false;
    for line in manifest.lines() {
        if starts_key(line) {
            if !placed {
                out.extend(manifest_lines(engine));
                placed = true;
            }
        } else {
            out.push(line.to_owned());
        }
    }
    placed.then(|| out.join("\n") + "\n")
}

/// What differs between `manifest`'s permission keys and the table's, one line per key; empty
/// when they agree.
pub fn manifest_drift(engine: Engine, manifest: &Value) -> Vec<String> {
    let want: Map<String, Value> =
        manifest_keys(engine).into_iter().map(|(k, names)| (k.to_owned(), json!(names))).collect();
    MANIFEST_KEYS
        .iter()
        .filter_map(|k| {
            let (have, want) = (manifest.get(*k), want.get(*k));
            (have != want).then(|| {
                let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), Value::to_string);
                format!("`{k}` is {}, the table says {}", show(have), show(want))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn workspace(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
    }

    fn blessing() -> bool {
        std::env::var_os("WEBEXT_MCP_BLESS").is_some_and(|v| v == "1")
    }

    const BLESS: &str = "WEBEXT_MCP_BLESS=1 cargo test -p webext-mcp-host permissions";

    #[test]
    fn permissions_js_is_fresh() {
        let path = workspace(PERMISSIONS_JS_PATH);
        let want = permissions_js();
        if blessing() {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "{} is stale; regenerate it with `{BLESS}`", path.display());
    }

    #[test]
    fn manifest_permissions_match_the_permission_table() {
        for engine in Engine::ALL {
            let path = workspace(engine.manifest_path());
            let mut text = std::fs::read_to_string(&path).unwrap();
            if blessing() {
                text = bless_manifest(engine, &text)
                    .unwrap_or_else(|| panic!("{}: add a \"permissions\" line by hand once", path.display()));
                std::fs::write(&path, &text).unwrap();
            }
            let manifest: Value = serde_json::from_str(&text).unwrap();
            let drift = manifest_drift(engine, &manifest);
            assert!(
                drift.is_empty(),
                "{} drifted from host/src/protocol/permissions.rs: {}; rewrite it with `{BLESS}`",
                path.display(),
                drift.join("; ")
            );
            // Each key on one line, as `bless_manifest` writes them.
            for line in manifest_lines(engine) {
                assert!(text.lines().any(|l| l == line), "{}: expected the line {line}", path.display());
            }
        }
    }

    #[test]
    fn todays_permissions_are_kept() {
        let chromium = manifest_keys(Engine::Chromium);
        let gecko = manifest_keys(Engine::Gecko);
        let base = ["nativeMessaging", "storage", "alarms", "tabs", "scripting", "webNavigation"];
        let mut with_debugger = base.to_vec();
        with_debugger.extend(["debugger", "cookies", "webRequest"]);
        assert_eq!(chromium, [("permissions", with_debugger), ("host_permissions", vec!["<all_urls>"])]);
        // Firefox also: containers (issue 31) and the response filter (issue 30).
        let mut gecko_wants = base.to_vec();
        gecko_wants.extend([
            "contextualIdentities",
            "cookies",
            "webRequest",
            "webRequestBlocking",
            "webRequestFilterResponse",
        ]);
        assert_eq!(gecko, [("permissions", gecko_wants), ("host_permissions", vec!["<all_urls>"])]);
    }

    #[test]
    fn missing_required_compares_by_kind_and_ignores_extras() {
        let all = |engine| {
            let mut set = PermissionSet::default();
            for p in PERMISSIONS.iter().filter(|p| p.need(engine) == Need::Required) {
                match p.kind {
                    Kind::Api => set.permissions.push(p.name.to_owned()),
                    Kind::Host => set.origins.push(p.name.to_owned()),
                }
            }
            set
        };
        for engine in Engine::ALL {
            assert!(missing_required(engine, &all(engine)).is_empty());
            let mut extra = all(engine);
            extra.permissions.push("cookies".into());
            assert!(missing_required(engine, &extra).is_empty(), "an extra grant is not a problem");
            let mut no_tabs = all(engine);
            no_tabs.permissions.retain(|n| n != "tabs");
            assert_eq!(
                missing_required(engine, &no_tabs).iter().map(|p| p.name).collect::<Vec<_>>(),
                ["tabs"]
            );
            // A host pattern listed as an API permission does not count.
            let mut misfiled = all(engine);
            misfiled.origins.clear();
            misfiled.permissions.push("<all_urls>".into());
            assert_eq!(
                missing_required(engine, &misfiled).iter().map(|p| p.name).collect::<Vec<_>>(),
                ["<all_urls>"]
            );
        }
        // Chromium needs debugger, Gecko does not; Gecko needs the response filter, Chromium
        // has none.
        let gecko = all(Engine::Gecko);
        assert_eq!(
            missing_required(Engine::Chromium, &gecko).iter().map(|p| p.name).collect::<Vec<_>>(),
            ["debugger"]
        );
        assert_eq!(
            missing_required(Engine::Gecko, &all(Engine::Chromium))
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>(),
            ["contextualIdentities", "webRequestBlocking", "webRequestFilterResponse"]
        );
        assert_eq!(missing_required(Engine::Gecko, &PermissionSet::default()).len(), 12);
    }

    #[test]
    fn a_manifest_grants_its_permissions_and_host_permissions() {
        let m = json!({"permissions": ["tabs", 7], "host_permissions": ["<all_urls>"], "optional_permissions": ["cookies"]});
        let set = PermissionSet::required_by_manifest(&m);
        assert_eq!(set.permissions, ["tabs"]);
        assert_eq!(set.origins, ["<all_urls>"]);
        assert_eq!(PermissionSet::required_by_manifest(&json!("nope")), PermissionSet::default());
    }

    #[test]
    fn bless_replaces_the_permission_lines_in_place() {
        let text = "{\n  \"name\": \"x\",\n  \"permissions\": [\"tabs\"],\n  \"optional_permissions\": [\"cookies\"],\n  \"csp\": 1\n}\n";
        let blessed = bless_manifest(Engine::Gecko, text).unwrap();
        let v: Value = serde_json::from_str(&blessed).unwrap();
        assert!(manifest_drift(Engine::Gecko, &v).is_empty(), "{blessed}");
        assert!(blessed.starts_with("{\n  \"name\": \"x\",\n  \"permissions\": ["), "{blessed}");
        assert!(blessed.ends_with("  \"csp\": 1\n}\n"), "{blessed}");
        assert!(bless_manifest(Engine::Gecko, "{\n  \"name\": \"x\"\n}\n").is_none());
        let drift = manifest_drift(Engine::Gecko, &json!({"permissions": ["tabs"]}));
        assert_eq!(drift.len(), 2, "{drift:?}");
        assert!(drift[1].contains("`host_permissions` is absent"), "{drift:?}");
    }

    #[test]
    fn generated_js_names_every_permission() {
        let js = permissions_js();
        for p in PERMISSIONS {
            assert!(js.contains(&format!("\"name\": {}", Value::from(p.name))), "{}", p.name);
        }
    }
}
