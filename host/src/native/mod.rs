//! Host mode: what runs when a browser starts `webext-mcp` as its native-messaging host.
//!
//! ```text
//!  browser stdout ─▶ [stdin thread] ──┐                       ┌─▶ [stdout thread] ─▶ browser stdin
//!                                     ▼                       │    (bounded queue; a write stuck
//!  client sockets ─▶ [reader tasks] ─▶ events ─▶ Router ─ outs ┤     5 s = browser gone)
//!                                                             └─▶ [writer task per client]
//! ```
//!
//! The browser's pipes are served by two plain threads so that a browser that stops reading
//! can never block the router or the socket side: the router only ever `try_send`s to the
//! bounded writer queue, and a full queue answers that call `BUSY`. The host exits on stdin
//! EOF, on a framing error from the browser (a length over `MAX_FROM_BROWSER`: skipping it
//! would desync the stream for good), on a stuck or failed write, and on SIGTERM/SIGINT,
//! answering every pending call `NOT_CONNECTED` and removing its socket and descriptor. A
//! socket peer of another uid reads one `PERMISSION_DENIED` frame before it is closed. Logs
//! go to `h-<pid>.log` in the runtime dir: stdout belongs to the browser.

mod caller;
mod pipes;
mod signals;

pub use caller::{Caller, check_caller, invocation};
pub use pipes::refusal_frame;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::descriptor::{self, Descriptor};
use crate::protocol::{ErrorBody, ErrorCode, PROTOCOL_VERSION};
use crate::router::{ClientId, Out, Router};
use crate::runtime::{self, current_uid, descriptor_path, ensure_private_dir, log_path};
use crate::transport::{PeerVerdict, Platform, Transport, endpoint_address};
use pipes::{client_reader, client_writer, refuse, spawn_stdin_reader, spawn_stdout_writer};
use signals::Signals;

/// Tunables of a host; [`HostConfig::from_env`] gives the product's values.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The candidate runtime dirs in order; the host binds in the first usable one.
    pub candidates: Vec<PathBuf>,
    /// The runtime dir chosen (the first candidate until [`run`] has checked them).
    pub runtime_dir: PathBuf,
    /// `WEBEXT_MCP_SESSION`: set when webext-mcp launched the browser.
    pub session: Option<String>,
    /// A write to the browser stuck this long means the browser is gone.
    pub write_stall: Duration,
    /// Frames waiting for the browser.
    pub browser_queue: usize,
    /// Frames waiting for one client; a client that lets it fill up is disconnected.
    pub client_queue: usize,
}

impl HostConfig {
    pub fn from_env() -> HostConfig {
        let candidates = runtime::search_dirs(|k| std::env::var(k).ok(), current_uid());
        HostConfig {
            runtime_dir: candidates.first().cloned().unwrap_or_else(runtime::runtime_dir_from_env),
            candidates,
            session: std::env::var("WEBEXT_MCP_SESSION").ok().filter(|s| !s.is_empty()),
            write_stall: Duration::from_secs(5),
            browser_queue: 4096,
            client_queue: 8192,
        }
    }
}

/// Host mode's entry point: validates the caller, logs to a file, serves stdio until the
/// browser goes away.
pub fn run(caller: Caller) -> ExitCode {
    let mut config = HostConfig::from_env();
    let mut skipped = Vec::new();
    let chosen = config.candidates.iter().find_map(|dir| match ensure_private_dir(dir) {
        Ok(_) => Some(dir.clone()),
        Err(e) => {
            skipped.push(format!("runtime dir {}: {e}", dir.display()));
            None
        }
    });
    let Some(chosen) = chosen else {
        // stderr reaches the browser's log; stdout is the protocol.
        for line in &skipped {
            eprintln!("webext-mcp host: {line}");
        }
        return ExitCode::from(1);
    };
    config.runtime_dir = chosen;
    if !skipped.is_empty() {
        // Said where the browser's log shows it: a refused dir is another user's doing.
        for line in &skipped {
            eprintln!("webext-mcp host: skipped {line}");
        }
        eprintln!("webext-mcp host: using the runtime dir {}", config.runtime_dir.display());
    }
    init_log(&log_path(&config.runtime_dir, std::process::id()));
    // One log per host run: keep the newest few, not every run since the machine booted.
    if let Ok(dir) = ensure_private_dir(&config.runtime_dir) {
        let removed = runtime::prune_host_logs(&dir, runtime::KEPT_HOST_LOGS, std::process::id());
        if removed > 0 {
            tracing::debug!(removed, "removed old host logs");
        }
    }
    for line in &skipped {
        tracing::warn!("skipped {line}");
    }
    if let Err(why) = check_caller(&caller) {
        tracing::error!("refusing to serve: {why}");
        return ExitCode::from(1);
    }
    tracing::info!(?caller, runtime = %config.runtime_dir.display(), session = ?config.session, "host starting");
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    pipes::widen_stdout();
    let code = rt.block_on(serve(config, std::io::stdin(), std::io::stdout()));
    // The stdin thread may still sit in a blocking read; it ends with the process.
    rt.shutdown_background();
    code
}

