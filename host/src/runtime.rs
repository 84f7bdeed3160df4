//! The runtime dir, where hosts put their sockets and descriptors and where clients find them.
//!
//! One resolution rule for every process (DESIGN.md "Host discovery and sessions"):
//! `WEBEXT_MCP_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/webext-mcp`, else
//! `<temp>/webext-mcp-<uid>`. Never derived from `HOME`: tests isolate `HOME`, yet a host
//! started by a browser and a server started by an agent must still meet.

use std::path::{Path, PathBuf};

const APP: &str = "webext-mcp";

/// Longest socket path we create (`sun_path` is 108 bytes on Linux, 104 on macOS).
pub const MAX_SOCKET_PATH: usize = 99;

/// Resolves the runtime dir from environment lookups. Empty and relative values count as
/// unset.
pub fn runtime_dir(var: impl Fn(&str) -> Option<String>, uid: u32) -> PathBuf {
    let path = |key: &str| var(key).filter(|v| !v.is_empty()).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(dir) = path("WEBEXT_MCP_RUNTIME_DIR") {
        return dir;
    }
    if let Some(dir) = path("XDG_RUNTIME_DIR") {
        return dir.join(APP);
    }
    std::env::temp_dir().join(format!("{APP}-{uid}"))
}

/// The runtime dir of this process.
pub fn runtime_dir_from_env() -> PathBuf {
    runtime_dir(|k| std::env::var(k).ok(), current_uid())
}

/// The real user id of this process (0 where the platform has none).
#[cfg(unix)]
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
pub fn current_uid() -> u32 {
    0
}

/// What to do with an existing runtime dir, decided from its owner and mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirVerdict {
    /// Owned by us, private: use it.
    Use,
    /// Owned by us but group/other bits set: chmod 0700, then use it.
    Tighten,
    /// Owned by someone else: refuse (another user could read or plant sockets).
    Refuse,
}

/// Pure decision on an existing runtime dir.
pub fn dir_verdict(owner: u32, mode: u32, own_uid: u32) -> DirVerdict {
    if owner != own_uid {
        DirVerdict::Refuse
    } else if mode & 0o077 != 0 {
        DirVerdict::Tighten
    } else {
        DirVerdict::Use
    }
}

/// Creates the runtime dir (0700) or checks an existing one.
#[cfg(unix)]
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other(format!("{} is not a directory", dir.display())));
    }
    match dir_verdict(meta.uid(), meta.mode(), current_uid()) {
        DirVerdict::Use => Ok(()),
        DirVerdict::Tighten => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)),
        DirVerdict::Refuse => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to uid {}, not to this user; set WEBEXT_MCP_RUNTIME_DIR to a private directory",
                dir.display(),
                meta.uid()
            ),
        )),
    }
}

#[cfg(not(unix))]
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    // Per-user profile directories already carry a private ACL on Windows.
    std::fs::create_dir_all(dir)
}

/// The socket path for host `pid`: `<runtime>/h-<pid>.sock` when that is short enough,
/// else `<temp>/wm-<uid>/<12 hex of sha256(runtime dir)>-<pid>.sock`, so a deep runtime dir
/// still gets a bindable path (the descriptor records whichever was used).
pub fn socket_path(runtime: &Path, pid: u32, uid: u32, temp: &Path) -> PathBuf {
    let direct = runtime.join(format!("h-{pid}.sock"));
    if direct.as_os_str().len() <= MAX_SOCKET_PATH {
        return direct;
    }
    let tag = crate::protocol::sha256_hex(runtime.as_os_str().to_string_lossy().as_bytes());
    short_socket_dir(temp, uid).join(format!("{}-{pid}.sock", &tag[..12]))
}

/// The directory for sockets whose runtime dir is too deep.
pub fn short_socket_dir(temp: &Path, uid: u32) -> PathBuf {
    temp.join(format!("wm-{uid}"))
}

/// The descriptor path for host `pid`.
pub fn descriptor_path(runtime: &Path, pid: u32) -> PathBuf {
    runtime.join(format!("h-{pid}.json"))
}

/// The log file of host `pid`.
pub fn log_path(runtime: &Path, pid: u32) -> PathBuf {
    runtime.join(format!("h-{pid}.log"))
}

/// The pid a runtime-dir file name (`h-<pid>.json`, `h-<pid>.sock`, `<tag>-<pid>.sock`)
/// belongs to.
pub fn pid_of_file_name(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".json").or_else(|| name.strip_suffix(".sock"))?;
    let (_, pid) = stem.rsplit_once('-')?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn precedence_explicit_then_xdg_then_temp() {
        let e = env(&[("WEBEXT_MCP_RUNTIME_DIR", "/r/x"), ("XDG_RUNTIME_DIR", "/run/user/7")]);
        assert_eq!(runtime_dir(e, 7), Path::new("/r/x"));
        assert_eq!(
            runtime_dir(env(&[("XDG_RUNTIME_DIR", "/run/user/7")]), 7),
            Path::new("/run/user/7/webext-mcp")
        );
        assert!(runtime_dir(env(&[("HOME", "/home/u")]), 7).ends_with("webext-mcp-7"));
        assert!(
            runtime_dir(env(&[("WEBEXT_MCP_RUNTIME_DIR", "rel"), ("XDG_RUNTIME_DIR", "")]), 3)
                .ends_with("webext-mcp-3")
        );
    }

    #[test]
    fn dir_verdicts() {
        assert_eq!(dir_verdict(1000, 0o40700, 1000), DirVerdict::Use);
        assert_eq!(dir_verdict(1000, 0o40755, 1000), DirVerdict::Tighten);
        assert_eq!(dir_verdict(0, 0o40700, 1000), DirVerdict::Refuse);
        assert_eq!(dir_verdict(1001, 0o40777, 1000), DirVerdict::Refuse);
    }

    #[test]
    fn socket_paths_stay_short() {
        let temp = Path::new("/tmp");
        let short = socket_path(Path::new("/run/user/1000/webext-mcp"), 4_194_304, 1000, temp);
        assert_eq!(short, Path::new("/run/user/1000/webext-mcp/h-4194304.sock"));
        let deep = PathBuf::from(format!("/tmp/{}", "d".repeat(150)));
        let p = socket_path(&deep, 4_194_304, 1000, temp);
        assert!(p.as_os_str().len() <= MAX_SOCKET_PATH, "{p:?}");
        assert!(p.starts_with("/tmp/wm-1000"));
        let other = socket_path(&PathBuf::from(format!("/tmp/{}", "e".repeat(150))), 4_194_304, 1000, temp);
        assert_ne!(p, other, "different runtime dirs never share a socket");
    }

    #[test]
    fn pids_from_file_names() {
        assert_eq!(pid_of_file_name("h-123.json"), Some(123));
        assert_eq!(pid_of_file_name("h-9.sock"), Some(9));
        assert_eq!(pid_of_file_name("0123456789ab-77.sock"), Some(77));
        assert_eq!(pid_of_file_name("h-x.json"), None);
        assert_eq!(pid_of_file_name("h-1.log"), None);
    }
}
