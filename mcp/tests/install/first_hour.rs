//! The first hour of a new user, from the README: `scripts/install` (the documented install
//! step) gives a binary with the helper embedded, and on a fresh home `install` and then
//! `doctor` report it and every browser detected; a binary built without the helper on
//! purpose (the `helperless` feature) makes `doctor` and `server_info` report the problem
//! and exit non-zero; `doctor` exits non-zero whenever it lists a problem.
//!
//! Both builds reuse compiled dependencies: the install runs with this workspace's target
//! dir and `--debug` (the README's `scripts/install` with cargo's cheap profile), and the
//! helperless build runs in `target/helperless-check/`, whose dependencies are hard links to
//! this target dir's, so it compiles only webext-mcp itself (again only when it changed) and
//! never replaces the binary the other tests run.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Home, problems};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The target dir this test binary was built in (`…/target/debug/deps/<test>` → `…/target`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

fn output(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// `cargo` with the user's toolchain but a fresh HOME (cargo and rustup found through
/// CARGO_HOME/RUSTUP_HOME, the wasm-bindgen cache through XDG_CACHE_HOME).
fn cargo_env(cmd: &mut Command, home: &Path) {
    let real = PathBuf::from(std::env::var("HOME").unwrap());
    let keep = |var: &str, default: PathBuf| std::env::var_os(var).map_or(default, PathBuf::from);
    cmd.env("CARGO_HOME", keep("CARGO_HOME", real.join(".cargo")))
        .env("RUSTUP_HOME", keep("RUSTUP_HOME", real.join(".rustup")))
        .env("XDG_CACHE_HOME", keep("XDG_CACHE_HOME", real.join(".cache")))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("HOME", home)
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTFLAGS");
}

#[test]
fn the_readme_install_gives_a_binary_with_the_helper_that_doctor_vouches_for() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    assert!(readme.contains("scripts/install"), "the README no longer names scripts/install");
    let home = Home::empty();
    let root = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(workspace().join("scripts/install"));
    cmd.arg("--debug").arg("--root").arg(root.path()).current_dir(workspace());
    cargo_env(&mut cmd, home.path());
    let (code, text) = output(&mut cmd);
    assert_eq!(code, 0, "scripts/install failed:\n{text}");
    let bin = root.path().join("bin/webext-mcp");
    assert!(bin.is_file(), "{text}");

    // A fresh home with two browsers that have run once.
    for dir in [".config/chromium", ".mozilla"] {
        std::fs::create_dir_all(home.path().join(dir)).unwrap();
    }
    let (code, out, err) = home.run_binary(&bin, &["call", "server_info", "{}", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let info: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(info["helper"]["embedded"], serde_json::json!({"chromium": true, "firefox": true}));
    let (code, out, err) = home.run_binary(&bin, &["install"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = home.run_binary(&bin, &["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["server"]["helperEmbedded"], true);
    let ids: Vec<&str> =
        report["browsers"].as_array().unwrap().iter().filter_map(|b| b["id"].as_str()).collect();
    assert_eq!(ids, ["chromium", "firefox"], "{report:#}");
}

/// Hard-links `from` into `to` file by file, leaving out cargo's lock files, the incremental
/// caches and what `to` has already (its own builds, earlier links).
fn link_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".cargo-lock" || name == "incremental" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            link_tree(&src, &dst);
        } else if entry.file_type().unwrap().is_file() && !dst.exists() {
            std::fs::hard_link(&src, &dst).unwrap();
        }
    }
}

#[test]
fn a_helperless_binary_is_a_problem_for_doctor_server_info_and_install() {
    let copy = target_dir().join("helperless-check");
    for part in ["deps", "build", ".fingerprint"] {
        link_tree(&target_dir().join("debug").join(part), &copy.join("debug").join(part));
    }
    let home = Home::empty();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["build", "--locked", "-p", "webext-mcp", "--bin", "webext-mcp", "--features", "helperless"])
        .current_dir(workspace());
    cargo_env(&mut cmd, home.path());
    // No incremental cache: it would be gigabytes kept for a build that changes rarely.
    cmd.env("CARGO_TARGET_DIR", &copy).env("CARGO_INCREMENTAL", "0");
    let (code, text) = output(&mut cmd);
    assert_eq!(code, 0, "the helperless build failed:\n{text}");
    let bin = copy.join("debug/webext-mcp");
    std::fs::create_dir_all(home.path().join(".config/chromium")).unwrap();

    let (code, out, err) = home.run_binary(&bin, &["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_ne!(code, 0, "doctor exited 0 for a helperless binary: {report:#}");
    assert_eq!(report["ok"], false);
    let found = problems(&report);
    assert!(
        found.iter().any(|(c, scope, fix)| c == "HELPER_NOT_EMBEDDED"
            && scope == "server"
            && fix.contains("scripts/install")),
        "{found:?}"
    );
    let (code, text, _) = home.run_binary(&bin, &["doctor"]);
    assert_ne!(code, 0);
    assert!(text.contains("HELPER_NOT_EMBEDDED") && !text.contains("no problems found"), "{text}");

    let (code, out, err) = home.run_binary(&bin, &["call", "server_info", "{}", "--json"]);
    assert_ne!(code, 0, "server_info exited 0 for a helperless binary:\n{out}{err}");
    let info: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(info["ok"], false);
    assert_eq!(info["problems"][0]["code"], "HELPER_NOT_EMBEDDED", "{info:#}");
    let (_, text, _) = home.run_binary(&bin, &["call", "server_info"]);
    assert!(text.contains("embedded for chromium NO") && text.contains("HELPER_NOT_EMBEDDED"), "{text}");

    let (code, out, err) = home.run_binary(&bin, &["install"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains("NOT_INSTALLED") && err.contains("scripts/install"), "{out}{err}");
}

#[test]
fn an_empty_home_is_a_problem_and_zen_is_not_listed_for_firefoxs_manifest() {
    let home = Home::empty();
    let (code, report) = home.json(&["doctor"]);
    assert_eq!(code, 1, "{report:#}");
    let found = problems(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("NO_BROWSER_DETECTED", "browsers"));
    let (_, text, _) = home.run(&["doctor"]);
    assert!(text.contains("NO_BROWSER_DETECTED") && !text.contains("no problems found"), "{text}");

    // Firefox installed for; Zen (which reads the same file) is not on this machine.
    std::fs::create_dir_all(home.path().join(".mozilla")).unwrap();
    let (code, out, err) = home.run(&["install", "--browser", "firefox"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, report) = home.json(&["doctor"]);
    let ids: Vec<&str> =
        report["browsers"].as_array().unwrap().iter().filter_map(|b| b["id"].as_str()).collect();
    assert_eq!(ids, ["firefox"], "{report:#}");
    assert_eq!((code, &report["ok"]), (0, &serde_json::json!(true)), "{report:#}");
}

/// Compiles `mcp/build.rs` on its own (it needs only std) and runs it as cargo would for a
/// checkout whose `extension/dist/` was never built.
fn run_build_script(helperless: bool) -> (i32, String, PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let fake = dir.join("checkout/mcp");
    std::fs::create_dir_all(fake.join("templates")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let script = dir.join("build-script");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let (code, text) = output(
        Command::new(rustc)
            .args(["--edition", "2024", "--crate-name", "build_script"])
            .arg(workspace().join("mcp/build.rs"))
            .arg("-o")
            .arg(&script),
    );
    assert_eq!(code, 0, "build.rs does not compile alone:\n{text}");
    let mut run = Command::new(&script);
    run.env("CARGO_MANIFEST_DIR", &fake)
        .env("OUT_DIR", dir.join("out"))
        .env_remove("CARGO_FEATURE_HELPERLESS");
    if helperless {
        run.env("CARGO_FEATURE_HELPERLESS", "1");
    }
    let (code, text) = output(&mut run);
    (code, text, dir)
}

#[test]
fn a_build_without_the_helper_fails_naming_the_step_unless_asked_for() {
    let (code, text, dir) = run_build_script(false);
    assert_ne!(code, 0, "the build script accepted a checkout without extension/dist:\n{text}");
    assert!(
        text.contains("error: no helper extension in")
            && text.contains("scripts/build-extension")
            && text.contains("scripts/install")
            && text.contains("helperless"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
    let (code, text, dir) = run_build_script(true);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("cargo:warning=feature `helperless`"), "{text}");
    let tables = std::fs::read_to_string(dir.join("out/helper_files.rs")).unwrap();
    assert!(tables.contains("static CHROME: &[(&str, &[u8])] = &[\n];"), "{tables}");
    std::fs::remove_dir_all(dir).unwrap();
}
