//! The MCP surface of the real binary: lifecycle over stdio, tool results and errors, toolsets,
//! the CLI twin, and a client not written in this project.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/mcp_client.rs"]
#[allow(dead_code)]
mod client;

#[path = "../common/python.rs"]
mod python;

mod cli_twin;
mod errors;
mod inspector;
mod interop;
mod lifecycle;
mod toolsets;
mod wait_progress;
