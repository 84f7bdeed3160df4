//! A private directory held open: the runtime dir and the short-socket dir are checked once
//! (a real directory, not a symlink, owned by this user, mode 0700) and from then on used
//! only relative to the open handle (`openat`, `fstatat`, `unlinkat`), so a path swapped
//! after the check can redirect neither a read nor an unlink.
//!
//! Another local user is the attacker here (DESIGN.md "Trust model"): where
//! `XDG_RUNTIME_DIR` is unset, the runtime dir sits in the shared `/tmp`, and whoever creates
//! `/tmp/webext-mcp-<uid>` first could plant descriptors pointing at their own socket, or at a
//! file of ours they want deleted. So a dir that fails a check is reported, never used; a
//! file is read only when it is a regular file of ours that nobody else can write; and a file
//! is removed only after a no-follow look shows it is a socket (or file) of ours.

use std::path::{Path, PathBuf};

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

/// What is wrong with a directory that was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirProblem {
    /// Nothing there (not a problem for a client: nothing to find).
    Missing,
    /// The path is a symlink; it is never followed.
    Symlink,
    /// Something other than a directory.
    NotADirectory,
    /// Owned by another user.
    ForeignOwner { owner: u32 },
    /// Ours, but group or others have access (`mode` is the permission bits).
    OpenMode { mode: u32 },
    /// Could not be opened or created.
    Io(String),
}

impl DirProblem {
    /// Whether the dir is hostile or unsafe (as opposed to simply absent).
    pub fn is_unsafe(&self) -> bool {
        !matches!(self, DirProblem::Missing)
    }

    /// One line naming the path and what is wrong.
    pub fn describe(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            DirProblem::Missing => format!("{p} does not exist"),
            DirProblem::Symlink => format!("{p} is a symlink, which is never followed"),
            DirProblem::NotADirectory => format!("{p} is not a directory"),
            DirProblem::ForeignOwner { owner } => {
                format!("{p} belongs to uid {owner}, not to this user (uid {})", current_uid())
            }
            DirProblem::OpenMode { mode } => {
                format!("{p} has mode {mode:04o}; other users could plant files in it")
            }
            DirProblem::Io(e) => format!("{p}: {e}"),
        }
    }

    /// What the user should do about it.
    pub fn fix(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            DirProblem::Missing => "nothing to do: no host has used this dir".into(),
            DirProblem::ForeignOwner { .. } | DirProblem::Symlink | DirProblem::NotADirectory => format!(
                "another user may have planted it: nothing in it is used. Remove it as its owner or root \
                 (`sudo rm -rf {p}`), or set XDG_RUNTIME_DIR (or WEBEXT_MCP_RUNTIME_DIR) to a private directory"
            ),
            DirProblem::OpenMode { .. } => format!("run `chmod 700 {p}`"),
            DirProblem::Io(_) => "check the directory's permissions, or set WEBEXT_MCP_RUNTIME_DIR".into(),
        }
    }

    /// The stable code for error bodies and doctor problems.
    pub fn code(&self) -> &'static str {
        "PERMISSION_DENIED"
    }
}

/// Pure: the verdict on a directory from `lstat`-style facts.
/// `Ok(false)` = use as is, `Ok(true)` = ours but too open (the host tightens it to 0700; a
/// client refuses it).
pub fn classify_dir(
    is_symlink: bool,
    is_dir: bool,
    owner: u32,
    mode: u32,
    own_uid: u32,
) -> Result<bool, DirProblem> {
    if is_symlink {
        return Err(DirProblem::Symlink);
    }
    if !is_dir {
        return Err(DirProblem::NotADirectory);
    }
    if owner != own_uid {
        return Err(DirProblem::ForeignOwner { owner });
    }
    Ok(mode & 0o077 != 0)
}

/// Pure: may a file with these facts be read as one of our private files (descriptors)?
pub fn private_file_ok(is_regular: bool, owner: u32, mode: u32, own_uid: u32) -> Result<(), String> {
    if !is_regular {
        return Err("not a regular file".into());
    }
    if owner != own_uid {
        return Err(format!("owned by uid {owner}"));
    }
    if mode & 0o077 != 0 {
        return Err(format!("mode {:04o} lets other users read or write it", mode & 0o7777));
    }
    Ok(())
}

/// What kind of file [`PrivateDir::remove`] may delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ours {
    /// A socket of ours.
    Socket,
    /// A regular file of ours (descriptor, log, temp file).
    File,
}

