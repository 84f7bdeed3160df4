//! The trust store: which projects the user allowed to run their own code, and the files
//! that decided what would run at the time (their sha256). One JSON file,
//! `<data dir>/trust.json`, mode 0600 in a 0700 folder, written whole or not at all.
//!
//! ```json
//! {"version": 1, "projects": {"/home/me/ext": {"grantedAt": 1764800000, "by": "flag",
//!   "files": {"/home/me/ext/package.json": "<sha256>"}}}}
//! ```
//!
//! A store another user could write is not believed: it is ignored (nothing is granted by
//! it) and rewritten on the next grant.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The store's file name under the data dir.
pub const FILE: &str = "trust.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Doc {
    version: u32,
    #[serde(default)]
    projects: BTreeMap<PathBuf, Grant>,
}

/// One remembered grant.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Grant {
    granted_at: u64,
    /// `flag`, `config` or `answer`.
    by: String,
    files: BTreeMap<PathBuf, String>,
}

/// The trust store at one path.
pub struct Store {
    path: PathBuf,
}

impl Store {
    pub fn open(path: &Path) -> Store {
        Store { path: path.to_path_buf() }
    }

    /// The store of a data dir.
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE)
    }

    fn read(&self) -> Doc {
        if !private(&self.path) {
            return Doc::default();
        }
        std::fs::read(&self.path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Doc>(&b).ok())
            .filter(|d| d.version == 1)
            .unwrap_or_default()
    }

    /// The files recorded for `project`, when it was granted.
    pub fn files_of(&self, project: &Path) -> Option<BTreeMap<PathBuf, String>> {
        self.read().projects.get(project).map(|g| g.files.clone())
    }

    /// Records (or replaces) the grant of `project`.
    pub fn record(&self, project: &Path, by: &str, files: &BTreeMap<PathBuf, String>) -> std::io::Result<()> {
        let mut doc = self.read();
        doc.version = 1;
        let granted_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        doc.projects
            .insert(project.to_path_buf(), Grant { granted_at, by: by.to_owned(), files: files.clone() });
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        let bytes = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
        // The temporary file `write_atomic` renames is created 0600 (tempfile's default).
        crate::file::write_atomic(&self.path, &bytes)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    }
}

/// Whether `path` is a regular file of ours that nobody else can write (and its folder too).
#[cfg(unix)]
fn private(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let uid = webext_mcp_host::private_dir::current_uid();
    let ok = |m: std::fs::Metadata, file: bool| {
        m.uid() == uid && m.mode() & 0o022 == 0 && (!file || m.file_type().is_file())
    };
    let dir_ok = path.parent().and_then(|d| std::fs::symlink_metadata(d).ok()).is_some_and(|m| ok(m, false));
    dir_ok && std::fs::symlink_metadata(path).is_ok_and(|m| ok(m, true))
}

#[cfg(not(unix))]
fn private(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_is_0600_in_a_0700_folder_and_a_foreign_writable_one_is_not_believed() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let path = Store::path_in(&d.path().join("data"));
        let s = Store::open(&path);
        let files: BTreeMap<PathBuf, String> = [(PathBuf::from("/p/package.json"), "ab".to_owned())].into();
        s.record(Path::new("/p"), "flag", &files).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(s.files_of(Path::new("/p")), Some(files));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(s.files_of(Path::new("/p")), None);
    }
}
