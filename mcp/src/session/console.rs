//! What the extension prints: every console event goes to `logs.ndjson` and the recent list
//! `extension_source_inspect` reads; an uncaught exception (not one a reload causes by
//! design) becomes an error of the session, named by the project file behind its URL — for
//! a bundle, the module's file and line through the dev source map.

use serde_json::json;

use super::contract::runtime_error;
use super::inspect;
use super::logs;
use super::rebuild::Live;
use super::reload;
use crate::runner::{ConsoleEvent, EventKind, LogStream};

impl Live {
    /// Records console output already received (exceptions count as errors).
    pub fn drain_console(&mut self) {
        while let Some(ev) = self.console.as_mut().and_then(try_next) {
            self.on_console(ev, false);
        }
    }

    /// Logs console output already received without counting it (it predates a rebuild).
    pub fn drain_console_silently(&mut self) {
        while let Some(ev) = self.console.as_mut().and_then(try_next) {
            self.log_console(&ev);
        }
    }

    fn log_console(&mut self, ev: &ConsoleEvent) {
        inspect::remember(&mut self.recent, ev);
        let base = self.ext.as_ref().map(|e| e.base_url.clone());
        let source = logs::source_of(&self.roles, base.as_deref(), ev);
        let file = ev
            .url
            .as_deref()
            .filter(|u| base.as_deref().is_some_and(|b| u.starts_with(b)))
            .map(|u| self.source_of(u));
        self.contract.log(logs::kind_name(ev.kind), logs::entry_fields(ev, source, file));
    }

    /// One console event; `write`: update `ready.json` at once when it is an error.
    pub fn on_console(&mut self, ev: ConsoleEvent, write: bool) {
        self.log_console(&ev);
        if ev.kind != EventKind::Exception || reload::expected_after_reload(&ev.text) {
            return;
        }
        // A bundled output's position is the module's, through its dev source map.
        let base = self.ext.as_ref().map(|e| e.base_url.clone()).unwrap_or_default();
        let mapped = match (ev.url.as_deref().and_then(|u| u.strip_prefix(base.as_str())), ev.line) {
            (Some(rel), Some(line)) if !base.is_empty() => {
                let rel = rel.split(['?', '#']).next().unwrap_or(rel);
                self.maps.locate(rel, line, ev.column.unwrap_or(1))
            }
            _ => None,
        };
        let text = self.maps.rewrite_stack(&ev.text, &base);
        let entry = match mapped {
            Some((file, line, column)) => runtime_error(text, Some(file), Some(line), Some(column)),
            None => runtime_error(text, ev.url.as_deref().map(|u| self.source_of(u)), ev.line, ev.column),
        };
        self.contract.event("error", json!({"error": entry}));
        if !self.errors.contains(&entry) {
            self.errors.push(entry);
        }
        if write {
            self.settle();
        }
    }

    /// The project file behind an extension URL (`chrome-extension://<id>/content.js`).
    fn source_of(&self, url: &str) -> String {
        let rel = self
            .ext
            .as_ref()
            .and_then(|e| url.strip_prefix(e.base_url.as_str()))
            .map(|r| r.split(['?', '#']).next().unwrap_or(r).to_owned());
        let Some(rel) = rel else { return url.to_owned() };
        match self.sources.get(&rel) {
            Some(src) => src.strip_prefix(&self.project).unwrap_or(src).to_string_lossy().into_owned(),
            None => rel,
        }
    }
}

/// The next console event, or never when there is no stream.
pub(super) async fn next_console(stream: &mut Option<LogStream>) -> Option<ConsoleEvent> {
    match stream {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

/// The next event if one is already there.
fn try_next(stream: &mut LogStream) -> Option<ConsoleEvent> {
    use std::future::Future;
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let fut = stream.next();
    let mut fut = std::pin::pin!(fut);
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(ev) => ev,
        std::task::Poll::Pending => None,
    }
}
