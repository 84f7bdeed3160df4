//! One browser process tree: its own process group, killed by the group id.
//!
//! Browsers fork many helpers (zygotes, renderers, content processes). Putting the browser
//! in a fresh process group lets one `kill(-pgid)` end all of them; `PR_SET_PDEATHSIG` ends
//! the browser when the spawning thread dies without dropping the runner.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{RunnerError, RunnerOptions};

/// Lines of browser output kept for error messages.
const TAIL_LINES: usize = 12;

/// The last lines a browser wrote to stderr (noise filtered by the caller).
pub(crate) type Tail = Arc<Mutex<VecDeque<String>>>;

pub(crate) fn push_tail(tail: &Tail, line: &str) {
    let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
    if t.len() == TAIL_LINES {
        t.pop_front();
    }
    t.push_back(line.chars().take(300).collect());
}

pub(crate) fn read_tail(tail: &Tail) -> String {
    super::tail(&tail.lock().unwrap_or_else(PoisonError::into_inner))
}

#[derive(Debug)]
pub(crate) struct BrowserProcess {
    child: Mutex<Child>,
    pid: u32,
    /// The private `HOME` the browser runs with; every process that inherited it is ours.
    home: std::path::PathBuf,
    /// Set once the group is seen empty: its id may then be reused and is never signalled.
    finished: std::sync::atomic::AtomicBool,
}

/// File descriptors the child gets as fd 3 and fd 4 (Chromium's `--remote-debugging-pipe`).
pub(crate) struct ChildPipes {
    pub fd3: OwnedFd,
    pub fd4: OwnedFd,
}

