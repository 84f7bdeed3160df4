//! The `dev` toolset: dev sessions (dev, start, preview, wait, stop), source inspection, and
//! the session extension's logs, reload, eval, storage and pages.

pub mod act;
mod describe;
pub mod logs;
mod progress;
pub mod sessions;
pub mod source_inspect;
