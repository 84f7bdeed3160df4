//! `logs.ndjson`, the session's one log stream: what every context of the extension printed
//! or threw (background, content scripts, extension pages), plus the session's own build and
//! reload lines, one JSON object per line, appended as it happens.
//!
//! ```text
//! runner LogStream ──▶ Live::log_console ──▶ entry_fields (source, file:line:column) ──┐
//! Contract::event (compile, reload, load) ──▶ session_line ─────────────────────────────┤
//!                                                                                      ▼
//!                                                      dist/extension-js/<browser>/logs.ndjson
//!                                                                                      │
//! extension_logs / `webext-mcp logs` ◀── read: filter, collapse repeats, page ◀────────┘
//! ```
//!
//! Writing and reading are pure functions of their inputs (the roles of the built files, the
//! file's bytes), tested here without a browser. Positions in the stream (`since`, `cursor`)
//! are `<runId>:<byte offset>`: a new run starts the file afresh, and a position of another
//! run reads the new run from its start. Log text is what the extension printed; nothing is
//! added to it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::reload::Roles;
use crate::runner::{ConsoleEvent, EventKind, Level};

/// Where an entry came from (`source` in `logs.ndjson`, what the `context` filter matches).
pub const SOURCES: &[&str] = &[
    "background",
    "content-script",
    "popup",
    "options",
    "sidepanel",
    "newtab",
    "devtools",
    "extension-page",
    "session",
];

/// The page Firefox generates for `background.scripts`.
const GENERATED_BACKGROUND: &str = "_generated_background_page.html";

/// The `source` of a console event. `context` is the document or worker it ran in (Firefox:
/// the background's file, the tab's URL for content scripts and pages), `url` the script.
pub fn source_of(roles: &Roles, base_url: Option<&str>, ev: &ConsoleEvent) -> &'static str {
    let context = ev.context.as_deref();
    if context == Some("service worker registration") {
        return "background";
    }
    match context {
        Some(c) => match relative(base_url, c) {
            Some(path) => document_source(roles, path),
            // An extension's event in a web page's context: a content script.
            None => "content-script",
        },
        // No context (Firefox's error output): the script's role says.
        None => match ev.url.as_deref().and_then(|u| relative(base_url, u)) {
            Some(path) if roles.content.contains(path) => "content-script",
            Some(path) if roles.background.contains(path) => "background",
            Some(path) => document_source(roles, path),
            None => "extension-page",
        },
    }
}

/// `url`'s path inside the extension at `base_url` (query and fragment dropped).
fn relative<'a>(base_url: Option<&str>, url: &'a str) -> Option<&'a str> {
    let rest = url.strip_prefix(base_url?)?;
    rest.split(['?', '#']).next()
}

/// The source of an extension document or worker at `path` (relative to the extension).
fn document_source(roles: &Roles, path: &str) -> &'static str {
    if path == GENERATED_BACKGROUND || roles.background.contains(path) {
        return "background";
    }
    if let Some(surface) = roles.surfaces.get(path) {
        return surface;
    }
    // A script as a context is a worker: the background's (or a module it imported).
    if path.ends_with(".js") || path.ends_with(".mjs") { "background" } else { "extension-page" }
}

pub fn level_name(level: Level) -> &'static str {
    match level {
        Level::Debug => "debug",
        Level::Log => "log",
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    }
}

fn level_rank(name: &str) -> Option<u8> {
    Some(match name {
        "debug" => 0,
        "log" => 1,
        "info" => 2,
        "warn" => 3,
        "error" => 4,
        _ => return None,
    })
}

/// The fields of a console event's line (besides `time` and `type`). `file` is the project
/// file behind the script's URL, when known.
pub fn entry_fields(ev: &ConsoleEvent, source: &str, file: Option<String>) -> Value {
    json!({
        "level": level_name(ev.level),
        "source": source,
        "text": ev.text,
        "file": file,
        "url": ev.url,
        "line": ev.line,
        "column": ev.column,
        "context": ev.context,
        "tabId": ev.tab_id,
        "frameId": ev.frame_id,
    })
}

