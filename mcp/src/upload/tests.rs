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

fn session(project: PathBuf, profile: PathBuf) -> Session {
    Session { project, profile: Some(profile) }
}

#[test]
fn a_session_widens_the_roots_only_to_a_project_that_holds_no_secrets() {
    let home = Home::new();
    let h = home.dir.path();
    std::fs::create_dir_all(h.join("Documents")).unwrap();
    std::fs::write(h.join("Documents/tax-return.pdf"), b"%PDF").unwrap();
    std::fs::create_dir_all(h.join("dist/extension-js/profiles/chromium/Default")).unwrap();
    std::fs::write(h.join("dist/extension-js/profiles/chromium/Default/Cookies"), b"sqlite").unwrap();
    // extension_build {outDir: "~/dist"} + extension_preview {projectPath: "~"}: the home is
    // the session's project, and it is not a root.
    let attack = [session(h.to_path_buf(), h.join("dist/extension-js/profiles/chromium"))];
    let rule = home.rule(&[], 1 << 20).with_sessions(&attack);
    let refused = rule.check(&home.path("Documents/tax-return.pdf")).unwrap_err();
    assert_eq!(refused.code.as_str(), "PERMISSION_DENIED");
    let data = refused.data.unwrap().to_string();
    assert!(data.contains("home folder"), "{data}");
    assert_eq!(
        code(rule.check(&home.path("dist/extension-js/profiles/chromium/Default/Cookies"))),
        "PERMISSION_DENIED"
    );
    // A folder that holds a secret location (the home's parent, `/`) is no root either.
    let wide = home.rule(&[], 1 << 20).with_sessions(&[session(PathBuf::from("/"), h.join("p"))]);
    assert_eq!(code(wide.check(&home.path("Documents/tax-return.pdf"))), "PERMISSION_DENIED");

    // An ordinary project is a root, but never for its own profile, even under another name.
    std::fs::create_dir_all(h.join("proj/out/profile-ff")).unwrap();
    std::fs::write(h.join("proj/out/profile-ff/cookies.sqlite"), b"sqlite").unwrap();
    let rule =
        home.rule(&[], 1 << 20).with_sessions(&[session(h.join("proj"), h.join("proj/out/profile-ff"))]);
    assert!(rule.check(&home.path("proj/assets/photo.png")).is_ok());
    let own = rule.check(&home.path("proj/out/profile-ff/cookies.sqlite")).unwrap_err();
    assert!(own.message.contains("secrets or browser data"), "{own:?}");
}

#[test]
fn every_dev_profile_folder_is_secret_even_inside_a_configured_root() {
    let home = Home::new();
    let h = home.dir.path();
    std::fs::create_dir_all(h.join("proj/dist/extension-js/profiles/firefox")).unwrap();
    std::fs::write(h.join("proj/dist/extension-js/profiles/firefox/cookies.sqlite"), b"x").unwrap();
    let rule = home.rule(&["proj"], 1 << 20);
    let path = home.path("proj/dist/extension-js/profiles/firefox/cookies.sqlite");
    assert_eq!(code(rule.check(&path)), "PERMISSION_DENIED");
    assert!(rule.secret_containing(Path::new(&path)).is_some());
}

#[test]
fn a_hard_link_to_a_secret_inside_a_root_is_refused_with_the_hint_to_copy() {
    let home = Home::new();
    let h = home.dir.path();
    std::fs::hard_link(h.join(".ssh/id_ed25519"), h.join("proj/assets/id.txt")).unwrap();
    let rule = home.rule(&["proj"], 1 << 20);
    let refused = rule.check(&home.path("proj/assets/id.txt")).unwrap_err();
    assert_eq!(refused.code.as_str(), "PERMISSION_DENIED");
    assert!(refused.message.contains("2 hard links"), "{refused:?}");
    assert!(refused.hint.as_deref().unwrap_or("").contains("cp "), "{refused:?}");
    // A copy goes.
    std::fs::copy(h.join("proj/assets/photo.png"), h.join("proj/assets/copy.png")).unwrap();
    assert!(rule.check(&home.path("proj/assets/copy.png")).is_ok());
}
