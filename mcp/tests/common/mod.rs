//! Helpers shared by the integration test crates: a local HTTP server, test extensions
//! written to temp dirs, browsers (shared per test binary, or isolated per test) and a
//! process scanner that proves no browser is left behind.
//!
//! Include with `#[path = "../common/mod.rs"] mod common;` from a test crate's root.

#![allow(dead_code)]

pub mod at_exit;
pub mod behaviour;
pub mod browser;
pub mod ext;
pub mod helper;
pub mod http;
pub mod mcp_client;
pub mod pages;
pub mod planted;
pub mod procs;
pub mod python;

use std::time::Duration;

/// Generous deadline for anything a browser does (2 shared cores, several test binaries).
pub const DEADLINE: Duration = Duration::from_secs(30);
