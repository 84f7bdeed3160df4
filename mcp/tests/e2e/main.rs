//! End-to-end tests in real, headless browsers: one crate, one module per behaviour, so the
//! 2-core CI links one binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/mod.rs"]
mod common;

mod build_load;
mod bundle_load;
mod catalog_load;
mod contract_load;
mod feature_frameworks;
mod feature_load;
mod helper_bench;
mod helper_connect;
mod helper_frames;
mod helper_reconnect;
mod helper_status;
/// The helper-browser harness, shared with the page-tool tests.
mod helper_support {
    pub use crate::common::helper::*;
}
mod install_connect;
mod readme_firefox;
mod runner_checks;
mod runner_chromium;
mod runner_cleanup;
mod runner_failures;
mod runner_firefox;
