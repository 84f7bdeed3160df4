//! The `debug` toolset: checking a client's wiring.

pub mod echo;
pub mod ping;
