//! `webext-mcp-host`: everything that sits between an MCP server and the helper extension.
//!
//! ```text
//! webext-mcp serve ──client::Hub──▶ unix socket / named pipe ──▶ native::serve (host mode)
//!                  (select, reconnect)   (transport)               │ router: ids per client,
//!                                                                  │ timeouts, events
//!                                                                  ▼
//!                                                   stdio frames (protocol::codec) ──▶ helper extension
//! ```
//!
//! [`protocol`] is the wire contract with no I/O: message types, the error-code table, the
//! frame codec, chunking, the method table. [`runtime`] and [`descriptor`] say where hosts
//! live and how clients find them, through [`private_dir`] (a runtime dir checked once and
//! then used only through its open handle: nothing another user planted is read, nothing
//! that is not ours is deleted); [`transport`] hides Unix sockets vs Windows pipes;
//! [`router`] is the host's routing state; [`native`] runs host mode; [`client`] is what the
//! MCP server uses; [`peer`] plays the extension in tests and benchmarks.

pub mod browsers;
pub mod client;
pub mod descriptor;
pub mod digest;
pub mod io;
pub mod log_policy;
pub mod native;
pub mod peer;
pub mod private_dir;
pub mod process;
pub mod protocol;
pub mod router;
pub mod runtime;
pub mod select;
pub mod transport;
