//! Pure comparisons: the host page's styles before and after, what in one report is a
//! problem, and the differences between two reports as a stable, sorted list of paths.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::report::Report;

/// Host styles: selector → property → value.
pub type HostStyles = BTreeMap<String, BTreeMap<String, String>>;

/// `selector property: before → after` for every value that changed, sorted; an element
/// that appeared or went away counts too.
pub fn host_changes(before: &HostStyles, after: &HostStyles) -> Vec<String> {
    let mut out = Vec::new();
    let empty = BTreeMap::new();
    let selectors: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for sel in selectors {
        match (before.get(sel), after.get(sel)) {
            (Some(_), None) => out.push(format!("{sel}: gone")),
            (None, Some(_)) => out.push(format!("{sel}: appeared")),
            (b, a) => {
                let (b, a) = (b.unwrap_or(&empty), a.unwrap_or(&empty));
                for (prop, was) in b {
                    let now = a.get(prop).map_or("(none)", String::as_str);
                    if was != now {
                        out.push(format!("{sel} {prop}: {was} → {now}"));
                    }
                }
            }
        }
    }
    out
}

/// What makes a single report fail: the extension not loading, a surface that could not be
/// read, CSS leaked into the host page, a declared background not alive, errors.
pub fn problems(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = &report.load_error {
        out.push(format!("not loaded: {e}"));
    }
    for s in &report.surfaces {
        if let Some(e) = &s.error {
            out.push(format!("{}: {e}", s.name));
        }
        for c in &s.host_changes {
            out.push(format!("{}: host page style changed: {c}", s.name));
        }
    }
    if report.loaded && report.background.declared.is_some() && !report.background.alive {
        out.push("background: not alive".to_owned());
    }
    for m in &report.errors {
        out.push(format!("{} {}: {}", m.world, m.kind, m.text));
    }
    out
}

/// One difference between two reports: the path and each side's value (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Difference {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<String>,
}

/// The differences between two reports of the same browser, sorted by path. Style sheet
/// sizes (`…/sheets/chars`) differ only beyond [`same_size`]'s margin.
pub fn diff(left: &Report, right: &Report) -> Vec<Difference> {
    let (l, r) = (flatten(left), flatten(right));
    let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| match (l.get(*k), r.get(*k)) {
            (Some(a), Some(b)) if k.ends_with("/sheets/chars") => !same_size(a, b),
            (a, b) => a != b,
        })
        .map(|k| Difference { path: k.clone(), left: l.get(k).cloned(), right: r.get(k).cloned() })
        .collect()
}

/// Two style sheet sizes that differ by at most 16 characters or 2 %: two minifiers write
/// the same rules a few characters apart (quotes kept or dropped, a last `;`).
pub fn same_size(a: &str, b: &str) -> bool {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(a), Ok(b)) => a.abs_diff(b) <= (a.max(b) / 50).max(16),
        _ => a == b,
    }
}

/// Keys left out of comparisons: where the build lives, and what depends on timing or on the
/// exact code (a message's line, a page's settle state).
const IGNORED: &[&str] = &["dist", "browser", "source", "errorsDropped", "loadError", "error"];

/// A report as `path → value` lines: surfaces by name, errors by world, kind and text (with
/// their count), everything else by its field path.
pub fn flatten(report: &Report) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    let surfaces = value.get_mut("surfaces").map(Value::take);
    let errors = value.get_mut("errors").map(Value::take);
    walk("", &value, &mut out);
    for s in surfaces.as_ref().and_then(Value::as_array).into_iter().flatten() {
        let mut s = s.clone();
        let name = s.get_mut("name").map(Value::take);
        walk(name.as_ref().and_then(Value::as_str).unwrap_or("?"), &s, &mut out);
    }
    for m in errors.as_ref().and_then(Value::as_array).into_iter().flatten() {
        let key = format!(
            "errors/{}/{}/{}",
            m["world"].as_str().unwrap_or("?"),
            m["kind"].as_str().unwrap_or("?"),
            m["text"].as_str().unwrap_or("")
        );
        let n = out.get(&key).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        out.insert(key, (n + 1).to_string());
    }
    out
}

