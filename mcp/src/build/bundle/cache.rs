//! Linked modules kept for the life of the process, so the second browser of a build and
//! every dev-session rebuild reuse what did not change: a module whose text (after env
//! injection), compile settings and bundle URL are the same, and whose imports resolve to the
//! same files with the same ids, is not compiled or parsed again. Anything else is a miss and
//! the module is linked afresh (the key is the text itself, so an edit is always a miss).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::link::Issue;
use super::resolve::Unresolved;

/// Linked text kept at most; past it the cache starts again empty.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// One linked module and what its linking asked the resolver.
#[derive(Debug)]
pub struct Entry {
    pub function: String,
    pub esm: bool,
    pub issues: Vec<Issue>,
    /// Every resolve call in order: the specifier, what it gave, and the id it was given.
    pub calls: Vec<(String, Result<PathBuf, Unresolved>, Option<usize>)>,
}

#[derive(Default)]
struct Store {
    map: HashMap<u64, Arc<Entry>>,
    bytes: usize,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

/// The key of a module: its path, text, how it is compiled and its bundle's URL.
pub fn key(path: &Path, text: &str, compile: &str, url: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (path, text, compile, url).hash(&mut h);
    h.finish()
}

pub fn get(key: u64) -> Option<Arc<Entry>> {
    let store = STORE.lock().ok()?;
    store.as_ref()?.map.get(&key).cloned()
}

pub fn put(key: u64, entry: Entry) {
    let Ok(mut guard) = STORE.lock() else { return };
    let store = guard.get_or_insert_with(Store::default);
    let size = entry.function.len();
    if store.bytes + size > MAX_BYTES {
        *store = Store::default();
    }
    store.bytes += size;
    store.map.insert(key, Arc::new(entry));
}
