//! The bridge against the real `webext-mcp` binary in host mode, with a scripted extension
//! (`webext_mcp_host::peer`) on its stdio. One module per behaviour; every test has its own
//! runtime dir (`WEBEXT_MCP_RUNTIME_DIR`), generous deadlines and no timing assertions.

// Helpers outside #[test] fns are test code too: a failed step should panic with context.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bounds;
mod discovery;
mod events;
mod harness;
mod local_trust;
mod malformed;
#[path = "../common/python.rs"]
mod python;
mod security;
mod skew;
mod stress;
