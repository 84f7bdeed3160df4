//! Dev sessions end to end, in headless Chromium: `extension_dev` / `start` / `preview` /
//! `wait` / `stop` through the real binary (MCP over stdio and the CLI), live reload of a
//! project written here, errors with file and line, and clean-up of every process.
//!
//! Tests that launch a browser take [`support::browser_slot`], so at most one session runs
//! at a time on the 2-core CI machines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/mod.rs"]
mod common;

mod bad_inputs;
mod bundled;
mod cli_detach;
mod consent;
mod contract;
mod dev_loop;
mod first_hour;
mod inspect;
mod live_tools;
mod managed_browser;
mod owner_exit;
mod page_reload;
mod progress;
mod project_flags;
mod start_preview;
mod starting;
mod support;
mod upload_roots;
