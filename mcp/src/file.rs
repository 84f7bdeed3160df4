//! Files written whole or not at all.
//!
//! Everything webext-mcp writes for itself (catalog caches, pins, install records, a dev
//! session's `ready.json`, files an install puts in place) goes through [`write_atomic`]: a
//! reader sees the old file or the new one, never half of either. The temporary name starts
//! with `.webext-mcp-`, which the dev-session watcher skips (`session/watch.rs`).

use std::io::Write as _;
use std::path::Path;

/// Writes `path` through a temporary file beside it (synced), then renames it into place.
/// The directory must exist; callers map the error to their own error type.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".webext-mcp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("no/such/dir/a.json");
        assert_eq!(write_atomic(&missing, b"x").unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
}
