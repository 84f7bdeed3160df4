//! The `observe` toolset: what pages logged and fetched.

pub mod console;
pub mod network;
