//! What the helper_* tests share: a browser of its own with the helper extension (unpacked
//! from the copy embedded in the binary) and the real `webext-mcp` binary registered as its
//! native host; waiting for the host; calling tools through `webext-mcp call … --json`.

use std::time::{Duration, Instant};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::paths::Env;
use webext_mcp::runner::{Runner, RunnerOptions};
use webext_mcp_host::descriptor::{self, Descriptor};
use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, HELPER_GECKO_ID, NATIVE_HOST_NAME};

use crate::common::DEADLINE;
use crate::common::browser::options;

/// Whether the test browser gets a native host manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Installed,
    Missing,
}

/// A browser with the helper loaded and its own runtime dir and session.
pub struct HelperBrowser {
    pub runner: Box<dyn Runner>,
    pub family: Engine,
    pub runtime_dir: TempDir,
    pub session: String,
    /// Profile (Chromium), `HOME` (Firefox), the unpacked helper and the CLI's `HOME`.
    pub dirs: TempDir,
}

fn private_dir(prefix: &str) -> TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// The host manifest a browser reads to start `webext-mcp` in host mode.
fn host_manifest(family: Engine) -> Value {
    let mut m = json!({
        "name": NATIVE_HOST_NAME,
        "description": "webext-mcp host (test)",
        "path": env!("CARGO_BIN_EXE_webext-mcp"),
        "type": "stdio",
    });
    match family {
        Engine::Chromium => {
            m["allowed_origins"] = json!([format!("chrome-extension://{HELPER_CHROMIUM_ID}/")])
        }
        Engine::Gecko => m["allowed_extensions"] = json!([HELPER_GECKO_ID]),
    }
    m
}

/// Launches `family` with the embedded helper; with [`Host::Installed`] the host manifest is
/// written where that browser looks before it starts (Chromium: the profile's
/// `NativeMessagingHosts/`; Firefox: `$HOME/.mozilla/native-messaging-hosts/`).
pub async fn launch(family: Engine, host: Host) -> HelperBrowser {
    launch_with(family, host, true).await
}

/// [`launch`], choosing whether the runner keeps an inspector on service workers (off: the
/// helper runs as in a user's browser, for benchmarks).
pub async fn launch_with(family: Engine, host: Host, observe_workers: bool) -> HelperBrowser {
    launch_configured(family, host, |o| o.observe_workers = observe_workers).await
}

