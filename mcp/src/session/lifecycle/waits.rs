//! What the session process waits on besides its work: channels that may be absent, Unix
//! signals, and the end of its owner's stdin pipe.

use tokio::sync::mpsc;

pub(super) async fn recv<T>(rx: &mut Option<mpsc::Receiver<T>>) -> Option<T>
where
    T: Send,
{
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

pub(super) async fn recv_unbounded<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

pub(super) fn signal(kind: tokio::signal::unix::SignalKind) -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind).ok()
}

pub(super) async fn recv_signal(sig: &mut Option<tokio::signal::unix::Signal>) {
    match sig {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// Fires when stdin reaches end of file (the owner exited), for owned sessions.
pub(super) fn owner_watch(owned: bool) -> Option<mpsc::Receiver<()>> {
    if !owned {
        return None;
    }
    let (tx, rx) = mpsc::channel(1);
    {
        let spawned = std::thread::Builder::new().name("session-owner".into()).spawn(move || {
            let mut buf = [0u8; 256];
            let mut stdin = std::io::stdin().lock();
            loop {
                match std::io::Read::read(&mut stdin, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            let _ = tx.blocking_send(());
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot watch the owner; the session will run until stopped");
            return None;
        }
    }
    Some(rx)
}
