//! The install record (`<data dir>/install.json`): each file install wrote, with a hash of
//! what it wrote and what it replaced, each directory it created and each registry value it
//! set, so that `uninstall` removes exactly that.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::report::RegistryWrite;
use super::{InstallError, io};

/// File name of the install record in the data dir.
pub const RECORD_FILE: &str = "install.json";
pub(super) const RECORD_VERSION: u32 = 1;

/// What install wrote, so that uninstall removes exactly that.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub version: u32,
    pub binary: PathBuf,
    pub files: Vec<RecordedFile>,
    /// Directories install created, parents first.
    pub dirs: Vec<PathBuf>,
    #[serde(default)]
    pub registry: Vec<RegistryWrite>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RecordedFile {
    pub path: PathBuf,
    /// sha256 of what install wrote: a file changed since is left alone.
    pub sha256: String,
    /// The file's contents before install replaced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// Reads the record; `None` when there is none.
pub fn read_record(path: &Path) -> Result<Option<Record>, InstallError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("cannot read", path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| InstallError::BadRecord { path: path.to_path_buf(), reason: e.to_string() })
}
