//! Whether a binary is safe to register as the native host: the browser runs it as the user
//! every time it starts the helper, so anyone who can replace it (or rename it away inside a
//! directory on its path) runs code as the user. The rule is ssh's `StrictModes`:
//!
//! ```text
//! binary ──canonicalize──▶ real path ─▶ it and every parent up to `/`:
//!     owned by the user or by root, and not writable by group or others
//!     (a root-owned sticky directory such as /tmp may be writable: nobody can rename
//!      another user's entry there)
//! ```
//!
//! Symlinks are resolved first; the directories holding each link on the way are checked
//! too, since replacing a link is as good as replacing the binary. Used by `install` (which
//! refuses) and `doctor` (which reports the registered binary).

use std::path::{Path, PathBuf};

/// What is wrong with one path on the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Safe,
    /// Owned by neither the user nor root.
    ForeignOwner,
    /// Writable by group or others (and not a root-owned sticky directory).
    Writable,
}

/// Pure decision on one path of the chain, from its `st_mode`, its owner and the user's uid.
pub fn judge(mode: u32, owner: u32, is_dir: bool, own_uid: u32) -> Verdict {
    let sticky = mode & 0o1000 != 0;
    if owner != own_uid && owner != 0 {
        Verdict::ForeignOwner
    } else if mode & 0o022 != 0 && !(is_dir && sticky && owner == 0) {
        Verdict::Writable
    } else {
        Verdict::Safe
    }
}

/// A path on the binary's chain that others could change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsafe {
    /// The binary as registered (the path in the host manifest).
    pub binary: PathBuf,
    /// Its real path (after following symlinks), whose chain was checked.
    pub real: PathBuf,
    /// The unsafe file or directory.
    pub path: PathBuf,
    pub mode: u32,
    pub owner: u32,
    pub is_dir: bool,
    pub verdict: Verdict,
}

impl Unsafe {
    /// One sentence naming the path, its mode and owner, and which binary it guards.
    pub fn message(&self) -> String {
        let what = if self.is_dir { "directory" } else { "file" };
        let owner = if self.owner == 0 { "root (uid 0)".to_owned() } else { format!("uid {}", self.owner) };
        let problem = match self.verdict {
            Verdict::ForeignOwner => "belongs to another user",
            _ => "is writable by other users",
        };
        let checked = if self.real == self.binary {
            format!("the host binary {}", self.binary.display())
        } else {
            format!("the host binary {} (real path {})", self.binary.display(), self.real.display())
        };
        format!(
            "{what} {} (mode {:04o}, owner {owner}) {problem}, so they could replace {checked}, which browsers run as you",
            self.path.display(),
            self.mode & 0o7777,
        )
    }

    /// What fixes it: tighten the mode, or put the binary somewhere private.
    pub fn fix(&self) -> String {
        let private = "or install webext-mcp somewhere private (`cargo install --path mcp` puts it in ~/.cargo/bin; or copy it to ~/.local/bin) and run `webext-mcp install` from there";
        match self.verdict {
            Verdict::ForeignOwner => format!("run `chown $(id -u) {}`, {private}", self.path.display()),
            _ => format!("run `chmod go-w {}`, {private}", self.path.display()),
        }
    }
}

/// Why the chain could not be checked at all.
#[derive(Debug)]
pub enum CheckError {
    Unsafe(Box<Unsafe>),
    Unreadable { path: PathBuf, source: std::io::Error },
}

/// Checks the chain of `binary` for the current user.
#[cfg(unix)]
pub fn check_binary(binary: &Path) -> Result<(), CheckError> {
    check_binary_for(binary, webext_mcp_host::runtime::current_uid())
}

/// Windows protects files by ACLs, which this rule does not model.
#[cfg(not(unix))]
pub fn check_binary(_binary: &Path) -> Result<(), CheckError> {
    Ok(())
}