/// The line of a session event that belongs in the log stream too (builds, loads,
/// reloads), or `None` for the others.
pub fn session_line(kind: &str, fields: &Value) -> Option<Value> {
    let ms = fields["durationMs"].as_u64().map(|ms| format!(" ({ms} ms)")).unwrap_or_default();
    let files: Vec<&str> =
        fields["files"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let files = if files.is_empty() { String::new() } else { format!(": {}", files.join(", ")) };
    let (level, text) = match (kind, fields["status"].as_str()) {
        ("compile", Some("success")) => ("info", format!("build succeeded{ms}")),
        ("compile", Some("error")) => {
            let errors: Vec<String> = fields["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| serde_json::from_value::<super::contract::ErrorEntry>(e.clone()).ok())
                .map(|e| e.line_text())
                .collect();
            ("error", format!("build failed: {}", errors.join("; ")))
        }
        ("load", _) => {
            ("info", format!("extension loaded ({})", fields["extensionId"].as_str().unwrap_or("?")))
        }
        ("reload", Some("refused")) => {
            ("error", format!("reload refused: {}", fields["message"].as_str().unwrap_or("")))
        }
        ("reload", _) => {
            ("info", format!("reloaded ({}){files}{ms}", fields["kind"].as_str().unwrap_or("extension")))
        }
        _ => return None,
    };
    Some(json!({"level": level, "source": "session", "text": text}))
}

/// What a reader asks for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The lowest level shown.
    pub level: Option<String>,
    /// Sources shown (empty: all).
    pub sources: Vec<String>,
    /// Case-insensitive substring of the text.
    pub contains: Option<String>,
    /// Read forward from this position (`<runId>:<offset>`); `None`: the newest entries.
    pub from: Option<Position>,
    pub max_bytes: usize,
}

/// A place in one run's `logs.ndjson`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub run: String,
    pub offset: u64,
}

impl Position {
    /// Parses `<runId>:<offset>` (or `start`: the beginning of the current run).
    pub fn parse(text: &str, current_run: &str) -> Option<Position> {
        if text == "start" {
            return Some(Position { run: current_run.to_owned(), offset: 0 });
        }
        let (run, offset) = text.rsplit_once(':')?;
        Some(Position { run: run.to_owned(), offset: offset.parse().ok()? })
    }

    pub fn text(&self) -> String {
        format!("{}:{}", self.run, self.offset)
    }
}

/// One entry as a reader gets it (repeats collapsed into `count`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub time: String,
    /// `console`, `exception`, or the session event (`compile`, `reload`, `load`).
    #[serde(rename = "type")]
    pub kind: String,
    pub level: String,
    pub source: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// The document or worker (a web page's URL for content scripts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// A content script's tab (`tabId` of the page tools) and frame (0: the top document;
    /// else the extension APIs' frame id), when the browser says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<i64>,
    /// Identical entries in a row, collapsed into this one.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: usize,
    /// The time of the last of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_time: Option<String>,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Entry {
    fn from_line(v: &Value) -> Option<Entry> {
        let s = |k: &str| v[k].as_str().map(str::to_owned);
        Some(Entry {
            time: s("time")?,
            kind: s("type")?,
            level: s("level").unwrap_or_else(|| "log".into()),
            source: s("source").unwrap_or_else(|| "extension-page".into()),
            text: s("text").unwrap_or_default(),
            file: s("file"),
            url: s("url"),
            line: v["line"].as_u64(),
            column: v["column"].as_u64(),
            context: s("context"),
            tab_id: v["tabId"].as_i64(),
            frame_id: v["frameId"].as_i64(),
            count: 1,
            last_time: None,
        })
    }

    fn same_as(&self, o: &Entry) -> bool {
        (&self.kind, &self.level, &self.source, &self.text, &self.url, self.line, self.column, &self.context)
            == (&o.kind, &o.level, &o.source, &o.text, &o.url, o.line, o.column, &o.context)
            && (self.tab_id, self.frame_id) == (o.tab_id, o.frame_id)
    }

    /// `10:30:00.123 error background bg.js:4:7 text (×3)`.
    pub fn line_text(&self) -> String {
        let time = self.time.get(11..23).unwrap_or(&self.time);
        let place = match (&self.file, &self.url, self.line) {
            (Some(f), _, Some(l)) | (None, Some(f), Some(l)) => match self.column {
                Some(c) => format!(" {f}:{l}:{c}"),
                None => format!(" {f}:{l}"),
            },
            (Some(f), _, None) => format!(" {f}"),
            _ => String::new(),
        };
        let times = if self.count > 1 { format!(" (×{})", self.count) } else { String::new() };
        let text = self.text.replace('\n', "\n    ");
        format!("{time} {} {}{place} {text}{times}", self.level, self.source)
    }

    /// Bytes this entry takes in a result.
    fn size(&self) -> usize {
        serde_json::to_string(self).map_or(0, |s| s.len() + 1)
    }
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The end of what was read: `since` of a later call gets only newer entries.
    pub next: String,
    /// Set when entries after these were left out for `maxBytes`: read on from here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Older matching entries left out (reading the newest).
    pub omitted: usize,
    /// The position asked for belonged to an earlier run: this run was read from its start.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub restarted: bool,
}