/// A checked directory, open.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

#[cfg(unix)]
mod imp {
    use std::io::Read;
    use std::os::fd::AsFd;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};

    use super::*;

    fn io(e: rustix::io::Errno) -> std::io::Error {
        std::io::Error::from(e)
    }

    impl PrivateDir {
        /// Opens `path` for a client: it must already be a dir of ours that nobody else can
        /// write to. Nothing is created or changed. (A dir of ours that others can only read,
        /// like a fresh 0755 temp dir, is accepted: nothing can be planted in it, and the
        /// files that matter in it, descriptors and sockets, are 0600 themselves and checked
        /// one by one. A host tightens it to 0700 when it binds there.)
        pub fn open(path: &Path) -> Result<PrivateDir, DirProblem> {
            let dir = Self::open_nofollow(path)?;
            dir.verdict()?;
            match dir.mode() {
                Some(mode) if mode & 0o022 == 0 => Ok(dir),
                mode => Err(DirProblem::OpenMode { mode: mode.unwrap_or(0) }),
            }
        }

        /// Opens `path` for a host: created 0700 (with missing parents) when absent, tightened
        /// to 0700 when ours but too open, refused when it is anyone else's or a symlink.
        pub fn ensure(path: &Path) -> Result<PrivateDir, DirProblem> {
            use std::os::unix::fs::DirBuilderExt;
            if let Some(parent) = path.parent() {
                // Parents are created 0700 too; a parent that exists is left as it is.
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| DirProblem::Io(e.to_string()))?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(DirProblem::Io(e.to_string())),
            }
            let dir = Self::open_nofollow(path)?;
            if dir.verdict()? {
                rustix::fs::fchmod(&dir.fd, Mode::from_raw_mode(0o700))
                    .map_err(|e| DirProblem::Io(e.to_string()))?;
                tracing::info!(path = %path.display(), "tightened the runtime dir to 0700");
            }
            Ok(dir)
        }

        fn open_nofollow(path: &Path) -> Result<PrivateDir, DirProblem> {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            match rustix::fs::open(path, flags, Mode::empty()) {
                Ok(fd) => Ok(PrivateDir { path: path.to_path_buf(), fd }),
                Err(rustix::io::Errno::NOENT) => Err(DirProblem::Missing),
                // O_NOFOLLOW on a symlink gives ELOOP; O_DIRECTORY on a file gives ENOTDIR.
                Err(rustix::io::Errno::LOOP) => Err(DirProblem::Symlink),
                Err(rustix::io::Errno::NOTDIR) => match std::fs::symlink_metadata(path) {
                    Ok(m) if m.file_type().is_symlink() => Err(DirProblem::Symlink),
                    _ => Err(DirProblem::NotADirectory),
                },
                Err(e) => Err(DirProblem::Io(e.to_string())),
            }
        }

        fn mode(&self) -> Option<u32> {
            rustix::fs::fstat(&self.fd).ok().map(|s| s.st_mode & 0o7777)
        }

        fn verdict(&self) -> Result<bool, DirProblem> {
            let st = rustix::fs::fstat(&self.fd).map_err(|e| DirProblem::Io(e.to_string()))?;
            let is_dir = FileType::from_raw_mode(st.st_mode) == FileType::Directory;
            classify_dir(false, is_dir, st.st_uid, st.st_mode & 0o7777, current_uid())
        }

        /// Names of the entries, unsorted (`.` and `..` left out; non-UTF-8 names skipped).
        pub fn names(&self) -> Vec<String> {
            let Ok(dir) = rustix::fs::Dir::read_from(&self.fd) else { return Vec::new() };
            dir.filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str().ok().map(str::to_owned))
                .filter(|n| n != "." && n != "..")
                .collect()
        }

        fn stat(&self, name: &str) -> Option<rustix::fs::Stat> {
            if !is_plain_name(name) {
                return None;
            }
            rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()
        }

        /// Is `name` a socket owned by this user (not a symlink)?
        pub fn is_our_socket(&self, name: &str) -> bool {
            self.stat(name).is_some_and(|st| {
                FileType::from_raw_mode(st.st_mode) == FileType::Socket && st.st_uid == current_uid()
            })
        }

        /// Modification time of `name`, not following symlinks.
        pub fn modified(&self, name: &str) -> Option<std::time::SystemTime> {
            let st = self.stat(name)?;
            let secs = u64::try_from(st.st_mtime).ok()?;
            Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        }

        /// Reads `name` when it is a private regular file of ours of at most `max` bytes.
        pub fn read_private(&self, name: &str, max: u64) -> std::io::Result<Vec<u8>> {
            if !is_plain_name(name) {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a plain file name"));
            }
            // NONBLOCK: a FIFO planted under the name must not hang the open.
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
            let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(io)?;
            let st = rustix::fs::fstat(&fd).map_err(io)?;
            let regular = FileType::from_raw_mode(st.st_mode) == FileType::RegularFile;
            private_file_ok(regular, st.st_uid, st.st_mode, current_uid())
                .map_err(|why| std::io::Error::new(std::io::ErrorKind::PermissionDenied, why))?;
            let size = u64::try_from(st.st_size).unwrap_or(u64::MAX);
            if size > max {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{size} bytes exceeds the {max}-byte limit"),
                ));
            }
            let mut out = Vec::with_capacity(size as usize);
            std::fs::File::from(fd).take(max).read_to_end(&mut out)?;
            Ok(out)
        }

        /// Writes `name` atomically as a private file (0600): a fresh temp file, created
        /// exclusively and never through a link, then renamed over `name`.
        pub fn write_private(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
            use std::io::Write;
            if !is_plain_name(name) {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a plain file name"));
            }
            let tmp = format!(".{name}.{}.tmp", std::process::id());
            let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd =
                rustix::fs::openat(&self.fd, tmp.as_str(), flags, Mode::from_raw_mode(0o600)).map_err(io)?;
            let mut file = std::fs::File::from(fd);
            let written = file.write_all(bytes).and_then(|()| file.flush());
            let renamed = written
                .and_then(|()| rustix::fs::renameat(&self.fd, tmp.as_str(), &self.fd, name).map_err(io));
            if renamed.is_err() {
                let _ = rustix::fs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
            }
            renamed
        }

        /// Removes `name` after a no-follow look shows it is `kind` and ours. Returns whether
        /// something was removed.
        pub fn remove(&self, name: &str, kind: Ours) -> bool {
            let Some(st) = self.stat(name) else { return false };
            let ft = FileType::from_raw_mode(st.st_mode);
            let right_kind = match kind {
                Ours::Socket => ft == FileType::Socket,
                Ours::File => ft == FileType::RegularFile,
            };
            if !right_kind || st.st_uid != current_uid() {
                tracing::warn!(dir = %self.path.display(), name, "not removing a file that is not ours");
                return false;
            }
            rustix::fs::unlinkat(self.fd.as_fd(), name, AtFlags::empty()).is_ok()
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::*;

    // Windows: the runtime dir sits in the user's profile, whose ACL already keeps other users
    // out, and hosts are reached over named pipes; path-based operations suffice there.
    impl PrivateDir {
        pub fn open(path: &Path) -> Result<PrivateDir, DirProblem> {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => Err(DirProblem::Symlink),
                Ok(m) if m.is_dir() => Ok(PrivateDir { path: path.to_path_buf() }),
                Ok(_) => Err(DirProblem::NotADirectory),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(DirProblem::Missing),
                Err(e) => Err(DirProblem::Io(e.to_string())),
            }
        }

        pub fn ensure(path: &Path) -> Result<PrivateDir, DirProblem> {
            std::fs::create_dir_all(path).map_err(|e| DirProblem::Io(e.to_string()))?;
            PrivateDir::open(path)
        }

        pub fn names(&self) -> Vec<String> {
            let Ok(entries) = std::fs::read_dir(&self.path) else { return Vec::new() };
            entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect()
        }

        pub fn is_our_socket(&self, _name: &str) -> bool {
            false
        }

        pub fn modified(&self, name: &str) -> Option<std::time::SystemTime> {
            std::fs::symlink_metadata(self.path.join(name)).ok()?.modified().ok()
        }

        pub fn read_private(&self, name: &str, max: u64) -> std::io::Result<Vec<u8>> {
            let path = self.path.join(name);
            if std::fs::symlink_metadata(&path)?.len() > max {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "file too large"));
            }
            std::fs::read(path)
        }

        pub fn write_private(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
            let tmp = self.path.join(format!(".{name}.tmp"));
            std::fs::write(&tmp, bytes)?;
            std::fs::rename(tmp, self.path.join(name))
        }

        pub fn remove(&self, name: &str, kind: Ours) -> bool {
            let path = self.path.join(name);
            let ok = std::fs::symlink_metadata(&path).is_ok_and(|m| kind == Ours::File && m.is_file());
            ok && std::fs::remove_file(path).is_ok()
        }
    }
}

