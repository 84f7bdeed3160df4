//! Whether a process is still there: the one answer for hosts (descriptors, stale sockets)
//! and dev sessions.

/// Is process `pid` alive? A zombie (exited, not yet reaped by its parent) is not: a dead
/// dev-session browser or host that only waits to be reaped is gone for every purpose here.
/// On Linux the state letter in `/proc/<pid>/stat` tells zombies apart; where `/proc` does
/// not show the process (another user's under `hidepid`, other systems) `kill(pid, 0)`
/// decides, and a process we may not signal (`EPERM`) exists.
#[cfg(unix)]
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) state …`: comm may hold spaces and parentheses, so read after the last `)`.
        let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
        return state != Some("Z");
    }
    // SAFETY: signal 0 only checks for existence and permission; nothing is delivered.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
pub fn pid_alive(_pid: u32) -> bool {
    // Without a process API the endpoint probe alone decides.
    true
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn this_process_is_alive_and_nonsense_pids_are_not() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
        assert!(!pid_alive(u32::MAX));
    }

    /// Regression: the host's check counted an exited, unreaped child as alive while the dev
    /// session's did not; a zombie is gone.
    #[test]
    fn a_zombie_child_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let deadline = Instant::now() + Duration::from_secs(10);
        while pid_alive(pid) {
            assert!(Instant::now() < deadline, "child {pid} still alive after 10 s");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Not reaped yet: the pid still names a zombie, not a free slot.
        #[cfg(target_os = "linux")]
        assert!(std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap().contains(") Z "));
        child.wait().unwrap();
        assert!(!pid_alive(pid));
    }
}
