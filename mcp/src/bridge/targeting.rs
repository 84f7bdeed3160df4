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
use serde_json::{Map, Value, json};
use webext_mcp_host::descriptor::Descriptor;
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::tools::schema::{decode, schema_of};

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

const TARGET_KEYS: [&str; 4] = ["browser", "tabId", "pageIdx", "expectTabSet"];

/// Splits a per-tab tool's arguments into its [`TabTarget`] and the tool's own arguments.
pub fn decode_with_target<T: serde::de::DeserializeOwned>(args: Value) -> Result<(TabTarget, T), ErrorBody> {
    let mut own = match args {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        _ => {
            return Err(ErrorBody::invalid_argument("arguments must be a JSON object")
                .with_hint("pass named arguments, e.g. {}"));
        }
    };
    let mut target = Map::new();
    for key in TARGET_KEYS {
        if let Some(v) = own.remove(key) {
            target.insert(key.to_owned(), v);
        }
    }
    let target: TabTarget = decode(Value::Object(target))?;
    if target.tab_id.is_some() && target.page_idx.is_some() {
        return Err(
            ErrorBody::invalid_argument("give `tabId` or `pageIdx`, not both").with_hint("prefer `tabId`")
        );
    }
    Ok((target, decode(Value::Object(own))?))
}

/// The input schema of a per-tab tool: its own arguments plus [`TabTarget`]'s.
pub fn schema_with_target<T: JsonSchema>() -> Map<String, Value> {
    let mut schema = schema_of::<T>();
    let target = schema_of::<TabTarget>();
    if let (Some(Value::Object(props)), Some(Value::Object(extra))) =
        (schema.get_mut("properties"), target.get("properties"))
    {
        for (k, v) in extra {
            props.insert(k.clone(), v.clone());
        }
    }
    schema
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
    fn target_fields_split_from_the_tools_own() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Own {
            #[serde(default)]
            url: Option<String>,
        }
        let (t, own): (TabTarget, Own) =
            decode_with_target(json!({"tabId": 7, "url": "http://x/", "browser": "firefox"})).unwrap();
        assert_eq!(t.tab_id, Some(7));
        assert_eq!(t.browser.as_deref(), Some("firefox"));
        assert_eq!(own.url.as_deref(), Some("http://x/"));
        let err = decode_with_target::<Own>(json!({"tabId": 1, "pageIdx": 0})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let err = decode_with_target::<Own>(json!({"tabId": "7"})).unwrap_err();
        assert!(err.message.contains("tabId"), "{}", err.message);
        let err = decode_with_target::<Own>(json!({"tabid": 7})).unwrap_err();
        assert!(err.message.contains("tabid"), "{}", err.message);
    }

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
