//! `install`, `uninstall` and `doctor` on temp homes (`--home`), through the real binary:
//! the files written, idempotence, dry runs, the exact round trip, and doctor naming each
//! broken state with its code and fix. The real home is never touched. Also the managed
//! and detected browsers (`webext-mcp browsers …`): detection on fake trees per system and
//! on this machine, installs from a local mirror in the vendors' formats.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../common/http.rs"]
#[allow(dead_code)]
mod http;
#[path = "../common/mcp_client.rs"]
#[allow(dead_code)]
mod mcp;

mod broken;
mod browsers_detect;
mod browsers_hostile;
mod browsers_install;
mod first_hour;
mod mirror;
mod round_trip;
mod unsafe_binary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_webext-mcp");
pub const HOST: &str = "dev.webext_mcp.bridge.json";

/// The config dirs of the nine browsers, relative to the home (Linux layout).
pub const NINE: [(&str, &str); 9] = [
    ("chrome", ".config/google-chrome"),
    ("chromium", ".config/chromium"),
    ("edge", ".config/microsoft-edge"),
    ("brave", ".config/BraveSoftware/Brave-Browser"),
    ("vivaldi", ".config/vivaldi"),
    ("firefox", ".mozilla"),
    ("zen", ".zen"),
    ("librewolf", ".librewolf"),
    ("floorp", ".floorp"),
];

/// A temp home plus a runtime dir of its own (doctor must not see the machine's hosts).
pub struct Home {
    pub dir: TempDir,
    pub runtime: TempDir,
}

impl Home {
    pub fn empty() -> Home {
        Home { dir: tempfile::tempdir().unwrap(), runtime: tempfile::tempdir().unwrap() }
    }

    /// A home where the nine browsers' config dirs exist, each with a file in it.
    pub fn with_nine() -> Home {
        let h = Home::empty();
        for (_, dir) in NINE {
            std::fs::create_dir_all(h.path().join(dir)).unwrap();
            std::fs::write(h.path().join(dir).join("Local State"), "{}").unwrap();
        }
        h
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn data(&self) -> PathBuf {
        self.path().join(".local/share/webext-mcp")
    }

    /// Runs `webext-mcp --home H <args>`: exit code, stdout, stderr.
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_binary(Path::new(BIN), args)
    }

    /// `<binary> --home H <args>` with this home's environment, not started.
    pub fn command(&self, binary: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(binary);
        cmd.arg("--home").arg(self.path()).args(args);
        cmd.env("HOME", self.path()).env("WEBEXT_MCP_RUNTIME_DIR", self.runtime.path());
        for var in [
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "WEBEXT_MCP_CONFIG",
            "WEBEXT_MCP_BROWSERS_MIRROR",
            "WEBEXT_MCP_CHROMIUM_BINARY",
            "WEBEXT_MCP_FIREFOX_BINARY",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs `<binary> --home H <args>` (a copy of the binary placed elsewhere).
    pub fn run_binary(&self, binary: &Path, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.command(binary, args);
        // A binary copied moments ago may still be open for writing in a child that another
        // test thread forked meanwhile (the fd lives until that child execs): ETXTBSY, retry.
        let mut tries = 0;
        let out = loop {
            match cmd.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.unwrap(),
            }
        };
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Runs a verb with `--json` and parses what it printed.
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let mut args = args.to_vec();
        args.push("--json");
        let (code, out, err) = self.run(&args);
        let v =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}\n{err}"));
        (code, v)
    }

    /// Every file and directory under the home: path → contents (`None` for directories).
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                if p.is_dir() {
                    out.insert(rel, None);
                    walk(root, &p, out);
                } else {
                    out.insert(rel, Some(std::fs::read(&p).unwrap()));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.path(), self.path(), &mut out);
        out
    }

    /// The files (not directories) under the home, relative.
    pub fn files(&self) -> Vec<String> {
        self.snapshot()
            .into_iter()
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }
}

/// Problems doctor reported, as (code, scope, fix).
pub fn problems(report: &Value) -> Vec<(String, String, String)> {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_owned(),
                p["scope"].as_str().unwrap().to_owned(),
                p["fix"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
