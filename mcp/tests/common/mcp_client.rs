//! A minimal line-delimited JSON-RPC client for driving `webext-mcp serve` in tests.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A hang guard per request; the tools have their own, shorter deadlines.
pub const DEADLINE: Duration = Duration::from_secs(120);

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_webext-mcp")
}

/// A command for the binary with a private home and runtime dir, so tests never read the
/// developer's real configuration.
pub fn command(home: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("--home").arg(home);
    cmd.env("WEBEXT_MCP_RUNTIME_DIR", home.join("run"));
    for (k, _) in std::env::vars() {
        if k.starts_with("WEBEXT_MCP_") && k != "WEBEXT_MCP_TEST_PYTHON" {
            cmd.env_remove(k);
        }
    }
    cmd.env("WEBEXT_MCP_RUNTIME_DIR", home.join("run"));
    cmd
}

pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line the server wrote to stdout, in order.
    pub stdout_lines: Vec<String>,
    next_id: u64,
}

impl Server {
    pub fn start(home: &Path, extra: &[&str]) -> Server {
        let mut cmd = command(home);
        cmd.arg("serve").args(extra);
        Server::spawn(cmd)
    }

    /// `serve` against the hosts of another runtime dir (a helper browser's), initialized.
    pub fn serve_in(home: &Path, runtime_dir: &Path, extra: &[&str]) -> Server {
        let mut cmd = command(home);
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", runtime_dir).arg("serve").args(extra);
        let mut server = Server::spawn(cmd);
        server.initialize();
        server
    }

    /// [`Server::serve_in`] with `--log debug`, its stderr written to `log`.
    #[allow(dead_code)]
    pub fn serve_logged(home: &Path, runtime_dir: &Path, extra: &[&str], log: &Path) -> Server {
        let mut cmd = command(home);
        cmd.env("WEBEXT_MCP_RUNTIME_DIR", runtime_dir).args(["--log", "debug", "serve"]).args(extra);
        let mut server = Server::spawn_with(cmd, Stdio::from(std::fs::File::create(log).unwrap()));
        server.initialize();
        server
    }

    /// Runs `cmd` (a `serve` command) with piped stdio.
    pub fn spawn(cmd: Command) -> Server {
        Server::spawn_with(cmd, Stdio::null())
    }

    /// Runs `cmd` (a `serve` command) with piped stdin/stdout and `stderr`.
    pub fn spawn_with(mut cmd: Command, stderr: Stdio) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn webext-mcp serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let stdin = child.stdin.take();
        Server { child, stdin, lines: rx, stdout_lines: Vec::new(), next_id: 1 }
    }

    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `bytes` to the server's stdin as they are (malformed input on purpose).
    #[allow(dead_code)]
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method} within {DEADLINE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("server closed stdout during {method}"),
            };
            self.stdout_lines.push(line.clone());
            let msg: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("non-JSON on stdout: {line:?}: {e}"));
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// Sends a request without waiting for its answer; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Reads stdout until a message satisfies `found` (kept in `stdout_lines` too); `None`
    /// after `within`.
    pub fn wait_message(&mut self, within: Duration, found: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            self.stdout_lines.push(line.clone());
            let msg: Value = serde_json::from_str(&line).ok()?;
            if found(&msg) {
                return Some(msg);
            }
        }
    }

    /// The messages of the `notifications/progress` read so far, in order.
    pub fn progress_messages(&self) -> Vec<String> {
        self.stdout_lines
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["method"] == "notifications/progress")
            .filter_map(|m| m["params"]["message"].as_str().map(str::to_owned))
            .collect()
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r.get("result").cloned().unwrap_or_else(|| panic!("{tool}: protocol error {r}"))
    }

    pub fn tool_names(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Closes stdin and waits for the process to exit; returns its exit status and any
    /// stdout lines it wrote after the last answer.
    pub fn close(mut self) -> (std::process::ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let rest: Vec<String> = self.lines.try_iter().collect();
                return (status, rest);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not exit within {DEADLINE:?} after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `webext-mcp ARGS…` to completion: (exit code, stdout, stderr).
pub fn run(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = command(home).args(args).stdin(Stdio::null()).output().expect("run webext-mcp");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