fn init_log(path: &Path) {
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let Ok(file) = opts.open(path) else { return };
    let filter = std::env::var("WEBEXT_MCP_LOG").unwrap_or_else(|_| "info".into());
    if let Some(e) = crate::log_policy::init(&filter, std::sync::Mutex::new(file)) {
        tracing::warn!("ignoring invalid log filter: {e}");
    }
}

pub(super) enum HostEvent {
    BrowserFrame(Vec<u8>),
    BrowserEnded(String),
    ClientFrame(ClientId, Vec<u8>),
    ClientOversized(ClientId, usize),
    ClientGone(ClientId),
}

/// Serves one browser on `input`/`output` until it goes away. Returns the exit code.
pub async fn serve(
    config: HostConfig,
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
) -> ExitCode {
    let pid = std::process::id();
    let runtime = match ensure_private_dir(&config.runtime_dir) {
        Ok(dir) => dir,
        Err(e) => {
            tracing::error!("runtime dir {}: {e}", config.runtime_dir.display());
            return ExitCode::from(1);
        }
    };
    let addr = endpoint_address(&config.runtime_dir, pid);
    if let Some(parent) = addr.parent().filter(|p| *p != config.runtime_dir && cfg!(unix))
        && let Err(e) = ensure_private_dir(parent)
    {
        tracing::error!("socket dir {}: {e}", parent.display());
        return ExitCode::from(1);
    }
    let dirs = descriptor::Dirs::with(runtime);
    dirs.clean_stale();
    let token = match descriptor::Token::generate() {
        Ok(t) => t,
        Err(e) => {
            tracing::error!("cannot make the host token: {e}");
            return ExitCode::from(1);
        }
    };
    let mut listener = match Platform::bind(&addr) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot listen on {}: {e}", addr.display());
            return ExitCode::from(1);
        }
    };
    tracing::info!(socket = %addr.display(), "listening");
    let desc_path = descriptor_path(&config.runtime_dir, pid);
    let started_at = descriptor::now_ms();

    let (ev_tx, mut ev_rx) = mpsc::channel::<HostEvent>(4096);
    let (browser_tx, browser_rx) = mpsc::channel::<Vec<u8>>(config.browser_queue);
    let epoch = Instant::now();
    let busy_since = Arc::new(AtomicU64::new(0));
    spawn_stdin_reader(input, ev_tx.clone());
    spawn_stdout_writer(output, browser_rx, Arc::clone(&busy_since), epoch, ev_tx.clone());

    let mut router = Router::new();
    router.set_token(token.clone());
    let mut clients: HashMap<ClientId, mpsc::Sender<Vec<u8>>> = HashMap::new();
    let mut writers = tokio::task::JoinSet::new();
    let mut next_client: ClientId = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let mut signals = Signals::new();
    let far = || tokio::time::Instant::now() + Duration::from_secs(3600);

    let reason = loop {
        let mut out = Vec::new();
        let deadline = router.next_deadline().map(tokio::time::Instant::from_std).unwrap_or_else(far);
        tokio::select! {
            ev = ev_rx.recv() => match ev {
                Some(HostEvent::BrowserFrame(body)) => {
                    if router.browser_frame(&body, &mut out)
                        && let Some(d) = descriptor_of(&router, &config, &addr, pid, started_at, &token)
                    {
                        router.set_descriptor(d.public());
                        match descriptor::write(&desc_path, &d) {
                            Ok(()) => tracing::info!(path = %desc_path.display(), "descriptor written"),
                            Err(e) => tracing::error!("cannot write {}: {e}", desc_path.display()),
                        }
                    }
                }
                Some(HostEvent::BrowserEnded(why)) => break why,
                Some(HostEvent::ClientFrame(c, body)) => router.client_frame(c, &body, Instant::now(), &mut out),
                Some(HostEvent::ClientOversized(c, len)) => router.client_oversized(c, len, &mut out),
                Some(HostEvent::ClientGone(c)) => {
                    router.client_gone(c);
                    clients.remove(&c);
                    tracing::debug!(client = c, "client left");
                }
                None => break "event channel closed".into(),
            },
            accepted = Platform::accept(&mut listener) => match accepted {
                Ok((stream, PeerVerdict::Allow)) => {
                    next_client += 1;
                    let c = next_client;
                    let (tx, rx) = mpsc::channel(config.client_queue);
                    clients.insert(c, tx);
                    router.client_connected(c);
                    let (read, write) = tokio::io::split(stream);
                    tokio::spawn(client_reader(c, read, ev_tx.clone()));
                    writers.spawn(client_writer(write, rx));
                    tracing::debug!(client = c, "client connected");
                }
                Ok((stream, PeerVerdict::Refuse(why))) => {
                    tracing::warn!("refused a connection: {why}");
                    tokio::spawn(refuse(stream, why));
                }
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = tokio::time::sleep_until(deadline) => router.expire(Instant::now(), &mut out),
            _ = tick.tick() => {
                let since = busy_since.load(Ordering::Relaxed);
                let now = epoch.elapsed().as_millis() as u64;
                if since != 0 && now.saturating_sub(since) >= config.write_stall.as_millis() as u64 {
                    break format!("the browser stopped reading for {} s", config.write_stall.as_secs());
                }
                while writers.try_join_next().is_some() {}
            }
            sig = signals.next() => break format!("received {sig}"),
        }
        dispatch(out, &mut router, &mut clients, &browser_tx);
    };

    tracing::info!("shutting down: {reason}");
    let mut out = Vec::new();
    router.browser_gone(&reason, &mut out);
    dispatch(out, &mut router, &mut clients, &browser_tx);
    clients.clear();
    drop(listener);
    Platform::remove(&addr);
    dirs.runtime.remove(&format!("h-{pid}.json"), crate::private_dir::Ours::File);
    // Let queued answers reach their clients, but never wait long on a slow one.
    let _ =
        tokio::time::timeout(Duration::from_secs(2), async { while writers.join_next().await.is_some() {} })
            .await;
    tracing::info!("host stopped");
    ExitCode::SUCCESS
}

