//! Linked modules kept for the life of the process, so the second browser of a build and
//! every dev-session rebuild reuse what did not change. The key is the module's path, its
//! text as read (so an edit is always a miss: no mtime to trust), how it is compiled and its
//! bundle's URL; an entry also records the env values the module read (its
//! `process.env.X`s, so the two browsers of one build share a module unless it reads
//! `EXTENSION_PUBLIC_BROWSER`), and what each of its imports resolved to — reused only when
//! they all resolve the same way with the same ids in the new graph (`Graph::reuse`).
//!
//! A dev build's entries carry their source-map tokens; a production build's minified text
//! is computed once per entry, when first asked for.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::link::Issue;
use super::resolve::Unresolved;
use crate::build::env::PublicEnv;
use crate::build::inject::Leftover;

/// Linked text kept at most; past it the cache starts again empty.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Variants of one key kept (one per distinct set of env values the module reads).
const MAX_VARIANTS: usize = 4;

/// One linked module and what its linking asked the resolver and the env.
#[derive(Debug)]
pub struct Entry {
    pub function: String,
    pub esm: bool,
    pub issues: Vec<Issue>,
    /// `process.env` uses left in it (positions in the text as read).
    pub leftovers: Vec<Leftover>,
    /// Every resolve call in order: the specifier, what it gave, and the id it was given.
    pub calls: Vec<(String, Result<PathBuf, Unresolved>, Option<usize>)>,
    /// Specifiers `new URL("…", import.meta.url)` named, and those of them never imported
    /// (`link::Linked`).
    pub urls: Vec<String>,
    pub url_only: Vec<String>,
    /// Every env name the module looked up, with the value it had.
    pub env: Vec<(String, Option<String>)>,
    /// Source-map tokens of `function` (dev builds, whose compile key says so; else empty).
    pub tokens: Vec<super::map::Token>,
    /// `function` minified, once asked for (`None`: it cannot be, and is shipped as is).
    pub minified: OnceLock<Option<String>>,
}

impl Entry {
    /// Whether `env` gives every name this module read the value it had.
    fn env_matches(&self, env: &PublicEnv) -> bool {
        self.env.iter().all(|(name, value)| env.get(name) == value.as_deref())
    }
}

#[derive(Default)]
struct Store {
    map: HashMap<u64, Vec<Arc<Entry>>>,
    bytes: usize,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

/// The key of a module: its path, text as read, how it is compiled and its bundle's URL.
pub fn key(path: &Path, text: &str, compile: &str, url: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (path, text, compile, url).hash(&mut h);
    h.finish()
}

/// The entry for `key` made under the same values of the env names it read.
pub fn get(key: u64, env: &PublicEnv) -> Option<Arc<Entry>> {
    let store = STORE.lock().ok()?;
    store.as_ref()?.map.get(&key)?.iter().find(|e| e.env_matches(env)).cloned()
}

pub fn put(key: u64, entry: Entry) -> Arc<Entry> {
    let entry = Arc::new(entry);
    let Ok(mut guard) = STORE.lock() else { return entry };
    let store = guard.get_or_insert_with(Store::default);
    let size = entry.function.len();
    if store.bytes + size > MAX_BYTES {
        *store = Store::default();
    }
    store.bytes += size;
    let variants = store.map.entry(key).or_default();
    if variants.len() >= MAX_VARIANTS {
        variants.remove(0);
    }
    variants.push(Arc::clone(&entry));
    entry
}
