//! Dev-build transforms: what a dev session adds to a built extension so that it can be
//! reloaded and re-injected in place. Applied to the staged output of a build (native or
//! delegated) before it is swapped into `dist/<browser>/`, and only when a session asks for
//! it; production builds never pass through here.
//!
//! - Each content-script entry with one script in the isolated world is wrapped in one block
//!   `{…}`: re-injecting a file whose top level declares a `const` otherwise throws
//!   "Identifier … has already been declared" in the page while `executeScript` still
//!   resolves as if it worked. The `{` goes on the first line, so line numbers are unchanged.
//!   Entries whose scripts share top-level names (several files) or run in the page's own
//!   world cannot be wrapped safely; the session reloads their tabs instead.
//! - MV3 extensions without a service worker get an empty one: re-injection runs as the
//!   extension through its worker. Firefox runs no extension service workers: there an
//!   extension without any background gets an empty background script instead, and one
//!   without a gecko id gets a fixed one (a temporary add-on without an id gets a new random
//!   id, and so new `moz-extension://` URLs, every time the session starts).
//! - The `scripting` permission and host access for the content scripts' match patterns,
//!   without which `chrome.scripting.executeScript` is undefined or refused.
//!
//! Every change is returned as a [`DevChange`] so the session records it in `events.ndjson`.

use crate::browsers::Engine;
use std::path::Path;

use serde::Serialize;

use crate::manifest::{self, Json, Object};

/// The service worker added to an extension that has none.
pub const ADDED_WORKER: &str = "webext-mcp-dev-worker.js";

/// One thing the dev build added or changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DevChange {
    /// A content script wrapped in one block.
    #[serde(rename = "wrapped")]
    Wrapped { file: String },
    /// A content-script entry left as is; its tabs are reloaded instead of re-injected.
    #[serde(rename = "notWrapped")]
    NotWrapped { entry: usize, reason: String },
    /// A service worker added where the extension had none.
    #[serde(rename = "serviceWorker")]
    ServiceWorker { file: String },
    /// A background script added where the extension had no background (Firefox).
    #[serde(rename = "backgroundScript")]
    BackgroundScript { file: String },
    /// A `browser_specific_settings.gecko.id` added where the extension had none (Firefox).
    #[serde(rename = "geckoId")]
    GeckoId { value: String },
    /// A permission added to `permissions`.
    #[serde(rename = "permission")]
    Permission { value: String },
    /// A pattern added to `host_permissions`.
    #[serde(rename = "hostPermission")]
    HostPermission { value: String },
}

/// Why a dev transform could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum DevError {
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("the built manifest.json cannot be parsed: {0}")]
    Manifest(String),
}

/// Applies the dev transforms to a built extension in `dir`, built for `family`.
pub fn apply(dir: &Path, family: Engine) -> Result<Vec<DevChange>, DevError> {
    let manifest_path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).map_err(|source| DevError::Io {
        what: format!("cannot read {}", manifest_path.display()),
        source,
    })?;
    let mut json = manifest::parse_jsonc(&text).map_err(|e| DevError::Manifest(e.to_string()))?;
    let Some(root) = json.as_object_mut() else {
        return Err(DevError::Manifest("it is not a JSON object".into()));
    };
    let (wrap, mut changes) = wrap_plan(root);
    for file in &wrap {
        let path = dir.join(file);
        let Ok(body) = std::fs::read_to_string(&path) else {
            changes.push(DevChange::NotWrapped {
                entry: usize::MAX,
                reason: format!("{file} is missing or not UTF-8"),
            });
            continue;
        };
        std::fs::write(&path, wrap_script(&body))
            .map_err(|source| DevError::Io { what: format!("cannot write {}", path.display()), source })?;
        changes.push(DevChange::Wrapped { file: file.clone() });
    }
    let mv3 = root.get("manifest_version").and_then(Json::as_f64) == Some(3.0);
    let added = match family {
        Engine::Chromium => {
            (mv3 && add_worker(root)).then(|| DevChange::ServiceWorker { file: ADDED_WORKER.into() })
        }
        Engine::Gecko => {
            add_background_script(root).then(|| DevChange::BackgroundScript { file: ADDED_WORKER.into() })
        }
    };
    if let Some(change) = added {
        std::fs::write(
            dir.join(ADDED_WORKER),
            "// Added by the webext-mcp dev session: it re-injects content scripts through this background.\n",
        )
        .map_err(|source| DevError::Io { what: format!("cannot write {ADDED_WORKER}"), source })?;
        changes.push(change);
    }
    if family == Engine::Gecko {
        changes.extend(add_gecko_id(root));
    }
    changes.extend(add_permissions(root, mv3));
    let mut out = json.to_pretty();
    out.push('\n');
    std::fs::write(&manifest_path, out).map_err(|source| DevError::Io {
        what: format!("cannot write {}", manifest_path.display()),
        source,
    })?;
    Ok(changes)
}

fn strings(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(Json::as_str)
        .map(str::to_owned)
        .collect()
}

