//! The `capture` toolset: screenshots of a tab or an element.

mod save;
pub mod screenshot;
