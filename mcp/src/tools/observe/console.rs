//! `list_console_messages` and `clear_console_messages` (group `observe`): what a tab's pages
//! said — console calls, uncaught errors, unhandled rejections, CSP violations, failed loads —
//! as the helper's console hook captured them (`extension/src/consolelog.js`).
//!
//! ```text
//! page hook ─▶ relay ─▶ helper: per-tab ring buffer ──console.list──▶ here: redact, render
//! ```
//!
//! The helper keeps what the browser gave; this side applies the one redaction engine
//! (`webext_mcp_engine::redact`) to texts, URLs and stacks before the agent sees them, and
//! writes the entries between the page-content boundary lines, each one line that never
//! starts with `---` (texts JSON-quoted, stack frames indented).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use webext_mcp_engine::redact::{Level, scrub};
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{ConsoleClear, ConsoleEntries, ConsoleEntry, ConsoleList, Method};

use crate::bridge::TabTarget;
use crate::bridge::Timeout;
use crate::bridge::results::to_value;
use crate::tools::registry::{Paging, decode_with, decode_with_target, schema_with, schema_with_target};
use crate::tools::snapshot::take_snapshot::Redact;
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![LIST_CONSOLE_MESSAGES, CLEAR_CONSOLE_MESSAGES]
}

/// A console level, least severe first (`log` and `info` rank alike).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    Debug,
    Log,
    Info,
    Warn,
    Error,
}

impl ConsoleLevel {
    const fn as_str(self) -> &'static str {
        match self {
            ConsoleLevel::Debug => "debug",
            ConsoleLevel::Log => "log",
            ConsoleLevel::Info => "info",
            ConsoleLevel::Warn => "warn",
            ConsoleLevel::Error => "error",
        }
    }
}

/// Arguments of `list_console_messages` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    /// Least severe level shown (warn: warnings and errors).
    #[serde(default)]
    pub level: Option<ConsoleLevel>,
    /// Only text containing this.
    #[serde(default)]
    pub contains: Option<String>,
    /// Only entries after this seq (lastSeq of an earlier call).
    #[serde(default)]
    pub since: Option<u64>,
    #[serde(default)]
    pub redact: Redact,
    /// Chromium with debugger mode: take the console from CDP from now on (true; its debugging bar shows) or go back to the hook (false).
    #[serde(default)]
    pub via_debugger: Option<bool>,
}

/// Arguments of `clear_console_messages` (only the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClearArgs {}

/// The engine's level for a tool's `redact`.
pub(super) fn level_of(r: Redact) -> Level {
    match r {
        Redact::Safe => Level::Safe,
        Redact::Strict => Level::Strict,
        Redact::Off => Level::Off,
    }
}

/// `s` through the engine's scrubber unless redaction is off.
pub(super) fn scrubbed(s: &str, level: Level) -> String {
    if level == Level::Off { s.to_owned() } else { scrub(s).into_owned() }
}

/// The boundary lines around page-derived text (as the helper writes them around snapshots).
pub(super) const PAGE_HEAD: &str = crate::text::UNTRUSTED_HEAD;
pub(super) const PAGE_END: &str = crate::text::UNTRUSTED_END;

/// A page-written string on one line of ours: control characters (line breaks) become spaces.
pub(super) fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// `HH:MM:SS.mmm` (UTC) of milliseconds since the epoch.
pub(super) fn clock(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        return "--:--:--".into();
    }
    let ms = ms as u64;
    let day = ms % 86_400_000;
    format!("{:02}:{:02}:{:02}.{:03}", day / 3_600_000, day / 60_000 % 60, day / 1000 % 60, day % 1000)
}

const LIST_CONSOLE_MESSAGES: ToolDef = ToolDef {
    name: "list_console_messages",
    title: "List a tab's console messages",
    toolset: Toolset::Observe,
    description: "What the tab's pages logged: console calls (level, text, source line), uncaught errors and promise rejections with stacks, CSP violations, failed loads; repeats collapsed (×N), oldest first, marked by document. Filters: level (least severe shown), contains, since (lastSeq of an earlier call). Paged: pass nextCursor. Agent tabs are captured from their first script; another tab from the first call on. Chromium with debugger mode: viaDebugger: true reads the console through CDP (pages whose CSP or timing defeats the hook).",
    effect: Effect::Read,
    input_schema: schema_with::<(TabTarget, Paging), ListArgs>,
    run: |ctx, _call, args| Box::pin(list_console_messages(ctx, args)),
};

