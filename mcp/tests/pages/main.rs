//! The page tools end to end, in real headless Chromium and Firefox ESR with the helper
//! extension: tab management, and snapshots of a local corpus (forms, tables, ARIA widgets,
//! shadow roots, frames, CSP, a 10 000-node page, the Rust docs). One browser per family is
//! shared by the whole binary; every test runs its own MCP server and opens its own tabs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/mod.rs"]
mod common;

mod actions;
mod capture;
mod capture_bench;
mod capture_frames;
mod console;
mod console_debugger;
mod containers;
mod corpus;
mod dialogs;
mod network;
mod observe_bench;
mod png;
mod progress;
mod read_diff;
mod read_pages;
mod read_scoped;
mod read_text;
mod reading;
mod redaction;
mod sdk_client;
mod secrets;
mod snapshot_basics;
mod snapshot_bench;
mod snapshot_corpus;
mod storage;
mod subscriptions;
mod tabs;
mod timeouts;
mod trust;
mod upload;
mod viewport;

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::browsers::Engine;
use webext_mcp_host::protocol::timeouts::MAX_TIMEOUT_MS;

use common::helper::{HelperBrowser, shared};
use common::mcp_client::Server;

pub const BOTH: [Engine; 2] = [Engine::Chromium, Engine::Gecko];

/// Which walkers a reading call's `timings` say served it (`text`, `scoped`, `main`, …).
pub fn walkers(out: &Value) -> Vec<String> {
    out["timings"]["walkers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap_or("").to_owned())
        .collect()
}

/// One MCP server (`webext-mcp serve --browser <session>`) against a shared helper browser.
pub struct Agent {
    pub server: Server,
    pub browser: &'static HelperBrowser,
    _home: TempDir,
}

impl Agent {
    pub fn new(family: Engine) -> Agent {
        Agent::on(shared(family))
    }

    /// An MCP server against `browser` (the shared one, or one a test keeps to itself).
    pub fn on(browser: &'static HelperBrowser) -> Agent {
        let home = tempfile::Builder::new().prefix("wxm-agent-").tempdir().unwrap();
        let server =
            Server::serve_in(home.path(), browser.runtime_dir.path(), &["--browser", &browser.session]);
        Agent { server, browser, _home: home }
    }

    pub fn family(&self) -> &'static str {
        self.browser.family.name()
    }

    /// Calls a tool; the whole result (`content`, `structuredContent`, `isError`).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.server.call(tool, args)
    }

    /// Calls a tool that must succeed; its structured content.
    pub fn ok(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone());
        assert!(
            r["isError"] != json!(true),
            "{}: {tool} {args} failed: {}",
            self.family(),
            r["content"][0]["text"]
        );
        r["structuredContent"].clone()
    }

    /// Calls a tool that must fail; its error object (`code`, `message`, `hint`).
    pub fn err(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone());
        assert_eq!(r["isError"], json!(true), "{}: {tool} {args} should fail: {r}", self.family());
        r["structuredContent"]["error"].clone()
    }

    /// The text content of a successful call.
    pub fn text(&mut self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args.clone());
        assert!(
            r["isError"] != json!(true),
            "{}: {tool} {args} failed: {}",
            self.family(),
            r["content"][0]["text"]
        );
        r["content"][0]["text"].as_str().unwrap().to_owned()
    }

    /// Opens `url` in a background tab (this server's current page); its tab id.
    pub fn open(&mut self, url: &str) -> i64 {
        // The Rust book's print.html (the whole book in one page) takes ~15 s to load here;
        // the longest load wait a tool allows.
        let out = self.ok("new_page", json!({ "url": url, "timeoutMs": MAX_TIMEOUT_MS }));
        out["tab"]["tabId"].as_i64().unwrap()
    }

    /// The full snapshot text of a tab, all pages concatenated.
    pub fn snapshot(&mut self, tab: i64, extra: Value) -> String {
        let mut args = json!({ "tabId": tab });
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            args[k] = v;
        }
        let mut out = self.ok("take_snapshot", args.clone());
        let mut text = out["text"].as_str().unwrap().to_owned();
        while let Some(cursor) = out["nextCursor"].as_str().map(str::to_owned) {
            out = self.ok("take_snapshot", json!({ "tabId": tab, "cursor": cursor }));
            text.push_str(out["text"].as_str().unwrap());
        }
        text
    }

    pub fn close(&mut self, tab: i64) {
        self.ok("close_page", json!({ "tabId": tab }));
    }
}
