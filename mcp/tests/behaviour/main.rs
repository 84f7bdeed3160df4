//! The behaviour harness (`webext_mcp::behaviour`) on hand-written dist folders in headless
//! Chromium and Firefox: each part of the report, the comparison of two builds, and a hostile
//! test page.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod compare;
mod failures;
mod hostile;
mod surfaces;

use std::path::PathBuf;

/// A fixture folder of this crate.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/behaviour/fixtures").join(name)
}
