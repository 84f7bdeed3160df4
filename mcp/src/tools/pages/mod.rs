//! The `pages` toolset: connected browsers, their tabs and navigation, Firefox containers, the
//! viewport and emulation.

pub mod connected;
pub mod containers;
pub mod tabs;
pub mod viewport;
