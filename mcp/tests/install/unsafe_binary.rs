//! `install` refuses to register a binary another local user could replace (issue 15): the
//! binary and every directory above it must be owned by the user or root and not writable
//! by group or others (a root-owned sticky directory such as /tmp excepted). `doctor`
//! re-checks the registered binary the same way.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{BIN, HOST, Home, problems};

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A copy of the real binary at `dir/webext-mcp`, mode 0755.
fn copy_binary(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let bin = dir.join("webext-mcp");
    std::fs::copy(BIN, &bin).unwrap();
    chmod(&bin, 0o755);
    bin
}

fn home_with_chromium() -> Home {
    let home = Home::empty();
    std::fs::create_dir_all(home.path().join(".config/chromium")).unwrap();
    home
}

fn manifest(home: &Home) -> PathBuf {
    home.path().join(".config/chromium/NativeMessagingHosts").join(HOST)
}

/// Runs `install --json` through `bin` and expects the refusal naming `unsafe_path`.
fn assert_refused(home: &Home, bin: &Path, unsafe_path: &Path, mode: &str) {
    let before = home.snapshot();
    let (code, out, err) = home.run_binary(bin, &["install", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let e = &v["error"];
    assert_eq!(e["code"], "PERMISSION_DENIED", "{v:#}");
    let unsafe_path = std::fs::canonicalize(unsafe_path).unwrap();
    let message = e["message"].as_str().unwrap();
    assert!(message.contains(&unsafe_path.display().to_string()) && message.contains(mode), "{message}");
    assert!(message.contains("owner root") || message.contains("owner uid"), "{message}");
    let hint = e["hint"].as_str().unwrap();
    assert!(hint.contains(&format!("chmod go-w {}", unsafe_path.display())), "{hint}");
    assert!(hint.contains("~/.local/bin") && hint.contains("cargo install --path mcp"), "{hint}");
    assert_eq!(e["data"]["path"], unsafe_path.display().to_string());
    assert_eq!(e["data"]["mode"], mode);
    assert!(!manifest(home).exists(), "no host manifest may be written");
    assert_eq!(home.snapshot(), before, "a refused install writes nothing");
    // A dry run says the same.
    let (code, _, _) = home.run_binary(bin, &["install", "--dry-run", "--json"]);
    assert_eq!(code, 1);
}

#[test]
fn install_refuses_a_world_writable_binary() {
    let home = home_with_chromium();
    let place = tempfile::tempdir().unwrap();
    let bin = copy_binary(place.path());
    chmod(&bin, 0o777);
    assert_refused(&home, &bin, &bin, "0777");

    // Made private again, the same copy installs, and the manifest points at it.
    chmod(&bin, 0o755);
    let (code, out, err) = home.run_binary(&bin, &["install", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let m: Value = serde_json::from_slice(&std::fs::read(manifest(&home)).unwrap()).unwrap();
    assert_eq!(m["path"], std::fs::canonicalize(&bin).unwrap().display().to_string());
}

#[test]
fn install_refuses_a_binary_in_a_world_writable_directory() {
    let home = home_with_chromium();
    let place = tempfile::tempdir().unwrap();
    let open = place.path().join("shared");
    let bin = copy_binary(&open);
    chmod(&open, 0o777);
    assert_refused(&home, &bin, &open, "0777");

    // Through a symlink from a private folder, the real path's folder is what counts.
    let link = place.path().join("link");
    std::os::unix::fs::symlink(&bin, &link).unwrap();
    assert_refused(&home, &link, &open, "0777");
}

#[test]
fn a_root_owned_sticky_directory_like_tmp_is_fine() {
    let home = home_with_chromium();
    let place = tempfile::tempdir().unwrap();
    // tempdir() is under /tmp (root-owned, 1777): the copy there installs.
    assert_eq!(std::fs::metadata(std::env::temp_dir()).unwrap().permissions().mode() & 0o1777, 0o1777);
    let sticky = place.path().join("sticky");
    let bin = copy_binary(&sticky);
    chmod(&sticky, 0o1777);
    let (code, out, err) = home.run_binary(&bin, &["install", "--json"]);
    if webext_mcp_host::runtime::current_uid() == 0 {
        // Root owns the sticky dir: the /tmp exception.
        assert_eq!(code, 0, "{out}{err}");
        assert!(manifest(&home).is_file());
    } else {
        // A sticky dir of the user's own is still writable by others.
        assert_eq!(code, 1, "{out}{err}");
    }
}

#[test]
fn doctor_reports_a_registered_binary_others_can_replace() {
    let home = home_with_chromium();
    let place = tempfile::tempdir().unwrap();
    let bin = copy_binary(place.path());
    let (code, out, err) = home.run_binary(&bin, &["install"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, report) = home.json(&["doctor", "--browser", "chromium"]);
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(code, 0);

    chmod(&bin, 0o777);
    let (code, report) = home.json(&["doctor", "--browser", "chromium"]);
    assert_eq!(code, 1);
    assert_eq!(report["ok"], false, "{report:#}");
    let found = problems(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    let (c, scope, fix) = &found[0];
    assert_eq!((c.as_str(), scope.as_str()), ("PERMISSION_DENIED", "chromium"));
    let real = std::fs::canonicalize(&bin).unwrap();
    assert!(fix.contains(&format!("chmod go-w {}", real.display())), "{fix}");
    let message = report["problems"][0]["message"].as_str().unwrap();
    assert!(message.contains("0777"), "{message}");
    // The unsafe binary was not run for its version.
    assert_eq!(report["browsers"][0]["manifest"]["binary"], Value::Null);
}
