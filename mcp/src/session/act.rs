//! What a session does when asked to act on the extension as its user or developer would:
//! reload it now, evaluate in its background, read and change its storage, open one of its
//! pages as a tab (`extension_reload`, `extension_eval`, `extension_storage`,
//! `extension_open` over the control socket).
//!
//! Everything runs through the session's [`Runner`](crate::runner::Runner): the background
//! is the service worker over CDP in Chromium and the background page over RDP in Firefox,
//! so each tool has one body for both engines. Storage goes through a fixed script
//! (`storage.js`) with the caller's keys and values passed as JSON data, never spliced into
//! code, so it needs no evaluation permission.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

use super::control::{Answer, Opened, Reloaded, Request, Stored};
use super::inspect;
use super::rebuild::{Live, WORKER_TIMEOUT};
use super::reload::{self, Phase};

/// What happens to the open tabs after a requested reload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReloadTabs {
    /// The content scripts run again in the open tabs that match them (Chromium: injected
    /// by the session; Firefox runs them itself), the old copy's roots removed.
    #[default]
    Reinject,
    /// The open web pages are reloaded instead.
    Reload,
}

/// A storage area of the extension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    #[default]
    Local,
    Session,
    Sync,
}

/// What to do with it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StorageOp {
    #[default]
    Get,
    Set,
    Remove,
    Clear,
}

/// `{"op": "storage", …}` on the control socket.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageRequest {
    pub action: StorageOp,
    pub area: Area,
    /// `get`: these keys (none: all); `remove`: these keys.
    #[serde(default)]
    pub keys: Vec<String>,
    /// `set`: key → JSON value.
    #[serde(default)]
    pub items: serde_json::Map<String, Value>,
}

/// The storage function evaluated in the background (`storage.js` says what it does).
const STORAGE_JS: &str = include_str!("storage.js");

/// The call of [`STORAGE_JS`] with the request's data as JSON arguments.
pub fn storage_script(req: &StorageRequest) -> String {
    let keys =
        if req.action == StorageOp::Get && req.keys.is_empty() { Value::Null } else { json!(req.keys) };
    let args = json!([req.action, req.area, keys, req.items]);
    format!("({}).apply(null, {args})", STORAGE_JS.trim_end())
}

/// Answers the control requests of this module; gives any other request back.
pub(super) async fn answer(
    live: &mut Live,
    spec: &super::Spec,
    req: Request,
) -> Result<Result<Answer, ErrorBody>, Request> {
    Ok(match req {
        Request::Reload { tabs } => {
            live.reload_now(tabs, spec.command == super::Command::Dev).await.map(Answer::Reloaded)
        }
        Request::Eval { expression, allowed, timeout_ms } => {
            if !(allowed || spec.allow_eval) {
                return Ok(Err(eval_refused()));
            }
            let timeout = Duration::from_millis(timeout_ms.unwrap_or(10_000).clamp(100, 55_000));
            live.eval(&expression, timeout).await.map(Answer::Value)
        }
        Request::Storage(req) => live.storage(&req).await.map(Answer::Stored),
        Request::Open { popup: true, .. } => live.open_popup().await.map(Answer::Opened),
        Request::Open { context, .. } => live.open(context, &spec.session_id).await.map(Answer::Opened),
        other => return Err(other),
    })
}

/// `extension_eval` in a session that does not allow it.
fn eval_refused() -> ErrorBody {
    ErrorBody::new(ErrorCode::PermissionDenied, "extension_eval is off for this session")
        .with_hint("start the session with allowEval: true (CLI: --allow-eval), or set `tools.extension_eval = true` in the config (WEBEXT_MCP_EXTENSION_EVAL=true); extension_storage and extension_logs need neither")
}

/// How long the errors of a new load may take to arrive after its background answered.
const SETTLE: Duration = Duration::from_millis(300);

