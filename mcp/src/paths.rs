//! Every directory webext-mcp reads or writes, computed in one place.
//!
//! [`Paths::for_home`] is pure: given a home directory and the environment it computes the
//! same layout every time, so `--home` and tests never have to touch the real `HOME`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// The parts of the process environment that decide paths and configuration, captured once.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
    /// The real user id (decides the shared runtime dir fallback).
    pub uid: u32,
}

impl Env {
    /// Captures the relevant variables of this process.
    pub fn capture() -> Env {
        let vars = std::env::vars()
            .filter(|(k, _)| {
                k.starts_with("WEBEXT_MCP_")
                    || k.starts_with("XDG_")
                    || matches!(k.as_str(), "HOME" | "APPDATA" | "LOCALAPPDATA" | "TMPDIR")
            })
            .collect();
        Env { vars, uid: current_uid() }
    }

    /// An environment built from explicit pairs (tests, `--home`).
    pub fn from_pairs<I, K, V>(pairs: I, uid: u32) -> Env
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Env { vars: pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect(), uid }
    }

    /// The same environment without the variables that relocate per-user folders
    /// (`XDG_*_HOME`, `APPDATA`, `LOCALAPPDATA`): with `--home DIR`, every such folder lives
    /// under DIR. The runtime dir and explicit `WEBEXT_MCP_*` overrides are kept.
    pub fn for_explicit_home(&self) -> Env {
        let mut vars = self.vars.clone();
        for key in [
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "APPDATA",
            "LOCALAPPDATA",
        ] {
            vars.remove(key);
        }
        Env { vars, uid: self.uid }
    }

    /// A variable's value; empty values count as unset.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key).map(PathBuf::from).filter(|p| p.is_absolute())
    }
}

#[cfg(unix)]
fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn current_uid() -> u32 {
    0
}

/// The directories of one user's webext-mcp.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Paths {
    pub home: PathBuf,
    /// `config.toml` lives here.
    pub config_dir: PathBuf,
    pub config_file: PathBuf,
    /// Sockets and descriptors of running hosts and sessions (mode 0700): where hosts and
    /// sessions started from this environment bind.
    pub runtime_dir: PathBuf,
    /// Every runtime dir a client searches for hosts (`runtime_dir` first); see
    /// `webext_mcp_host::runtime::candidates`.
    pub runtime_search: Vec<PathBuf>,
    /// Downloaded catalogs, tool caches: safe to delete.
    pub cache_dir: PathBuf,
    /// Persistent data: the installed helper extension, managed browsers.
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
    /// Browsers installed by webext-mcp.
    pub browsers_dir: PathBuf,
    /// The helper extension unpacked by `install`, one folder per browser family.
    pub helper_dir: PathBuf,
}

const APP: &str = "webext-mcp";

impl Paths {
    /// The layout for this process: the real home directory and environment.
    pub fn detect(env: &Env) -> Paths {
        let home = directories::BaseDirs::new()
            .map(|b| b.home_dir().to_path_buf())
            .or_else(|| env.path("HOME"))
            .unwrap_or_else(std::env::temp_dir);
        Paths::for_home(&home, env)
    }

    /// The layout for a given home directory. Pure: reads nothing from the process.
    pub fn for_home(home: &Path, env: &Env) -> Paths {
        let home = home.to_path_buf();
        let layout = platform_layout(&home, env);
        let config_file =
            env.path("WEBEXT_MCP_CONFIG").unwrap_or_else(|| layout.config_dir.join("config.toml"));
        let runtime_search = runtime_search(env);
        let runtime_dir = runtime_search.first().cloned().unwrap_or_else(|| runtime_dir(env));
        Paths {
            runtime_search,
            browsers_dir: layout.data_dir.join("browsers"),
            helper_dir: layout.data_dir.join("helper"),
            config_dir: layout.config_dir,
            config_file,
            runtime_dir,
            cache_dir: layout.cache_dir,
            data_dir: layout.data_dir,
            log_dir: layout.log_dir,
            home,
        }
    }
}

/// The runtime dir is never derived from `HOME`: tests isolate `HOME`, yet a host and a server
/// started with different homes must still meet.
/// The rule itself lives in the host crate, which host mode uses before any of this exists.
fn runtime_dir(env: &Env) -> PathBuf {
    webext_mcp_host::runtime::runtime_dir(|key| env.get(key).map(str::to_owned), env.uid)
}

fn runtime_search(env: &Env) -> Vec<PathBuf> {
    webext_mcp_host::runtime::search_dirs(|key| env.get(key).map(str::to_owned), env.uid)
}

struct Layout {
    config_dir: PathBuf,
    cache_dir: PathBuf,
    data_dir: PathBuf,
    log_dir: PathBuf,
}

#[cfg(target_os = "macos")]
fn platform_layout(home: &Path, _env: &Env) -> Layout {
    Layout {
        config_dir: home.join(".config").join(APP),
        cache_dir: home.join("Library/Caches").join(APP),
        data_dir: home.join("Library/Application Support").join(APP),
        log_dir: home.join("Library/Logs").join(APP),
    }
}

#[cfg(windows)]
fn platform_layout(home: &Path, env: &Env) -> Layout {
    let roaming = env.path("APPDATA").unwrap_or_else(|| home.join("AppData").join("Roaming"));
    let local = env.path("LOCALAPPDATA").unwrap_or_else(|| home.join("AppData").join("Local"));
    Layout {
        config_dir: roaming.join(APP),
        cache_dir: local.join(APP).join("cache"),
        data_dir: local.join(APP).join("data"),
        log_dir: local.join(APP).join("logs"),
    }
}

