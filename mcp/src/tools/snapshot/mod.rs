//! The `snapshot` toolset: snapshots with refs, page text, find by text, ref to selector.

pub mod reading;
pub mod take_snapshot;
