//! Browsers for tests, in two modes:
//!
//! - **shared**: one browser per test binary and family, started lazily on first use. Each
//!   test brings its own tabs (and, later, its own MCP server). The browser is spawned from a
//!   dedicated thread that lives until the process exits; the runner's `PR_SET_PDEATHSIG`
//!   (which fires when the *spawning thread* dies) then kills it, because statics are never
//!   dropped. `at_exit` then removes its temporary dirs. `runner_cleanup` proves both by
//!   re-running this binary.
//! - **isolated**: a browser of its own with its own runtime dir and session id, for tests
//!   that count browsers, kill hosts or depend on the tab set. Dropped with the test.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use webext_mcp::browsers::Engine;

use serde_json::{Value, json};
use tempfile::TempDir;
use webext_mcp::paths::Env;
use webext_mcp::runner::cdp::CdpClient;
use webext_mcp::runner::{Runner, RunnerOptions};

use super::DEADLINE;

/// Options every test browser uses: headless, with an explicit runtime dir and session.
pub fn options(extensions: &[&Path], runtime_dir: &Path, session: &str) -> RunnerOptions {
    RunnerOptions {
        headless: true,
        extensions: extensions.iter().map(|p| p.to_path_buf()).collect(),
        runtime_dir: Some(runtime_dir.to_path_buf()),
        session: Some(session.to_owned()),
        start_timeout: DEADLINE,
        ..RunnerOptions::default()
    }
}

fn runtime_dir() -> TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new().prefix("wxm-rt-").tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn session_id() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!("test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// A browser owned by one test.
pub struct Isolated {
    pub runner: Box<dyn Runner>,
    pub runtime_dir: TempDir,
    pub session: String,
}

pub async fn isolated(family: Engine, extensions: &[&Path]) -> Isolated {
    let runtime_dir = runtime_dir();
    let session = session_id();
    let opts = options(extensions, runtime_dir.path(), &session);
    let runner = webext_mcp::runner::launch(family, opts, &Env::capture(), None)
        .await
        .unwrap_or_else(|e| panic!("cannot launch {}: {e}", family.name()));
    Isolated { runner, runtime_dir, session }
}

/// The browser shared by every test of this binary for one family.
pub struct Shared {
    pub runner: Arc<dyn Runner>,
    pub runtime_dir: PathBuf,
    pub session: String,
}

static SHARED_CHROMIUM: OnceLock<Result<Shared, String>> = OnceLock::new();
static SHARED_FIREFOX: OnceLock<Result<Shared, String>> = OnceLock::new();

/// The shared browser of `family`, started on first call (blocks while it starts).
pub fn shared(family: Engine) -> &'static Shared {
    let cell = match family {
        Engine::Chromium => &SHARED_CHROMIUM,
        Engine::Gecko => &SHARED_FIREFOX,
    };
    match cell.get_or_init(|| start_shared(family)) {
        Ok(shared) => shared,
        Err(e) => panic!("shared {} browser failed to start: {e}", family.name()),
    }
}

fn start_shared(family: Engine) -> Result<Shared, String> {
    // Kept for the life of the process: the runtime dir must outlive the browser.
    let runtime_dir = runtime_dir().keep();
    let session = session_id();
    let opts = options(&[], &runtime_dir, &session);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("shared-{}", family.name()))
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let launched = rt.block_on(webext_mcp::runner::launch(family, opts, &Env::capture(), None));
            match launched {
                Ok(runner) => {
                    let runner: Arc<dyn Runner> = Arc::from(runner);
                    let _ = tx.send(Ok(runner));
                    // This thread is the browser's parent for PR_SET_PDEATHSIG: never exit.
                    loop {
                        std::thread::park();
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                }
            }
        })
        .map_err(|e| e.to_string())?;
    let runner = rx.recv().map_err(|e| e.to_string())??;
    let mut dirs = vec![runtime_dir.clone()];
    dirs.extend(runner.home_dir().parent().map(PathBuf::from));
    super::at_exit::clean_at_exit(runner.pid(), dirs);
    Ok(Shared { runner, runtime_dir, session })
}

/// A page target opened over CDP, closed on drop (Chromium).
pub struct Tab {
    pub target_id: String,
    cdp: CdpClient,
}

impl Tab {
    pub async fn open(cdp: &CdpClient, url: &str) -> Tab {
        let reply = cdp.send("Target.createTarget", json!({"url": url, "background": true})).await.unwrap();
        let target_id = reply["targetId"].as_str().unwrap().to_owned();
        Tab { target_id, cdp: cdp.clone() }
    }

    /// Attaches and evaluates `expr` in the page, returning its value.
    pub async fn evaluate(&self, expr: &str) -> Value {
        let attached = self
            .cdp
            .send("Target.attachToTarget", json!({"targetId": self.target_id, "flatten": true}))
            .await
            .unwrap();
        let session = attached["sessionId"].as_str().unwrap();
        let reply = self
            .cdp
            .send_to(
                Some(session),
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
                DEADLINE,
            )
            .await
            .unwrap();
        reply["result"]["value"].clone()
    }
}

impl Drop for Tab {
    fn drop(&mut self) {
        self.cdp.send_detached(None, "Target.closeTarget", json!({"targetId": self.target_id}));
    }
}
