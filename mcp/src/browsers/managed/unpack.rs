//! Unpacking downloaded archives (`.zip`, `.tar.xz`) into a fresh folder, treating every
//! entry as hostile: no absolute paths, no `..`, no entry below a symlink, no symlink or
//! hard link that points outside the folder, no device files, no entry written twice, and
//! a cap on the total size. A refused archive stops the unpack; the caller removes the
//! folder.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use super::ManagedError;

/// What an archive may hold. Browsers: 8 GiB, links inside the archive allowed; templates
/// (`crate::catalog::remote`) are far stricter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most the archive may unpack to.
    pub max_total: u64,
    /// The most one entry may unpack to.
    pub max_entry: u64,
    /// Whether symlinks (that stay inside) and hard links are unpacked; else refused.
    pub links: bool,
    /// The most regular files the archive may hold: one more refuses the whole archive
    /// (never a project silently missing the rest).
    pub max_files: usize,
}

impl Limits {
    /// Browser archives (real ones: under 1 GiB, with symlinks in them).
    pub const BROWSER: Limits =
        Limits { max_total: 8 * 1024 * 1024 * 1024, max_entry: u64::MAX, links: true, max_files: usize::MAX };
}

fn refuse(entry: &str, reason: &str) -> ManagedError {
    ManagedError::UnsafeArchive { entry: entry.chars().take(200).collect(), reason: reason.to_owned() }
}

/// An entry name as a relative path of normal components; refuses absolute paths, `..`,
/// drive prefixes and backslashes (a Windows separator in a Unix name is ambiguous).
pub fn safe_relative(name: &str) -> Result<PathBuf, ManagedError> {
    if name.contains('\\') || name.contains('\0') {
        return Err(refuse(name, "the name holds a backslash or NUL"));
    }
    let mut out = PathBuf::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse(name, "the path climbs out with `..`")),
            Component::RootDir | Component::Prefix(_) => return Err(refuse(name, "the path is absolute")),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(refuse(name, "the name is empty"));
    }
    Ok(out)
}

