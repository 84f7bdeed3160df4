//! Host descriptors: one JSON file per running host next to its socket, saying which browser
//! and profile it serves, where its socket is, and the token a client must present.
//! Clients discover hosts by reading them; entries whose host is gone are removed by whoever
//! notices first.
//!
//! Everything here goes through a checked [`PrivateDir`]: a descriptor is read only when it
//! is a private regular file of ours, used only when its `socket` names one of our socket
//! files inside the runtime dir or the short-socket dir, and nothing is unlinked without a
//! no-follow proof that it is ours (DESIGN.md "Trust model").

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::private_dir::{DirProblem, Ours, PrivateDir};
use crate::runtime::{current_uid, pid_of_file_name, short_socket_dir};
use crate::transport::{Platform, Probe, Transport};

/// Largest descriptor read (real ones are under 1 KiB).
pub const MAX_DESCRIPTOR_BYTES: u64 = 64 * 1024;

/// The per-host secret a client presents in `client.hello`: 32 random bytes as hex. Its
/// `Debug` never shows the value, so it cannot reach a log by accident.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Token(String);

impl Token {
    /// A fresh token from the operating system's random source.
    pub fn generate() -> std::io::Result<Token> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no randomness: {e}")))?;
        Ok(Token(crate::digest::hex(&bytes)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Constant-time comparison with a presented value.
    pub fn matches(&self, presented: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), presented.as_bytes());
        !a.is_empty() && a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl From<&str> for Token {
    fn from(s: &str) -> Token {
        Token(s.to_owned())
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "Token(none)" } else { "Token(…)" })
    }
}

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
    /// The secret `client.hello` must carry. Only in the 0600 file, never shown to clients.
    #[serde(default, skip_serializing_if = "Token::is_empty")]
    pub token: Token,
}

impl Descriptor {
    /// The descriptor as shown to clients and in tool results: everything but the token.
    pub fn public(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("token");
        }
        v
    }
}

/// Pure: may a descriptor read from file `name` in `runtime` be used? Its pid must be the
/// one in its file name, and its socket one of our socket names directly inside the runtime
/// dir or the short-socket dir (anything else could make a client connect to, or delete, a
/// file of the attacker's choosing).
pub fn validate(d: &Descriptor, name: &str, runtime: &Path, short: &Path) -> Result<(), String> {
    if pid_of_file_name(name) != Some(d.pid) {
        return Err(format!("pid {} does not match the file name {name}", d.pid));
    }
    if cfg!(windows) {
        let pipe = d.socket.to_string_lossy();
        let ok = pipe.starts_with(r"\\.\pipe\webext-mcp-") && pipe.ends_with(&format!("-{}", d.pid));
        return if ok { Ok(()) } else { Err("socket is not a webext-mcp pipe name".into()) };
    }
    let Some(file) = d.socket.file_name().and_then(|f| f.to_str()) else {
        return Err("socket has no file name".into());
    };
    let parent = d.socket.parent().unwrap_or(Path::new(""));
    let direct = parent == runtime && file == format!("h-{}.sock", d.pid);
    let shortened = parent == short
        && file
            .strip_suffix(&format!("-{}.sock", d.pid))
            .is_some_and(|tag| tag.len() == 12 && tag.bytes().all(|b| b.is_ascii_hexdigit()));
    if direct || shortened {
        Ok(())
    } else {
        Err(format!("socket {} is not a socket of this runtime dir", d.socket.display()))
    }
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
            opts.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        let mut f = opts.open(&tmp)?;
        std::io::Write::write_all(&mut f, &text)?;
    }
    std::fs::rename(&tmp, path)
}

/// Pure: a host is live unless its endpoint is provably dead, or its process is gone and
/// nothing answers on its endpoint. (A host seen as gone may still answer: a sandboxed
/// browser can run it in another pid namespace.)
pub fn is_live(pid_alive: bool, probe: Probe) -> bool {
    probe != Probe::Dead && (pid_alive || probe == Probe::Live)
}