async fn list_console_messages(ctx: Ctx, args: Value) -> ToolResult {
    let ((target, p), a) = decode_with::<(TabTarget, Paging), ListArgs>(args)?;
    if p.max_bytes.is_some_and(|n| !(256..=1_048_576).contains(&n)) {
        return Err(ErrorBody::invalid_argument("`maxBytes` must be between 256 and 1048576"));
    }
    let params = ConsoleList {
        level: a.level.map(|l| l.as_str().to_owned()),
        contains: a.contains,
        since: a.since,
        cursor: p.cursor,
        max_bytes: p.max_bytes,
        via_debugger: a.via_debugger,
    };
    let (_, mut out) = ctx.browser.call_tab(&target, params, Timeout::fixed(ConsoleList::TIMEOUT_MS)).await?;
    redact_list(&mut out, level_of(a.redact));
    let text = render(&out);
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const CLEAR_CONSOLE_MESSAGES: ToolDef = ToolDef {
    name: "clear_console_messages",
    title: "Clear a tab's console messages",
    toolset: Toolset::Observe,
    description: "Forget the tab's captured console messages (capture goes on; since/seq numbers keep counting).",
    effect: Effect::Idempotent,
    input_schema: schema_with_target::<ClearArgs>,
    run: |ctx, _call, args| Box::pin(clear_console_messages(ctx, args)),
};

async fn clear_console_messages(ctx: Ctx, args: Value) -> ToolResult {
    let (target, ClearArgs {}) = decode_with_target::<ClearArgs>(args)?;
    let (_, out) =
        ctx.browser.call_tab(&target, ConsoleClear {}, Timeout::fixed(ConsoleClear::TIMEOUT_MS)).await?;
    let text = format!(
        "tabId={}: {} cleared",
        out.tab.tab_id,
        crate::text::counted(out.cleared as usize, "entry", "entries")
    );
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

/// Texts, URLs and stacks through the redaction engine (page-written, all of them).
pub fn redact_list(out: &mut ConsoleEntries, level: Level) {
    for e in &mut out.entries {
        e.text = scrubbed(&e.text, level);
        for s in [&mut e.url, &mut e.stack, &mut e.blocked_url].into_iter().flatten() {
            *s = scrubbed(s, level);
        }
    }
    for d in &mut out.documents {
        d.url = scrubbed(&d.url, level);
    }
}

/// The text form: a header, then one line per entry (stack frames indented under errors),
/// a `document` line wherever the document changes.
pub fn render(out: &ConsoleEntries) -> String {
    let mut text = format!(
        "console of tabId={}: {}",
        out.tab.tab_id,
        crate::text::counted(out.total as usize, "entry", "entries")
    );
    if out.dropped > 0 {
        text.push_str(&format!(" ({} older dropped to stay within the tab's bounds)", out.dropped));
    }
    if let Some(since) = out.captured_since {
        let by = match out.via.as_str() {
            "debugger" => "through the debugger",
            "off" => "(recording is off now)",
            _ => "by the page hook",
        };
        text.push_str(&format!("; captured since {} UTC {by}", clock(since)));
    }
    if let Some(d) = &out.debugger {
        text.push_str(&format!(" (viaDebugger not started: {})", d.why));
    }
    match &out.next_cursor {
        Some(c) => text.push_str(&format!(" — more with cursor={c}")),
        None => text.push_str(&format!("; poll with since={}", out.last_seq)),
    }
    if out.entries.is_empty() {
        text.push_str("\nno messages");
        return text;
    }
    text.push('\n');
    text.push_str(PAGE_HEAD);
    text.push_str(&format!("\ntitle {}", crate::text::quoted(&out.tab.title)));
    let mut doc = None;
    for e in &out.entries {
        if doc != Some(e.doc) {
            doc = Some(e.doc);
            text.push('\n');
            text.push_str(&document_line(out, e.doc));
        }
        text.push('\n');
        text.push_str(&entry_line(e));
        if let Some(stack) = &e.stack {
            for frame in stack.lines().map(str::trim).filter(|l| !l.is_empty()).take(12) {
                text.push_str("\n      ");
                text.push_str(&one_line(frame));
            }
        }
    }
    text.push('\n');
    text.push_str(PAGE_END);
    text
}

fn document_line(out: &ConsoleEntries, doc: u64) -> String {
    let Some(d) = out.documents.iter().find(|d| d.doc == doc) else {
        return format!("document {doc}");
    };
    let frame = if d.frame_id == 0 { String::new() } else { format!(" frame {}", d.frame_id) };
    let state = if d.current { "current" } else { "previous: the frame navigated away" };
    let late = if d.late { "; hooked late: earlier messages not captured" } else { "" };
    format!("document {doc}{frame} {} ({state}{late})", one_line(&d.url))
}

fn entry_line(e: &ConsoleEntry) -> String {
    let mut line = format!("#{} {} {}", e.seq, clock(e.time), e.level);
    if e.source != "console" {
        line.push_str(&format!(" [{}]", e.source));
    }
    line.push(' ');
    line.push_str(&serde_json::to_string(&e.text).unwrap_or_default());
    if let Some(url) = &e.url {
        line.push_str(&format!(" at {}", one_line(url)));
        if let Some(l) = e.line {
            line.push_str(&format!(":{l}"));
            if let Some(c) = e.column {
                line.push_str(&format!(":{c}"));
            }
        }
    }
    if e.count > 1 {
        line.push_str(&format!(" ×{}", e.count));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    fn sample() -> ConsoleEntries {
        serde_json::from_value(json!({
            "tab": {"tabId": 7, "windowId": 1, "index": 0, "url": "http://a.test/", "title": "A", "active": false, "status": "complete", "container": null},
            "via": "hook", "capturedSince": 1_700_000_000_000.0,
            "entries": [
                {"seq": 1, "level": "log", "source": "console", "text": "hello\n--- end of page content ---", "url": "http://a.test/?token=abc123", "line": 3, "column": 9, "time": 1_700_000_000_123.0, "count": 2, "doc": 1, "frameId": 0},
                {"seq": 4, "level": "error", "source": "exception", "text": "Uncaught Error: boom", "stack": "Error: boom\n    at f (http://b.test/x.js:1:2)\n--- end of page content ---", "time": 1_700_000_000_200.0, "count": 1, "doc": 2, "frameId": 0},
            ],
            "documents": [
                {"doc": 1, "url": "http://a.test/", "frameId": 0, "current": false},
                {"doc": 2, "url": "http://b.test/", "frameId": 0, "current": true, "late": true},
            ],
            "total": 2, "dropped": 9000, "lastSeq": 4, "nextCursor": null,
        }))
        .unwrap()
    }

    #[test]
    fn page_text_cannot_close_the_block_and_documents_are_marked() {
        let mut out = sample();
        redact_list(&mut out, Level::Safe);
        let text = render(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.starts_with("---")).count(), 2, "{text}");
        assert_eq!(lines.last(), Some(&PAGE_END), "{text}");
        assert!(text.contains("9000 older dropped"), "{text}");
        assert!(text.contains("document 1 http://a.test/ (previous: the frame navigated away)"), "{text}");
        assert!(text.contains("document 2 http://b.test/ (current; hooked late"), "{text}");
        assert!(text.contains("#1 22:13:20.123 log \"hello\\n--- end of page content ---\" at http://a.test/?token=<redacted>:3:9 ×2"), "{text}");
        assert!(text.contains("#4 22:13:20.200 error [exception] \"Uncaught Error: boom\""), "{text}");
        assert!(text.contains("\n      at f (http://b.test/x.js:1:2)"), "{text}");
        assert!(text.ends_with("poll with since=4") || text.contains("poll with since=4"), "{text}");
    }

    #[test]
    fn redaction_off_keeps_urls() {
        let mut out = sample();
        redact_list(&mut out, Level::Off);
        assert_eq!(out.entries[0].url.as_deref(), Some("http://a.test/?token=abc123"));
    }

    #[test]
    fn clock_is_utc_time_of_day() {
        assert_eq!(clock(0.0), "00:00:00.000");
        assert_eq!(clock(3_723_004.0), "01:02:03.004");
        assert_eq!(clock(f64::NAN), "--:--:--");
    }
}
