//! Starting hosts with a scripted peer, and waiting for them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use webext_mcp_host::descriptor::{self, Descriptor};
use webext_mcp_host::peer::{self, PeerState, Script};
use webext_mcp_host::protocol::HELPER_CHROMIUM_ID;

pub const DEADLINE: Duration = Duration::from_secs(30);

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_webext-mcp")
}

/// The host's stdin, shared so a test can close it ("kill the peer").
#[derive(Clone)]
pub struct HostStdin(Arc<Mutex<Option<std::process::ChildStdin>>>);

impl Write for HostStdin {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.lock().unwrap().as_mut() {
            Some(w) => w.write(buf),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.0.lock().unwrap().as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

/// A `webext-mcp` host process with a scripted extension on its stdio.
pub struct Host {
    pub child: Child,
    pub peer: Arc<PeerState>,
    stdin: HostStdin,
    pub runtime: PathBuf,
}

impl Host {
    pub fn start(runtime: &Path, script: Script, session: Option<&str>) -> Host {
        let mut cmd = host_command(bin());
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", runtime);
        if let Some(s) = session {
            cmd.env("WEBEXT_MCP_SESSION", s);
        }
        Host::spawn(cmd, script, runtime)
    }

    /// Starts `cmd` (see [`host_command`]) with the scripted peer on its stdio; `runtime` is
    /// where the test expects its descriptor.
    pub fn spawn(mut cmd: Command, script: Script, runtime: &Path) -> Host {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("spawn webext-mcp in host mode");
        let stdin = HostStdin(Arc::new(Mutex::new(child.stdin.take())));
        let stdout = child.stdout.take().unwrap();
        let (peer, _thread) = peer::spawn(script, stdout, stdin.clone());
        Host { child, peer, stdin, runtime: runtime.to_path_buf() }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the host's descriptor is discoverable.
    pub fn descriptor(&self) -> Descriptor {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(d) = descriptor::discover(&self.runtime).into_iter().find(|d| d.pid == self.pid()) {
                return d;
            }
            assert!(Instant::now() < until, "host {} never wrote its descriptor", self.pid());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Writes raw bytes to the host's stdin, as if the browser had sent them (hostile
    /// headers, chunk floods).
    pub fn inject(&self, bytes: &[u8]) {
        self.stdin.clone().write_all(bytes).unwrap();
        self.stdin.clone().flush().unwrap();
    }

    /// A `kB` field of `/proc/<host pid>/status` (`VmHWM`, `VmRSS`), in bytes.
    pub fn status_bytes(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
        let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    /// Closes the host's stdin, as a browser closing the port does.
    pub fn kill_peer(&self) {
        self.stdin.0.lock().unwrap().take();
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(self.pid() as i32, sig) };
    }

    /// Waits for the host to exit; panics after the deadline.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < until, "host {} did not exit", self.pid());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `binary` started the way Chromium starts the helper's native host, with a clean
/// environment as far as webext-mcp is concerned (no runtime dir, no session, log level
/// info).
pub fn host_command(binary: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(binary);
    cmd.arg(format!("chrome-extension://{HELPER_CHROMIUM_ID}/"))
        .env("WEBEXT_MCP_LOG", "info")
        .env_remove("WEBEXT_MCP_RUNTIME_DIR")
        .env_remove("WEBEXT_MCP_SESSION");
    cmd
}

/// A private runtime dir for one test.
pub fn runtime_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("wmb").tempdir().unwrap()
}

/// Runs `webext-mcp call <tool> <args> --json` against `runtime`; returns (exit code, JSON).
pub fn cli_call(
    runtime: &Path,
    home: &Path,
    tool: &str,
    args: serde_json::Value,
) -> (i32, serde_json::Value) {
    let out = Command::new(bin())
        .arg("--home")
        .arg(home)
        .args(["call", tool, &args.to_string(), "--json"])
        .env("WEBEXT_MCP_RUNTIME_DIR", runtime)
        .env_remove("WEBEXT_MCP_BROWSER")
        .env_remove("WEBEXT_MCP_SESSION")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {text}\nstderr: {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), json)
}

/// A frame of `body` (no cap: tests send oversized frames on purpose).
pub fn frame(body: &[u8]) -> Vec<u8> {
    webext_mcp_host::protocol::codec::encode_frame(body, usize::MAX >> 1).unwrap()
}

/// The next frame from `stream` as JSON; `None` when the host closes the connection.
pub fn try_read_frame(
    stream: &mut std::os::unix::net::UnixStream,
    decoder: &mut webext_mcp_host::protocol::codec::FrameDecoder,
) -> Option<serde_json::Value> {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    loop {
        if let Some(f) = decoder.next_frame() {
            return Some(serde_json::from_slice(&f.unwrap()).unwrap());
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => decoder.push(&buf[..n]),
        }
    }
}

/// The next frame from `stream` as JSON; panics when the host closes the connection.
pub fn read_frame(
    stream: &mut std::os::unix::net::UnixStream,
    decoder: &mut webext_mcp_host::protocol::codec::FrameDecoder,
) -> serde_json::Value {
    try_read_frame(stream, decoder).expect("host closed the connection")
}