impl Live {
    /// `extension_reload`: rebuild (dev sessions), reload the extension, then re-inject or
    /// reload the open tabs; answers once the new background evaluated something, with the
    /// errors of the new load. `backgroundMs` counts from the reload (after the build) to the
    /// new background's answer.
    pub async fn reload_now(&mut self, tabs: ReloadTabs, rebuild: bool) -> Result<Reloaded, ErrorBody> {
        let started = Instant::now();
        self.drain_console_silently();
        self.errors.clear();
        if rebuild && let Err(errors) = self.build().await {
            self.errors = errors;
            self.settle();
            let text: Vec<String> = self.errors.iter().map(super::contract::ErrorEntry::line_text).collect();
            return Err(ErrorBody::new(
                ErrorCode::BuildFailed,
                format!("the build failed: {}", text.join("; ")),
            )
            .with_hint("fix the file and line named, then reload again")
            .with_data(json!({ "errors": self.errors })));
        }
        let build_ms = started.elapsed().as_millis() as u64;
        let loading = Instant::now();
        let injects = self.runner.as_ref().is_some_and(|r| r.injects_on_load());
        let cleared = if injects && tabs == ReloadTabs::Reinject && self.ext.is_some() {
            Some(self.clear_tabs(Phase::Clean).await)
        } else {
            if tabs == ReloadTabs::Reinject && self.ext.is_some() {
                // The old mounts' cleanups run while their world still exists.
                self.clear_tabs(Phase::Unmount).await;
            }
            None
        };
        if self.ext.is_none() {
            self.load_first().await?;
        } else {
            let runner = self.runner.as_ref().ok_or_else(not_running)?;
            self.loaded_at_ms = self.clock.now_ms();
            runner.load_extension(&self.dist).await.map_err(ErrorBody::from)?;
        }
        let background_ms = match self.background_answers().await {
            Ok(true) => Some(loading.elapsed().as_millis() as u64),
            Ok(false) => None,
            Err(e) => {
                self.errors.push(super::contract::runtime_error(e.message.clone(), None, None, None));
                None
            }
        };
        let rows = match (tabs, cleared) {
            (ReloadTabs::Reinject, Some(rows)) => rows,
            (ReloadTabs::Reinject, None) => self.reinject_rows().await,
            (ReloadTabs::Reload, _) => self.reload_web_tabs().await,
        };
        self.contract.event(
            "reload",
            json!({"kind": "requested", "tabs": rows, "durationMs": started.elapsed().as_millis() as u64}),
        );
        tokio::time::sleep(SETTLE).await;
        self.drain_console();
        self.settle();
        Ok(Reloaded {
            extension_id: self.ready.extension_id.clone(),
            status: self.ready.status,
            build_ms: rebuild.then_some(build_ms),
            background_ms,
            duration_ms: started.elapsed().as_millis() as u64,
            tabs: rows,
            errors: self.ready.errors.clone(),
            error_details: self.ready.error_details.clone(),
        })
    }

    /// Whether the background answers (false: the extension has none).
    async fn background_answers(&self) -> Result<bool, ErrorBody> {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return Err(not_running()) };
        if !ext.has_background {
            return Ok(false);
        }
        runner.evaluate_in_background(ext, "true", WORKER_TIMEOUT).await.map_err(ErrorBody::from)?;
        Ok(true)
    }

    /// Injects the content scripts into the open tabs (browsers that do not do it
    /// themselves); one row per tab.
    async fn reinject_rows(&mut self) -> Value {
        if self.runner.as_ref().is_some_and(|r| r.injects_on_load()) {
            return json!([]);
        }
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return Value::Null };
        let script = reload::reinject_script(&self.reload_entries, Phase::Inject);
        match runner.evaluate_in_background(ext, &script, WORKER_TIMEOUT).await {
            Ok(v) => v,
            Err(e) => {
                self.errors.push(super::contract::runtime_error(
                    format!("re-injecting content scripts failed: {e}"),
                    None,
                    None,
                    None,
                ));
                Value::Null
            }
        }
    }

    /// Reloads every open web page (http, https, file); one row per tab.
    async fn reload_web_tabs(&self) -> Value {
        let Some(runner) = &self.runner else { return Value::Null };
        let mut rows = Vec::new();
        for page in runner.pages().await.unwrap_or_default() {
            if !["http://", "https://", "file://"].iter().any(|s| page.url.starts_with(s)) {
                continue;
            }
            let action = match runner.reload_page(&page.target_id).await {
                Ok(()) => "reloaded",
                Err(_) => "failed",
            };
            rows.push(json!({"url": page.url, "action": action}));
        }
        Value::Array(rows)
    }

    /// `extension_eval`: `expression` in the background, awaited, as JSON.
    pub async fn eval(&self, expression: &str, timeout: Duration) -> Result<Value, ErrorBody> {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return Err(not_loaded()) };
        if !ext.has_background {
            return Err(no_background());
        }
        runner.evaluate_in_background(ext, expression, timeout).await.map_err(ErrorBody::from)
    }

    /// `extension_storage`: the request run by [`STORAGE_JS`] in the background.
    pub async fn storage(&self, req: &StorageRequest) -> Result<Stored, ErrorBody> {
        let (Some(runner), Some(ext)) = (&self.runner, &self.ext) else { return Err(not_loaded()) };
        if !ext.has_background {
            return Err(no_background());
        }
        let got = runner.evaluate_in_background(ext, &storage_script(req), WORKER_TIMEOUT).await.map_err(|e| {
            let body = ErrorBody::from(e);
            if body.code == ErrorCode::ScriptError {
                body.with_hint(format!(
                    "storage.{} refused: the manifest needs the `storage` permission (and a browser that has this area)",
                    json!(req.area).as_str().unwrap_or("local")
                ))
            } else {
                body
            }
        })?;
        Ok(match got.as_u64() {
            Some(n) => Stored::Count(n),
            None => Stored::Pairs(
                got.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| Some((p[0].as_str()?.to_owned(), p[1].clone())))
                    .collect(),
            ),
        })
    }

    /// `extension_open`: the tab showing the extension's `context` page (opened when none
    /// does).
    pub async fn open(&self, context: inspect::Context, session_id: &str) -> Result<Opened, ErrorBody> {
        let runner = self.runner.as_ref().ok_or_else(not_running)?;
        let inputs = inspect::Inputs {
            runner: runner.as_ref(),
            ext: self.ext.as_ref(),
            dist: &self.dist,
            recent: &self.recent,
            loaded_at_ms: self.loaded_at_ms,
            session_id,
        };
        let (page, opened) = inspect::extension_tab(&inputs, context).await?;
        Ok(Opened { url: page.url, target_id: Some(page.target_id), opened, popup: None, context })
    }
}

