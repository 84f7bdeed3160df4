//! Host descriptors: one JSON file per running host next to its socket, saying which browser
//! and profile it serves. Clients discover hosts by reading them; entries whose host is gone
//! are removed by whoever notices first.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::runtime::{pid_of_file_name, short_socket_dir};
use crate::transport::{Platform, Probe, Transport};

/// What a host tells its clients about itself (`h-<pid>.json` in the runtime dir).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub browser: String,
    pub browser_version: String,
    /// Profile label from the helper's settings (default `<browser>-<6 hex>`).
    pub label: String,
    pub pid: u32,
    /// The browser process that started the host.
    pub ppid: u32,
    pub ext_version: String,
    pub protocol: u32,
    /// Socket path (Unix) or pipe name (Windows).
    pub socket: PathBuf,
    /// Milliseconds since the Unix epoch.
    pub started_at: u64,
    /// `WEBEXT_MCP_SESSION` of the host's environment: set for browsers webext-mcp launched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// Writes a descriptor atomically (temp file, then rename) with mode 0600.
pub fn write(path: &Path, d: &Descriptor) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(d).map_err(std::io::Error::other)?;
    {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp)?;
        std::io::Write::write_all(&mut f, &text)?;
    }
    std::fs::rename(&tmp, path)
}

/// Is process `pid` running (or a zombie not yet reaped)?
#[cfg(unix)]
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
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

/// Pure: a host is live unless its endpoint is provably dead, or its process is gone and
/// nothing answers on its endpoint. (A host seen as gone may still answer: a sandboxed
/// browser can run it in another pid namespace.)
pub fn is_live(pid_alive: bool, probe: Probe) -> bool {
    probe != Probe::Dead && (pid_alive || probe == Probe::Live)
}

/// Existence check: a missing endpoint is dead, a present one may be live.
pub fn quick_probe(addr: &Path) -> Probe {
    match std::fs::metadata(addr) {
        Ok(_) => Probe::Unknown,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Probe::Dead,
        Err(_) => Probe::Unknown,
    }
}

/// Removes a host's descriptor and endpoint after a client found it unreachable
/// (connection refused): the host was killed and its pid may have been reused.
pub fn forget(runtime: &Path, d: &Descriptor) {
    if Platform::probe(&d.socket) == Probe::Dead {
        let _ = std::fs::remove_file(crate::runtime::descriptor_path(runtime, d.pid));
        Platform::remove(&d.socket);
    }
}

/// Every readable descriptor in `runtime`, live or not.
pub fn scan(runtime: &Path) -> Vec<(PathBuf, Descriptor)> {
    let Ok(entries) = std::fs::read_dir(runtime) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("h-") && name.ends_with(".json")) {
            continue;
        }
        match std::fs::read(&path).map(|b| serde_json::from_slice::<Descriptor>(&b)) {
            Ok(Ok(d)) => out.push((path, d)),
            _ => {
                // Unreadable: written by a dead host, or by another version. Remove only if dead.
                if pid_of_file_name(&name).is_some_and(|pid| !pid_alive(pid)) {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
    }
    out.sort_by_key(|(_, d)| (d.started_at, d.pid));
    out
}

/// The live hosts of `runtime`; dead entries (descriptor and socket) are removed on the way.
pub fn discover(runtime: &Path) -> Vec<Descriptor> {
    let mut live = Vec::new();
    for (path, d) in scan(runtime) {
        // Existence first: a connect probe per call would cost every host a connection, so it
        // is made only for hosts whose pid looks gone. A socket left by a killed host whose
        // pid was reused is caught when connecting to it fails (`forget`).
        let alive = pid_alive(d.pid);
        let probe = match quick_probe(&d.socket) {
            Probe::Unknown if !alive => Platform::probe(&d.socket),
            other => other,
        };
        if is_live(alive, probe) {
            live.push(d);
        } else {
            tracing::info!(pid = d.pid, "removing the descriptor of a host that is gone");
            let _ = std::fs::remove_file(&path);
            if Platform::probe(&d.socket) != Probe::Live {
                Platform::remove(&d.socket);
            }
        }
    }
    live
}

/// Removes leftovers of dead hosts: descriptors, and sockets without a descriptor that
/// nothing listens on (a host killed before the extension said hello). Live sockets are never
/// touched.
pub fn clean_stale(runtime: &Path, uid: u32) {
    discover(runtime);
    for dir in [runtime.to_path_buf(), short_socket_dir(&std::env::temp_dir(), uid)] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if name.starts_with("h-") && name.ends_with(".log") {
                prune_log(&path, &name);
                continue;
            }
            if !name.ends_with(".sock") {
                continue;
            }
            if pid_of_file_name(&name).is_none() {
                continue;
            }
            // Only what provably has no listener goes: a live socket is never unlinked.
            if Platform::probe(&path) == Probe::Dead {
                tracing::info!(path = %path.display(), "removing stale socket");
                Platform::remove(&path);
            }
        }
    }
}

/// Logs of hosts that are gone are kept a week for `doctor` and bug reports, then removed.
fn prune_log(path: &Path, name: &str) {
    const KEEP: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
    let Some(pid) = name.strip_suffix(".log").and_then(|s| s.strip_prefix("h-")).and_then(|p| p.parse().ok())
    else {
        return;
    };
    let old = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > KEEP);
    if old && !pid_alive(pid) {
        let _ = std::fs::remove_file(path);
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(pid: u32, socket: PathBuf) -> Descriptor {
        Descriptor {
            browser: "chromium".into(),
            browser_version: "140".into(),
            label: "chromium-abc123".into(),
            pid,
            ppid: 1,
            ext_version: "0.1.0".into(),
            protocol: 1,
            socket,
            started_at: now_ms(),
            session: Some("s1".into()),
            capabilities: vec![],
        }
    }

    #[test]
    fn liveness_rule() {
        assert!(is_live(true, Probe::Live));
        assert!(is_live(true, Probe::Unknown));
        assert!(!is_live(true, Probe::Dead));
        assert!(is_live(false, Probe::Live), "another pid namespace");
        assert!(!is_live(false, Probe::Unknown));
        assert!(!is_live(false, Probe::Dead));
    }

    #[cfg(unix)]
    #[test]
    fn descriptor_is_private_round_trips_and_dead_ones_are_cleaned() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h-1.json");
        // pid 0x7ffffff0 is not running; its socket does not exist.
        let d = sample(0x7fff_fff0, dir.path().join("h-2147483632.sock"));
        write(&path, &d).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(scan(dir.path()).len(), 1);
        assert_eq!(scan(dir.path())[0].1, d);
        assert!(discover(dir.path()).is_empty());
        assert!(!path.exists(), "dead descriptor removed");
    }

    #[cfg(unix)]
    #[test]
    fn live_pid_with_a_listening_socket_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("h-9.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let d = sample(std::process::id(), sock.clone());
        write(&dir.path().join("h-9.json"), &d).unwrap();
        assert_eq!(discover(dir.path()), vec![d]);
        clean_stale(dir.path(), crate::runtime::current_uid());
        assert!(sock.exists());
    }

    #[cfg(unix)]
    #[test]
    fn orphan_socket_of_a_dead_pid_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("h-2147483631.sock");
        drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
        assert!(sock.exists());
        clean_stale(dir.path(), crate::runtime::current_uid());
        assert!(!sock.exists());
    }
}
