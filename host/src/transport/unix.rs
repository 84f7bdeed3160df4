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
        if std::fs::symlink_metadata(addr).is_ok() {
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
        UnixStream::connect(addr).await
    }

    fn probe(addr: &Path) -> Probe {
        probe_verdict(std::os::unix::net::UnixStream::connect(addr).map(drop).map_err(|e| e.kind()))
    }

    fn remove(addr: &Path) {
        let _ = std::fs::remove_file(addr);
    }
}