/// Whether a symlink at `link` (relative to the root) pointing at `target` stays inside
/// the root, judged lexically (the target need not exist yet).
pub fn link_stays_inside(link: &Path, target: &str) -> bool {
    let target = Path::new(target);
    if target.is_absolute() || target.as_os_str().is_empty() {
        return false;
    }
    let mut depth: Vec<&std::ffi::OsStr> = link
        .parent()
        .map(|p| {
            p.components()
                .filter_map(|c| match c {
                    Component::Normal(n) => Some(n),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    for c in target.components() {
        match c {
            Component::Normal(n) => depth.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if depth.pop().is_none() {
                    return false;
                }
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// What has been written so far: links (nothing may be written below one) and the size.
struct Writer<'a> {
    root: &'a Path,
    links: Vec<PathBuf>,
    total: u64,
    files: usize,
    limits: Limits,
}

impl<'a> Writer<'a> {
    fn new(root: &'a Path, limits: Limits) -> Writer<'a> {
        Writer { root, links: Vec::new(), total: 0, files: 0, limits }
    }

    /// The destination of `rel`, creating its parent folders; refuses paths below a link.
    fn place(&self, name: &str, rel: &Path) -> Result<PathBuf, ManagedError> {
        if self.links.iter().any(|l| rel.starts_with(l)) {
            return Err(refuse(name, "the entry lies below a symlink of the archive"));
        }
        let dest = self.root.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(name, e))?;
        }
        Ok(dest)
    }

    fn dir(&self, name: &str, rel: &Path) -> Result<(), ManagedError> {
        let dest = self.place(name, rel)?;
        if std::fs::symlink_metadata(&dest).is_ok_and(|m| !m.is_dir()) {
            return Err(refuse(name, "a folder has the name of another entry"));
        }
        std::fs::create_dir_all(&dest).map_err(|e| io(name, e))
    }

    fn file(&mut self, name: &str, rel: &Path, mode: u32, data: &mut dyn Read) -> Result<(), ManagedError> {
        self.files += 1;
        if self.files > self.limits.max_files {
            return Err(refuse(
                name,
                &format!("the archive holds more than {} files", self.limits.max_files),
            ));
        }
        let dest = self.place(name, rel)?;
        let mut out = std::fs::OpenOptions::new().write(true).create_new(true).open(&dest).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                refuse(name, "the entry appears twice")
            } else {
                io(name, e)
            }
        })?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut entry: u64 = 0;
        loop {
            let n = match data.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // A bad CRC or a cut stream: the archive is damaged.
                Err(e) => return Err(ManagedError::Integrity { what: format!("archive entry {name}: {e}") }),
            };
            self.total += n as u64;
            entry += n as u64;
            if self.total > self.limits.max_total {
                return Err(refuse(
                    name,
                    &format!("the archive unpacks to more than {} bytes", self.limits.max_total),
                ));
            }
            if entry > self.limits.max_entry {
                return Err(refuse(
                    name,
                    &format!("the entry is larger than {} bytes", self.limits.max_entry),
                ));
            }
            out.write_all(&buf[..n]).map_err(|e| io(name, e))?;
        }
        set_mode(&dest, mode).map_err(|e| io(name, e))
    }

    fn symlink(&mut self, name: &str, rel: &Path, target: &str) -> Result<(), ManagedError> {
        if !self.limits.links {
            return Err(refuse(name, "the entry is a symlink"));
        }
        if !link_stays_inside(rel, target) {
            return Err(refuse(name, "a symlink points outside the archive"));
        }
        let dest = self.place(name, rel)?;
        make_symlink(target, &dest).map_err(|e| io(name, e))?;
        self.links.push(rel.to_path_buf());
        Ok(())
    }

    /// Checks every symlink once all entries are written, as the file system resolves it:
    /// links that each stay inside lexically can still leave together (`a/b/s` → `../..`,
    /// then `l` → `a/b/s/..`), and a dangling link could later be written through.
    fn verify_links(&self) -> Result<(), ManagedError> {
        let root = std::fs::canonicalize(self.root).map_err(|e| io("the install folder", e))?;
        for rel in &self.links {
            let name = rel.to_string_lossy();
            match std::fs::canonicalize(self.root.join(rel)) {
                Ok(real) if real.starts_with(&root) => {}
                Ok(_) => return Err(refuse(&name, "a symlink resolves outside the archive")),
                Err(_) => return Err(refuse(&name, "a symlink points at nothing in the archive")),
            }
        }
        Ok(())
    }

    fn hard_link(&mut self, name: &str, rel: &Path, target: &str) -> Result<(), ManagedError> {
        if !self.limits.links {
            return Err(refuse(name, "the entry is a hard link"));
        }
        let source_rel =
            safe_relative(target).map_err(|_| refuse(name, "a hard link points outside the archive"))?;
        let source = self.root.join(&source_rel);
        if self.links.iter().any(|l| source_rel.starts_with(l))
            || !std::fs::symlink_metadata(&source).is_ok_and(|m| m.is_file())
        {
            return Err(refuse(name, "a hard link names no earlier file of the archive"));
        }
        let dest = self.place(name, rel)?;
        std::fs::copy(&source, &dest).map(|_| ()).map_err(|e| io(name, e))
    }
}

fn io(name: &str, source: std::io::Error) -> ManagedError {
    ManagedError::Io { what: format!("unpacking {name}"), source }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Keep the execute bits; never keep set-id bits or write access for others.
    let mode = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn make_symlink(target: &str, dest: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, dest)
}

#[cfg(not(unix))]
fn make_symlink(_target: &str, _dest: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "symlinks in archives are not unpacked on this system",
    ))
}

const S_IFMT: u32 = 0o170000;
const S_IFLNK: u32 = 0o120000;

/// Unpacks a zip archive into `into` (an empty folder).
pub fn zip(archive: &Path, into: &Path) -> Result<(), ManagedError> {
    zip_with(archive, into, Limits::BROWSER)
}

