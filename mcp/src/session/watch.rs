//! Watching a project for changes: a poller on its own thread.
//!
//! Polling (size, modification time and inode of every file, every 15 ms, slower when the
//! tree is large) instead of an OS
//! notification API: it is portable, needs no dependency, sees editors' write-aside-and-
//! rename saves like any other, and a project of a few hundred files costs well under a
//! millisecond per round. Changes are debounced: a batch is handed over once the tree has
//! been quiet for one more round (so an editor's burst of writes is one rebuild), or after
//! 300 ms of continuous writing at most.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;

/// Time between two scans of a small tree.
pub const POLL: Duration = Duration::from_millis(15);

/// The pause after a scan that took `took`: [`POLL`], or five times the scan for large trees
/// (so watching never costs more than a sixth of a core).
fn pause_after(took: Duration) -> Duration {
    POLL.max(took * 5)
}
/// Longest a batch waits for the tree to become quiet.
const MAX_BATCH: Duration = Duration::from_millis(300);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

type Snapshot = BTreeMap<PathBuf, Stamp>;

/// Folder names never watched (dependencies, VCS, outputs).
fn skipped(name: &str) -> bool {
    matches!(name, "node_modules" | ".git" | ".extension-js" | "target" | ".hg" | ".svn")
        || name.starts_with(".webext-mcp-")
}

/// Every file under `root`, except skipped folders and `exclude` (the output folder).
fn scan(root: &Path, exclude: &Path) -> Snapshot {
    let mut out = Snapshot::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                let name = entry.file_name();
                if path == exclude || skipped(&name.to_string_lossy()) {
                    continue;
                }
                stack.push(path);
            } else {
                out.insert(path, stamp(&meta));
            }
        }
    }
    out
}

#[cfg(unix)]
fn stamp(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    Stamp { len: meta.len(), modified: meta.modified().ok(), inode: meta.ino() }
}

#[cfg(not(unix))]
fn stamp(meta: &std::fs::Metadata) -> Stamp {
    Stamp { len: meta.len(), modified: meta.modified().ok(), inode: 0 }
}

/// Files added, removed or changed between two snapshots.
fn diff(old: &Snapshot, new: &Snapshot) -> BTreeSet<PathBuf> {
    let mut changed: BTreeSet<PathBuf> =
        new.iter().filter(|(p, s)| old.get(*p) != Some(s)).map(|(p, _)| p.clone()).collect();
    changed.extend(old.keys().filter(|p| !new.contains_key(*p)).cloned());
    changed
}

/// Starts watching `root` (without `exclude`); batches of changed paths arrive on the
/// returned channel. The thread ends when the receiver is dropped.
pub fn watch(root: PathBuf, exclude: PathBuf) -> std::io::Result<mpsc::UnboundedReceiver<Vec<PathBuf>>> {
    let (tx, rx) = mpsc::unbounded_channel();
    // The first picture is taken before this returns, so a change made after the call is
    // never part of it (a save during the session's first build is seen).
    let mut seen = scan(&root, &exclude);
    std::thread::Builder::new().name("dev-watch".into()).spawn(move || {
        let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
        let mut first_change: Option<Instant> = None;
        let mut took = Duration::ZERO;
        loop {
            std::thread::sleep(pause_after(took));
            if tx.is_closed() {
                return;
            }
            let scan_started = Instant::now();
            let now = scan(&root, &exclude);
            took = scan_started.elapsed();
            let changed = diff(&seen, &now);
            seen = now;
            if changed.is_empty() {
                if !pending.is_empty() {
                    let batch: Vec<PathBuf> = std::mem::take(&mut pending).into_iter().collect();
                    first_change = None;
                    if tx.send(batch).is_err() {
                        return;
                    }
                }
                continue;
            }
            pending.extend(changed);
            let started = *first_change.get_or_insert_with(Instant::now);
            if started.elapsed() >= MAX_BATCH {
                let batch: Vec<PathBuf> = std::mem::take(&mut pending).into_iter().collect();
                first_change = None;
                if tx.send(batch).is_err() {
                    return;
                }
            }
        }
    })?;
    Ok(rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_trees_are_polled_less_often() {
        assert_eq!(pause_after(Duration::from_micros(200)), POLL);
        assert_eq!(pause_after(Duration::from_millis(10)), Duration::from_millis(50));
    }

    #[test]
    fn diff_sees_added_changed_and_removed_files_but_not_excluded_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.js"), "1").unwrap();
        std::fs::write(root.join("b.js"), "1").unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        let before = scan(root, &root.join("dist"));
        std::fs::write(root.join("a.js"), "22").unwrap();
        std::fs::remove_file(root.join("b.js")).unwrap();
        std::fs::write(root.join("c.js"), "1").unwrap();
        std::fs::write(root.join("dist/out.js"), "1").unwrap();
        std::fs::write(root.join("node_modules/x/i.js"), "1").unwrap();
        let after = scan(root, &root.join("dist"));
        let names: Vec<String> = diff(&before, &after)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.js", "b.js", "c.js"]);
    }
}
