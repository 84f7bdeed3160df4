//! The build lock of DESIGN.md: `dist/.webext-mcp-<browser>.lock`, an `flock` whose file
//! records the holder's pid and session id. A build that cannot take it answers `BUSY`
//! naming the holder; a dev session holds it for its lifetime.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Who holds a lock, as recorded in the lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.session {
            Some(s) => write!(f, "pid {} (session {s})", self.pid),
            None => write!(f, "pid {}", self.pid),
        }
    }
}

/// Why the lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it; `holder` is what its file says (if readable).
    Busy {
        path: PathBuf,
        holder: Option<Holder>,
    },
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A held build lock; released when dropped (closing the file releases the `flock`).
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

/// The lock file for a browser's output under `out_dir`.
pub fn lock_path(out_dir: &Path, browser: &str) -> PathBuf {
    out_dir.join(format!(".webext-mcp-{browser}.lock"))
}

impl Lock {
    /// Takes the lock without waiting, creating `out_dir` if needed.
    pub fn acquire(out_dir: &Path, browser: &str, session: Option<&str>) -> Result<Lock, LockError> {
        let path = lock_path(out_dir, browser);
        let io = |source| LockError::Io { path: path.clone(), source };
        std::fs::create_dir_all(out_dir).map_err(io)?;
        // A holder that finishes removes the file while it still holds the lock, so a lock
        // taken on a file that is no longer at `path` is on a dead file: open again.
        let mut file = loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io)?;
            if !try_lock(&file).map_err(io)? {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = serde_json::from_str(text.trim()).ok();
                return Err(LockError::Busy { path, holder });
            }
            if still_at(&file, &path) {
                break file;
            }
        };
        let holder = Holder { pid: std::process::id(), session: session.map(str::to_owned) };
        let body = serde_json::to_string(&holder).unwrap_or_default();
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(body.as_bytes()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Lock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Clear the holder so a stale record never names a finished process, then remove
        // the file while the lock is still held (an empty lock file left in `dist/` is
        // litter); a process that opened it meanwhile sees it gone and opens afresh
        // ([`still_at`]). Where an open file cannot be removed (Windows) it stays, empty.
        let _ = self.file.set_len(0);
        #[cfg(unix)]
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the open `file` (same device and inode).
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &File, _path: &Path) -> bool {
    true
}

#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file descriptor we own; no memory is passed.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) { Ok(false) } else { Err(err) }
}

#[cfg(not(unix))]
fn try_lock(file: &File) -> std::io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_taker_is_busy_and_names_the_holder_until_release() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path(), "chrome", Some("s-1")).unwrap();
        match Lock::acquire(dir.path(), "chrome", None) {
            Err(LockError::Busy { holder: Some(h), .. }) => {
                assert_eq!(h, Holder { pid: std::process::id(), session: Some("s-1".into()) });
                assert_eq!(h.to_string(), format!("pid {} (session s-1)", std::process::id()));
            }
            other => panic!("expected BUSY, got {other:?}"),
        }
        // Other browsers have their own lock.
        let _ff = Lock::acquire(dir.path(), "firefox", None).unwrap();
        drop(first);
        assert!(Lock::acquire(dir.path(), "chrome", None).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_released_lock_leaves_no_file_and_a_file_removed_under_a_waiter_is_not_shared() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_path(dir.path(), "chrome");
        let first = Lock::acquire(dir.path(), "chrome", None).unwrap();
        assert!(path.is_file());
        // A process that opened the file before the holder removed it: its lock on the dead
        // file must not count, so it takes a new one at the path.
        let stale = OpenOptions::new().read(true).write(true).open(&path).unwrap();
        drop(first);
        assert!(!path.exists(), "the lock file stayed behind");
        assert!(try_lock(&stale).unwrap() && !still_at(&stale, &path));
        let second = Lock::acquire(dir.path(), "chrome", None).unwrap();
        assert!(still_at(&second.file, &path));
        assert!(matches!(Lock::acquire(dir.path(), "chrome", None), Err(LockError::Busy { .. })));
        drop(second);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
