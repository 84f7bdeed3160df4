use std::os::unix::fs::symlink;

use super::*;

/// A home with a project (the configured root), a secret key and the uploads folder.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        std::fs::create_dir_all(h.join("proj/assets")).unwrap();
        std::fs::write(h.join("proj/assets/photo.png"), b"png").unwrap();
        std::fs::write(h.join("proj/.env"), b"TOKEN=1").unwrap();
        std::fs::create_dir_all(h.join("proj/.git")).unwrap();
        std::fs::write(h.join("proj/.git/config"), b"x").unwrap();
        std::fs::create_dir_all(h.join(".ssh")).unwrap();
        std::fs::write(h.join(".ssh/id_ed25519"), b"-----BEGIN OPENSSH PRIVATE KEY-----").unwrap();
        std::fs::write(h.join("notes.txt"), b"home file").unwrap();
        Home { dir }
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).display().to_string()
    }

    fn rule(&self, roots: &[&str], cap: u64) -> Rule {
        let h = self.dir.path();
        let roots: Vec<PathBuf> = roots.iter().map(|r| h.join(r)).collect();
        Rule::new(&roots, &h.join(".local/share/webext-mcp/uploads"), h, &[h.join(".config/webext-mcp")], cap)
    }
}

fn code(r: Result<Admitted, ErrorBody>) -> String {
    r.unwrap_err().code.as_str().to_owned()
}

#[test]
fn files_under_a_root_are_admitted_with_name_type_and_size() {
    let home = Home::new();
    let rule = home.rule(&["proj"], 1 << 20);
    let ok = rule.check(&home.path("proj/assets/photo.png")).unwrap();
    assert_eq!((ok.name.as_str(), ok.mime, ok.size), ("photo.png", "image/png", 3));
    // The dedicated uploads folder is always a root (created on first use), dot folders above it
    // notwithstanding.
    std::fs::write(home.dir.path().join(".local/share/webext-mcp/uploads/cv.pdf"), b"%PDF").unwrap();
    let cv = rule.check(&home.path(".local/share/webext-mcp/uploads/cv.pdf")).unwrap();
    assert_eq!(cv.mime, "application/pdf");
}

#[test]
fn secrets_dotfiles_and_paths_outside_the_roots_are_refused() {
    let home = Home::new();
    let rule = home.rule(&["proj"], 1 << 20);
    assert_eq!(code(rule.check(&home.path(".ssh/id_ed25519"))), "PERMISSION_DENIED");
    assert_eq!(code(rule.check(&home.path("proj/.env"))), "PERMISSION_DENIED");
    assert_eq!(code(rule.check(&home.path("proj/.git/config"))), "PERMISSION_DENIED");
    let outside = rule.check(&home.path("notes.txt")).unwrap_err();
    assert_eq!(outside.code.as_str(), "PERMISSION_DENIED");
    assert!(outside.hint.as_deref().unwrap_or("").contains("upload.roots"), "{outside:?}");
    // Even with the whole home as a root, secrets and dotfiles stay refused.
    let wide = home.rule(&[""], 1 << 20);
    assert!(wide.check(&home.path("notes.txt")).is_ok());
    assert_eq!(code(wide.check(&home.path(".ssh/id_ed25519"))), "PERMISSION_DENIED");
    assert_eq!(code(wide.check(&home.path("proj/.env"))), "PERMISSION_DENIED");
    assert_eq!(code(rule.check("/etc/passwd")), "PERMISSION_DENIED");
}

#[test]
fn a_symlink_is_judged_by_what_it_points_to() {
    let home = Home::new();
    let rule = home.rule(&["proj"], 1 << 20);
    symlink(home.dir.path().join(".ssh/id_ed25519"), home.dir.path().join("proj/assets/key.txt")).unwrap();
    assert_eq!(code(rule.check(&home.path("proj/assets/key.txt"))), "PERMISSION_DENIED");
    symlink(home.dir.path().join("notes.txt"), home.dir.path().join("proj/assets/notes.txt")).unwrap();
    assert_eq!(code(rule.check(&home.path("proj/assets/notes.txt"))), "PERMISSION_DENIED");
    // A `..` that climbs out of the root is resolved first.
    assert_eq!(code(rule.check(&home.path("proj/assets/../../notes.txt"))), "PERMISSION_DENIED");
}

#[test]
fn bad_paths_say_what_is_wrong() {
    let home = Home::new();
    let rule = home.rule(&["proj"], 2);
    assert_eq!(code(rule.check("proj/assets/photo.png")), "INVALID_ARGUMENT");
    assert_eq!(code(rule.check(&home.path("proj/missing.png"))), "NOT_FOUND");
    assert_eq!(code(rule.check(&home.path("proj/assets"))), "INVALID_ARGUMENT");
    assert_eq!(code(rule.check(&home.path("proj/assets/photo.png"))), "PAYLOAD_TOO_LARGE");
}

#[test]
fn mime_types_come_from_the_name() {
    assert_eq!(mime_of("archive.TAR"), "application/x-tar");
    assert_eq!(mime_of("README"), "application/octet-stream");
}