/// The dirs a runtime dir's hosts use: the runtime dir itself and, when it exists and passes
/// the same checks, the short-socket dir.
pub struct Dirs {
    pub runtime: PrivateDir,
    pub short: Option<PrivateDir>,
}

impl Dirs {
    /// Opens `runtime` as a client would (checked, never created); the short-socket dir is
    /// left out when missing or unsafe.
    pub fn open(runtime: &Path) -> Result<Dirs, DirProblem> {
        let runtime = PrivateDir::open(runtime)?;
        Ok(Dirs::with(runtime))
    }

    /// Wraps an already-checked runtime dir.
    pub fn with(runtime: PrivateDir) -> Dirs {
        let short = PrivateDir::open(&short_socket_dir(&std::env::temp_dir(), current_uid())).ok();
        Dirs { runtime, short }
    }

    /// The checked dir holding `path` and the entry name there.
    fn locate<'a>(&'a self, path: &'a Path) -> Option<(&'a PrivateDir, &'a str)> {
        std::iter::once(&self.runtime)
            .chain(self.short.iter())
            .find_map(|dir| dir.entry_name(path).map(|name| (dir, name)))
    }

    fn short_path(&self) -> PathBuf {
        short_socket_dir(&std::env::temp_dir(), current_uid())
    }

    /// Existence check without following links: a missing endpoint is dead; one that is not
    /// our socket is treated as dead too (it can never be connected to safely).
    fn quick_probe(&self, socket: &Path) -> Probe {
        if cfg!(windows) {
            return Probe::Unknown;
        }
        match self.locate(socket) {
            Some((dir, name)) if dir.is_our_socket(name) => Probe::Unknown,
            _ => Probe::Dead,
        }
    }

    /// Removes a socket of ours by path, only inside these dirs.
    fn remove_socket(&self, socket: &Path) {
        if cfg!(windows) {
            return;
        }
        if let Some((dir, name)) = self.locate(socket) {
            dir.remove(name, Ours::Socket);
        }
    }

    /// Every valid descriptor, live or not, oldest first. Invalid ones are logged and
    /// ignored; unreadable ones of dead hosts are removed.
    pub fn scan(&self) -> Vec<(String, Descriptor)> {
        let short = self.short_path();
        let mut out = Vec::new();
        for name in self.runtime.names() {
            if !(name.starts_with("h-") && name.ends_with(".json")) {
                continue;
            }
            let parsed = self
                .runtime
                .read_private(&name, MAX_DESCRIPTOR_BYTES)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<Descriptor>(&b).map_err(|e| e.to_string()))
                .and_then(|d| validate(&d, &name, self.runtime.path(), &short).map(|()| d));
            match parsed {
                Ok(d) => out.push((name, d)),
                Err(why) => {
                    tracing::warn!(name, "ignoring a descriptor: {why}");
                    // Written by a dead host, or by another version: removed only if dead.
                    if pid_of_file_name(&name).is_some_and(|pid| !crate::process::pid_alive(pid)) {
                        self.runtime.remove(&name, Ours::File);
                    }
                }
            }
        }
        out.sort_by_key(|(_, d)| (d.started_at, d.pid));
        out
    }

    /// The live hosts; dead entries (descriptor and socket) are removed on the way.
    pub fn discover(&self) -> Vec<Descriptor> {
        let mut live = Vec::new();
        for (name, d) in self.scan() {
            // Existence first: a connect probe per call would cost every host a connection,
            // so it is made only for hosts whose pid looks gone. A socket left by a killed
            // host whose pid was reused is caught when connecting to it fails (`forget`).
            let alive = crate::process::pid_alive(d.pid);
            let probe = match self.quick_probe(&d.socket) {
                Probe::Unknown if !alive => Platform::probe(&d.socket),
                other => other,
            };
            if is_live(alive, probe) {
                live.push(d);
            } else {
                tracing::info!(pid = d.pid, "removing the descriptor of a host that is gone");
                self.runtime.remove(&name, Ours::File);
                if Platform::probe(&d.socket) != Probe::Live {
                    self.remove_socket(&d.socket);
                }
            }
        }
        live
    }

    /// Removes a host's descriptor and socket after a client found it unreachable
    /// (connection refused): the host was killed and its pid may have been reused.
    pub fn forget(&self, d: &Descriptor) {
        if Platform::probe(&d.socket) == Probe::Dead
            && self.scan().iter().any(|(_, found)| found.pid == d.pid && found.socket == d.socket)
        {
            self.runtime.remove(&format!("h-{}.json", d.pid), Ours::File);
            self.remove_socket(&d.socket);
        }
    }

    /// Removes leftovers of dead hosts: descriptors, and sockets without a descriptor that
    /// nothing listens on (a host killed before the extension said hello). Live sockets are
    /// never touched; nothing that is not our socket or our file is touched.
    pub fn clean_stale(&self) {
        self.discover();
        for dir in std::iter::once(&self.runtime).chain(self.short.iter()) {
            for name in dir.names() {
                if name.starts_with("h-") && name.ends_with(".log") {
                    prune_log(dir, &name);
                    continue;
                }
                // Only sockets of hosts whose process is gone: a starting host has bound its
                // socket a moment before it listens, and a probe in that moment is refused.
                let dead = pid_of_file_name(&name).is_some_and(|pid| !crate::process::pid_alive(pid));
                if !name.ends_with(".sock") || !dead || !dir.is_our_socket(&name) {
                    continue;
                }
                // And only what provably has no listener: a live socket is never unlinked.
                if Platform::probe(&dir.path().join(&name)) == Probe::Dead {
                    tracing::info!(dir = %dir.path().display(), name, "removing stale socket");
                    dir.remove(&name, Ours::Socket);
                }
            }
        }
    }
}

