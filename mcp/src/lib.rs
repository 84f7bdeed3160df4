//! `webext-mcp`: one binary that is an MCP server, its CLI twin, and (when a browser starts
//! it) the native-messaging host.
//!
//! ```text
//! argv ──▶ cli ──▶ serve ──▶ server (rmcp, stdio) ─┐
//!              └─▶ call  ─────────────────────────┴─▶ tools (one registry) ──▶ domain modules
//!              └─▶ config                                   │
//!                                                           └─▶ errors mapped once (error.rs)
//! ```
//!
//! Every tool is a plain async function in `tools/`; the MCP server and `webext-mcp call`
//! reach the same function through the same registry, so they cannot drift.

pub mod behaviour;
pub mod bridge;
pub mod browsers;
pub mod build;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod doctor;
pub mod error;
pub mod feature;
pub mod file;
pub mod helper;
pub mod install;
pub mod lock;
pub mod logging;
pub mod manifest;
pub mod paths;
pub mod resources;
pub mod runner;
pub mod server;
pub mod session;
pub mod text;
pub mod timestamp;
pub mod tools;
pub mod upload;
pub mod validation;
