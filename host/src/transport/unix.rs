//! Unix domain sockets: bound under umask 0177 (so the socket is 0600 from birth, with no
//! window where another user could connect), peers checked by `SO_PEERCRED` uid.

use std::path::Path;

use tokio::net::{UnixListener, UnixStream};

use super::{PeerVerdict, Probe, Transport, classify_peer, probe_verdict};
use crate::runtime::current_uid;

pub struct UnixTransport;

impl Transport for UnixTransport {
    type Stream = UnixStream;
    type Listener = UnixListener;

    fn bind(addr: &Path) -> std::io::Result<UnixListener> {
        if let Ok(meta) = std::fs::symlink_metadata(addr) {
            if !is_our_socket(&meta) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AddrInUse,
                    format!("{} exists and is not a socket of this user; not replacing it", addr.display()),
                ));
            }
            match Self::probe(addr) {
                Probe::Dead => {
                    tracing::info!(path = %addr.display(), "removing stale socket");
                    std::fs::remove_file(addr)?;
                }
                Probe::Live | Probe::Unknown => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::AddrInUse,
                        format!("{} is in use by a live host; not replacing it", addr.display()),
                    ));
                }
            }
        }
        // SAFETY: umask has no preconditions; the previous mask is restored right after.
        let old = unsafe { libc::umask(0o177) };
        let bound = UnixListener::bind(addr);
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        let listener = bound?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(addr, std::fs::Permissions::from_mode(0o600))?;
        Ok(listener)
    }

    async fn accept(listener: &mut UnixListener) -> std::io::Result<(UnixStream, PeerVerdict)> {
        let (stream, _) = listener.accept().await?;
        let uid = stream.peer_cred().ok().map(|c| c.uid());
        Ok((stream, classify_peer(current_uid(), uid)))
    }

    async fn connect(addr: &Path) -> std::io::Result<UnixStream> {
        // Before: the path must be a socket of ours (not a symlink, not another user's).
        // After: the process listening on it must run as us (SO_PEERCRED reports the
        // listener's credentials on the connecting side).
        let meta = std::fs::symlink_metadata(addr)?;
        if !is_our_socket(&meta) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is not a socket owned by this user", addr.display()),
            ));
        }
        let stream = UnixStream::connect(addr).await?;
        let uid = stream.peer_cred().ok().map(|c| c.uid());
        match classify_peer(current_uid(), uid) {
            PeerVerdict::Allow => Ok(stream),
            PeerVerdict::Refuse(why) => Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("the process listening on {} is not ours: {why}", addr.display()),
            )),
        }
    }

    fn probe(addr: &Path) -> Probe {
        probe_verdict(std::os::unix::net::UnixStream::connect(addr).map(drop).map_err(|e| e.kind()))
    }

    fn remove(addr: &Path) {
        // unlink never follows a symlink, but the file itself must be our socket.
        if std::fs::symlink_metadata(addr).is_ok_and(|m| is_our_socket(&m)) {
            let _ = std::fs::remove_file(addr);
        }
    }
}

fn is_our_socket(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    meta.file_type().is_socket() && meta.uid() == current_uid()
}
