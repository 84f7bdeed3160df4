//! The `input` toolset: acting on pages (clicks, fills, keys, drags, scrolls, waits, scripts),
//! uploads and dialog answers.

pub mod actions;
mod args;
pub mod dialogs;
pub mod upload;
