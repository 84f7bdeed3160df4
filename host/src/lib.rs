//! `webext-mcp-host`: everything that sits between an MCP server and the helper extension.
//!
//! ```text
//! webext-mcp serve ──client──▶ socket router ──▶ native-messaging stdio ──▶ helper extension
//!                    (this crate)  (this crate)      (this crate, host mode)
//! ```
//!
//! [`protocol`] is the wire contract with no I/O: message types, the error-code table and the
//! frame codec. Every other module is built on it.

pub mod protocol;
