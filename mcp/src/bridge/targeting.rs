//! How a per-tab tool names its tab: [`TabTarget`] (`browser`, `tabId` / `pageIdx`,
//! `expectTabSet`) and this server's current page per browser ([`CurrentPages`]).
//!
//! A tool names a tab by `tabId` (preferred) or `pageIdx`, optionally guarded by
//! `expectTabSet`; the extension resolves them in the same call that acts, so a changed tab
//! set gives `STALE` with nothing done and a vanished tab is `NOT_FOUND`, never another tab.
//! With neither, the tool uses this server's current page in that browser: the last tab it
//! opened or selected (never silently the user's active tab).

use std::collections::HashMap;
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

/// How a per-tab tool names its tab; flattened into every per-tab tool's arguments.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TabTarget {
    // No doc comments on purpose: these four fields are in the schema of every per-tab tool,
    // so they are explained once, in the server's instructions, not in every tools/list entry.
    #[serde(default)]
    pub browser: Option<String>,
    #[serde(default)]
    pub tab_id: Option<i64>,
    #[serde(default)]
    pub page_idx: Option<i64>,
    #[serde(default)]
    pub expect_tab_set: Option<String>,
}

/// This server's current page per browser (keyed by session, else profile label).
#[derive(Default)]
pub struct CurrentPages(Mutex<HashMap<String, i64>>);

fn browser_key(d: &Descriptor) -> String {
    d.session.clone().unwrap_or_else(|| d.label.clone())
}

impl CurrentPages {
    pub fn get(&self, d: &Descriptor) -> Option<i64> {
        self.0.lock().ok().and_then(|m| m.get(&browser_key(d)).copied())
    }

    pub fn set(&self, d: &Descriptor, tab: i64) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(browser_key(d), tab);
        }
    }

    /// Forgets `tab` if it is the current page (it was closed).
    pub fn forget(&self, d: &Descriptor, tab: i64) {
        if let Ok(mut m) = self.0.lock()
            && m.get(&browser_key(d)) == Some(&tab)
        {
            m.remove(&browser_key(d));
        }
    }
}

/// Merges the tab `target` names into a per-tab method's `params`: its `tabId` or `pageIdx`,
/// else `current` (this server's current page in `browser`), and `expectTabSet`.
pub fn address(
    target: &TabTarget,
    current: Option<i64>,
    browser: &str,
    params: &mut Value,
) -> Result<(), ErrorBody> {
    let Value::Object(p) = params else { return Ok(()) };
    match (target.tab_id, target.page_idx, current) {
        (Some(t), _, _) => {
            p.insert("tabId".into(), json!(t));
        }
        (None, Some(i), _) => {
            p.insert("pageIdx".into(), json!(i));
        }
        (None, None, Some(t)) => {
            p.insert("tabId".into(), json!(t));
        }
        (None, None, None) => {
            return Err(ErrorBody::new(
                ErrorCode::NotFound,
                format!("this server has no current page in {browser} yet"),
            )
            .with_hint("pass `tabId` from list_pages, or open a tab with new_page"));
        }
    }
    if let Some(fp) = &target.expect_tab_set {
        p.insert("expectTabSet".into(), json!(fp));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_the_tab_id_else_the_index_else_the_current_page() {
        let t = |tab_id, page_idx, fp: Option<&str>| TabTarget {
            browser: None,
            tab_id,
            page_idx,
            expect_tab_set: fp.map(str::to_owned),
        };
        let mut p = json!({"x": 1});
        address(&t(Some(4), None, Some("abc")), Some(9), "chrome", &mut p).unwrap();
        assert_eq!(p, json!({"x": 1, "tabId": 4, "expectTabSet": "abc"}));
        let mut p = json!({});
        address(&t(None, Some(2), None), Some(9), "chrome", &mut p).unwrap();
        assert_eq!(p, json!({"pageIdx": 2}));
        let mut p = json!({});
        address(&t(None, None, None), Some(9), "chrome", &mut p).unwrap();
        assert_eq!(p, json!({"tabId": 9}));
        let e = address(&t(None, None, None), None, "chrome", &mut json!({})).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("chrome") && e.hint.is_some(), "{}", e.message);
    }
}