/// Checks `binary` as [`check_binary`] does, for the user `own_uid`.
#[cfg(unix)]
pub fn check_binary_for(binary: &Path, own_uid: u32) -> Result<(), CheckError> {
    use std::os::unix::fs::MetadataExt;
    let resolve = |p: &Path| {
        std::fs::canonicalize(p).map_err(|source| CheckError::Unreadable { path: p.to_path_buf(), source })
    };
    let real = resolve(binary)?;
    // The real path's chain, then the chains of the folders holding each prefix of the path
    // as given (where a symlink on the way lives).
    let mut chains = vec![real.clone()];
    for prefix in binary.ancestors().skip(1) {
        if prefix.as_os_str().is_empty() {
            continue;
        }
        let dir = resolve(prefix)?;
        if !real.starts_with(&dir) {
            chains.push(dir);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for start in chains {
        for path in start.ancestors() {
            if !seen.insert(path.to_path_buf()) {
                continue;
            }
            let meta = std::fs::metadata(path)
                .map_err(|source| CheckError::Unreadable { path: path.to_path_buf(), source })?;
            let verdict = judge(meta.mode(), meta.uid(), meta.is_dir(), own_uid);
            if verdict != Verdict::Safe {
                return Err(CheckError::Unsafe(Box::new(Unsafe {
                    binary: binary.to_path_buf(),
                    real,
                    path: path.to_path_buf(),
                    mode: meta.mode(),
                    owner: meta.uid(),
                    is_dir: meta.is_dir(),
                    verdict,
                })));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    const ME: u32 = 1000;
    const OTHER: u32 = 1001;

    #[test]
    fn judge_table() {
        use Verdict::*;
        // (mode, owner, is_dir, own uid) → verdict
        let cases = [
            (0o100755, ME, false, ME, Safe),
            (0o100700, ME, false, ME, Safe),
            (0o100755, 0, false, ME, Safe),
            (0o100775, ME, false, ME, Writable),
            (0o100757, ME, false, ME, Writable),
            (0o100777, 0, false, ME, Writable),
            (0o100755, OTHER, false, ME, ForeignOwner),
            (0o040755, ME, true, ME, Safe),
            (0o040755, 0, true, ME, Safe),
            (0o040775, ME, true, ME, Writable),
            (0o040777, ME, true, ME, Writable),
            // /tmp: root-owned, sticky, world-writable
            (0o041777, 0, true, ME, Safe),
            // sticky but owned by the user (or another user): not the /tmp exception
            (0o041777, ME, true, ME, Writable),
            (0o041777, OTHER, true, ME, ForeignOwner),
            // a sticky bit on a file means nothing
            (0o101777, 0, false, ME, Writable),
            (0o040755, OTHER, true, ME, ForeignOwner),
            // as root only root-owned paths are fine
            (0o100755, 0, false, 0, Safe),
            (0o100755, ME, false, 0, ForeignOwner),
            (0o040777, 0, true, 0, Writable),
            (0o041777, 0, true, 0, Safe),
        ];
        for (mode, owner, is_dir, own, want) in cases {
            assert_eq!(judge(mode, owner, is_dir, own), want, "{mode:o} owner {owner} dir {is_dir} me {own}");
        }
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn own_uid() -> u32 {
        webext_mcp_host::runtime::current_uid()
    }

    #[test]
    fn the_walk_names_the_first_unsafe_path() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("webext-mcp");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        chmod(&bin, 0o755);
        check_binary_for(&bin, own_uid()).unwrap();

        chmod(&bin, 0o777);
        let Err(CheckError::Unsafe(u)) = check_binary_for(&bin, own_uid()) else { panic!("0777 passed") };
        assert_eq!(u.path, std::fs::canonicalize(&bin).unwrap());
        assert_eq!(u.mode & 0o7777, 0o777);
        assert!(u.message().contains("0777") && u.fix().contains("chmod go-w"), "{}", u.message());
        chmod(&bin, 0o755);

        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        chmod(&open, 0o777);
        let inner = open.join("webext-mcp");
        std::fs::copy(&bin, &inner).unwrap();
        let Err(CheckError::Unsafe(u)) = check_binary_for(&inner, own_uid()) else {
            panic!("0777 dir passed")
        };
        assert_eq!(u.path, std::fs::canonicalize(&open).unwrap());
        assert!(u.is_dir);
    }

    #[test]
    fn a_symlink_is_judged_by_its_target_and_by_where_it_lives() {
        let d = tempfile::tempdir().unwrap();
        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        chmod(&open, 0o777);
        let real = open.join("webext-mcp");
        std::fs::write(&real, "#!/bin/sh\n").unwrap();
        chmod(&real, 0o755);
        // A link in a private folder to a binary in an open one: the target's chain fails.
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let Err(CheckError::Unsafe(u)) = check_binary_for(&link, own_uid()) else { panic!("passed") };
        assert_eq!(u.real, std::fs::canonicalize(&real).unwrap());
        assert!(u.message().contains("real path"), "{}", u.message());

        // A link in an open folder to a private binary: the link can be swapped.
        chmod(&open, 0o755);
        let private = d.path().join("private");
        std::fs::create_dir(&private).unwrap();
        let bin = private.join("webext-mcp");
        std::fs::copy(&real, &bin).unwrap();
        let link = open.join("link");
        std::os::unix::fs::symlink(&bin, &link).unwrap();
        check_binary_for(&link, own_uid()).unwrap();
        chmod(&open, 0o777);
        let Err(CheckError::Unsafe(u)) = check_binary_for(&link, own_uid()) else { panic!("passed") };
        assert_eq!(u.path, std::fs::canonicalize(&open).unwrap());
    }
}
