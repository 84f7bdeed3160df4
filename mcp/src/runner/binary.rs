//! Which browser binary a project's config may name (`chromiumBinary`, `geckoBinary`,
//! `firefoxBinary`): one installed on this machine, outside the project, that no other user
//! can replace.

use std::path::{Path, PathBuf};

/// Whether `path` (from a project's config) may be started as the session's browser: an
/// absolute path to an executable file outside the project — a "browser" the project ships
/// would be the project's own code running as you, with no build step in between — that
/// no other user can write to.
pub fn vet_binary(path: &Path, project: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err("not an absolute path (a browser binary from the config must be installed on this machine, outside the project)".to_owned());
    }
    let real = path.canonicalize().map_err(|e| format!("it cannot be opened ({e})"))?;
    if let Ok(root) = project.canonicalize()
        && real.starts_with(&root)
    {
        return Err("it is inside the project: a browser the project ships would be the project's own code running as you".to_owned());
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("it cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("it is not a file".to_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = meta.permissions().mode();
        if mode & 0o111 == 0 {
            return Err("it is not executable".to_owned());
        }
        if mode & 0o022 != 0 {
            return Err("other users can write to it".to_owned());
        }
        // SAFETY: geteuid has no preconditions and touches no memory.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != 0 && meta.uid() != me {
            return Err("it belongs to another user".to_owned());
        }
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_outside_the_project_only() {
        let project = tempfile::tempdir().unwrap();
        let inside = project.path().join("browser");
        std::fs::write(&inside, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert!(vet_binary(&inside, project.path()).unwrap_err().contains("inside the project"));
        assert!(vet_binary(Path::new("rel/chrome"), project.path()).is_err());
        assert!(vet_binary(Path::new("/bin/sh"), project.path()).is_ok());
        assert!(vet_binary(Path::new("/nonexistent/chrome"), project.path()).is_err());
    }
}
