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

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::descriptor::{self, Descriptor};
use crate::io::{FrameReader, push_frame};
use crate::protocol::codec::{FrameDecoder, FrameError};
use crate::protocol::{
    ErrorBody, ErrorCode, HELPER_CHROMIUM_ID, HELPER_GECKO_ID, MAX_FROM_BROWSER, MAX_SOCKET_FRAME,
    MAX_TO_BROWSER, PROTOCOL_VERSION,
};
use crate::router::{ClientId, Out, Router};
use crate::runtime::{self, current_uid, descriptor_path, ensure_private_dir, log_path};
use crate::transport::{PeerVerdict, Platform, Transport, endpoint_address};

/// How the browser started us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// Chromium family: argv[1] is the calling extension's origin.
    Chromium { origin: String },
    /// Gecko family: argv is `<host manifest path> <add-on id>`.
    Gecko { manifest: PathBuf, id: String },
}

/// Pure: is this argv a browser starting a native host? `None` means "run the normal CLI".
/// Chromium passes `chrome-extension://<id>/` (Windows adds `--parent-window=<hwnd>`);
/// Firefox passes the absolute path of the host manifest and the add-on id.
pub fn invocation(argv: &[OsString]) -> Option<Caller> {
    let args: Vec<String> = argv.iter().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let first = args.first()?;
    if first.starts_with("chrome-extension://") {
        if args[1..].iter().all(|a| a.starts_with("--parent-window=")) {
            return Some(Caller::Chromium { origin: first.clone() });
        }
        return None;
    }
    if args.len() == 2 {
        let manifest = PathBuf::from(first);
        let looks_like_manifest = manifest.is_absolute()
            && manifest.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
            || first.starts_with('/') && first.ends_with(".json");
        let id = &args[1];
        if looks_like_manifest && !id.starts_with('-') && (id.contains('@') || id.starts_with('{')) {
            return Some(Caller::Gecko { manifest, id: id.clone() });
        }
    }
    None
}

/// Pure: only the helper extension may start the host. Browsers enforce this through the
/// host manifest already; this catches a manifest edited to admit another extension.
pub fn check_caller(caller: &Caller) -> Result<(), String> {
    match caller {
        Caller::Chromium { origin } => {
            let want = format!("chrome-extension://{HELPER_CHROMIUM_ID}/");
            if origin == &want || origin.trim_end_matches('/') == want.trim_end_matches('/') {
                Ok(())
            } else {
                Err(format!("caller {origin} is not the webext-mcp helper ({want})"))
            }
        }
        Caller::Gecko { id, .. } => {
            if id == HELPER_GECKO_ID {
                Ok(())
            } else {
                Err(format!("caller {id} is not the webext-mcp helper ({HELPER_GECKO_ID})"))
            }
        }
    }
}

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
    init_log(&log_path(&config.runtime_dir, std::process::id()));
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
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init();
}

enum HostEvent {
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

/// Pure: why a framing error on the browser link ends the host (no payload in the text).
fn browser_framing_fatal(e: &FrameError) -> String {
    match e {
        FrameError::TooLarge { len, cap } => {
            format!(
                "the browser sent a {len}-byte frame, over the {cap}-byte limit (the stream cannot be resynchronised)"
            )
        }
        other => format!("bad frame from the browser: {other}"),
    }
}

fn spawn_stdin_reader(mut input: impl Read + Send + 'static, events: mpsc::Sender<HostEvent>) {
    let spawned = std::thread::Builder::new().name("browser-in".into()).spawn(move || {
        let mut decoder = FrameDecoder::new(MAX_FROM_BROWSER);
        let mut buf = vec![0u8; 64 * 1024];
        let why = 'read: loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break "stdin closed".to_owned(),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => break format!("stdin read failed: {e}"),
            };
            decoder.push(&buf[..n]);
            while let Some(frame) = decoder.next_frame() {
                match frame {
                    Ok(body) => {
                        if events.blocking_send(HostEvent::BrowserFrame(body)).is_err() {
                            return;
                        }
                    }
                    // Fatal: after a bad length every later byte would be read at the wrong
                    // offset. Exiting is what the helper recovers from (it reconnects).
                    Err(e) => {
                        let why = browser_framing_fatal(&e);
                        tracing::error!("{why}");
                        break 'read why;
                    }
                }
            }
        };
        if decoder.inside_header() {
            tracing::warn!("stdin ended inside a frame header ({} of 4 bytes)", decoder.pending_bytes());
        } else if decoder.pending_bytes() > 0 {
            tracing::warn!("stdin ended inside a frame ({} bytes unread)", decoder.pending_bytes());
        }
        let _ = events.blocking_send(HostEvent::BrowserEnded(why));
    });
    if let Err(e) = spawned {
        tracing::error!("cannot start the stdin thread: {e}");
    }
}

