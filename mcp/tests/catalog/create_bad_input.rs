//! `extension_create` refusals: each one leaves the file system as it was.

use serde_json::json;

use crate::{call, snapshot};

#[test]
fn non_empty_destination_is_already_exists_and_stays_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("taken");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/manifest.json"), b"{\"name\": \"mine\"}").unwrap();
    std::fs::write(project.join("notes.txt"), b"keep me").unwrap();
    let before = snapshot(dir.path());
    for args in [
        json!({"projectName": "taken"}),
        json!({"path": project, "template": "popup"}),
        json!({"projectName": "taken", "dryRun": true}),
    ] {
        let (code, out) = call(dir.path(), "extension_create", args.clone());
        assert_eq!(code, 1, "{args}");
        assert_eq!(out["error"]["code"], "ALREADY_EXISTS", "{args}: {out}");
        assert!(out["error"]["hint"].as_str().unwrap().contains("nothing was written"));
    }
    std::fs::write(dir.path().join("a-file"), b"x").unwrap();
    let (_, out) = call(dir.path(), "extension_create", json!({"projectName": "a-file"}));
    assert_eq!(out["error"]["code"], "ALREADY_EXISTS");
    std::fs::remove_file(dir.path().join("a-file")).unwrap();
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn unwritable_parent_is_permission_denied_and_leaves_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    // root ignores directory permissions; /sys refuses even root (EPERM).
    let parent = if std::fs::write(locked.join("probe"), b"").is_ok() {
        std::fs::remove_file(locked.join("probe")).unwrap();
        std::path::PathBuf::from("/sys")
    } else {
        locked.clone()
    };
    let before = std::fs::read_dir(&parent).unwrap().count();
    let (code, out) = call(dir.path(), "extension_create", json!({"path": parent.join("wxm-create-test")}));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 1);
    assert_eq!(out["error"]["code"], "PERMISSION_DENIED", "{out}");
    assert!(out["error"]["hint"].as_str().unwrap().contains("nothing was written"));
    assert_eq!(std::fs::read_dir(&parent).unwrap().count(), before);
}

#[test]
fn unknown_template_is_not_found_with_closest_names() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) =
        call(dir.path(), "extension_create", json!({"projectName": "x", "template": "side-bar"}));
    assert_eq!(code, 1);
    assert_eq!(out["error"]["code"], "NOT_FOUND");
    assert_eq!(out["error"]["data"]["closest"][0], "sidebar");
    assert!(out["error"]["message"].as_str().unwrap().contains("closest: sidebar"));
    let (_, out) =
        call(dir.path(), "extension_create", json!({"projectName": "x", "template": "remote:popup"}));
    assert_eq!(out["error"]["code"], "NOT_FOUND");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn names_that_are_not_a_folder_and_traversal_are_invalid() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["", "a/b", "..", "../escape", ".hidden", "bad\u{0}name", "a\\b", "what?"] {
        let (code, out) = call(dir.path(), "extension_create", json!({"projectName": name}));
        assert_eq!(code, 1, "{name:?}");
        assert_eq!(out["error"]["code"], "INVALID_ARGUMENT", "{name:?}: {out}");
    }
    let (_, out) = call(dir.path(), "extension_create", json!({}));
    assert_eq!(out["error"]["code"], "INVALID_ARGUMENT");
    let (_, out) = call(dir.path(), "extension_create", json!({"path": dir.path().join("missing/deeper")}));
    assert_eq!(out["error"]["code"], "NOT_FOUND");
    let (_, out) = call(dir.path(), "extension_create", json!({"projectName": 3}));
    assert_eq!(out["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
