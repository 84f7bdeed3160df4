//! The runtime dir, where hosts put their sockets and descriptors and where clients find them.
//!
//! One resolution rule for every process (DESIGN.md "Host discovery and sessions"):
//! `WEBEXT_MCP_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/webext-mcp`, else
//! `/run/user/<uid>/webext-mcp` when `/run/user/<uid>` exists, else `<temp>/webext-mcp-<uid>`,
//! and last `~/.cache/webext-mcp/runtime` for when another user pre-created the temp one.
//! Never derived from `HOME`: tests isolate `HOME`, yet a host started by a browser and a
//! server started by an agent must still meet. MCP clients often strip the environment (the
//! Python SDK keeps only HOME, LOGNAME, PATH, SHELL, TERM, USER), so a host binds in the
//! first usable candidate and a client searches every candidate ([`search_dirs`]); an
//! explicit `WEBEXT_MCP_RUNTIME_DIR` is the only candidate (tests and dev sessions rely on
//! that isolation). Every dir is checked before use ([`crate::private_dir`]).

use std::path::{Path, PathBuf};

const APP: &str = "webext-mcp";

/// Longest socket path we create (`sun_path` is 108 bytes on Linux, 104 on macOS).
pub const MAX_SOCKET_PATH: usize = 99;

/// The candidate runtime dirs, most specific first, without duplicates. Empty and relative
/// values count as unset. `run_user` is where per-user runtime dirs live (`/run/user`) and
/// `temp` the temp dir; both are parameters so the rule is a pure function.
pub fn candidates(
    var: impl Fn(&str) -> Option<String>,
    uid: u32,
    run_user: &Path,
    temp: &Path,
) -> Vec<PathBuf> {
    let path = |key: &str| var(key).filter(|v| !v.is_empty()).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(dir) = path("WEBEXT_MCP_RUNTIME_DIR") {
        return vec![dir];
    }
    let mut out = Vec::new();
    if let Some(dir) = path("XDG_RUNTIME_DIR") {
        out.push(dir.join(APP));
    }
    let per_user = run_user.join(uid.to_string());
    if per_user.is_dir() {
        out.push(per_user.join(APP));
    }
    out.push(temp.join(format!("{APP}-{uid}")));
    // The temp dir is shared: another local user can create `webext-mcp-<uid>` there first
    // (it is then refused as theirs). The last resort is a folder only this user can create.
    if let Some(home) = path("HOME") {
        out.push(home_fallback(&home));
    }
    out.dedup();
    out
}

/// The runtime dir used when every shared candidate is refused: `~/.cache/webext-mcp/runtime`
/// (inside the user's home, which no other user can write into).
pub fn home_fallback(home: &Path) -> PathBuf {
    home.join(".cache").join(APP).join("runtime")
}

/// The runtime dir a host of this environment binds in when every candidate is usable: the
/// first candidate.
pub fn runtime_dir(var: impl Fn(&str) -> Option<String>, uid: u32) -> PathBuf {
    let all = candidates(var, uid, Path::new(RUN_USER), &std::env::temp_dir());
    all.into_iter().next().unwrap_or_else(|| std::env::temp_dir().join(format!("{APP}-{uid}")))
}

/// Every dir a client of this environment searches for hosts.
pub fn search_dirs(var: impl Fn(&str) -> Option<String>, uid: u32) -> Vec<PathBuf> {
    candidates(var, uid, Path::new(RUN_USER), &std::env::temp_dir())
}

/// Where systemd-logind keeps per-user runtime dirs.
pub const RUN_USER: &str = "/run/user";

/// The runtime dir of this process.
pub fn runtime_dir_from_env() -> PathBuf {
    runtime_dir(|k| std::env::var(k).ok(), current_uid())
}

/// The real user id of this process (kept with the ownership checks that use it).
pub use crate::private_dir::current_uid;

/// Creates the runtime dir (0700) or checks an existing one: tightened when ours and too
/// open, refused when anyone else's or a symlink.
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<crate::private_dir::PrivateDir> {
    crate::private_dir::PrivateDir::ensure(dir).map_err(|p| {
        let kind = match p {
            crate::private_dir::DirProblem::Io(_) => std::io::ErrorKind::Other,
            _ => std::io::ErrorKind::PermissionDenied,
        };
        std::io::Error::new(kind, format!("{}; {}", p.describe(dir), p.fix(dir)))
    })
}

/// The first candidate a host can use, opened; the problems of those it skipped.
pub fn host_dir(candidates: &[PathBuf]) -> Result<crate::private_dir::PrivateDir, Vec<(PathBuf, String)>> {
    let mut skipped = Vec::new();
    for dir in candidates {
        match ensure_private_dir(dir) {
            Ok(d) => return Ok(d),
            Err(e) => skipped.push((dir.clone(), e.to_string())),
        }
    }
    Err(skipped)
}

