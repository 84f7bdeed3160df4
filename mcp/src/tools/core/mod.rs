//! The `core` toolset: the server itself and its installation.

pub mod info;
pub mod install;