fn walk(path: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    let join = |k: &str| if path.is_empty() { k.to_owned() } else { format!("{path}/{k}") };
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if !IGNORED.contains(&k.as_str()) {
                    walk(&join(k), v, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(&join(&i.to_string()), v, out);
            }
        }
        Value::String(s) => {
            out.insert(path.to_owned(), s.clone());
        }
        Value::Null => {}
        other => {
            out.insert(path.to_owned(), other.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::report::{Background, Message, Root, Sheets, Surface};

    fn report() -> Report {
        Report {
            browser: "chromium".into(),
            dist: "/a".into(),
            loaded: true,
            load_error: None,
            surfaces: vec![Surface {
                name: "content".into(),
                path: "/".into(),
                read: true,
                error: None,
                root_count: 1,
                roots: vec![Root {
                    name: "widget".into(),
                    tag: "div".into(),
                    shadow: Some("open".into()),
                    in_shadow: false,
                    children: 2,
                    text: "Hello".into(),
                    first_element: Some("div".into()),
                    style: [("color".to_owned(), "rgb(1, 2, 3)".to_owned())].into(),
                    sheets: Sheets { count: 1, chars: 951, unreadable: 0 },
                }],
                mount: None,
                host_changes: vec![],
                page_roots: 0,
            }],
            background: Background { declared: Some("service_worker".into()), alive: true },
            errors: vec![],
            errors_dropped: 0,
        }
    }

    #[test]
    fn identical_reports_have_no_difference_whatever_their_folder() {
        let (a, mut b) = (report(), report());
        b.dist = "/elsewhere".into();
        assert_eq!(diff(&a, &b), vec![]);
    }

    #[test]
    fn one_change_is_one_sorted_difference() {
        let (a, mut b) = (report(), report());
        b.surfaces[0].roots[0].sheets.chars = 0;
        b.errors.push(Message {
            world: "content".into(),
            kind: "exception".into(),
            text: "Error: boom".into(),
            source: Some("content.js:3".into()),
        });
        let d = diff(&a, &b);
        assert_eq!(
            d,
            vec![
                Difference {
                    path: "content/roots/0/sheets/chars".into(),
                    left: Some("951".into()),
                    right: Some("0".into())
                },
                Difference {
                    path: "errors/content/exception/Error: boom".into(),
                    left: None,
                    right: Some("1".into())
                },
            ]
        );
    }

    #[test]
    fn sheet_sizes_differ_beyond_a_small_margin_only() {
        assert!(same_size("1004", "998"));
        assert!(same_size("100000", "98500"));
        assert!(!same_size("849", "828"));
        assert!(!same_size("56093", "31081"));
        assert!(!same_size("0", "943"));
        let (a, mut b) = (report(), report());
        b.surfaces[0].roots[0].sheets.chars = 945;
        assert_eq!(diff(&a, &b), vec![]);
    }

    #[test]
    fn host_changes_name_selector_property_and_both_values() {
        let before: HostStyles =
            [("body".to_owned(), [("color".to_owned(), "red".to_owned())].into())].into();
        let after: HostStyles =
            [("body".to_owned(), [("color".to_owned(), "blue".to_owned())].into())].into();
        assert_eq!(host_changes(&before, &after), vec!["body color: red → blue"]);
        assert_eq!(host_changes(&before, &before), Vec::<String>::new());
        assert_eq!(host_changes(&before, &HostStyles::new()), vec!["body: gone"]);
    }

    #[test]
    fn problems_of_a_report() {
        let mut r = report();
        assert!(problems(&r).is_empty());
        r.background.alive = false;
        r.surfaces[0].host_changes.push("h1 color: a → b".into());
        assert_eq!(
            problems(&r),
            vec!["content: host page style changed: h1 color: a → b", "background: not alive"]
        );
    }
}