fn descriptor_of(
    router: &Router,
    config: &HostConfig,
    addr: &Path,
    pid: u32,
    started_at: u64,
    token: &descriptor::Token,
) -> Option<Descriptor> {
    let hello = router.hello()?;
    Some(Descriptor {
        browser: hello.browser.clone(),
        browser_version: hello.browser_version.clone(),
        label: hello.label.clone(),
        pid,
        ppid: parent_pid(),
        ext_version: hello.ext_version.clone(),
        protocol: PROTOCOL_VERSION,
        socket: addr.to_path_buf(),
        started_at,
        session: config.session.clone(),
        capabilities: hello.capabilities.clone(),
        token: token.clone(),
    })
}

#[cfg(unix)]
fn parent_pid() -> u32 {
    // SAFETY: getppid has no preconditions and cannot fail.
    let ppid = unsafe { libc::getppid() };
    u32::try_from(ppid).unwrap_or(0)
}

#[cfg(not(unix))]
fn parent_pid() -> u32 {
    0
}

fn dispatch(
    out: Vec<Out>,
    router: &mut Router,
    clients: &mut HashMap<ClientId, mpsc::Sender<Vec<u8>>>,
    browser: &mpsc::Sender<Vec<u8>>,
) {
    let mut more = Vec::new();
    for o in out {
        match o {
            Out::ToBrowser { call, frames } => {
                if browser.capacity() < frames.len() {
                    let e = ErrorBody::new(ErrorCode::Busy, "the browser is not keeping up with requests")
                        .with_hint("retry shortly");
                    match &call {
                        Some(call) => router.fail(call, e, &mut more),
                        None => tracing::warn!("browser queue full; dropped a frame for the browser"),
                    }
                    continue;
                }
                for f in frames {
                    if browser.try_send(f).is_err() {
                        tracing::warn!("browser queue closed");
                        break;
                    }
                }
            }
            Out::ToClient(c, body) => {
                let Some(tx) = clients.get(&c) else { continue };
                if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(body) {
                    tracing::warn!(client = c, "client is not reading; disconnecting it");
                    clients.remove(&c);
                    router.client_gone(c);
                }
            }
            Out::Close(c) => {
                clients.remove(&c);
            }
        }
    }
    if !more.is_empty() {
        dispatch(more, router, clients, browser);
    }
}
