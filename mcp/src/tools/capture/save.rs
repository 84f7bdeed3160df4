//! `savePath` of the screenshot tools: where an image may be written, and writing it so that
//! nobody ever sees half a file or loses one they did not offer.
//!
//! The places are the upload rule's (`crate::upload`, issue 31): under an allowed root
//! (config `upload.roots`, running dev sessions' projects, `<data dir>/uploads`) once symlinks
//! are resolved, no dot-file or dot-directory below that root, never inside a secret location
//! (`~/.ssh`, browser profiles, webext-mcp's own folders, …) whatever the roots say, no `..`.
//! A page can talk an agent into saving "a screenshot" to `~/.ssh/authorized_keys.png`; the
//! rule, not the agent, says no.
//!
//! ```text
//! savePath ─▶ target(): absolute, .png/.jpg/.jpeg, parent's real path under a root, not secret
//!          ─▶ write(): <dir>/.<name>.<random>.part (create_new, 0600) → fsync
//!                      → hard_link onto the name (fails if anything is there: never over a file)
//!                        or, with overwrite: true, rename over it (atomic replace of a file)
//! ```

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use crate::upload::Rule;

fn refuse(path: &Path, why: &str, rule: &Rule) -> ErrorBody {
    ErrorBody::new(ErrorCode::PermissionDenied, format!("savePath {}: {why}", path.display())).with_hint(format!(
        "pass an absolute .png/.jpg path in {} (or a running dev session's project, or a folder of `upload.roots` in the config file), or leave savePath out to get the image inline",
        rule.uploads_dir.display()
    ))
}

fn dotted(p: &Path) -> bool {
    p.components().any(|c| matches!(c, Component::Normal(n) if n.to_string_lossy().starts_with('.')))
}

