//! Writing an output folder safely: everything goes into a staging folder beside
//! `dist/<browser>/`, which then replaces the old one in one step (`renameat2` with
//! `RENAME_EXCHANGE` on Linux, two renames elsewhere). A failure at any point removes the
//! staging folder and leaves the old output untouched.

use std::path::{Path, PathBuf};

use crate::manifest::{self, Json};

/// The marker file in every output folder a build writes (the output root and each
/// `<browser>/` folder): under an explicit `outDir`, only a folder carrying it (or an empty or
/// absent one) is written into or replaced. Never in the store zip, which is made from the
/// files listed before the marker is written.
pub const MARKER: &str = ".webext-mcp-build";

/// The marker's one JSON line; `browser` is absent for the output root.
pub fn marker_text(browser: Option<&str>) -> String {
    let mut v = serde_json::json!({ "tool": "webext-mcp", "version": env!("CARGO_PKG_VERSION") });
    if let Some(b) = browser {
        v["browser"] = serde_json::json!(b);
    }
    let mut line = v.to_string();
    line.push('\n');
    line
}

/// Whose a would-be output folder is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    Absent,
    /// An empty folder: nothing to lose.
    Empty,
    /// It carries our marker.
    Ours,
    /// Anything else: a user's folder, a file, a symlink. Says what it is.
    Foreign(&'static str),
}

/// Looks at `dest` (never following a symlink at `dest` itself).
pub fn ownership(dest: &Path) -> std::io::Result<Ownership> {
    let meta = match std::fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ownership::Absent),
        Err(e) => return Err(e),
    };
    if meta.file_type().is_symlink() {
        return Ok(Ownership::Foreign("a symlink"));
    }
    if !meta.is_dir() {
        return Ok(Ownership::Foreign("a file"));
    }
    if std::fs::read_dir(dest)?.next().is_none() {
        return Ok(Ownership::Empty);
    }
    let marker = dest.join(MARKER);
    let ours = std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file())
        && std::fs::read(&marker)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|v| v.get("tool").and_then(serde_json::Value::as_str) == Some("webext-mcp"));
    Ok(if ours { Ownership::Ours } else { Ownership::Foreign("a folder webext-mcp did not build") })
}

/// A staging folder, removed on drop unless it was swapped into place.
#[derive(Debug)]
pub struct Staging {
    pub dir: PathBuf,
    done: bool,
}