impl BrowserProcess {
    /// Spawns `binary` in its own process group. With `pipes`, the child sees them as fd 3
    /// and fd 4. Our pipe ends are numbered ≥ 10, so moving them never overwrites each other;
    /// the only descriptor that can sit at 3 or 4 in the child is std's close-on-exec pipe
    /// for reporting `exec` failures, and losing it only turns such a failure into an early
    /// exit (reported as [`RunnerError::Exited`]); the binary was checked beforehand.
    pub(crate) fn spawn(
        binary: &std::path::Path,
        home: &std::path::Path,
        args: &[String],
        configure: impl FnOnce(&mut Command),
        pipes: Option<ChildPipes>,
        die_with_parent: bool,
    ) -> Result<BrowserProcess, RunnerError> {
        let mut cmd = Command::new(binary);
        cmd.args(args).stdin(Stdio::null()).process_group(0);
        configure(&mut cmd);
        let moves: Vec<(i32, i32)> =
            pipes.as_ref().map(|p| vec![(p.fd3.as_raw_fd(), 3), (p.fd4.as_raw_fd(), 4)]).unwrap_or_default();
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs between fork and exec and only calls async-signal-safe
        // functions (dup2, prctl, getppid) on values copied in before the fork.
        unsafe {
            cmd.pre_exec(move || {
                for &(from, to) in &moves {
                    // dup2 leaves the new descriptor without FD_CLOEXEC: it survives exec.
                    if libc::dup2(from, to) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                #[cfg(target_os = "linux")]
                if die_with_parent {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if libc::getppid() != parent {
                        return Err(std::io::Error::other("the parent exited during spawn"));
                    }
                }
                #[cfg(not(target_os = "linux"))]
                let _ = (parent, die_with_parent);
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|source| RunnerError::Spawn { binary: binary.to_owned(), source })?;
        drop(pipes);
        let pid = child.id();
        tracing::debug!(pid, binary = %binary.display(), "browser spawned");
        Ok(BrowserProcess {
            child: Mutex::new(child),
            pid,
            home: home.to_owned(),
            finished: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// The exit status, once the browser's main process has exited.
    pub(crate) fn exited(&self) -> Option<ExitStatus> {
        self.child.lock().unwrap_or_else(PoisonError::into_inner).try_wait().ok().flatten()
    }

    fn signal_group(&self, signal: i32) {
        if self.finished.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        // SAFETY: kill has no memory-safety preconditions; a negative pid names our group.
        unsafe {
            libc::kill(-(self.pid as libc::pid_t), signal);
        }
    }

    /// Whether a live (non-zombie) process is left in the group. Zombies are skipped: their
    /// reaper (often init, after the browser died) may take seconds.
    #[cfg(target_os = "linux")]
    fn group_alive(&self) -> bool {
        let Ok(procs) = std::fs::read_dir("/proc") else { return false };
        procs.flatten().any(|p| {
            let Ok(stat) = std::fs::read_to_string(p.path().join("stat")) else { return false };
            // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
            let mut fields = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("").split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
            pgrp == Some(self.pid) && state != Some("Z")
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn group_alive(&self) -> bool {
        // SAFETY: as above; signal 0 only checks for existence.
        unsafe { libc::kill(-(self.pid as libc::pid_t), 0) == 0 }
    }

    /// SIGTERM to the group, SIGKILL after `grace`, then waits until the group is empty.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        self.signal_group(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && self.group_alive() {
            let _ = self.exited();
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.kill_now();
    }

    /// SIGKILL to the whole group and to strays, then reap the main process and wait (up to
    /// 2 s) for the group to be gone.
    pub(crate) fn kill_now(&self) {
        if self.finished.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        self.signal_group(libc::SIGKILL);
        kill_strays(&self.home);
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = child.kill();
        let _ = child.wait();
        let deadline = Instant::now() + Duration::from_secs(2);
        while self.group_alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if !self.group_alive() {
            self.finished.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Takes the child's stdout and stderr for reader threads.
    pub(crate) fn take_output(
        &self,
    ) -> (Option<std::process::ChildStdout>, Option<std::process::ChildStderr>) {
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        (child.stdout.take(), child.stderr.take())
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// Kills processes that left the browser's process group but still carry its private
/// `HOME`: Chromium's `chrome_crashpad_handler` double-forks into a session of its own (with
/// or without `--disable-crash-reporter`) and would otherwise linger a few seconds after the
/// browser, holding the profile's temp dir.
#[cfg(target_os = "linux")]
fn kill_strays(home: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let mut entry = b"HOME=".to_vec();
    entry.extend_from_slice(home.as_os_str().as_bytes());
    let Ok(procs) = std::fs::read_dir("/proc") else { return };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<libc::pid_t>().ok()) else { continue };
        let Ok(environ) = std::fs::read(p.path().join("environ")) else { continue };
        if environ.split(|b| *b == 0).any(|kv| kv == entry.as_slice()) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn kill_strays(_home: &std::path::Path) {}

/// Reads `source` line by line on a thread of its own, handing each line to `on_line`.
/// Threads (not tasks) keep the runner independent of whichever async runtime created it.
pub(crate) fn spawn_line_reader(
    name: &str,
    source: impl Read + Send + 'static,
    mut on_line: impl FnMut(&str) + Send + 'static,
) -> Option<std::thread::JoinHandle<()>> {
    let spawned = std::thread::Builder::new().name(name.to_owned()).spawn(move || {
        let mut reader = BufReader::new(source);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf);
                    on_line(line.trim_end_matches(['\n', '\r']));
                }
            }
        }
    });
    spawned.map_err(|e| tracing::warn!(error = %e, "cannot start output reader thread")).ok()
}

/// Gives a reader up to one second to drain what a dead browser wrote last, so that an
/// error message can quote it.
pub(crate) async fn drain(reader: Option<&std::thread::JoinHandle<()>>) {
    let Some(reader) = reader else { return };
    let deadline = Instant::now() + Duration::from_secs(1);
    while !reader.is_finished() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Creates a pipe whose ends are close-on-exec and numbered ≥ 10, so that moving them to
/// fd 3 and fd 4 in the child never overwrites one of them.
pub(crate) fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 returned two fresh descriptors that we now own.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((renumber(r)?, renumber(w)?))
}

fn renumber(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: fd is open; F_DUPFD_CLOEXEC returns a new descriptor that we own.
    let n = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: n is a fresh descriptor returned by fcntl.
    Ok(unsafe { OwnedFd::from_raw_fd(n) })
}

pub(crate) fn remove_temp(temp: &Mutex<Option<tempfile::TempDir>>) {
    if let Some(dir) = temp.lock().unwrap_or_else(PoisonError::into_inner).take() {
        let path = dir.path().to_owned();
        if let Err(e) = dir.close() {
            tracing::debug!(error = %e, path = %path.display(), "temporary browser dir not fully removed; retrying");
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

pub(crate) async fn wait_exit_status(process: &BrowserProcess) -> String {
    for _ in 0..20 {
        if let Some(status) = process.exited() {
            return status.to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "still running".to_owned()
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The browser's environment: inherited, with its own `HOME` (Chromium writes there even
/// with `--user-data-dir`), XDG dirs following it, and the session variables only when given.
pub(crate) fn browser_env(cmd: &mut std::process::Command, opts: &RunnerOptions, home: &std::path::Path) {
    for key in [
        "WEBEXT_MCP_RUNTIME_DIR",
        "WEBEXT_MCP_SESSION",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    ] {
        cmd.env_remove(key);
    }
    cmd.env("HOME", home);
    if let Some(dir) = &opts.runtime_dir {
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", dir);
    }
    if let Some(session) = &opts.session {
        cmd.env("WEBEXT_MCP_SESSION", session);
    }
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
}