/// The file `path` names, if an image may be written there; `overwrite` lets an existing
/// regular file be replaced (never a directory, a device or anything through a symlink).
pub fn target(path: &Path, rule: &Rule, overwrite: bool) -> Result<PathBuf, ErrorBody> {
    let no = |why: &str| refuse(path, why, rule);
    if !path.is_absolute() {
        return Err(no("not an absolute path"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(no("`..` is not allowed"));
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
        return Err(no("the file must end in .png, .jpg or .jpeg"));
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(no("no file name"));
    };
    if name.to_string_lossy().starts_with('.') {
        return Err(no("dot-files and dot-directories are off limits"));
    }
    // Judged by name first: a refusal never says whether a folder outside the roots exists.
    if rule.secret_containing(parent).is_some() {
        return Err(no("inside a location that holds secrets or browser data"));
    }
    if rule.root_of(parent).is_some_and(|root| parent.strip_prefix(root).is_ok_and(dotted)) {
        return Err(no("dot-files and dot-directories are off limits"));
    }
    let real_parent = match parent.canonicalize() {
        Ok(p) => p,
        Err(_) if rule.root_of(parent).is_none() => return Err(no("outside the allowed directories")),
        Err(_) => return Err(no("its directory does not exist")),
    };
    if rule.secret_containing(&real_parent).is_some() {
        return Err(no("inside a location that holds secrets or browser data"));
    }
    let Some(root) = rule.root_of(&real_parent) else { return Err(no("outside the allowed directories")) };
    // Dot-directories count below the root only (a root may itself sit under one).
    if real_parent.strip_prefix(root).is_ok_and(dotted) {
        return Err(no("dot-files and dot-directories are off limits"));
    }
    let target = real_parent.join(name);
    match std::fs::symlink_metadata(&target) {
        Err(_) => {}
        Ok(meta) if overwrite && meta.is_file() => {}
        Ok(meta) if overwrite => {
            let what = if meta.file_type().is_symlink() { "a symlink" } else { "not a regular file" };
            return Err(ErrorBody::new(
                ErrorCode::PermissionDenied,
                format!("savePath {} is {what}: never written over", path.display()),
            )
            .with_hint("pass a path that does not exist yet"));
        }
        Ok(_) => {
            return Err(ErrorBody::new(
                ErrorCode::AlreadyExists,
                format!("savePath {} exists", path.display()),
            )
            .with_hint("pass a path that does not exist yet, or overwrite: true to replace that image"));
        }
    }
    Ok(target)
}

/// Writes `bytes` to `path` (from [`target`]) atomically: a reader sees no file or the whole
/// image, never part of one. Without `overwrite`, a file that appeared at the name since
/// [`target`] looked is kept and the answer is `ALREADY_EXISTS`.
pub fn write(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), ErrorBody> {
    let failed = |e: std::io::Error| {
        ErrorBody::new(ErrorCode::PermissionDenied, format!("cannot write {}: {e}", path.display()))
            .with_hint("pass a path in a folder this user can write")
    };
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(ErrorBody::invalid_argument(format!("savePath {} has no file name", path.display())));
    };
    let token = webext_mcp_host::descriptor::Token::generate()
        .map_err(|e| ErrorBody::internal(format!("cannot draw a temporary name: {e}")))?;
    let part = dir.join(format!(".{}.{}.part", name.to_string_lossy(), &token.as_str()[..12]));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options.open(&part).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&part);
        return Err(failed(e));
    }
    let placed = if overwrite {
        std::fs::rename(&part, path)
    } else {
        // A hard link never replaces a name: the no-clobber half of an atomic rename.
        std::fs::hard_link(&part, path).and_then(|()| std::fs::remove_file(&part))
    };
    if let Err(e) = placed {
        let _ = std::fs::remove_file(&part);
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            return Err(ErrorBody::new(
                ErrorCode::AlreadyExists,
                format!("savePath {} exists", path.display()),
            )
            .with_hint("pass a path that does not exist yet, or overwrite: true to replace that image"));
        }
        return Err(failed(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        home: tempfile::TempDir,
        root: PathBuf,
        rule: Rule,
    }

    /// A home with `~/.ssh`, a configured root `~/shots` and the uploads folder.
    fn fixture() -> Fixture {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("shots");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        let uploads = home.path().join("data/uploads");
        let private = [home.path().join("run")];
        let rule = Rule::new(std::slice::from_ref(&root), &uploads, home.path(), &private, 1 << 20);
        let root = root.canonicalize().unwrap();
        Fixture { home, root, rule }
    }

    #[test]
    fn images_go_under_the_upload_roots_only() {
        let f = fixture();
        assert_eq!(target(&f.root.join("a.png"), &f.rule, false).unwrap(), f.root.join("a.png"));
        let uploads = f.home.path().join("data/uploads").canonicalize().unwrap();
        assert_eq!(target(&uploads.join("b.JPG"), &f.rule, false).unwrap(), uploads.join("b.JPG"));
        let outside = tempfile::tempdir().unwrap();
        let home = f.home.path();
        for (path, why) in [
            (PathBuf::from("shot.png"), "absolute"),
            (home.join(".ssh/authorized_keys.png"), "secrets"),
            (home.join(".ssh/keys/new.png"), "secrets"),
            (f.root.join(".git/shot.png"), "dot-"),
            (f.root.join(".shot.png"), "dot-"),
            (f.root.join("shot.txt"), ".png"),
            (f.root.join("shot"), ".png"),
            (f.root.join("missing/shot.png"), "does not exist"),
            (f.root.join("a/../shot.png"), "`..`"),
            (f.root.join("../shot.png"), "`..`"),
            (outside.path().join("shot.png"), "outside"),
            (outside.path().join("no/such/dir/shot.png"), "outside"),
            (std::env::temp_dir().join("shot.png"), "outside"),
            (PathBuf::from("/etc/shot.png"), "secrets"),
        ] {
            let err = target(&path, &f.rule, false).unwrap_err();
            assert_eq!(err.code, ErrorCode::PermissionDenied, "{}", path.display());
            assert!(err.message.contains(why), "{}: {}", path.display(), err.message);
            assert!(err.hint.as_deref().is_some_and(|h| h.contains("upload.roots")), "{}", path.display());
        }
    }

    #[test]
    fn symlinks_do_not_lead_out_of_the_roots() {
        let f = fixture();
        let outside = tempfile::tempdir().unwrap();
        // A folder in the root that is a symlink to elsewhere, and one to ~/.ssh.
        std::os::unix::fs::symlink(outside.path(), f.root.join("out")).unwrap();
        std::os::unix::fs::symlink(f.home.path().join(".ssh"), f.root.join("keys")).unwrap();
        let err = target(&f.root.join("out/shot.png"), &f.rule, false).unwrap_err();
        assert!(err.message.contains("outside"), "{}", err.message);
        let err = target(&f.root.join("keys/shot.png"), &f.rule, false).unwrap_err();
        assert!(err.message.contains("secrets"), "{}", err.message);
        // A symlink planted at the name: never written through, not even with overwrite.
        std::os::unix::fs::symlink("/etc/passwd", f.root.join("x.png")).unwrap();
        assert_eq!(target(&f.root.join("x.png"), &f.rule, false).unwrap_err().code, ErrorCode::AlreadyExists);
        let err = target(&f.root.join("x.png"), &f.rule, true).unwrap_err();
        assert_eq!(err.code, ErrorCode::PermissionDenied);
        assert!(err.message.contains("symlink"), "{}", err.message);
        std::fs::create_dir(f.root.join("d.png")).unwrap();
        assert_eq!(
            target(&f.root.join("d.png"), &f.rule, true).unwrap_err().code,
            ErrorCode::PermissionDenied
        );
    }

    #[test]
    fn writes_are_atomic_and_never_over_a_file_unless_asked() {
        let f = fixture();
        let path = target(&f.root.join("shot.png"), &f.rule, false).unwrap();
        write(&path, b"first", false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // Something appeared at the name after the check: kept, ALREADY_EXISTS.
        let err = write(&path, b"second", false).unwrap_err();
        assert_eq!(err.code, ErrorCode::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(target(&path, &f.rule, false).unwrap_err().code, ErrorCode::AlreadyExists);
        // overwrite: replaced whole.
        let again = target(&path, &f.rule, true).unwrap();
        write(&again, b"second", true).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        // No temporary file is left behind either way.
        let names: Vec<String> = std::fs::read_dir(&f.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["shot.png".to_owned()], "{names:?}");
    }
}
