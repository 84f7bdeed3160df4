//! Test doubles for the session's collaborators: a browser ([`FakeRunner`]) and a clock
//! ([`FixedClock`]) that answer at once and record what they were asked.

use crate::browsers::Engine;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::rebuild::Clock;
use super::reload;
use crate::runner::{BoxFuture, ExtensionHandle, PageInfo, Runner, RunnerError};

/// What the fakes were asked, in order (`build`, `load <dir name>`, `reinject`, …).
pub type Calls = Arc<Mutex<Vec<String>>>;

pub fn calls(c: &Calls) -> Vec<String> {
    c.lock().unwrap().clone()
}

pub struct FakeRunner {
    pub calls: Calls,
    pub home: PathBuf,
    pub pages: Vec<PageInfo>,
    pub refuse_load: bool,
    pub ext: ExtensionHandle,
}

impl Runner for FakeRunner {
    fn family(&self) -> Engine {
        Engine::Chromium
    }
    fn pid(&self) -> u32 {
        4242
    }
    fn home_dir(&self) -> &Path {
        &self.home
    }
    fn profile_dir(&self) -> &Path {
        &self.home
    }
    fn extensions(&self) -> Vec<ExtensionHandle> {
        vec![self.ext.clone()]
    }
    fn load_extension<'a>(&'a self, dir: &'a Path) -> BoxFuture<'a, Result<ExtensionHandle, RunnerError>> {
        self.calls.lock().unwrap().push(format!("load {}", dir.file_name().unwrap().to_string_lossy()));
        let out = if self.refuse_load {
            Err(RunnerError::LoadRefused {
                dir: dir.to_owned(),
                message: "Manifest is not valid JSON".into(),
            })
        } else {
            Ok(self.ext.clone())
        };
        Box::pin(async move { out })
    }
    fn is_running(&self) -> bool {
        true
    }
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn pages(&self) -> BoxFuture<'_, Result<Vec<PageInfo>, RunnerError>> {
        let pages = self.pages.clone();
        Box::pin(async move { Ok(pages) })
    }
    fn reload_page<'a>(&'a self, target_id: &'a str) -> BoxFuture<'a, Result<(), RunnerError>> {
        self.calls.lock().unwrap().push(format!("reload-page {target_id}"));
        Box::pin(async { Ok(()) })
    }
    fn evaluate_in_background<'a>(
        &'a self,
        _ext: &'a ExtensionHandle,
        expression: &'a str,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, RunnerError>> {
        let what = if expression == reload::reinject_script(&[], reload::Phase::Inject) {
            "reinject"
        } else if expression == reload::reinject_script(&[], reload::Phase::Unmount) {
            "unmount"
        } else {
            "evaluate"
        };
        self.calls.lock().unwrap().push(what.into());
        Box::pin(async { Ok(json!([{"tabId": 1, "action": "reinjected"}])) })
    }
}

pub struct FixedClock;

impl Clock for FixedClock {
    fn now_ms(&self) -> u64 {
        1_700_000_000_000
    }
    fn now_iso(&self) -> String {
        "2026-12-01T10:00:00.000Z".into()
    }
}

/// A session whose helper never answers (the runner fakes load no real helper).
pub struct NoHelper;

impl super::readiness::HelperProbe for NoHelper {
    fn probe<'a>(
        &'a self,
        _session_id: &'a str,
        _timeout: std::time::Duration,
    ) -> BoxFuture<'a, Result<u32, webext_mcp_host::protocol::ErrorBody>> {
        Box::pin(async {
            Err(webext_mcp_host::protocol::ErrorBody::new(
                webext_mcp_host::protocol::ErrorCode::NotConnected,
                "no helper in this fake",
            ))
        })
    }
}

/// A session whose helper answers at once, with one tab.
pub struct AnsweringHelper;

impl super::readiness::HelperProbe for AnsweringHelper {
    fn probe<'a>(
        &'a self,
        _session_id: &'a str,
        _timeout: std::time::Duration,
    ) -> BoxFuture<'a, Result<u32, webext_mcp_host::protocol::ErrorBody>> {
        Box::pin(async { Ok(1) })
    }
}
