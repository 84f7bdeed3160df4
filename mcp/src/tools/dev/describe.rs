//! The text forms of a session's state: one paragraph from its `ready.json` (or, for a
//! session still starting, from what it reported), with the profile it runs in and the run
//! config's flags, refusals and errors under it.

use std::path::Path;

use crate::session::{Reported, contract};

/// One paragraph about a session's state.
pub fn describe(ready: &contract::Ready) -> String {
    let mut text = paragraph(Paragraph {
        command: &ready.command,
        session_id: &ready.session_id,
        status: ready.status,
        browser: &ready.browser,
        pid: Some(ready.pid),
        browser_pid: ready.browser_pid,
        extension_id: ready.extension_id.as_deref(),
        dist_path: Some(&ready.dist_path),
    });
    text.push_str(&format!("\nprofile {}", ready.profile_path.display()));
    if let Some(cfg) = &ready.run_config {
        let file = cfg.file.as_deref().unwrap_or("extension.config.*");
        if !cfg.browser_flags.is_empty() {
            text.push_str(&format!("\nflags from {file}: {}", cfg.browser_flags.join(" ")));
        }
        for r in &cfg.refused {
            text.push_str(&format!("\nnot applied from {file}: {} `{}`: {}", r.key, r.value, r.why));
        }
    }
    if !ready.errors.is_empty() {
        text.push_str("\nerrors:");
        for e in &ready.errors {
            text.push_str(&format!("\n  {e}"));
        }
        text.push_str("\nfix them and save: the session rebuilds and reloads by itself");
    }
    text
}

/// [`describe`] of what a starting session reported (before its `ready.json`: its id and
/// browser only).
pub fn describe_reported(reported: &Reported) -> String {
    match reported {
        Reported::Ready(ready) => describe(ready),
        Reported::Starting(s) => paragraph(Paragraph {
            command: "?",
            session_id: &s.session_id,
            status: s.status,
            browser: &s.browser,
            pid: None,
            browser_pid: None,
            extension_id: None,
            dist_path: None,
        }),
    }
}

/// What the first lines of [`describe`] say.
struct Paragraph<'a> {
    command: &'a str,
    session_id: &'a str,
    status: contract::Status,
    browser: &'a str,
    pid: Option<u32>,
    browser_pid: Option<u32>,
    extension_id: Option<&'a str>,
    dist_path: Option<&'a Path>,
}

fn paragraph(p: Paragraph<'_>) -> String {
    let or_null = |n: Option<u32>| n.map_or_else(|| "null".to_owned(), |n| n.to_string());
    let mut text = format!(
        "{} session {} is {}: {} (pid {}), browser pid {}, extension {} from {}",
        p.command,
        p.session_id,
        p.status.as_str(),
        p.browser,
        or_null(p.pid),
        or_null(p.browser_pid),
        p.extension_id.unwrap_or("(not loaded)"),
        p.dist_path.map_or_else(|| "?".into(), Path::to_string_lossy),
    );
    if p.status == contract::Status::Starting {
        text.push_str(
            "\nstill starting (a first build can take minutes): extension_wait waits on, its progress says what the session is doing",
        );
    }
    text
}