/// [`zip`] within `limits`.
pub fn zip_with(archive: &Path, into: &Path, limits: Limits) -> Result<(), ManagedError> {
    let file = std::fs::File::open(archive).map_err(|e| io("the zip", e))?;
    let mut zip = ::zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| ManagedError::Integrity { what: format!("the zip archive: {e}") })?;
    let mut w = Writer::new(into, limits);
    for i in 0..zip.len() {
        let mut entry =
            zip.by_index(i).map_err(|e| ManagedError::Integrity { what: format!("zip entry {i}: {e}") })?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let rel = safe_relative(&name)?;
        let mode = entry.unix_mode().unwrap_or(0o644);
        if entry.is_dir() {
            w.dir(&name, &rel)?;
        } else if mode & S_IFMT == S_IFLNK {
            let mut target = String::new();
            entry
                .read_to_string(&mut target)
                .map_err(|e| ManagedError::Integrity { what: format!("zip entry {name}: {e}") })?;
            w.symlink(&name, &rel, &target)?;
        } else if mode & S_IFMT == 0 || mode & S_IFMT == 0o100000 {
            w.file(&name, &rel, mode, &mut entry)?;
        } else {
            return Err(refuse(&name, "the entry is a device or pipe"));
        }
    }
    w.verify_links()
}

/// Unpacks a `.tar.xz` archive into `into`: the xz stream is decompressed to `scratch`
/// first (lzma-rs checks its CRCs), then the tar is read entry by entry.
pub fn tar_xz(archive: &Path, scratch: &Path, into: &Path) -> Result<(), ManagedError> {
    {
        let input = std::fs::File::open(archive).map_err(|e| io("the archive", e))?;
        let output = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(scratch)
            .map_err(|e| io("the archive", e))?;
        let mut reader = std::io::BufReader::new(input);
        let mut writer = std::io::BufWriter::new(output);
        lzma_rs::xz_decompress(&mut reader, &mut writer)
            .map_err(|e| ManagedError::Integrity { what: format!("the .tar.xz archive: {e}") })?;
        writer.flush().map_err(|e| io("the archive", e))?;
    }
    let file = std::fs::File::open(scratch).map_err(|e| io("the tar", e))?;
    let mut tar = ::tar::Archive::new(std::io::BufReader::new(file));
    let mut w = Writer::new(into, Limits::BROWSER);
    let bad = |e: std::io::Error| ManagedError::Integrity { what: format!("the tar archive: {e}") };
    for entry in tar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        let rel = match safe_relative(&name) {
            // `./` alone names the root folder itself.
            Err(_) if kind.is_dir() && Path::new(&name).components().all(|c| c == Component::CurDir) => {
                continue;
            }
            other => other?,
        };
        let link =
            || entry.link_name_bytes().map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
        match kind {
            ::tar::EntryType::Directory => w.dir(&name, &rel)?,
            ::tar::EntryType::Symlink => {
                let target = link();
                w.symlink(&name, &rel, &target)?;
            }
            ::tar::EntryType::Link => {
                let target = link();
                w.hard_link(&name, &rel, &target)?;
            }
            ::tar::EntryType::Regular | ::tar::EntryType::Continuous => {
                let mode = entry.header().mode().unwrap_or(0o644);
                w.file(&name, &rel, mode, &mut entry)?;
            }
            // Extended headers are read by the tar crate itself.
            ::tar::EntryType::XGlobalHeader | ::tar::EntryType::XHeader => {}
            _ => return Err(refuse(&name, "the entry is a device, pipe or unknown kind")),
        }
    }
    w.verify_links()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_escape_are_refused() {
        assert_eq!(safe_relative("./firefox/firefox").unwrap(), Path::new("firefox/firefox"));
        for bad in ["../x", "a/../../x", "/etc/passwd", "a\\..\\b", "", "./", "a/\0"] {
            assert!(safe_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn links_must_stay_inside() {
        let l = Path::new("chrome/lib/libx.so");
        assert!(link_stays_inside(l, "libx.so.1"));
        assert!(link_stays_inside(l, "../other/liby.so"));
        assert!(link_stays_inside(l, "../../top"));
        assert!(!link_stays_inside(l, "../../../etc/passwd"));
        assert!(!link_stays_inside(l, "/etc/passwd"));
        assert!(!link_stays_inside(Path::new("top"), ".."));
        assert!(!link_stays_inside(Path::new("top"), ""));
    }
}
