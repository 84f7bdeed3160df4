//! `console_summary`: counts by level and source and the most frequent distinct messages of
//! the page's and the extension's console.

use serde_json::{Value, json};
use webext_mcp_engine::text::clip_bytes;

use crate::runner::{ConsoleEvent, EventKind, Level};
use crate::session::logs::level_name;

/// Distinct messages listed in a console summary.
const TOP: usize = 5;

/// Where a console event came from.
fn source_of(ev: &ConsoleEvent, base_url: Option<&str>) -> &'static str {
    let context = ev.context.as_deref().unwrap_or("");
    if context == "service worker registration" {
        return "worker";
    }
    match base_url {
        Some(base) if context.starts_with(base) => {
            let path = context.split(['?', '#']).next().unwrap_or(context);
            // Firefox's background is a page it generates for `background.scripts`.
            let worker = path.ends_with(".js")
                || path.ends_with(".mjs")
                || path.ends_with("/_generated_background_page.html");
            if worker { "worker" } else { "extension_page" }
        }
        _ => "content_script",
    }
}

/// Counts by level and by source, and the [`TOP`] most frequent distinct messages (errors
/// first). `page` are the tab's own messages; `ext` the extension's (content scripts,
/// worker, extension pages).
pub fn console_summary(page: &[ConsoleEvent], ext: &[ConsoleEvent], base_url: Option<&str>) -> Value {
    let mut levels = serde_json::Map::new();
    for l in ["error", "warn", "info", "log", "debug"] {
        levels.insert(l.to_owned(), json!(0));
    }
    let mut sources = serde_json::Map::new();
    // (source, level, text) → (count, first event)
    let mut distinct: Vec<((&'static str, Level, String), usize, &ConsoleEvent)> = Vec::new();
    // Firefox files content scripts' messages under the page they run in: a page message
    // from the extension's own files is the content script's.
    let of_page = |e: &ConsoleEvent| match (base_url, e.url.as_deref()) {
        (Some(base), Some(url)) if url.starts_with(base) => "content_script",
        _ => "page",
    };
    // A main-world line is in the page's console already (`ConsoleEvent::page_world`).
    let ext = ext.iter().filter(|e| !e.page_world);
    let tagged = page.iter().map(|e| (of_page(e), e)).chain(ext.map(|e| (source_of(e, base_url), e)));
    let mut total = 0usize;
    for (source, ev) in tagged {
        total += 1;
        let level = level_name(ev.level);
        let n = levels.get(level).and_then(Value::as_u64).unwrap_or(0);
        levels.insert(level.to_owned(), json!(n + 1));
        let by = sources.entry(source).or_insert_with(|| json!({}));
        by[level] = json!(by[level].as_u64().unwrap_or(0) + 1);
        let key = (source, ev.level, ev.text.clone());
        match distinct.iter_mut().find(|d| d.0 == key) {
            Some(d) => d.1 += 1,
            None => distinct.push((key, 1, ev)),
        }
    }
    // Most severe first, then most frequent; ties keep arrival order.
    distinct.sort_by(|a, b| b.0.1.cmp(&a.0.1).then(b.1.cmp(&a.1)));
    let top: Vec<Value> = distinct
        .iter()
        .take(TOP)
        .map(|((source, level, text), count, ev)| {
            json!({
                "level": level_name(*level),
                "source": source,
                "text": clip_bytes(text, 300),
                "count": count,
                "exception": ev.kind == EventKind::Exception,
                "url": ev.url,
                "line": ev.line,
                "column": ev.column,
            })
        })
        .collect();
    json!({"total": total, "counts": levels, "bySource": sources, "distinct": distinct.len(), "top": top})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(level: Level, text: &str, context: Option<&str>) -> ConsoleEvent {
        ConsoleEvent {
            kind: EventKind::Console,
            level,
            text: text.to_owned(),
            url: None,
            line: None,
            column: None,
            context: context.map(str::to_owned),
            tab_id: None,
            frame_id: None,
            page_world: false,
        }
    }

    #[test]
    fn console_summary_counts_by_level_and_source_and_ranks_errors_first() {
        let base = "chrome-extension://abc/";
        let page = [ev(Level::Log, "hello", None), ev(Level::Log, "hello", None)];
        let ext = [
            ev(Level::Error, "cs failed", Some("http://127.0.0.1/")),
            ev(Level::Error, "worker failed", Some("chrome-extension://abc/bg.js")),
            ev(Level::Warn, "popup warn", Some("chrome-extension://abc/popup.html")),
            ev(Level::Error, "late", Some("service worker registration")),
        ];
        let s = console_summary(&page, &ext, Some(base));
        assert_eq!(s["total"], 6);
        assert_eq!(s["counts"]["error"], 3);
        assert_eq!(s["counts"]["log"], 2);
        assert_eq!(s["bySource"]["content_script"]["error"], 1);
        assert_eq!(s["bySource"]["worker"]["error"], 2);
        assert_eq!(s["bySource"]["extension_page"]["warn"], 1);
        assert_eq!(s["bySource"]["page"]["log"], 2);
        let top = s["top"].as_array().unwrap();
        assert_eq!(top.len(), 5);
        assert_eq!(top[0]["text"], "cs failed");
        assert_eq!(top[3]["text"], "popup warn");
        assert_eq!(top[4]["text"], "hello");
        assert_eq!(top[4]["count"], 2);
        assert_eq!(s["distinct"], 5);
    }

    /// Issue 25: Firefox lists a content script's console calls among the page's; they
    /// count as the content script's.
    #[test]
    fn page_messages_from_extension_files_are_the_content_scripts() {
        let base = "moz-extension://u/";
        let mut cs = ev(Level::Error, "cs", None);
        cs.url = Some("moz-extension://u/content.js".into());
        let mut own = ev(Level::Warn, "own", None);
        own.url = Some("http://127.0.0.1/".into());
        let s = console_summary(&[cs, own], &[], Some(base));
        assert_eq!(s["bySource"]["content_script"]["error"], 1, "{s}");
        assert_eq!(s["bySource"]["page"]["warn"], 1, "{s}");
    }
}