/// [`launch`], with the runner options adjusted by `configure` (e.g. `remote_control`).
pub async fn launch_configured(
    family: Engine,
    host: Host,
    configure: impl FnOnce(&mut RunnerOptions),
) -> HelperBrowser {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    assert!(
        webext_mcp::helper::is_embedded(family),
        "this webext-mcp embeds no helper: run scripts/build-extension, then the tests again"
    );
    let dirs = tempfile::Builder::new().prefix("wxm-helper-").tempdir().unwrap();
    let ext = webext_mcp::helper::unpack(family, &dirs.path().join("helper")).unwrap();
    let runtime_dir = private_dir("wxm-rt-");
    let session = format!("helper-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let mut opts = options(&[&ext], runtime_dir.path(), &session);
    // Hosts log at debug, so tests can check what the most verbose log carries.
    opts.env.push(("WEBEXT_MCP_LOG".into(), "debug".into()));
    configure(&mut opts);
    let manifest_dir = match family {
        Engine::Chromium => {
            let profile = dirs.path().join("profile");
            opts.profile_dir = Some(profile.clone());
            profile.join("NativeMessagingHosts")
        }
        Engine::Gecko => {
            let home = dirs.path().join("home");
            opts.env.push(("HOME".into(), home.display().to_string()));
            // Containers on, as in Zen and with Multi-Account Containers (issue 31's tests).
            opts.preferences.insert("privacy.userContext.enabled".into(), serde_json::Value::Bool(true));
            home.join(".mozilla").join("native-messaging-hosts")
        }
    };
    std::fs::create_dir_all(&manifest_dir).unwrap();
    if host == Host::Installed {
        let path = manifest_dir.join(format!("{NATIVE_HOST_NAME}.json"));
        std::fs::write(path, host_manifest(family).to_string()).unwrap();
    }
    let runner = webext_mcp::runner::launch(family, opts, &Env::capture(), None)
        .await
        .unwrap_or_else(|e| panic!("cannot launch {}: {e}", family.name()));
    HelperBrowser { runner, family, runtime_dir, session, dirs }
}

impl HelperBrowser {
    /// The live hosts of this browser.
    pub fn hosts(&self) -> Vec<Descriptor> {
        descriptor::discover(self.runtime_dir.path())
            .into_iter()
            .filter(|d| d.session.as_deref() == Some(self.session.as_str()))
            .collect()
    }

    /// Waits until a host whose descriptor satisfies `pred` is live (the helper said hello).
    pub async fn wait_host(&self, what: &str, pred: impl Fn(&Descriptor) -> bool) -> Descriptor {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(d) = self.hosts().into_iter().find(&pred) {
                return d;
            }
            if Instant::now() >= deadline {
                panic!(
                    "{}: no host {what} within {} s; hosts {:?}; host logs:\n{}\nhelper console: {:?}",
                    self.family.name(),
                    DEADLINE.as_secs(),
                    self.hosts(),
                    self.host_logs(),
                    self.runner.extensions().first().map(|e| e.history()),
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Every host log in the runtime dir (host mode logs there: stdout is the protocol).
    pub fn host_logs(&self) -> String {
        let mut out = String::new();
        for entry in std::fs::read_dir(self.runtime_dir.path()).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "log") {
                out.push_str(&format!("--- {}\n", path.display()));
                out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
        out
    }

    /// `webext-mcp call <tool> <args> --json` against this browser's runtime dir: exit code
    /// and the printed JSON.
    pub async fn cli(&self, tool: &str, args: Value) -> (i32, Value) {
        let home = self.dirs.path().join("cli-home");
        std::fs::create_dir_all(&home).unwrap();
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_webext-mcp"))
            .args(["call", tool, &args.to_string(), "--json"])
            .env("HOME", &home)
            .env("WEBEXT_MCP_RUNTIME_DIR", self.runtime_dir.path())
            .env_remove("WEBEXT_MCP_SESSION")
            .env_remove("WEBEXT_MCP_BROWSER")
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(DEADLINE, output).await.expect("webext-mcp call hung").unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "`webext-mcp call {tool}` printed no JSON ({e}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (output.status.code().unwrap_or(-1), value)
    }
}

/// The label a fresh profile gets: `<browser>-<6 hex>`.
pub fn is_default_label(label: &str, browser: &str) -> bool {
    label.strip_prefix(browser).and_then(|rest| rest.strip_prefix('-')).is_some_and(|hex| {
        hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

/// Kills a process by id (the host: it must come back by itself).
pub fn kill(pid: u32) {
    // SAFETY: kill(2) with a pid we read from the host's descriptor; no memory is involved.
    let rc = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_eq!(rc, 0, "kill {pid}: {}", std::io::Error::last_os_error());
}

static SHARED_CHROMIUM: std::sync::OnceLock<Result<&'static HelperBrowser, String>> =
    std::sync::OnceLock::new();
static SHARED_FIREFOX: std::sync::OnceLock<Result<&'static HelperBrowser, String>> =
    std::sync::OnceLock::new();

/// The helper browser of `family` shared by every test of this binary (each test uses its
/// own MCP server and its own tabs), started on first use with its host connected. It runs
/// on a thread of its own whose runtime lives as long as the process.
pub fn shared(family: Engine) -> &'static HelperBrowser {
    let cell = match family {
        Engine::Chromium => &SHARED_CHROMIUM,
        Engine::Gecko => &SHARED_FIREFOX,
    };
    let started = cell.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned =
            std::thread::Builder::new().name(format!("helper-{}", family.name())).spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                rt.block_on(async move {
                    let browser = launch(family, Host::Installed).await;
                    let mut dirs =
                        vec![browser.dirs.path().to_owned(), browser.runtime_dir.path().to_owned()];
                    dirs.extend(browser.runner.home_dir().parent().map(Into::into));
                    crate::common::at_exit::clean_at_exit(browser.runner.pid(), dirs);
                    browser.wait_host("connected", |_| true).await;
                    let _ = tx.send(&*Box::leak(Box::new(browser)));
                    std::future::pending::<()>().await;
                });
            });
        if let Err(e) = spawned {
            return Err(e.to_string());
        }
        rx.recv_timeout(DEADLINE * 2).map_err(|e| format!("{} did not start: {e}", family.name()))
    });
    match started {
        Ok(b) => b,
        Err(e) => panic!("shared helper browser: {e}"),
    }
}
