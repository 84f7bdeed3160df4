//! Windows named pipes. The first instance is created with `first_pipe_instance`, so a live
//! host's pipe is never taken over; remote clients are rejected; the default pipe DACL admits
//! only the creating user, SYSTEM and administrators, which is the same-user rule of Unix.

use std::path::Path;

use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeServer, ServerOptions};

use super::{PeerVerdict, Probe, Transport, pipe_probe_verdict};

pub struct PipeTransport;

/// The pipe being waited on; a fresh instance replaces it after each accept.
pub struct PipeListener {
    name: String,
    next: NamedPipeServer,
}

/// A connected pipe from either side.
pub enum PipeStream {
    Server(NamedPipeServer),
    Client(tokio::net::windows::named_pipe::NamedPipeClient),
}

impl tokio::io::AsyncRead for PipeStream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            PipeStream::Server(s) => std::pin::Pin::new(s).poll_read(cx, buf),
            PipeStream::Client(c) => std::pin::Pin::new(c).poll_read(cx, buf),
        }
    }
}

impl tokio::io::AsyncWrite for PipeStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        match self.get_mut() {
            PipeStream::Server(s) => std::pin::Pin::new(s).poll_write(cx, buf),
            PipeStream::Client(c) => std::pin::Pin::new(c).poll_write(cx, buf),
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            PipeStream::Server(s) => std::pin::Pin::new(s).poll_flush(cx),
            PipeStream::Client(c) => std::pin::Pin::new(c).poll_flush(cx),
        }
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.get_mut() {
            PipeStream::Server(s) => std::pin::Pin::new(s).poll_shutdown(cx),
            PipeStream::Client(c) => std::pin::Pin::new(c).poll_shutdown(cx),
        }
    }
}

fn name_of(addr: &Path) -> String {
    addr.as_os_str().to_string_lossy().into_owned()
}

impl Transport for PipeTransport {
    type Stream = PipeStream;
    type Listener = PipeListener;

    fn bind(addr: &Path) -> std::io::Result<PipeListener> {
        let name = name_of(addr);
        let next =
            ServerOptions::new().first_pipe_instance(true).reject_remote_clients(true).create(&name)?;
        Ok(PipeListener { name, next })
    }

    async fn accept(listener: &mut PipeListener) -> std::io::Result<(PipeStream, PeerVerdict)> {
        listener.next.connect().await?;
        let fresh = ServerOptions::new().reject_remote_clients(true).create(&listener.name)?;
        let connected = std::mem::replace(&mut listener.next, fresh);
        Ok((PipeStream::Server(connected), PeerVerdict::Allow))
    }

    async fn connect(addr: &Path) -> std::io::Result<PipeStream> {
        let name = name_of(addr);
        for _ in 0..50 {
            match ClientOptions::new().open(&name) {
                Ok(c) => return Ok(PipeStream::Client(c)),
                Err(e) if e.raw_os_error() == Some(231) => {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::new(std::io::ErrorKind::TimedOut, format!("pipe {name} stayed busy")))
    }

    fn probe(addr: &Path) -> Probe {
        // A metadata query opens the pipe like a client would: a live host sees a connection
        // that leaves at once, which it handles like any client that leaves.
        match std::fs::metadata(addr) {
            Ok(_) => Probe::Live,
            Err(e) => pipe_probe_verdict(e.raw_os_error()),
        }
    }

    fn remove(_addr: &Path) {}
}