/// Reads `bytes` (the whole `logs.ndjson` of run `run`) as `q` asks.
pub fn read(bytes: &[u8], run: &str, q: &Query) -> Page {
    let (start, restarted) = match &q.from {
        Some(p) if p.run == run && p.offset <= bytes.len() as u64 => (p.offset as usize, false),
        Some(p) => (0, p.run != run),
        None => (0, false),
    };
    // Only whole lines: a line being written has no newline yet.
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1).max(start);
    let min_rank = q.level.as_deref().and_then(level_rank).unwrap_or(0);
    let needle = q.contains.as_ref().map(|c| c.to_lowercase());
    let mut matched: Vec<(Entry, usize)> = Vec::new();
    let mut at = start;
    for line in bytes[start..end].split_inclusive(|b| *b == b'\n') {
        at += line.len();
        let Some(entry) = serde_json::from_slice::<Value>(line).ok().as_ref().and_then(Entry::from_line)
        else {
            continue;
        };
        let keep = level_rank(&entry.level).unwrap_or(1) >= min_rank
            && (q.sources.is_empty() || q.sources.contains(&entry.source))
            && needle.as_ref().is_none_or(|n| entry.text.to_lowercase().contains(n));
        if !keep {
            continue;
        }
        match matched.last_mut() {
            Some((last, last_end)) if last.same_as(&entry) => {
                last.count += 1;
                last.last_time = Some(entry.time);
                *last_end = at;
            }
            _ => matched.push((entry, at)),
        }
    }
    let position = |offset: usize| Position { run: run.to_owned(), offset: offset as u64 }.text();
    let mut budget = q.max_bytes;
    if q.from.is_some() {
        // Forward: oldest first, cut at the budget.
        let mut entries = Vec::new();
        let mut cursor = None;
        for (entry, entry_end) in matched {
            let size = entry.size();
            if size > budget && !entries.is_empty() {
                cursor = Some(entries_end(&entries, start));
                break;
            }
            budget = budget.saturating_sub(size);
            entries.push((entry, entry_end));
        }
        let cursor = cursor.map(position);
        let next = if cursor.is_some() { entries_end(&entries, start) } else { end };
        return Page {
            entries: entries.into_iter().map(|(e, _)| e).collect(),
            next: position(next),
            cursor,
            omitted: 0,
            restarted,
        };
    }
    // Newest: the last entries that fit, in order.
    let mut kept = Vec::new();
    while let Some((entry, _)) = matched.pop() {
        let size = entry.size();
        if size > budget && !kept.is_empty() {
            matched.push((entry, 0));
            break;
        }
        budget = budget.saturating_sub(size);
        kept.push(entry);
    }
    kept.reverse();
    Page { entries: kept, next: position(end), cursor: None, omitted: matched.len(), restarted }
}

/// Appends `more` to `entries` (a later read of the same stream), collapsing a repeat
/// across the two.
pub fn extend_collapsed(entries: &mut Vec<Entry>, more: Vec<Entry>) {
    for entry in more {
        match entries.last_mut() {
            Some(last) if last.same_as(&entry) => {
                last.count += entry.count;
                last.last_time = entry.last_time.or(Some(entry.time));
            }
            _ => entries.push(entry),
        }
    }
}

