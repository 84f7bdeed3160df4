//! The MCP surface of the real binary: lifecycle over stdio, tool results and errors, toolsets,
//! the CLI twin, and a client not written in this project.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod client;

mod cli_twin;
mod errors;
mod interop;
mod lifecycle;
mod toolsets;
