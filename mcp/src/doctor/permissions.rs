//! What `doctor` makes of the helper's permissions: the permission table
//! (`webext_mcp_host::protocol::permissions`) says what this version's helper requires; an
//! unpacked helper whose manifest lacks one, or a loaded helper whose `hello` says it holds
//! less, needs the user (Chromium keeps an update that adds permissions with warnings
//! disabled until they are approved; an unpacked helper only reads a changed manifest when
//! reloaded; the user may withhold site access).
//!
//! ```text
//! data dir helper manifest ─▶ PermissionSet::required_by_manifest ─┐
//!                                                                 ├─▶ missing_required ─▶ Problem
//! the host's hello.permissions (permissions.getAll()) ────────────┘
//! ```

use serde_json::Value;
use webext_mcp_host::protocol::permissions::{Kind, Permission, PermissionSet, missing_required};

use super::codes::{DoctorCode, Problem};
use crate::browsers::Engine;

/// A required API permission is missing (manifest or grants): the helper must be reinstalled
/// or reloaded and its new permissions approved.
pub const CHANGED: DoctorCode = DoctorCode::HelperPermissionsChanged;
/// A loaded helper holds every required API permission but not a required host pattern: the
/// user withheld site access (or the loaded copy predates the pattern).
pub const SITE_ACCESS_WITHHELD: DoctorCode = DoctorCode::HelperSiteAccessWithheld;

fn names(ps: &[&Permission]) -> String {
    ps.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// How a user gets `family`'s helper to carry this version's permissions.
fn reapprove(family: Engine) -> &'static str {
    match family {
        Engine::Chromium => {
            "run `webext-mcp install`, then reload the webext-mcp helper on chrome://extensions \
             (edge://extensions, brave://extensions) and approve its new permissions: Chromium keeps \
             a helper that asks for more disabled until you do"
        }
        Engine::Gecko => {
            "run `webext-mcp install`, then install the new helper xpi from about:addons → gear → \
             \"Install Add-on From File…\" and approve its new permissions"
        }
    }
}

/// The problem with an unpacked helper's `manifest` (its data dir copy), if it lacks a
/// permission `family` requires by this version's table.
pub fn check_manifest(family: Engine, manifest: &Value) -> Option<Problem> {
    let missing = missing_required(family, &PermissionSet::required_by_manifest(manifest));
    (!missing.is_empty()).then(|| Problem {
        code: CHANGED,
        message: format!(
            "the unpacked {} helper's manifest lacks {}, which this webext-mcp's helper requires",
            family.name(),
            names(&missing)
        ),
        fix: reapprove(family).to_owned(),
    })
}

/// The problems with what a loaded helper of `family` says it holds (`hello.permissions`);
/// `who` names the host in messages.
pub fn check_granted(family: Engine, who: &str, granted: &PermissionSet) -> Vec<Problem> {
    let missing = missing_required(family, granted);
    let (apis, hosts): (Vec<&Permission>, Vec<&Permission>) =
        missing.into_iter().partition(|p| p.kind == Kind::Api);
    let mut problems = Vec::new();
    if !apis.is_empty() {
        problems.push(Problem {
            code: CHANGED,
            message: format!(
                "{who}: the loaded helper does not hold {}, which this webext-mcp's helper requires",
                names(&apis)
            ),
            fix: reapprove(family).to_owned(),
        });
    }
    if !hosts.is_empty() {
        problems.push(Problem {
            code: SITE_ACCESS_WITHHELD,
            message: format!(
                "{who}: the helper has no access to {}; page tools cannot script pages",
                names(&hosts)
            ),
            fix: "press \"Grant\" next to it on the helper's status page (its toolbar button), or allow the \
                  helper on all sites in the browser's extension settings; without a Grant button the \
                  loaded helper is older: run `webext-mcp install` and reload it"
                .to_owned(),
        });
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn full(family: Engine) -> Value {
        let want = webext_mcp_host::protocol::permissions::manifest_keys(family);
        Value::Object(want.into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect())
    }

    #[test]
    fn a_manifest_with_this_versions_permissions_is_fine_and_one_without_debugger_is_not() {
        for family in [Engine::Chromium, Engine::Gecko] {
            assert_eq!(check_manifest(family, &full(family)), None, "{}", family.name());
        }
        let mut m = full(Engine::Chromium);
        m["permissions"].as_array_mut().unwrap().retain(|p| p != "debugger");
        let p = check_manifest(Engine::Chromium, &m).unwrap();
        assert_eq!(p.code, CHANGED);
        assert!(p.message.contains("lacks debugger"), "{}", p.message);
        assert!(p.fix.contains("webext-mcp install") && p.fix.contains("chrome://extensions"), "{}", p.fix);
        // Firefox never needs debugger; a Firefox helper from before containers (issue 31)
        // lacks two permissions, and the fix says how to upgrade.
        let mut gecko = full(Engine::Gecko);
        gecko["permissions"].as_array_mut().unwrap().retain(|p| p != "debugger");
        assert_eq!(check_manifest(Engine::Gecko, &gecko), None);
        gecko["permissions"]
            .as_array_mut()
            .unwrap()
            .retain(|p| p != "contextualIdentities" && p != "cookies");
        let old = check_manifest(Engine::Gecko, &gecko).unwrap();
        assert!(old.message.contains("lacks contextualIdentities, cookies"), "{}", old.message);
        assert!(old.fix.contains("about:addons"), "{}", old.fix);
        assert!(check_manifest(Engine::Gecko, &m).unwrap().message.contains("webRequestBlocking"));
        let none = check_manifest(Engine::Gecko, &json!({})).unwrap();
        assert!(none.fix.contains("about:addons"), "{}", none.fix);
    }

    #[test]
    fn grants_without_an_api_permission_or_site_access_are_two_problems() {
        let granted = PermissionSet::required_by_manifest(&full(Engine::Gecko));
        assert!(check_granted(Engine::Gecko, "firefox", &granted).is_empty());
        let found = check_granted(Engine::Chromium, "chromium", &granted);
        assert_eq!(found.iter().map(|p| p.code).collect::<Vec<_>>(), [CHANGED]);
        assert!(found[0].message.contains("debugger"), "{}", found[0].message);
        let mut withheld = granted.clone();
        withheld.origins.clear();
        withheld.permissions.retain(|p| p != "tabs");
        let found = check_granted(Engine::Gecko, "firefox", &withheld);
        assert_eq!(found.iter().map(|p| p.code).collect::<Vec<_>>(), [CHANGED, SITE_ACCESS_WITHHELD]);
        assert!(found[1].message.contains("<all_urls>") && found[1].fix.contains("status page"));
    }
}