/// Which content-script files to wrap, and the entries that cannot be.
fn wrap_plan(root: &Object) -> (Vec<String>, Vec<DevChange>) {
    let mut wrap: Vec<String> = Vec::new();
    let mut never: Vec<String> = Vec::new();
    let mut changes = Vec::new();
    let entries = root.get("content_scripts").and_then(Json::as_array).unwrap_or_default();
    for (i, entry) in entries.iter().enumerate() {
        let js: Vec<String> = strings(entry.get("js")).iter().map(|s| normalize(s)).collect();
        if js.is_empty() {
            continue;
        }
        let world = entry.get("world").and_then(Json::as_str).unwrap_or("ISOLATED");
        let reason = if world.eq_ignore_ascii_case("MAIN") {
            Some(
                "it runs in the page's MAIN world, where wrapping would hide its globals from the page"
                    .to_owned(),
            )
        } else if js.len() > 1 {
            Some(format!(
                "its {} scripts may share top-level names, which one block per file would hide",
                js.len()
            ))
        } else {
            None
        };
        match reason {
            Some(reason) => {
                never.extend(js);
                changes.push(DevChange::NotWrapped { entry: i, reason });
            }
            None => wrap.extend(js),
        }
    }
    wrap.retain(|f| !never.contains(f));
    wrap.sort();
    wrap.dedup();
    (wrap, changes)
}

/// Indexes of the content-script entries a session must reload tabs for (not wrapped).
pub fn unwrapped_entries(changes: &[DevChange]) -> Vec<usize> {
    changes
        .iter()
        .filter_map(|c| match c {
            DevChange::NotWrapped { entry, .. } if *entry != usize::MAX => Some(*entry),
            _ => None,
        })
        .collect()
}

fn normalize(path: &str) -> String {
    path.trim_start_matches("./").trim_start_matches('/').to_owned()
}

