//! The README's headless Firefox recipe, followed to the letter: the shell block after
//! `<!-- recipe: headless-firefox -->` runs as it is (with `webext-mcp` on PATH, a fresh HOME
//! and its own runtime dir), and then the helper of that Firefox connects and
//! `list_connected_browsers` lists it.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::DEADLINE;

const BIN: &str = env!("CARGO_BIN_EXE_webext-mcp");
const MARKER: &str = "<!-- recipe: headless-firefox -->";

/// The first ```sh block after the marker.
fn recipe() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let after = &readme[readme.find(MARKER).expect("the README lost its headless Firefox recipe")..];
    let start = after.find("```sh\n").unwrap() + "```sh\n".len();
    after[start..start + after[start..].find("```\n").unwrap()].to_owned()
}

/// Kills the recipe's process group (the background Firefox and its children) when dropped.
struct Group(i32);

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group the recipe's shell leads.
        unsafe { libc::kill(-self.0, libc::SIGKILL) };
    }
}

/// A user's environment: this build's `webext-mcp` on PATH, a fresh HOME (and TMPDIR in it,
/// so the recipe's `mktemp` profile goes away with it), a runtime dir of the test's own.
fn env_for(cmd: &mut Command, home: &Path, runtime: &Path) {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    cmd.env("HOME", home).env("PATH", path).env("WEBEXT_MCP_RUNTIME_DIR", runtime).env("TMPDIR", home);
    for var in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "WEBEXT_MCP_CONFIG"] {
        cmd.env_remove(var);
    }
}

#[test]
fn the_readme_headless_firefox_recipe_connects_the_helper() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::Builder::new().prefix("wxm-recipe-").tempdir().unwrap();
    let runtime = tempfile::Builder::new().prefix("wxm-rt-").tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let script = format!("set -eu\n{}", recipe());
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(&script).process_group(0);
    // Firefox keeps the recipe's stdout open: its output goes to a file, not a pipe.
    let log = std::fs::File::create(home.path().join("recipe.log")).unwrap();
    cmd.stdin(Stdio::null()).stdout(log.try_clone().unwrap()).stderr(log);
    env_for(&mut cmd, home.path(), runtime.path());
    let mut child = cmd.spawn().unwrap();
    let _group = Group(i32::try_from(child.id()).unwrap());
    let status = child.wait().unwrap();
    let printed = || std::fs::read_to_string(home.path().join("recipe.log")).unwrap_or_default();
    assert!(status.success(), "the recipe failed:\n{script}\n{}", printed());

    let deadline = Instant::now() + DEADLINE;
    let listed = loop {
        let mut list = Command::new(BIN);
        list.args(["call", "list_connected_browsers", "--json"]);
        env_for(&mut list, home.path(), runtime.path());
        let got = list.output().unwrap();
        let text = String::from_utf8_lossy(&got.stdout).into_owned();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        if v["browsers"].as_array().into_iter().flatten().any(|b| b["browser"] == "firefox") {
            break v;
        }
        assert!(
            Instant::now() < deadline,
            "the recipe's Firefox never connected; last list: {text}\n{}",
            printed()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(listed["browsers"][0]["extVersion"], env!("CARGO_PKG_VERSION"), "{listed:#}");
}
