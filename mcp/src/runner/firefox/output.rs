//! What Firefox prints, read as the extensions' consoles: console lines on stdout, script
//! errors and document loads on stderr (the formats are described in the parent module).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::sync::watch;

use super::Prepared;
use crate::runner::log::{ConsoleEvent, EventKind, ExtensionLog, Level};
use crate::runner::process::{self, Tail};

/// Documents remembered as loaded, for extensions registered after their background
/// loaded (a temporary add-on's uuid is known only once it is installed).
const LOADED_KEPT: usize = 64;

/// Routes output lines to extension logs.
pub(super) struct Router {
    pub(super) exts: Mutex<Vec<(Prepared, Arc<ExtensionLog>)>>,
    pub(super) unattributed: Arc<ExtensionLog>,
    pub(super) started: watch::Sender<bool>,
    pub(super) tail: Tail,
    /// With the debugger on, console calls come attributed over RDP; the source-less stdout
    /// lines are then never guessed onto an extension.
    pub(super) devtools: bool,
    pub(super) loaded: Mutex<VecDeque<String>>,
}

impl Router {
    pub(super) fn new(
        exts: Vec<(Prepared, Arc<ExtensionLog>)>,
        unattributed: Arc<ExtensionLog>,
        started: watch::Sender<bool>,
        tail: Tail,
        devtools: bool,
    ) -> Router {
        Router {
            exts: Mutex::new(exts),
            unattributed,
            started,
            tail,
            devtools,
            loaded: Mutex::new(VecDeque::new()),
        }
    }

    fn exts(&self) -> MutexGuard<'_, Vec<(Prepared, Arc<ExtensionLog>)>> {
        self.exts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds (or replaces, by uuid) an extension loaded into the running browser; its
    /// background counts as started if it already loaded.
    pub(super) fn register(&self, p: Prepared, log: Arc<ExtensionLog>) {
        let seen = {
            let loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
            p.background_url.as_ref().is_some_and(|u| loaded.contains(u))
        };
        if seen {
            log.set_background_started();
        }
        let mut exts = self.exts();
        exts.retain(|(q, _)| q.uuid != p.uuid);
        exts.push((p, log));
    }

    /// Forgets that `url` loaded (before a reload, so that its next load is the new one).
    pub(super) fn forget_loaded(&self, url: &str) {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner).retain(|u| u != url);
    }

    pub(super) fn on_stdout(&self, line: &str) {
        // Console lines quote pages and extensions: sizes only (see webext_mcp_host::log_policy).
        tracing::trace!(target: "webext_mcp::browser::firefox", bytes = line.len(), "stdout line");
        let Some(event) = parse_console_line(line) else { return };
        if self.devtools {
            self.unattributed.push(event);
            return;
        }
        match self.exts().as_slice() {
            [(_, log)] => log.push(event),
            _ => self.unattributed.push(event),
        }
    }

    pub(super) fn on_stderr(&self, line: &str) {
        if let Some(url) = parse_window_loaded(line) {
            self.started.send_if_modified(|s| !std::mem::replace(s, true));
            if url.starts_with("moz-extension://") {
                let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
                if loaded.len() == LOADED_KEPT {
                    loaded.pop_front();
                }
                loaded.push_back(url.to_owned());
            }
            for (p, log) in self.exts().iter() {
                if p.background_url.as_deref() == Some(url) {
                    log.set_background_started();
                }
            }
            return;
        }
        if line.contains("/BCWebProgress ") {
            return;
        }
        let js_error = parse_js_error(line);
        if js_error.is_some() {
            // A script error's text may quote the page: its size only.
            tracing::debug!(target: "webext_mcp::browser::firefox", bytes = line.len(), "script error line");
        } else {
            tracing::debug!(target: "webext_mcp::browser::firefox", "{line}");
        }
        if let Some(event) = js_error {
            let owner = event.url.as_deref().and_then(|u| {
                self.exts()
                    .iter()
                    .find(|(p, _)| u.starts_with(&format!("moz-extension://{}/", p.uuid)))
                    .map(|(_, log)| log.clone())
            });
            if let Some(log) = owner {
                log.push(event);
                return;
            }
        }
        process::push_tail(&self.tail, line);
    }
}

/// `console.<method>: <args>` of a content or extension document. Lines of Firefox's own
/// modules (`console.error: services.settings: …`) and continuation lines give `None`.
fn parse_console_line(line: &str) -> Option<ConsoleEvent> {
    let rest = line.strip_prefix("console.")?;
    let (method, args) = rest.split_once(": ").or_else(|| rest.strip_suffix(':').map(|m| (m, "")))?;
    if method.is_empty() || !method.chars().all(|c| c.is_ascii_alphabetic()) || !is_content_args(args) {
        return None;
    }
    Some(ConsoleEvent {
        kind: EventKind::Console,
        level: Level::from_method(method),
        text: args_text(args),
        url: None,
        line: None,
        column: None,
        context: None,
        tab_id: None,
        frame_id: None,
        page_world: false,
    })
}

