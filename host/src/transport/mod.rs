//! The local link between clients and the host: a Unix socket, or a named pipe on Windows,
//! behind one trait. Everything after `accept()` is shared (framing, routing).
//!
//! The security decisions are pure functions so every platform tests all of them:
//! [`classify_peer`] (same uid only), [`probe_verdict`] (is an existing endpoint live or
//! stale), [`pipe_name`] (Windows pipe naming).

use std::future::Future;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::UnixTransport as Platform;
#[cfg(windows)]
pub use windows::PipeTransport as Platform;

/// Whether a connecting peer may talk to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerVerdict {
    Allow,
    Refuse(String),
}

/// Pure: only processes of our own uid may connect. An unknown uid is refused, never
/// assumed to be ours.
pub fn classify_peer(own_uid: u32, peer_uid: Option<u32>) -> PeerVerdict {
    match peer_uid {
        Some(uid) if uid == own_uid => PeerVerdict::Allow,
        Some(uid) => PeerVerdict::Refuse(format!("peer runs as uid {uid}, the host as uid {own_uid}")),
        None => PeerVerdict::Refuse("peer credentials are unavailable".into()),
    }
}

/// What probing an existing endpoint found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Something accepts connections there: never unlink it.
    Live,
    /// Nothing listens (or nothing is there): safe to remove.
    Dead,
    /// Could not tell (e.g. a full backlog, a permission error): leave it alone.
    Unknown,
}

/// Pure: classifies the outcome of a connect attempt.
pub fn probe_verdict(result: Result<(), std::io::ErrorKind>) -> Probe {
    use std::io::ErrorKind::*;
    match result {
        Ok(()) => Probe::Live,
        Err(NotFound | ConnectionRefused) => Probe::Dead,
        Err(_) => Probe::Unknown,
    }
}

/// Pure: the Windows named pipe of host `pid` for a runtime dir. The runtime dir's hash keeps
/// hosts of different runtime dirs (tests, dev sessions) apart, as directories do on Unix.
pub fn pipe_name(runtime: &Path, pid: u32) -> String {
    let tag = crate::digest::sha256_hex(runtime.as_os_str().to_string_lossy().as_bytes());
    format!(r"\\.\pipe\webext-mcp-{}-{pid}", &tag[..12])
}

/// Pure: Windows error codes of `CreateFile` on a pipe, as a probe outcome
/// (2 = file not found → dead; 231 = all instances busy → live).
pub fn pipe_probe_verdict(raw_os_error: Option<i32>) -> Probe {
    match raw_os_error {
        None => Probe::Live,
        Some(2) => Probe::Dead,
        Some(231) => Probe::Live,
        Some(_) => Probe::Unknown,
    }
}

/// A local endpoint kind: bind, accept with a peer check, connect, probe, remove.
pub trait Transport {
    type Stream: AsyncRead + AsyncWrite + Send + Unpin + 'static;
    type Listener: Send + 'static;

    /// Binds `addr` privately. An existing live endpoint is never replaced (`AddrInUse`); a
    /// dead one is removed first.
    fn bind(addr: &Path) -> std::io::Result<Self::Listener>;

    /// The next connection and whether its peer may use the host.
    fn accept(
        listener: &mut Self::Listener,
    ) -> impl Future<Output = std::io::Result<(Self::Stream, PeerVerdict)>> + Send;

    /// Connects to `addr` after proving it is ours: on Unix the path must be a socket owned by
    /// this user and the listening process must run as this user (`PermissionDenied`
    /// otherwise). Windows pipes are created with the default (per-user) DACL; their server
    /// process is not yet checked.
    fn connect(addr: &Path) -> impl Future<Output = std::io::Result<Self::Stream>> + Send;

    /// Is something serving `addr`? Synchronous and quick.
    fn probe(addr: &Path) -> Probe;

    /// Removes the endpoint's file, if the platform has one.
    fn remove(addr: &Path);
}

/// The endpoint address for host `pid`: a socket path on Unix, a pipe name on Windows.
pub fn endpoint_address(runtime: &Path, pid: u32) -> std::path::PathBuf {
    #[cfg(windows)]
    {
        std::path::PathBuf::from(pipe_name(runtime, pid))
    }
    #[cfg(not(windows))]
    {
        crate::runtime::socket_path(runtime, pid, crate::runtime::current_uid(), &std::env::temp_dir())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::ErrorKind;

    #[test]
    fn only_the_same_uid_may_connect() {
        assert_eq!(classify_peer(1000, Some(1000)), PeerVerdict::Allow);
        assert!(matches!(classify_peer(1000, Some(1001)), PeerVerdict::Refuse(r) if r.contains("1001")));
        assert!(matches!(classify_peer(1000, Some(0)), PeerVerdict::Refuse(_)));
        assert!(matches!(classify_peer(0, Some(1000)), PeerVerdict::Refuse(_)));
        assert!(matches!(classify_peer(1000, None), PeerVerdict::Refuse(_)));
    }

    #[test]
    fn probe_outcomes() {
        assert_eq!(probe_verdict(Ok(())), Probe::Live);
        assert_eq!(probe_verdict(Err(ErrorKind::ConnectionRefused)), Probe::Dead);
        assert_eq!(probe_verdict(Err(ErrorKind::NotFound)), Probe::Dead);
        assert_eq!(probe_verdict(Err(ErrorKind::WouldBlock)), Probe::Unknown);
        assert_eq!(probe_verdict(Err(ErrorKind::PermissionDenied)), Probe::Unknown);
    }

    #[test]
    fn windows_pipe_names_and_probes() {
        let a = pipe_name(Path::new(r"C:\Users\u\AppData\Local\Temp\webext-mcp-0"), 42);
        assert!(a.starts_with(r"\\.\pipe\webext-mcp-") && a.ends_with("-42"), "{a}");
        assert_ne!(a, pipe_name(Path::new(r"C:\other"), 42));
        assert_eq!(a, pipe_name(Path::new(r"C:\Users\u\AppData\Local\Temp\webext-mcp-0"), 42));
        assert_eq!(pipe_probe_verdict(Some(2)), Probe::Dead);
        assert_eq!(pipe_probe_verdict(Some(231)), Probe::Live);
        assert_eq!(pipe_probe_verdict(None), Probe::Live);
        assert_eq!(pipe_probe_verdict(Some(5)), Probe::Unknown);
    }
}