/// The socket path for host `pid`: `<runtime>/h-<pid>.sock` when that is short enough,
/// else `<temp>/wm-<uid>/<12 hex of sha256(runtime dir)>-<pid>.sock`, so a deep runtime dir
/// still gets a bindable path (the descriptor records whichever was used).
pub fn socket_path(runtime: &Path, pid: u32, uid: u32, temp: &Path) -> PathBuf {
    let direct = runtime.join(format!("h-{pid}.sock"));
    if direct.as_os_str().len() <= MAX_SOCKET_PATH {
        return direct;
    }
    let tag = crate::digest::sha256_hex(runtime.as_os_str().to_string_lossy().as_bytes());
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

/// How many host logs a runtime dir keeps: every host run writes one `h-<pid>.log`, and the
/// newest few are what a bug report needs.
pub const KEPT_HOST_LOGS: usize = 10;

/// Removes the host logs of `dir` beyond the `keep` newest (by modification time), never the
/// one of `own_pid`. Only regular files of ours named `h-<pid>.log` are touched. Returns how
/// many were removed.
pub fn prune_host_logs(dir: &crate::private_dir::PrivateDir, keep: usize, own_pid: u32) -> usize {
    let mut logs: Vec<(std::time::SystemTime, String)> = dir
        .names()
        .into_iter()
        .filter(|n| {
            n.strip_prefix("h-")
                .and_then(|r| r.strip_suffix(".log"))
                .is_some_and(|p| p.parse::<u32>().is_ok_and(|p| p != own_pid))
        })
        .filter_map(|n| dir.modified(&n).map(|t| (t, n)))
        .collect();
    // Newest first; this process's own log counts as one of the kept.
    logs.sort_by(|a, b| b.cmp(a));
    logs.into_iter()
        .skip(keep.saturating_sub(1))
        .filter(|(_, n)| dir.remove(n, crate::private_dir::Ours::File))
        .count()
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
    #[cfg(unix)]
    #[test]
    fn host_logs_beyond_the_newest_are_pruned_and_nothing_else_is_touched() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("run");
        let dir = crate::private_dir::PrivateDir::ensure(&root).unwrap();
        let base = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for pid in 1..=15u32 {
            let path = root.join(format!("h-{pid}.log"));
            let f = std::fs::File::create(&path).unwrap();
            f.set_modified(base + std::time::Duration::from_secs(u64::from(pid) * 10)).unwrap();
        }
        for other in ["h-3.json", "notes.log", "h-x.log"] {
            std::fs::write(root.join(other), "x").unwrap();
        }
        // Host 2 (an old log) is this process: its log stays though it is among the oldest.
        assert_eq!(prune_host_logs(&dir, 5, 2), 10);
        let mut left: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["h-12.log", "h-13.log", "h-14.log", "h-15.log", "h-2.log", "h-3.json", "h-x.log", "notes.log"]
        );
        assert_eq!(prune_host_logs(&dir, 5, 2), 0);
    }

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
    fn candidates_in_order_explicit_alone() {
        let t = tempfile::tempdir().unwrap();
        let run_user = t.path().join("run-user");
        let temp = Path::new("/tmp");
        let e = env(&[("WEBEXT_MCP_RUNTIME_DIR", "/r/x"), ("XDG_RUNTIME_DIR", "/run/user/7")]);
        assert_eq!(candidates(e, 7, &run_user, temp), vec![PathBuf::from("/r/x")]);
        // No /run/user/7 here: XDG, then temp.
        let xdg = env(&[("XDG_RUNTIME_DIR", "/x/7")]);
        assert_eq!(
            candidates(&xdg, 7, &run_user, temp),
            vec![PathBuf::from("/x/7/webext-mcp"), PathBuf::from("/tmp/webext-mcp-7")]
        );
        // A stripped environment still finds /run/user/<uid> when it exists.
        std::fs::create_dir_all(run_user.join("7")).unwrap();
        assert_eq!(
            candidates(env(&[("HOME", "/home/u")]), 7, &run_user, temp),
            vec![
                run_user.join("7/webext-mcp"),
                PathBuf::from("/tmp/webext-mcp-7"),
                PathBuf::from("/home/u/.cache/webext-mcp/runtime")
            ]
        );
        let same = run_user.join("7").to_string_lossy().into_owned();
        assert_eq!(
            candidates(env(&[("XDG_RUNTIME_DIR", &same)]), 7, &run_user, temp).len(),
            2,
            "XDG_RUNTIME_DIR=/run/user/<uid> is listed once"
        );
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