/// Content arguments are printed as values: strings quoted, numbers bare, objects in
/// parentheses. A module prefix is a bare word followed by a colon.
fn is_content_args(args: &str) -> bool {
    let first = args.split(' ').next().unwrap_or("");
    match args.chars().next() {
        Some('"' | '(' | '[' | '{' | '-' | '0'..='9') => true,
        _ => matches!(first, "true" | "false" | "null" | "undefined" | "NaN" | "Infinity"),
    }
}

/// Decodes the leading JSON values (`"a" 1`) and keeps the rest (`({a:1})`) verbatim.
fn args_text(args: &str) -> String {
    let mut parts = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(args).into_iter::<Value>();
    let mut consumed = 0;
    while let Some(Ok(v)) = stream.next() {
        consumed = stream.byte_offset();
        parts.push(match v {
            Value::String(s) => s,
            other => other.to_string(),
        });
    }
    let rest = args.get(consumed..).unwrap_or("").trim();
    if !rest.is_empty() {
        parts.push(rest.to_owned());
    }
    parts.join(" ")
}

/// `JavaScript error: <url>, line <n>: <message>` (and `JavaScript warning:`).
fn parse_js_error(line: &str) -> Option<ConsoleEvent> {
    let (kind, level, rest) = if let Some(r) = line.strip_prefix("JavaScript error: ") {
        (EventKind::Exception, Level::Error, r)
    } else if let Some(r) = line.strip_prefix("JavaScript warning: ") {
        (EventKind::Console, Level::Warn, r)
    } else {
        return None;
    };
    let (url, after) = rest.split_once(", line ")?;
    let (num, message) = after.split_once(": ")?;
    Some(ConsoleEvent {
        kind,
        level,
        text: message.to_owned(),
        url: Some(url.to_owned()),
        line: num.parse().ok(),
        column: None,
        context: None,
        tab_id: None,
        frame_id: None,
        page_world: false,
    })
}

/// The URL of a top-level document that finished loading, from a `BCWebProgress` line.
fn parse_window_loaded(line: &str) -> Option<&str> {
    if !line.contains("BCWebProgress OnStateChange(")
        || !line.contains("STATE_STOP")
        || !line.contains("STATE_IS_WINDOW")
    {
        return None;
    }
    let (_, target) = line.rsplit_once(" on {")?;
    let url = target.split_once("url:")?.1;
    Some(url.strip_suffix('}').unwrap_or(url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_console_lines_parse_and_module_lines_do_not() {
        let e = parse_console_line(r#"console.error: "hello-error""#).unwrap();
        assert_eq!((e.level, e.text.as_str()), (Level::Error, "hello-error"));
        let e = parse_console_line(r#"console.log: "hello-log" 1 ({a:1})"#).unwrap();
        assert_eq!(e.text, "hello-log 1 ({a:1})");
        let e = parse_console_line(r#"console.info: "multi\nline""#).unwrap();
        assert_eq!((e.level, e.text.as_str()), (Level::Info, "multi\nline"));
        assert!(parse_console_line("console.error: services.settings: ").is_none());
        assert!(parse_console_line("console.warn: TopSitesFeed: Failed to fetch data").is_none());
        assert!(parse_console_line("  Message: TypeError: NetworkError").is_none());
    }

    #[test]
    fn javascript_errors_carry_url_and_line() {
        let e = parse_js_error("JavaScript error: moz-extension://u-1/bg.js, line 5: Error: boom").unwrap();
        assert_eq!(e.kind, EventKind::Exception);
        assert_eq!(e.url.as_deref(), Some("moz-extension://u-1/bg.js"));
        assert_eq!((e.line, e.text.as_str()), (Some(5), "Error: boom"));
        assert!(parse_js_error("*** You are running in headless mode.").is_none());
    }

    #[test]
    fn window_loaded_lines_name_the_document() {
        let line = "[Parent 1: Main Thread]: I/BCWebProgress OnStateChange({isTopLevel:1, isLoadingDocument:1}, \
                    {URI:data:text/html,x}, STATE_STOP|STATE_IS_NETWORK|STATE_IS_WINDOW, NS_OK) on \
                    {top:1, id:3, url:moz-extension://u-1/_generated_background_page.html}";
        assert_eq!(parse_window_loaded(line), Some("moz-extension://u-1/_generated_background_page.html"));
        let start = line.replace("STATE_STOP", "STATE_START");
        assert_eq!(parse_window_loaded(&start), None);
    }
}