fn spawn_stdout_writer(
    mut output: impl Write + Send + 'static,
    mut frames: mpsc::Receiver<Vec<u8>>,
    busy_since: Arc<AtomicU64>,
    epoch: Instant,
    events: mpsc::Sender<HostEvent>,
) {
    let spawned = std::thread::Builder::new().name("browser-out".into()).spawn(move || {
        let mut buf = Vec::with_capacity(64 * 1024);
        while let Some(body) = frames.blocking_recv() {
            buf.clear();
            let mut next = Some(body);
            while let Some(body) = next.take() {
                if let Err(e) = push_frame(&mut buf, &body, MAX_TO_BROWSER) {
                    tracing::error!("not sending an oversized frame to the browser: {e}");
                }
                if buf.len() < 4 * MAX_TO_BROWSER {
                    next = frames.try_recv().ok();
                }
            }
            busy_since.store(epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
            let written = output.write_all(&buf).and_then(|()| output.flush());
            busy_since.store(0, Ordering::Relaxed);
            if let Err(e) = written {
                let _ = events.blocking_send(HostEvent::BrowserEnded(format!("stdout write failed: {e}")));
                return;
            }
        }
    });
    if let Err(e) = spawned {
        tracing::error!("cannot start the stdout thread: {e}");
    }
}

async fn client_reader(
    client: ClientId,
    read: impl tokio::io::AsyncRead + Unpin,
    events: mpsc::Sender<HostEvent>,
) {
    let mut reader = FrameReader::new(read, MAX_SOCKET_FRAME);
    loop {
        let ev = match reader.next().await {
            Ok(Some(Ok(body))) => HostEvent::ClientFrame(client, body),
            Ok(Some(Err(FrameError::TooLarge { len, .. }))) => HostEvent::ClientOversized(client, len),
            Ok(Some(Err(e))) => {
                tracing::warn!(client, "bad frame: {e}");
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(client, "client read ended: {e}");
                break;
            }
        };
        if events.send(ev).await.is_err() {
            return;
        }
    }
    let _ = events.send(HostEvent::ClientGone(client)).await;
}

/// Frames at least this large go to a client straight from their body, not via the batch.
const WRITE_DIRECT: usize = 1 << 20;

async fn client_writer(mut write: impl tokio::io::AsyncWrite + Unpin, mut frames: mpsc::Receiver<Vec<u8>>) {
    let mut buf = Vec::with_capacity(64 * 1024);
    while let Some(body) = frames.recv().await {
        buf.clear();
        let mut next = Some(body);
        let mut big = None;
        while let Some(body) = next.take() {
            if body.len() >= WRITE_DIRECT {
                // Written after the batch, from the body itself: no copy of a large reply.
                big = Some(body);
                break;
            }
            if let Err(e) = push_frame(&mut buf, &body, MAX_SOCKET_FRAME) {
                tracing::warn!("not sending an oversized frame to a client: {e}");
            }
            if buf.len() < 1 << 20 {
                next = frames.try_recv().ok();
            }
        }
        if let Some(body) = big {
            match crate::protocol::codec::encode_header(body.len(), MAX_SOCKET_FRAME) {
                Ok(header) => {
                    buf.extend_from_slice(&header);
                    if write.write_all(&buf).await.is_err() || write.write_all(&body).await.is_err() {
                        return;
                    }
                    buf.clear();
                }
                Err(e) => tracing::warn!("not sending an oversized frame to a client: {e}"),
            }
        }
        if write.write_all(&buf).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
    let _ = write.shutdown().await;
}

/// Pure: the one frame a refused socket peer gets before the host closes it, so it sees a
/// reason instead of a broken pipe. Says why; never carries anything of the host's.
pub fn refusal_frame(why: &str) -> Vec<u8> {
    let e = ErrorBody::new(
        ErrorCode::PermissionDenied,
        format!("this browser host refuses the connection: {why}"),
    )
    .with_hint("connect as the user who runs the browser");
    let reply = crate::protocol::Reply::err(serde_json::Value::Null, e);
    let body = serde_json::to_vec(&reply).unwrap_or_else(|_| b"{}".to_vec());
    let mut out = Vec::with_capacity(body.len() + 4);
    // A refusal is a few hundred bytes; a failure here would only mean closing silently.
    if push_frame(&mut out, &body, MAX_SOCKET_FRAME).is_err() {
        out.clear();
    }
    out
}

/// Sends a refused peer its error frame (at most 1 s) and closes the connection.
async fn refuse(mut stream: impl tokio::io::AsyncWrite + Unpin, why: String) {
    let frame = refusal_frame(&why);
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(&frame).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// SIGTERM and SIGINT (Ctrl-C on Windows).
struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals { term: signal(SignalKind::terminate()).ok(), int: signal(SignalKind::interrupt()).ok() }
        }
        #[cfg(not(unix))]
        {
            Signals {}
        }
    }

    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            async fn wait(s: &mut Option<tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                _ = wait(&mut self.term) => "SIGTERM",
                _ = wait(&mut self.int) => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<OsString> {
        std::iter::once("webext-mcp").chain(args.iter().copied()).map(OsString::from).collect()
    }

    #[test]
    fn recognises_browser_invocations_only() {
        let origin = format!("chrome-extension://{HELPER_CHROMIUM_ID}/");
        assert_eq!(invocation(&argv(&[&origin])), Some(Caller::Chromium { origin: origin.clone() }));
        assert!(matches!(invocation(&argv(&[&origin, "--parent-window=0"])), Some(Caller::Chromium { .. })));
        assert!(invocation(&argv(&[&origin, "serve"])).is_none());
        let gecko = invocation(&argv(&[
            "/home/u/.mozilla/native-messaging-hosts/dev.webext_mcp.bridge.json",
            HELPER_GECKO_ID,
        ]));
        assert!(matches!(gecko, Some(Caller::Gecko { ref id, .. }) if id == HELPER_GECKO_ID));
        assert!(invocation(&argv(&["call", "server_info"])).is_none());
        assert!(invocation(&argv(&["serve"])).is_none());
        assert!(invocation(&argv(&[])).is_none());
        assert!(invocation(&argv(&["call", "ping", "--json"])).is_none());
        assert!(invocation(&argv(&["rel/manifest.json", "x@y"])).is_none());
    }

    #[test]
    fn a_refused_peer_gets_one_permission_denied_frame_saying_why() {
        let bytes = refusal_frame("peer runs as uid 65534, the host as uid 0");
        let mut dec = FrameDecoder::new(MAX_SOCKET_FRAME);
        dec.push(&bytes);
        let body = dec.next_frame().unwrap().unwrap();
        assert!(dec.next_frame().is_none());
        assert_eq!(dec.pending_bytes(), 0);
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], "PERMISSION_DENIED");
        assert!(v["error"]["message"].as_str().unwrap().contains("uid 65534"), "{v}");
        assert_eq!(v["error"]["hint"], "connect as the user who runs the browser");
        // The client's own decoding sees the same error.
        let Ok(crate::protocol::Incoming::Reply(r)) = crate::protocol::parse_message(&body) else { panic!() };
        assert_eq!(r.into_result().unwrap_err().code, ErrorCode::PermissionDenied);
    }

    #[test]
    fn framing_errors_from_the_browser_say_why_without_payload() {
        let why =
            browser_framing_fatal(&FrameError::TooLarge { len: u32::MAX as usize, cap: MAX_FROM_BROWSER });
        assert!(why.contains("4294967295-byte frame") && why.contains("67108864"), "{why}");
    }

    #[test]
    fn only_the_helper_may_start_the_host() {
        let ok = Caller::Chromium { origin: format!("chrome-extension://{HELPER_CHROMIUM_ID}/") };
        assert!(check_caller(&ok).is_ok());
        let other =
            Caller::Chromium { origin: "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/".into() };
        assert!(check_caller(&other).unwrap_err().contains("not the webext-mcp helper"));
        let gecko = Caller::Gecko { manifest: "/m.json".into(), id: HELPER_GECKO_ID.into() };
        assert!(check_caller(&gecko).is_ok());
        let evil = Caller::Gecko { manifest: "/m.json".into(), id: "evil@example.com".into() };
        assert!(check_caller(&evil).is_err());
    }
}