fn entries_end(entries: &[(Entry, usize)], start: usize) -> usize {
    entries.last().map_or(start, |(_, e)| *e)
}

/// Whether an event is an uncaught error (for the `exception` type of its line).
pub fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Console => "console",
        EventKind::Exception => "exception",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles() -> Roles {
        let mut r = Roles::default();
        r.content.insert("content.js".into());
        r.background.insert("bg.js".into());
        r.surfaces.insert("popup.html".into(), "popup");
        r.surfaces.insert("options.html".into(), "options");
        r
    }

    fn ev(context: Option<&str>, url: Option<&str>) -> ConsoleEvent {
        ConsoleEvent {
            kind: EventKind::Console,
            level: Level::Log,
            text: "t".into(),
            url: url.map(str::to_owned),
            line: Some(1),
            column: None,
            context: context.map(str::to_owned),
            tab_id: None,
            frame_id: None,
            page_world: false,
        }
    }

    #[test]
    fn sources_from_contexts_and_scripts_in_both_engines() {
        let r = roles();
        let c = Some("chrome-extension://id/");
        let f = Some("moz-extension://u/");
        type Row<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>, &'a str);
        let table: &[Row] = &[
            // Chromium: the worker, a content script in a page, the popup, options.
            (c, Some("chrome-extension://id/bg.js"), Some("chrome-extension://id/bg.js"), "background"),
            (c, Some("http://127.0.0.1/"), Some("chrome-extension://id/content.js"), "content-script"),
            (c, Some("chrome-extension://id/popup.html"), Some("chrome-extension://id/popup.js"), "popup"),
            (c, Some("chrome-extension://id/options.html?x=1"), None, "options"),
            (c, Some("chrome-extension://id/other.html"), None, "extension-page"),
            (c, Some("service worker registration"), None, "background"),
            // Firefox: the background's file, a module it imported, the generated page,
            // a tab's URL for content scripts, error output without a context.
            (f, Some("moz-extension://u/bg.js"), Some("moz-extension://u/bg.js"), "background"),
            (f, Some("moz-extension://u/lib/util.js"), None, "background"),
            (f, Some("moz-extension://u/_generated_background_page.html"), None, "background"),
            (f, Some("http://127.0.0.1/other"), Some("moz-extension://u/content.js"), "content-script"),
            (f, Some("moz-extension://u/popup.html"), Some("moz-extension://u/popup.js"), "popup"),
            (f, None, Some("moz-extension://u/content.js"), "content-script"),
            (f, None, Some("moz-extension://u/bg.js"), "background"),
            (f, None, Some("moz-extension://u/popup.html"), "popup"),
            (f, None, None, "extension-page"),
        ];
        for (base, context, url, want) in table {
            assert_eq!(source_of(&r, *base, &ev(*context, *url)), *want, "{context:?} {url:?}");
        }
    }

    fn line(time: &str, level: &str, source: &str, text: &str) -> String {
        format!(
            "{}\n",
            json!({"time": format!("2026-12-01T10:00:{time}.000Z"), "type": "console", "level": level, "source": source, "text": text, "url": "u", "line": 3})
        )
    }

    fn stream() -> Vec<u8> {
        let mut s = String::new();
        s += &line("01", "log", "background", "started");
        s += &line("02", "log", "content-script", "tick");
        s += &line("03", "log", "content-script", "tick");
        s += &line("04", "log", "content-script", "tick");
        s += &line("05", "error", "background", "Boom");
        s += "{\"half\": tr"; // being written
        s.into_bytes()
    }

    fn q() -> Query {
        Query { max_bytes: 1 << 20, ..Query::default() }
    }

    #[test]
    fn repeats_collapse_and_filters_apply() {
        let bytes = stream();
        let page = read(&bytes, "r1", &q());
        let texts: Vec<(&str, usize)> = page.entries.iter().map(|e| (e.text.as_str(), e.count)).collect();
        assert_eq!(texts, [("started", 1), ("tick", 3), ("Boom", 1)]);
        assert_eq!(page.entries[1].last_time.as_deref(), Some("2026-12-01T10:00:04.000Z"));
        let whole = bytes.iter().rposition(|b| *b == b'\n').unwrap() + 1;
        assert_eq!(page.next, format!("r1:{whole}"), "the half-written line is not passed");
        let errors = read(&bytes, "r1", &Query { level: Some("warn".into()), ..q() });
        assert_eq!(errors.entries.len(), 1);
        let cs = read(&bytes, "r1", &Query { sources: vec!["content-script".into()], ..q() });
        assert_eq!((cs.entries.len(), cs.entries[0].count), (1, 3));
        let boom = read(&bytes, "r1", &Query { contains: Some("boom".into()), ..q() });
        assert_eq!(boom.entries[0].text, "Boom");
        assert!(
            page.entries[2].line_text().ends_with("error background u:3 Boom"),
            "{}",
            page.entries[2].line_text()
        );
        assert!(page.entries[1].line_text().ends_with("tick (×3)"));
    }

    #[test]
    fn since_reads_only_newer_entries_and_another_run_restarts() {
        let bytes = stream();
        let first = read(&bytes, "r1", &q());
        let mut more = bytes.clone();
        more.truncate(first.next.rsplit_once(':').unwrap().1.parse().unwrap());
        more.extend_from_slice(line("06", "info", "popup", "popup open").as_bytes());
        let from = Position::parse(&first.next, "r1");
        let later = read(&more, "r1", &Query { from, ..q() });
        assert_eq!(later.entries.len(), 1);
        assert_eq!(later.entries[0].source, "popup");
        assert!(!later.restarted);
        let old = read(&more, "r1", &Query { from: Position::parse("r0:99", "r1"), ..q() });
        assert!(old.restarted);
        assert_eq!(old.entries.len(), 4);
        assert_eq!(Position::parse("start", "r1"), Some(Position { run: "r1".into(), offset: 0 }));
        assert_eq!(Position::parse("nonsense", "r1"), None);
    }

    #[test]
    fn max_bytes_pages_forward_and_keeps_the_newest_backward() {
        let bytes = stream();
        let one = read(&bytes, "r1", &q()).entries[0].size();
        let small = Query { max_bytes: one + 10, from: Position::parse("start", "r1"), ..q() };
        let first = read(&bytes, "r1", &small);
        assert_eq!(first.entries.len(), 1);
        let cursor = first.cursor.clone().expect("a cursor to read on");
        let second = read(&bytes, "r1", &Query { from: Position::parse(&cursor, "r1"), ..small.clone() });
        assert_eq!(second.entries[0].text, "tick");
        assert_eq!(second.entries[0].count, 3, "a collapsed run stays whole across pages");
        let newest = read(&bytes, "r1", &Query { max_bytes: one + 10, ..q() });
        assert_eq!(newest.entries.len(), 1);
        assert_eq!(newest.entries[0].text, "Boom");
        assert_eq!(newest.omitted, 2);
    }

    #[test]
    fn repeats_collapse_across_reads() {
        let bytes = stream();
        let all = read(&bytes, "r1", &q()).entries;
        let mut two = all[..2].to_vec();
        let mut tick = all[1].clone();
        tick.count = 1;
        tick.last_time = None;
        extend_collapsed(&mut two, vec![tick, all[2].clone()]);
        assert_eq!(two.iter().map(|e| e.count).collect::<Vec<_>>(), [1, 4, 1]);
    }

    #[test]
    fn session_events_become_log_lines() {
        let ok = session_line("compile", &json!({"status": "success", "durationMs": 12})).unwrap();
        assert_eq!(
            (ok["level"].as_str(), ok["text"].as_str()),
            (Some("info"), Some("build succeeded (12 ms)"))
        );
        let bad = session_line(
            "compile",
            &json!({"status": "error", "errors": [{"source": "build", "message": "x", "file": "a.js", "line": 2, "code": "BUILD_FAILED"}]}),
        )
        .unwrap();
        assert_eq!(bad["text"], "build failed: a.js:2 x");
        let reload =
            session_line("reload", &json!({"kind": "background", "files": ["bg.js"], "durationMs": 40}))
                .unwrap();
        assert_eq!(reload["text"], "reloaded (background): bg.js (40 ms)");
        assert!(session_line("compile", &json!({"status": "start"})).is_none());
        assert!(session_line("helper", &json!({})).is_none());
    }
}