/// Opens the action popup as the browser does when the user clicks the toolbar button.
const OPEN_POPUP: &str = "(async () => { const a = globalThis.chrome && (chrome.action || chrome.browserAction); \
    if (!a || !a.openPopup) throw new Error('this extension has no action.openPopup'); await a.openPopup(); return true; })()";

/// How long the browser may take to show the popup once asked.
const POPUP_SHOWN: Duration = Duration::from_millis(webext_mcp_host::protocol::timeouts::POPUP_SHOWN_MS);

impl Live {
    /// `extension_open` with `popup: true`: `action.openPopup()` in the background (a
    /// fixed script: no evaluation permission needed), answered once the browser shows the
    /// popup's page. Verified headless: Chromium 156 and Firefox ESR 153 both open it
    /// without a user gesture when the background asks.
    pub async fn open_popup(&self) -> Result<Opened, ErrorBody> {
        let runner = self.runner.as_ref().ok_or_else(not_running)?;
        let ext = self.ext.as_ref().ok_or_else(not_loaded)?;
        let manifest: Value = std::fs::read(self.dist.join("manifest.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        let Some(rel) = inspect::page_path(&manifest, inspect::Context::Popup) else {
            return Err(ErrorBody::not_found("the extension has no action popup").with_hint(
                "declare action.default_popup (browser_action.default_popup in MV2) in manifest.json",
            ));
        };
        let url = format!("{}{rel}", ext.base_url);
        if !ext.has_background {
            return Err(no_background());
        }
        runner.evaluate_in_background(ext, OPEN_POPUP, POPUP_SHOWN).await.map_err(|e| {
            ErrorBody::new(ErrorCode::Unsupported, format!("the browser did not open the popup: {e}"))
                .with_hint("open it as a tab instead: extension_open without popup")
        })?;
        let deadline = std::time::Instant::now() + POPUP_SHOWN;
        loop {
            let shown = runner.popups().await.unwrap_or_default();
            if shown.iter().any(|u| u.split(['?', '#']).next() == Some(url.as_str())) {
                return Ok(Opened {
                    url,
                    target_id: None,
                    opened: true,
                    popup: Some(true),
                    context: inspect::Context::Popup,
                });
            }
            if std::time::Instant::now() >= deadline {
                return Err(ErrorBody::internal(format!(
                    "action.openPopup() answered, but the browser shows no popup at {url}"
                ))
                .with_hint("open it as a tab instead: extension_open without popup"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn not_running() -> ErrorBody {
    ErrorBody::new(ErrorCode::NotConnected, "the session's browser is not running")
        .with_hint("extension_stop the session and start it again")
}

fn not_loaded() -> ErrorBody {
    ErrorBody::not_found("the extension is not loaded in the session (its first build failed)")
        .with_hint("fix the build errors extension_wait lists and save; the session loads it by itself")
}

fn no_background() -> ErrorBody {
    ErrorBody::new(ErrorCode::Unsupported, "the extension has no background to run this in")
        .with_hint("declare background.service_worker (Chromium) or background.scripts (Firefox); dev sessions add one by themselves")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys and values are data for the fixed script, however they look.
    #[test]
    fn storage_calls_pass_their_data_as_json() {
        let mut items = serde_json::Map::new();
        items.insert("k\"); alert(1); (\"".into(), json!({"v": [1, 2]}));
        let set = StorageRequest { action: StorageOp::Set, area: Area::Sync, keys: vec![], items };
        let s = storage_script(&set);
        assert!(
            s.ends_with(r#").apply(null, ["set","sync",[],{"k\"); alert(1); (\"":{"v":[1,2]}}])"#),
            "{s}"
        );
        let all = StorageRequest {
            action: StorageOp::Get,
            area: Area::Local,
            keys: vec![],
            items: Default::default(),
        };
        assert!(storage_script(&all).ends_with(r#"["get","local",null,{}])"#));
    }
}
