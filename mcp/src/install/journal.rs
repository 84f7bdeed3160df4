//! How an install is complete or absent: every write goes through the [`Journal`], and a
//! failure rolls back what was done, newest first. Files are written atomically (aside,
//! then renamed).

use std::path::{Path, PathBuf};

use super::report::{FileWrite, RegistryWrite};
use super::{InstallError, io, registry};

/// What a failed install undoes, newest first.
enum Undo {
    RemoveFile(PathBuf),
    Restore(PathBuf, Vec<u8>),
    RemoveDir(PathBuf),
    Registry(RegistryWrite),
}

pub(super) struct Journal(Vec<Undo>);

impl Journal {
    pub(super) fn new() -> Journal {
        Journal(Vec::new())
    }

    /// Records a file removed, to write back on rollback.
    pub(super) fn removed(&mut self, path: PathBuf, bytes: Vec<u8>) {
        self.0.push(Undo::Restore(path, bytes));
    }

    /// Records a registry value set, to restore on rollback.
    pub(super) fn registry(&mut self, w: RegistryWrite) {
        self.0.push(Undo::Registry(w));
    }

    pub(super) fn rollback(self) {
        for undo in self.0.into_iter().rev() {
            let result = match &undo {
                Undo::RemoveFile(p) => std::fs::remove_file(p).map_err(|e| e.to_string()),
                Undo::Restore(p, bytes) => std::fs::write(p, bytes).map_err(|e| e.to_string()),
                Undo::RemoveDir(p) => std::fs::remove_dir(p).map_err(|e| e.to_string()),
                Undo::Registry(w) => registry::restore(&w.key, w.previous.as_deref()),
            };
            if let Err(e) = result {
                tracing::warn!("rolling back the install: {e}");
            }
        }
    }

    /// Creates `dir` and its missing parents, returning the ones it created (parents first).
    pub(super) fn create_dirs(&mut self, dir: &Path) -> Result<Vec<PathBuf>, InstallError> {
        let mut missing = Vec::new();
        let mut cur = Some(dir);
        while let Some(d) = cur {
            if d.exists() {
                break;
            }
            missing.push(d.to_path_buf());
            cur = d.parent();
        }
        missing.reverse();
        for d in &missing {
            std::fs::create_dir(d).map_err(io("cannot create", d))?;
            self.0.push(Undo::RemoveDir(d.clone()));
        }
        Ok(missing)
    }

    pub(super) fn write(&mut self, w: &FileWrite) -> Result<(), InstallError> {
        write_atomic(&w.path, &w.bytes)?;
        self.0.push(match &w.existing {
            Some(old) => Undo::Restore(w.path.clone(), old.clone()),
            None => Undo::RemoveFile(w.path.clone()),
        });
        Ok(())
    }
}

/// Writes whole or not at all ([`crate::file::write_atomic`]).
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    crate::file::write_atomic(path, bytes).map_err(io("cannot write", path))
}
