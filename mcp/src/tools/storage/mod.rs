//! The `storage` toolset: cookies and a tab's web storage and IndexedDB.

pub mod cookies;
pub mod web_storage;