/// The live hosts of `runtime`, checked as a client checks it; nothing when the dir fails a
/// check.
pub fn discover(runtime: &Path) -> Vec<Descriptor> {
    search(&[runtime.to_path_buf()]).0
}

/// What searching one candidate runtime dir found.
#[derive(Debug, Clone)]
pub struct DirReport {
    pub path: PathBuf,
    /// Why the dir was not used (`Missing` is harmless).
    pub problem: Option<DirProblem>,
    pub hosts: usize,
}

/// Searches every candidate dir: the live hosts of the dirs that pass the checks (first
/// dir's hosts first; a socket seen twice counts once) and a report per dir.
pub fn search(dirs: &[PathBuf]) -> (Vec<Descriptor>, Vec<DirReport>) {
    let mut hosts: Vec<Descriptor> = Vec::new();
    let mut reports = Vec::new();
    for path in dirs {
        match Dirs::open(path) {
            Ok(d) => {
                let found = d.discover();
                let before = hosts.len();
                for h in found {
                    if !hosts.iter().any(|k| k.socket == h.socket) {
                        hosts.push(h);
                    }
                }
                reports.push(DirReport { path: path.clone(), problem: None, hosts: hosts.len() - before });
            }
            Err(p) => {
                if p.is_unsafe() {
                    tracing::warn!("not searching {}: {}", path.display(), p.describe(path));
                }
                reports.push(DirReport { path: path.clone(), problem: Some(p), hosts: 0 });
            }
        }
    }
    (hosts, reports)
}

