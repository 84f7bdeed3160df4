//! What the shared browsers leave when the test binary exits. They are never dropped
//! (statics), so their temporary dirs (profile, HOME, runtime dir, unpacked helper) would
//! stay in /tmp after every run — gigabytes over a few days of work. At exit their process
//! groups are killed first (a live browser would write its profile again), then the dirs
//! are removed.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

static LEFT: Mutex<Vec<(u32, Vec<PathBuf>)>> = Mutex::new(Vec::new());

/// Kills process group `pid` and removes `dirs` when this process exits.
pub fn clean_at_exit(pid: u32, dirs: Vec<PathBuf>) {
    let mut left = LEFT.lock().unwrap_or_else(PoisonError::into_inner);
    if left.is_empty() {
        // SAFETY: registers a plain function that takes no arguments and captures nothing.
        unsafe { libc::atexit(clean) };
    }
    left.push((pid, dirs));
}

extern "C" fn clean() {
    let left = std::mem::take(&mut *LEFT.lock().unwrap_or_else(PoisonError::into_inner));
    for (pid, _) in &left {
        // SAFETY: kill(2) on the browser's own process group (the runner starts it as leader).
        unsafe { libc::kill(-(*pid as libc::pid_t), libc::SIGKILL) };
    }
    // SIGKILL is delivered at once, but give the kernel a moment to tear the groups down.
    std::thread::sleep(Duration::from_millis(200));
    for dir in left.iter().flat_map(|(_, dirs)| dirs) {
        let _ = std::fs::remove_dir_all(dir);
    }
}