#[cfg(not(any(target_os = "macos", windows)))]
fn platform_layout(home: &Path, env: &Env) -> Layout {
    let xdg = |key: &str, fallback: &str| env.path(key).unwrap_or_else(|| home.join(fallback));
    Layout {
        config_dir: xdg("XDG_CONFIG_HOME", ".config").join(APP),
        cache_dir: xdg("XDG_CACHE_HOME", ".cache").join(APP),
        data_dir: xdg("XDG_DATA_HOME", ".local/share").join(APP),
        log_dir: xdg("XDG_STATE_HOME", ".local/state").join(APP).join("logs"),
    }
}

/// `p` made absolute against `base`, with `.` and `..` removed lexically: no file-system
/// access, because the path may not exist yet (a project to create, an output dir).
pub fn resolve_lexically(base: &Path, p: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `p` is a file this user may run (on other platforms: any file).
pub fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The first executable `program` in a `PATH`-style list of folders.
pub fn find_executable(program: &str, search: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(search?).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_layout_follows_xdg_with_home_fallbacks() {
        let env = Env::from_pairs([("XDG_CACHE_HOME", "/xdg/cache")], 1000);
        let p = Paths::for_home(Path::new("/home/u"), &env);
        assert_eq!(p.config_file, Path::new("/home/u/.config/webext-mcp/config.toml"));
        assert_eq!(p.cache_dir, Path::new("/xdg/cache/webext-mcp"));
        assert_eq!(p.data_dir, Path::new("/home/u/.local/share/webext-mcp"));
        assert_eq!(p.helper_dir, Path::new("/home/u/.local/share/webext-mcp/helper"));
        assert_eq!(p.log_dir, Path::new("/home/u/.local/state/webext-mcp/logs"));
    }

    #[test]
    fn runtime_dir_precedence_and_never_home() {
        let home = Path::new("/home/u");
        let explicit = Env::from_pairs(
            [("WEBEXT_MCP_RUNTIME_DIR", "/r/explicit"), ("XDG_RUNTIME_DIR", "/run/user/7")],
            7,
        );
        assert_eq!(Paths::for_home(home, &explicit).runtime_dir, Path::new("/r/explicit"));
        let xdg = Env::from_pairs([("XDG_RUNTIME_DIR", "/run/user/7")], 7);
        assert_eq!(Paths::for_home(home, &xdg).runtime_dir, Path::new("/run/user/7/webext-mcp"));
        let bare = Env::from_pairs(Vec::<(String, String)>::new(), 7);
        let dir = Paths::for_home(home, &bare).runtime_dir;
        assert!(dir.ends_with("webext-mcp-7"), "{dir:?}");
        assert!(!dir.starts_with(home));
    }

    #[test]
    fn relative_and_empty_overrides_are_ignored() {
        let env = Env::from_pairs([("WEBEXT_MCP_RUNTIME_DIR", "rel/dir"), ("XDG_RUNTIME_DIR", "")], 3);
        let dir = Paths::for_home(Path::new("/h"), &env).runtime_dir;
        assert!(dir.ends_with("webext-mcp-3"), "{dir:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn explicit_home_ignores_xdg_relocations_but_keeps_runtime_dir() {
        let env = Env::from_pairs(
            [
                ("XDG_DATA_HOME", "/real/data"),
                ("XDG_RUNTIME_DIR", "/run/user/1"),
                ("XDG_CONFIG_HOME", "/real/cfg"),
            ],
            1,
        );
        let p = Paths::for_home(Path::new("/h"), &env.for_explicit_home());
        assert_eq!(p.data_dir, Path::new("/h/.local/share/webext-mcp"));
        assert_eq!(p.config_file, Path::new("/h/.config/webext-mcp/config.toml"));
        assert_eq!(p.runtime_dir, Path::new("/run/user/1/webext-mcp"));
    }

    #[test]
    fn lexical_resolution_never_touches_the_file_system() {
        let base = Path::new("/work/proj");
        assert_eq!(resolve_lexically(base, Path::new("./a/../b")), Path::new("/work/proj/b"));
        assert_eq!(resolve_lexically(base, Path::new("/abs/./x")), Path::new("/abs/x"));
        assert_eq!(resolve_lexically(base, Path::new("../../..")), Path::new("/"));
    }

    #[cfg(unix)]
    #[test]
    fn executables_are_found_only_when_runnable() {
        let path = std::env::var_os("PATH");
        assert!(find_executable("sh", path.as_deref()).is_some());
        assert!(find_executable("no-such-program-here", path.as_deref()).is_none());
        assert!(find_executable("sh", None).is_none());
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tool");
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(!is_executable(&file), "not runnable without an x bit");
        assert!(find_executable("tool", Some(dir.path().as_os_str())).is_none());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_executable("tool", Some(dir.path().as_os_str())), Some(file));
        assert!(!is_executable(dir.path()), "a folder is not a program");
    }

    #[test]
    fn config_file_override() {
        let env = Env::from_pairs([("WEBEXT_MCP_CONFIG", "/etc/w.toml")], 1);
        assert_eq!(Paths::for_home(Path::new("/h"), &env).config_file, Path::new("/etc/w.toml"));
    }
}