impl PrivateDir {
    /// The path the dir was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// If `path` names a plain entry directly inside this dir, its name.
    pub fn entry_name<'a>(&self, path: &'a Path) -> Option<&'a str> {
        if path.parent()? != self.path {
            return None;
        }
        path.file_name()?.to_str().filter(|n| is_plain_name(n))
    }
}

/// A single path component: no separators, not `.` or `..`, not empty.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_verdicts() {
        assert_eq!(classify_dir(false, true, 1000, 0o700, 1000), Ok(false));
        assert_eq!(classify_dir(false, true, 1000, 0o755, 1000), Ok(true));
        assert_eq!(classify_dir(false, true, 0, 0o700, 1000), Err(DirProblem::ForeignOwner { owner: 0 }));
        assert_eq!(
            classify_dir(false, true, 1001, 0o777, 1000),
            Err(DirProblem::ForeignOwner { owner: 1001 })
        );
        assert_eq!(classify_dir(true, true, 1000, 0o700, 1000), Err(DirProblem::Symlink));
        assert_eq!(classify_dir(false, false, 1000, 0o700, 1000), Err(DirProblem::NotADirectory));
    }

    #[test]
    fn private_file_verdicts() {
        assert!(private_file_ok(true, 7, 0o100600, 7).is_ok());
        assert!(private_file_ok(true, 7, 0o100644, 7).is_err());
        assert!(private_file_ok(true, 8, 0o100600, 7).is_err());
        assert!(private_file_ok(false, 7, 0o600, 7).is_err());
    }

    #[test]
    fn plain_names_only() {
        assert!(is_plain_name("h-1.json"));
        for bad in ["", ".", "..", "a/b", "../x", "a\0b"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_and_open_dirs_are_refused_to_clients() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(PrivateDir::open(&link).unwrap_err(), DirProblem::Symlink);
        assert_eq!(PrivateDir::ensure(&link).unwrap_err(), DirProblem::Symlink);
        assert!(PrivateDir::open(&real).is_ok());
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(PrivateDir::open(&real).is_ok(), "readable by others, writable only by us");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(PrivateDir::open(&real), Err(DirProblem::OpenMode { mode: 0o777 })));
        PrivateDir::ensure(&real).unwrap();
        assert!(PrivateDir::open(&real).is_ok(), "the host tightened it");
        assert_eq!(PrivateDir::open(&t.path().join("none")).unwrap_err(), DirProblem::Missing);
    }

    #[cfg(unix)]
    #[test]
    fn only_our_sockets_and_files_are_removed_and_symlinks_never_followed() {
        let t = tempfile::tempdir().unwrap();
        let dir = PrivateDir::ensure(&t.path().join("rt")).unwrap();
        let outside = t.path().join("victim.txt");
        std::fs::write(&outside, "keep me").unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("h-1.sock")).unwrap();
        assert!(!dir.remove("h-1.sock", Ours::Socket));
        assert!(!dir.remove("h-1.sock", Ours::File), "a symlink is not a regular file");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
        std::fs::write(dir.path().join("h-2.json"), "{}").unwrap();
        assert!(!dir.remove("h-2.json", Ours::Socket), "a file is not a socket");
        assert!(dir.remove("h-2.json", Ours::File));
        drop(std::os::unix::net::UnixListener::bind(dir.path().join("h-3.sock")).unwrap());
        assert!(dir.is_our_socket("h-3.sock"));
        assert!(dir.remove("h-3.sock", Ours::Socket));
        assert!(!dir.remove("../victim.txt", Ours::File));
        assert!(outside.exists());
    }

    #[cfg(unix)]
    #[test]
    fn private_reads_refuse_links_open_modes_fifos_and_big_files() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let dir = PrivateDir::ensure(&t.path().join("rt")).unwrap();
        let f = dir.path().join("h-1.json");
        std::fs::write(&f, "{}").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(dir.read_private("h-1.json", 100).unwrap(), b"{}");
        assert!(dir.read_private("h-1.json", 1).is_err());
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(dir.read_private("h-1.json", 100).is_err());
        std::os::unix::fs::symlink(t.path().join("elsewhere"), dir.path().join("h-2.json")).unwrap();
        assert!(dir.read_private("h-2.json", 100).is_err());
        let fifo = dir.path().join("h-3.json");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(dir.read_private("h-3.json", 100).is_err(), "a FIFO is refused without blocking");
    }
}