/// Wraps a script in one block, keeping every line where it was. A leading `"use strict"`
/// directive would stop being one inside the block, so it is repeated in front of it.
pub fn wrap_script(body: &str) -> String {
    let head = body.trim_start_matches('\u{feff}');
    let strict = {
        let t = head.trim_start();
        t.starts_with("\"use strict\"") || t.starts_with("'use strict'")
    };
    let prefix = if strict { "\"use strict\";{" } else { "{" };
    let mut out = String::with_capacity(body.len() + 20);
    out.push_str(prefix);
    out.push_str(head);
    if !head.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Adds a service worker when the extension has none. Returns whether it did.
fn add_worker(root: &mut Object) -> bool {
    let has = root.get("background").and_then(|b| b.get("service_worker")).and_then(Json::as_str).is_some();
    if has {
        return false;
    }
    let mut bg = root.get("background").and_then(Json::as_object).cloned().unwrap_or_default();
    bg.insert("service_worker", Json::String(ADDED_WORKER.into()));
    root.insert("background", Json::Object(bg));
    true
}

/// Adds an empty background script when the extension has no background at all (Firefox:
/// `background.scripts`; a `service_worker` alone does not run there). Returns whether it did.
fn add_background_script(root: &mut Object) -> bool {
    let bg = root.get("background").and_then(Json::as_object);
    let has = bg.is_some_and(|b| b.get("scripts").is_some() || b.get("page").is_some());
    if has {
        return false;
    }
    let mut bg = bg.cloned().unwrap_or_default();
    bg.insert("scripts", Json::Array(vec![Json::String(ADDED_WORKER.into())]));
    root.insert("background", Json::Object(bg));
    true
}

/// A fixed gecko id for an extension without one: from its name, so the same project gets
/// the same id (and moz-extension URLs) in every session.
fn add_gecko_id(root: &mut Object) -> Option<DevChange> {
    let has = ["browser_specific_settings", "applications"].iter().any(|k| {
        root.get(k).and_then(|v| v.get("gecko")).and_then(|g| g.get("id")).and_then(Json::as_str).is_some()
    });
    if has {
        return None;
    }
    let name = root.get("name").and_then(Json::as_str).unwrap_or("extension");
    let digest = webext_mcp_host::digest::sha256_hex(format!("webext-mcp dev {name}").as_bytes());
    let id = format!("dev-{}@webext-mcp.local", &digest[..12]);
    let mut bss =
        root.get("browser_specific_settings").and_then(Json::as_object).cloned().unwrap_or_default();
    let mut gecko = bss.get("gecko").and_then(Json::as_object).cloned().unwrap_or_default();
    gecko.insert("id", Json::String(id.clone()));
    bss.insert("gecko", Json::Object(gecko));
    root.insert("browser_specific_settings", Json::Object(bss));
    Some(DevChange::GeckoId { value: id })
}

fn add_permissions(root: &mut Object, mv3: bool) -> Vec<DevChange> {
    let mut changes = Vec::new();
    let matches: Vec<String> = root
        .get("content_scripts")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .flat_map(|e| strings(e.get("matches")))
        .collect();
    let mut perms = strings(root.get("permissions"));
    let mut wanted = vec!["scripting".to_owned()];
    if matches.is_empty() {
        wanted.clear();
    }
    let host_key = if mv3 { "host_permissions" } else { "permissions" };
    for p in wanted {
        if !perms.contains(&p) {
            perms.push(p.clone());
            changes.push(DevChange::Permission { value: p });
        }
    }
    root.insert("permissions", Json::Array(perms.iter().cloned().map(Json::String).collect()));
    let mut hosts = strings(root.get(host_key));
    for m in matches {
        let covered = hosts.contains(&m) || hosts.iter().any(|h| h == "<all_urls>");
        if !covered {
            hosts.push(m.clone());
            changes.push(DevChange::HostPermission { value: m });
        }
    }
    if !hosts.is_empty() {
        root.insert(host_key, Json::Array(hosts.into_iter().map(Json::String).collect()));
    }
    if root.get("permissions").and_then(Json::as_array).is_some_and(<[Json]>::is_empty) {
        root.remove("permissions");
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_line_numbers_and_strictness() {
        assert_eq!(wrap_script("const a = 1;\nfoo();"), "{const a = 1;\nfoo();\n}\n");
        let strict = wrap_script("'use strict';\nconst a = 1;\n");
        assert!(strict.starts_with("\"use strict\";{'use strict';\n"));
        assert_eq!(strict.lines().count(), 3);
    }

    #[test]
    fn apply_wraps_single_scripts_adds_worker_and_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = r#"{
          "manifest_version": 3, "name": "t", "version": "1",
          "content_scripts": [
            {"matches": ["http://127.0.0.1/*"], "js": ["cs.js"]},
            {"matches": ["https://a.example/*"], "js": ["a.js", "b.js"]},
            {"matches": ["https://m.example/*"], "js": ["m.js"], "world": "MAIN"}
          ]
        }"#;
        std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
        for f in ["cs.js", "a.js", "b.js", "m.js"] {
            std::fs::write(dir.path().join(f), "const x = 1;\n").unwrap();
        }
        let changes = apply(dir.path(), Engine::Chromium).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("cs.js")).unwrap(), "{const x = 1;\n}\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("a.js")).unwrap(), "const x = 1;\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("m.js")).unwrap(), "const x = 1;\n");
        assert!(dir.path().join(ADDED_WORKER).is_file());
        assert_eq!(unwrapped_entries(&changes), vec![1, 2]);
        let built: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(built["background"]["service_worker"], ADDED_WORKER);
        assert_eq!(built["permissions"], serde_json::json!(["scripting"]));
        assert_eq!(built["host_permissions"].as_array().unwrap().len(), 3);
        assert!(changes.contains(&DevChange::Permission { value: "scripting".into() }));
        // Applying twice (a rebuild of an already transformed tree never happens, but an
        // extension that already asks for everything) adds nothing new.
        let again = apply(dir.path(), Engine::Chromium).unwrap();
        assert!(
            !again
                .iter()
                .any(|c| matches!(c, DevChange::Permission { .. } | DevChange::ServiceWorker { .. }))
        );
    }

    /// Issue 25: Firefox runs no extension service worker, so the dev build adds a
    /// background script (not a `service_worker`), and a fixed gecko id, stable per name.
    #[test]
    fn gecko_dev_builds_get_a_background_script_and_a_fixed_id() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = r#"{"manifest_version": 3, "name": "t", "version": "1",
          "content_scripts": [{"matches": ["http://127.0.0.1/*"], "js": ["cs.js"]}]}"#;
        std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
        std::fs::write(dir.path().join("cs.js"), "const x = 1;\n").unwrap();
        let changes = apply(dir.path(), Engine::Gecko).unwrap();
        let built: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(built["background"]["scripts"], serde_json::json!([ADDED_WORKER]), "{built}");
        assert!(built["background"].get("service_worker").is_none(), "{built}");
        let id = built["browser_specific_settings"]["gecko"]["id"].as_str().unwrap().to_owned();
        assert!(id.starts_with("dev-") && id.ends_with("@webext-mcp.local"), "{id}");
        assert!(changes.contains(&DevChange::GeckoId { value: id.clone() }));
        assert!(changes.contains(&DevChange::BackgroundScript { file: ADDED_WORKER.into() }));
        // Its own id and background are kept.
        let own = r#"{"manifest_version": 3, "name": "t", "version": "1", "background": {"scripts": ["bg.js"]},
          "browser_specific_settings": {"gecko": {"id": "me@example.test"}}}"#;
        std::fs::write(dir.path().join("manifest.json"), own).unwrap();
        let changes = apply(dir.path(), Engine::Gecko).unwrap();
        assert!(
            !changes
                .iter()
                .any(|c| matches!(c, DevChange::GeckoId { .. } | DevChange::BackgroundScript { .. }))
        );
        let again = apply(dir.path(), Engine::Gecko);
        assert!(again.is_ok());
        std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
        apply(dir.path(), Engine::Gecko).unwrap();
        let rebuilt: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(
            rebuilt["browser_specific_settings"]["gecko"]["id"],
            id.as_str(),
            "the same id every build"
        );
    }
}
