//! Finds processes by what they were started with, by scanning `/proc`.

use std::path::Path;
use std::time::{Duration, Instant};

/// Pids of processes whose command line mentions `needle` or whose environment holds
/// `HOME=<home>` (browser helpers inherit the browser's environment even when their
/// command line names no profile).
pub fn browser_processes(needle: &Path, home: &Path) -> Vec<u32> {
    let needle = needle.to_string_lossy().into_owned();
    let home_entry = format!("HOME={}", home.display()).into_bytes();
    let own = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if pid == own {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let in_cmdline = String::from_utf8_lossy(&cmdline).contains(&needle);
        let in_env = environ.split(|b| *b == 0).any(|kv| kv == home_entry.as_slice());
        // A zombie (reaped soon by its parent) has an empty cmdline and environ; ignore it.
        if in_cmdline || in_env {
            found.push(pid);
        }
    }
    found
}

/// Waits until no such process remains; returns the survivors otherwise.
pub fn wait_gone(needle: &Path, home: &Path, timeout: Duration) -> Vec<u32> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = browser_processes(needle, home);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
