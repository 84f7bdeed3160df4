//! The `browsers` toolset: browsers on this machine, and the ones webext-mcp installs itself.

pub mod managed;
mod system;
