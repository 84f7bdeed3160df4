//! Which host a browser tool talks to: a pure decision over the live descriptors.
//!
//! A choice (the `browser` argument, `select_browser`, `--browser`) names a browser, a
//! family (`chromium-based`, `gecko-based`), a profile label, a session id or a host pid.
//! Without a choice, dev-session hosts (those with a `session`) are never picked: they belong
//! to the agent that launched them. One candidate is used; several are an error listing them.

use serde_json::{Value, json};

use crate::browsers::engine_of_reported;
use crate::descriptor::Descriptor;
use crate::protocol::{ErrorBody, ErrorCode};

/// Pure: does `choice` name this host?
pub fn matches(d: &Descriptor, choice: &str) -> bool {
    let browser = d.browser.to_ascii_lowercase();
    let c = choice.trim().to_ascii_lowercase();
    c == browser
        || choice == d.label
        || d.session.as_deref() == Some(choice)
        || c == d.pid.to_string()
        || engine_of_reported(&browser).is_some_and(|e| c == e.any_name())
}

/// A host as shown in lists and errors.
pub fn summary(d: &Descriptor) -> Value {
    json!({
        "browser": d.browser,
        "version": d.browser_version,
        "label": d.label,
        "session": d.session,
        "pid": d.pid,
        "extVersion": d.ext_version,
    })
}

fn listing(cands: &[&Descriptor]) -> String {
    cands
        .iter()
        .map(|d| match &d.session {
            Some(s) => format!("{} (label {}, session {s})", d.browser, d.label),
            None => format!("{} (label {})", d.browser, d.label),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Picks the host for `choice` among `live` hosts.
pub fn select(live: &[Descriptor], choice: Option<&str>) -> Result<Descriptor, ErrorBody> {
    let all: Vec<&Descriptor> = live.iter().collect();
    let candidates: Vec<&Descriptor> = match choice {
        Some(choice) => {
            let hits: Vec<&Descriptor> = all.iter().copied().filter(|d| matches(d, choice)).collect();
            // A session id picks its host; a name or label prefers daily browsers.
            let exact_session: Vec<&Descriptor> =
                hits.iter().copied().filter(|d| d.session.as_deref() == Some(choice)).collect();
            let daily: Vec<&Descriptor> = hits.iter().copied().filter(|d| d.session.is_none()).collect();
            if !exact_session.is_empty() {
                exact_session
            } else if !daily.is_empty() {
                daily
            } else {
                hits
            }
        }
        None => all.iter().copied().filter(|d| d.session.is_none()).collect(),
    };
    match (candidates.as_slice(), choice) {
        ([one], _) => Ok((*one).clone()),
        ([], Some(choice)) => Err(ErrorBody::not_found(format!("no connected browser matches `{choice}`"))
            .with_hint(if all.is_empty() {
                "no browser is connected: open a browser with the webext-mcp helper extension (see `webext-mcp install`)".to_owned()
            } else {
                format!("connected: {}", listing(&all))
            })
            .with_data(json!({ "candidates": all.iter().map(|d| summary(d)).collect::<Vec<_>>() }))),
        ([], None) if all.is_empty() => Err(ErrorBody::new(ErrorCode::NotConnected, "no browser is connected")
            .with_hint("open a browser with the webext-mcp helper extension installed (see `webext-mcp install`), then retry")),
        ([], None) => Err(ErrorBody::new(
            ErrorCode::NotConnected,
            "only dev-session browsers are connected, and they are never used by default",
        )
        .with_hint(format!("pass `browser` with a session id to use one: {}", listing(&all)))
        .with_data(json!({ "candidates": all.iter().map(|d| summary(d)).collect::<Vec<_>>() }))),
        (several, _) => Err(ErrorBody::not_found(format!(
            "{} browsers match{}; say which",
            several.len(),
            choice.map(|c| format!(" `{c}`")).unwrap_or_default()
        ))
        .with_hint(format!(
            "pass `browser` (name, label or session) or call select_browser; candidates: {}",
            listing(several)
        ))
        .with_data(json!({ "candidates": several.iter().map(|d| summary(d)).collect::<Vec<_>>() }))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(browser: &str, label: &str, session: Option<&str>, pid: u32) -> Descriptor {
        Descriptor {
            browser: browser.into(),
            browser_version: "1".into(),
            label: label.into(),
            pid,
            ppid: 1,
            ext_version: "0.1.0".into(),
            protocol: 1,
            socket: "/s".into(),
            started_at: 0,
            session: session.map(str::to_owned),
            capabilities: vec![],
            token: Default::default(),
        }
    }

    #[test]
    fn single_daily_browser_is_the_default_and_sessions_never_are() {
        let daily = host("chrome", "chrome-aaaaaa", None, 1);
        let dev = host("chromium", "chromium-bbbbbb", Some("s-1"), 2);
        assert_eq!(select(&[daily.clone(), dev.clone()], None).unwrap(), daily);
        let e = select(std::slice::from_ref(&dev), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotConnected);
        assert!(e.hint.unwrap().contains("s-1"));
        assert_eq!(select(&[], None).unwrap_err().code, ErrorCode::NotConnected);
    }

    #[test]
    fn choices_by_name_label_session_pid_and_family() {
        let a = host("chrome", "work", None, 10);
        let b = host("firefox", "firefox-cccccc", None, 11);
        let c = host("chromium", "chromium-dddddd", Some("sess-9"), 12);
        let all = [a.clone(), b.clone(), c.clone()];
        assert_eq!(select(&all, Some("work")).unwrap(), a);
        assert_eq!(select(&all, Some("Firefox")).unwrap(), b);
        assert_eq!(select(&all, Some("sess-9")).unwrap(), c);
        assert_eq!(select(&all, Some("chromium")).unwrap(), c);
        assert_eq!(select(&all, Some("11")).unwrap(), b);
        assert_eq!(select(&all, Some("gecko-based")).unwrap(), b);
        // Daily chrome wins over the dev-session chromium for the family name.
        assert_eq!(select(&all, Some("chromium-based")).unwrap(), a);
        let e = select(&all, Some("safari")).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.hint.unwrap().contains("work"));
    }

    #[test]
    fn several_candidates_are_listed() {
        let a = host("chrome", "work", None, 10);
        let b = host("chrome", "home", None, 11);
        let e = select(&[a, b], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("2 browsers"));
        let hint = e.hint.unwrap();
        assert!(hint.contains("work") && hint.contains("home"), "{hint}");
        assert_eq!(e.data.unwrap()["candidates"].as_array().unwrap().len(), 2);
    }

    /// The family names cover every browser the helper reports (floorp was missing from one
    /// of the old tables), channel suffixes included, and nothing else.
    #[test]
    fn family_choices_cover_every_reported_browser() {
        for (name, engine) in crate::browsers::REPORTED {
            let d = host(name, "l", None, 1);
            assert!(matches(&d, engine.any_name()), "{name}");
            let other = crate::browsers::Engine::ALL.into_iter().find(|e| *e != engine).unwrap();
            assert!(!matches(&d, other.any_name()), "{name}");
        }
        assert!(matches(&host("firefox-developer-edition", "l", None, 1), "gecko-based"));
        assert!(!matches(&host("unknown", "l", None, 1), "chromium-based"));
    }
}