/// Logs of hosts that are gone are kept a week for `doctor` and bug reports, then removed.
fn prune_log(dir: &PrivateDir, name: &str) {
    const KEEP: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
    let Some(pid) = name.strip_suffix(".log").and_then(|s| s.strip_prefix("h-")).and_then(|p| p.parse().ok())
    else {
        return;
    };
    let old = dir.modified(name).and_then(|t| t.elapsed().ok()).is_some_and(|age| age > KEEP);
    if old && !crate::process::pid_alive(pid) {
        dir.remove(name, Ours::File);
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
            token: Token::from("t0ken"),
        }
    }

    fn private_tempdir() -> (tempfile::TempDir, Dirs) {
        let t = tempfile::tempdir().unwrap();
        let dirs = Dirs::with(PrivateDir::ensure(t.path()).unwrap());
        (t, dirs)
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

    #[test]
    fn tokens_are_random_compared_fully_and_never_shown() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_eq!(a.as_str().len(), 64);
        assert_ne!(a, b);
        assert!(a.matches(a.as_str()));
        assert!(!a.matches(b.as_str()));
        assert!(!a.matches(&a.as_str()[..63]));
        assert!(!Token::default().matches(""), "an empty token matches nothing");
        assert!(!format!("{a:?}").contains(a.as_str()));
        let d = sample(1, PathBuf::from("/r/h-1.sock"));
        assert!(d.public().get("token").is_none());
        assert!(!format!("{d:?}").contains("t0ken"));
    }

    #[cfg(unix)]
    #[test]
    fn descriptors_naming_sockets_elsewhere_are_invalid() {
        let rt = Path::new("/run/user/7/webext-mcp");
        let short = Path::new("/tmp/wm-7");
        let ok = |socket: &str, name: &str, pid: u32| validate(&sample(pid, socket.into()), name, rt, short);
        assert!(ok("/run/user/7/webext-mcp/h-5.sock", "h-5.json", 5).is_ok());
        assert!(ok("/tmp/wm-7/0123456789ab-5.sock", "h-5.json", 5).is_ok());
        assert!(ok("/run/user/7/webext-mcp/h-5.sock", "h-6.json", 5).is_err(), "pid must match the file");
        assert!(ok("/home/victim/.ssh/id_ed25519", "h-5.json", 5).is_err());
        assert!(ok("/run/user/7/webext-mcp/h-6.sock", "h-5.json", 5).is_err());
        assert!(ok("/run/user/7/webext-mcp/../h-5.sock", "h-5.json", 5).is_err());
        assert!(ok("/tmp/wm-7/zz-5.sock", "h-5.json", 5).is_err());
        assert!(ok("/tmp/other/0123456789ab-5.sock", "h-5.json", 5).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn descriptor_is_private_round_trips_and_dead_ones_are_cleaned() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, dirs) = private_tempdir();
        // pid 0x7ffffff0 is not running; its socket does not exist.
        let pid = 0x7fff_fff0;
        let path = dir.path().join(format!("h-{pid}.json"));
        let d = sample(pid, dir.path().join(format!("h-{pid}.sock")));
        write(&path, &d).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(dirs.scan().len(), 1);
        assert_eq!(dirs.scan()[0].1, d);
        assert!(dirs.discover().is_empty());
        assert!(!path.exists(), "dead descriptor removed");
    }

    #[cfg(unix)]
    #[test]
    fn a_forged_descriptor_never_deletes_the_file_it_names() {
        let (dir, dirs) = private_tempdir();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("important.txt");
        std::fs::write(&victim, "data").unwrap();
        let pid = 0x7fff_ffe0;
        write(&dir.path().join(format!("h-{pid}.json")), &sample(pid, victim.clone())).unwrap();
        // A regular file inside the dir under a socket's name is not ours to unlink either.
        let inside = dir.path().join("h-2147483617.sock");
        std::fs::write(&inside, "not a socket").unwrap();
        write(&dir.path().join("h-2147483617.json"), &sample(0x7fff_ffe1, inside.clone())).unwrap();
        assert!(dirs.discover().is_empty());
        dirs.clean_stale();
        dirs.forget(&sample(pid, victim.clone()));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "data");
        assert!(inside.exists());
    }

    #[cfg(unix)]
    #[test]
    fn live_pid_with_a_listening_socket_is_kept() {
        let (dir, dirs) = private_tempdir();
        let pid = std::process::id();
        let sock = dir.path().join(format!("h-{pid}.sock"));
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let d = sample(pid, sock.clone());
        write(&dir.path().join(format!("h-{pid}.json")), &d).unwrap();
        assert_eq!(dirs.discover(), vec![d]);
        dirs.clean_stale();
        assert!(sock.exists());
    }

    #[cfg(unix)]
    #[test]
    fn orphan_socket_of_a_dead_pid_is_removed() {
        let (dir, dirs) = private_tempdir();
        let sock = dir.path().join("h-2147483631.sock");
        drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
        assert!(sock.exists());
        dirs.clean_stale();
        assert!(!sock.exists());
    }
}