impl Staging {
    /// Creates `out_dir/.webext-mcp-staging-<browser>-<pid>-<n>`, first removing stale
    /// staging folders of this browser (the caller holds the build lock, so none is live).
    /// Marks `out_dir` as an output root ([`MARKER`]) when it is not yet.
    pub fn create(out_dir: &Path, browser: &str) -> std::io::Result<Staging> {
        std::fs::create_dir_all(out_dir)?;
        if std::fs::symlink_metadata(out_dir.join(MARKER)).is_err() {
            write_into(out_dir, MARKER, marker_text(None).as_bytes())?;
        }
        let stale_prefixes =
            [format!(".webext-mcp-staging-{browser}-"), format!(".webext-mcp-old-{browser}-")];
        if let Ok(entries) = std::fs::read_dir(out_dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // The pid must follow the prefix, so `chromium` never matches `chromium-based`.
                let stale = stale_prefixes.iter().any(|p| {
                    name.strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
                });
                if stale {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let dir = out_dir.join(format!(".webext-mcp-staging-{browser}-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir)?;
        Ok(Staging { dir, done: false })
    }

    /// Replaces `dest` with the staging folder.
    pub fn swap_into(mut self, dest: &Path) -> std::io::Result<()> {
        swap(&self.dir, dest)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Creates every parent folder the given output-relative paths need, each once.
pub fn make_parents<'a>(dest_root: &Path, rels: impl Iterator<Item = &'a str>) -> std::io::Result<()> {
    let mut dirs: Vec<&str> = rels.filter_map(|r| r.rsplit_once('/').map(|(d, _)| d)).collect();
    dirs.sort_unstable();
    dirs.dedup();
    for d in dirs {
        std::fs::create_dir_all(dest_root.join(d))?;
    }
    Ok(())
}

/// Copies a file, creating parent folders.
pub fn copy_into(dest_root: &Path, rel: &str, src: &Path) -> std::io::Result<u64> {
    let dest = dest_root.join(rel);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(src, &dest)
}

pub fn write_into(dest_root: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<u64> {
    let dest = dest_root.join(rel);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&dest, bytes)?;
    Ok(bytes.len() as u64)
}

fn swap(staged: &Path, dest: &Path) -> std::io::Result<()> {
    if !dest.exists() {
        return std::fs::rename(staged, dest);
    }
    if exchange(staged, dest)? {
        // `staged` now holds the old output.
        return std::fs::remove_dir_all(staged);
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let old = parent.join(format!(".webext-mcp-old-{name}-{}", std::process::id()));
    std::fs::rename(dest, &old)?;
    if let Err(e) = std::fs::rename(staged, dest) {
        let _ = std::fs::rename(&old, dest);
        return Err(e);
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Atomically exchanges two paths. `Ok(false)` when the platform or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: both pointers are valid NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ENOSYS | libc::EINVAL | libc::ENOTSUP) => Ok(false),
        _ => Err(err),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// `<name>-<version>` for zip names: `__MSG_x__` resolved, sanitized; the project folder's
/// name when the manifest has none.
pub fn artifact_stem(manifest: &Json, messages: Option<&manifest::Messages>, project: &Path) -> String {
    let raw = manifest.get("name").and_then(Json::as_str).unwrap_or("");
    let resolved = manifest::substitute(raw, messages);
    let fallback = project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = if resolved.text.is_empty() || !resolved.missing.is_empty() {
        fallback.clone()
    } else {
        resolved.text
    };
    let mut stem = manifest::sanitize_file_stem(&name);
    if stem.is_empty() {
        stem = manifest::sanitize_file_stem(&fallback);
    }
    if stem.is_empty() {
        stem = "extension".into();
    }
    let version = manifest.get("version").and_then(Json::as_str).unwrap_or("0.0.0");
    format!("{stem}-{version}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_replaces_and_drop_cleans_up() {
        let d = tempfile::tempdir().unwrap();
        let dest = d.path().join("chrome");
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("old.txt"), "old").unwrap();

        let s = Staging::create(d.path(), "chrome").unwrap();
        write_into(&s.dir, "sub/new.txt", b"new").unwrap();
        s.swap_into(&dest).unwrap();
        assert!(dest.join("sub/new.txt").is_file());
        assert!(!dest.join("old.txt").exists());

        let s = Staging::create(d.path(), "chrome").unwrap();
        let staged = s.dir.clone();
        write_into(&s.dir, "x", b"x").unwrap();
        drop(s);
        assert!(!staged.exists());
        let mut left: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        left.sort();
        // The output root is marked as ours.
        assert_eq!(left, [std::ffi::OsString::from(MARKER), std::ffi::OsString::from("chrome")]);
        assert_eq!(ownership(d.path()).unwrap(), Ownership::Ours);

        assert_eq!(ownership(&d.path().join("none")).unwrap(), Ownership::Absent);
        assert_eq!(ownership(&dest).unwrap(), Ownership::Foreign("a folder webext-mcp did not build"));
        write_into(&dest, MARKER, marker_text(Some("chrome")).as_bytes()).unwrap();
        assert_eq!(ownership(&dest).unwrap(), Ownership::Ours);
        write_into(&dest, MARKER, b"{}").unwrap();
        assert!(matches!(ownership(&dest).unwrap(), Ownership::Foreign(_)));
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert_eq!(ownership(&empty).unwrap(), Ownership::Empty);
        std::fs::write(d.path().join("file"), "x").unwrap();
        assert_eq!(ownership(&d.path().join("file")).unwrap(), Ownership::Foreign("a file"));
        std::fs::remove_dir_all(&dest).unwrap();
        std::fs::remove_dir(&empty).unwrap();
        std::fs::remove_file(d.path().join("file")).unwrap();

        // Cleaning stale staging folders of `chromium` leaves `chromium-based` alone.
        let other = d.path().join(".webext-mcp-staging-chromium-based-1-2");
        std::fs::create_dir(&other).unwrap();
        let stale = d.path().join(".webext-mcp-staging-chromium-1-2");
        std::fs::create_dir(&stale).unwrap();
        let s = Staging::create(d.path(), "chromium").unwrap();
        assert!(other.exists() && !stale.exists());
        drop(s);
    }
}
