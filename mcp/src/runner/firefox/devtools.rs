//! Firefox driven over its remote debugging protocol (`runner/rdp/`), with
//! [`RunnerOptions::devtools`](crate::runner::RunnerOptions::devtools): temporary add-ons
//! (install, reload), evaluation in tabs and in an add-on's background, tabs opened and
//! navigated, and the consoles.
//!
//! ```text
//! root ── getRoot ─▶ addonsActor (installTemporaryAddon), preferenceActor (uuids)
//!      ── listAddons ─▶ add-on descriptor ── reloadDescriptor
//!                                         └─ getWatcher ─▶ watchTargets: background page target
//!                                                          watchResources: its console ─▶ log
//!      ── listTabs ─▶ tab descriptor ── getTarget ─▶ page target (navigateTo), consoleActor
//!                                   └─ getWatcher ─▶ watchResources: the page's console so far
//!      ── getProcess 0 ─▶ parent process consoleActor (opens tabs, chrome privileges)
//! consoleActor ── evaluateJSAsync ─▶ evaluationResult (awaited, JSON text, long strings)
//! ```
//!
//! Verified on ESR 153: add-on descriptors have no `getTarget` (their targets come from a
//! watcher), and a watcher announces no new background after a reload until its targets are
//! watched again; `getCachedMessages` of a page target is empty (the watcher's resources
//! carry the page's console, content scripts' calls included). `getTarget` on a tab makes a
//! new target actor each time, so a tab's target is kept until it stops answering (a
//! navigation into another process replaces it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::runner::log::{ConsoleEvent, EventKind, ExtensionLog, Level};
use crate::runner::rdp::grip::{self, Grip};
use crate::runner::rdp::{RdpClient, RdpError};
use crate::runner::{PageInfo, RunnerError, answer};

/// The pref that fixes an add-on's moz-extension uuid.
const UUIDS_PREF: &str = "extensions.webextensions.uuids";
/// How long one protocol round trip may take (installs and reloads included).
const REQUEST_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::FIREFOX_DEVTOOLS_REQUEST_MS);
/// Console messages kept per page answer.
const PAGE_MESSAGES: usize = 500;

/// The debugger connection of one running Firefox and what it learnt.
pub(super) struct Devtools {
    rdp: RdpClient,
    addons_actor: String,
    prefs_actor: String,
    /// Background page targets whose console resources go to an extension's log, with the
    /// background page's URL (their context).
    routes: Arc<Mutex<HashMap<String, Route>>>,
    /// Tab descriptor → its page target and console, while they answer (dropped when the
    /// debugger says their process connection ended).
    tab_targets: Arc<Mutex<HashMap<String, (String, String)>>>,
    parent_console: tokio::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for Devtools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Devtools").field("rdp", &self.rdp).finish()
    }
}

/// Where a background target's console goes: its extension's log, and the page's URL.
type Route = (Arc<ExtensionLog>, String);

/// An installed add-on as the debugger lists it.
#[derive(Debug, Clone)]
pub(super) struct Addon {
    pub descriptor: String,
    /// `moz-extension://<uuid>/`.
    pub base_url: String,
}

impl Devtools {
    /// Connects to the socket Firefox opens (it appears a few seconds after start).
    pub(super) async fn connect(
        socket: &std::path::Path,
        deadline: Instant,
    ) -> Result<Devtools, RunnerError> {
        let (rdp, _greeting) = RdpClient::connect(socket, deadline).await?;
        let root = rdp.request("root", "getRoot", json!({}), REQUEST_TIMEOUT).await?;
        let addons_actor = answer::owned(&root, "addonsActor", "root getRoot")?;
        let prefs_actor = answer::owned(&root, "preferenceActor", "root getRoot")?;
        let routes: Arc<Mutex<HashMap<String, Route>>> = Arc::default();
        let tab_targets: Arc<Mutex<HashMap<String, (String, String)>>> = Arc::default();
        let table = routes.clone();
        let tabs = tab_targets.clone();
        rdp.add_listener(move |packet| {
            if packet["type"] == "forwardingCancelled"
                && let Some(prefix) = packet["prefix"].as_str().filter(|p| !p.is_empty())
            {
                tabs.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .retain(|_, (t, _)| !t.starts_with(prefix));
                return;
            }
            if packet["type"] != "resources-available-array" {
                return;
            }
            let Some(from) = packet["from"].as_str() else { return };
            let Some((log, page)) = table.lock().unwrap_or_else(PoisonError::into_inner).get(from).cloned()
            else {
                return;
            };
            for mut event in resource_events(packet, true) {
                // The document, not the file: code evaluated there names no file of its own.
                event.context = Some(page.clone());
                log.push(event);
            }
        });
        Ok(Devtools {
            addons_actor,
            prefs_actor,
            rdp,
            routes,
            tab_targets,
            parent_console: tokio::sync::Mutex::new(None),
        })
    }

    async fn request(&self, to: &str, kind: &str, params: Value) -> Result<Value, RdpError> {
        self.rdp.request(to, kind, params, REQUEST_TIMEOUT).await
    }

    /// Fixes the moz-extension uuid `gecko_id` gets when installed (kept across reloads).
    pub(super) async fn set_uuid(&self, gecko_id: &str, uuid: &str) -> Result<(), RunnerError> {
        let current = self.request(&self.prefs_actor, "getCharPref", json!({"value": UUIDS_PREF})).await;
        let mut map: serde_json::Map<String, Value> = current
            .ok()
            .and_then(|r| r["value"].as_str().and_then(|t| serde_json::from_str(t).ok()))
            .unwrap_or_default();
        map.insert(gecko_id.to_owned(), Value::String(uuid.to_owned()));
        let text = Value::Object(map).to_string();
        self.request(&self.prefs_actor, "setCharPref", json!({"name": UUIDS_PREF, "value": text})).await?;
        Ok(())
    }

    /// Installs the unpacked extension in `dir` as a temporary add-on; returns its id.
    pub(super) async fn install(&self, dir: &std::path::Path) -> Result<String, RunnerError> {
        let reply = self
            .request(
                &self.addons_actor,
                "installTemporaryAddon",
                json!({"addonPath": dir, "openDevTools": false}),
            )
            .await
            .map_err(|e| refused(dir, e))?;
        reply["addon"]["id"].as_str().map(str::to_owned).ok_or_else(|| RunnerError::LoadRefused {
            dir: dir.to_owned(),
            message: format!("no add-on id in {reply}"),
        })
    }

    /// The installed add-on `id`.
    pub(super) async fn addon(&self, id: &str) -> Result<Addon, RunnerError> {
        let list = self.request("root", "listAddons", json!({})).await?;
        let form = list["addons"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["id"] == id)
            .ok_or_else(|| RunnerError::Script { message: format!("add-on {id} is not installed") })?;
        let manifest_url = answer::text(form, "manifestURL", "listAddons add-on")?;
        let base_url = manifest_url.strip_suffix("manifest.json").unwrap_or(manifest_url).to_owned();
        Ok(Addon { descriptor: answer::owned(form, "actor", "listAddons add-on")?, base_url })
    }

    /// Reloads an add-on from its directory (manifest included). Its background console
    /// goes away with the old background.
    pub(super) async fn reload(&self, addon: &Addon, dir: &std::path::Path) -> Result<(), RunnerError> {
        self.request(&addon.descriptor, "reloadDescriptor", json!({"bypassCache": true}))
            .await
            .map_err(|e| refused(dir, e))?;
        Ok(())
    }

    /// Watches `descriptor`'s frame targets afresh (a reload's new documents are announced
    /// only then) and returns the targets it has now, as their forms.
    async fn watch_targets(&self, watcher: &str) -> Result<Vec<Value>, RunnerError> {
        self.rdp.notify(watcher, "unwatchTargets", json!({"targetType": "frame"}))?;
        let mut events = self.rdp.subscribe();
        self.request(watcher, "watchTargets", json!({"targetType": "frame"})).await?;
        let mut forms = Vec::new();
        while let Ok(p) = events.try_recv() {
            if p["type"] == "target-available-form" && p["from"] == watcher {
                forms.push(p["target"].clone());
            }
        }
        Ok(forms)
    }

    async fn watcher(&self, descriptor: &str) -> Result<String, RunnerError> {
        let w = self
            .request(
                descriptor,
                "getWatcher",
                json!({"isServerTargetSwitchingEnabled": true, "isPopupDebuggingEnabled": false}),
            )
            .await?;
        w["actor"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| RunnerError::Script { message: format!("{descriptor} has no watcher") })
    }

    /// Follows the (new) background page of an add-on: its console from its first line on
    /// goes to `log` (what it printed before is delivered first), and its console actor,
    /// for evaluation, is returned. `page` is the background document's URL.
    pub(super) async fn follow_background(
        &self,
        addon: &Addon,
        page: &str,
        log: &Arc<ExtensionLog>,
    ) -> Result<String, RunnerError> {
        let watcher = self.watcher(&addon.descriptor).await?;
        self.rdp.notify(&watcher, "unwatchResources", json!({"resourceTypes": ["console-message"]}))?;
        let forms = self.watch_targets(&watcher).await?;
        let form = forms
            .iter()
            .find(|f| f["url"].as_str().is_some_and(|u| u.split('#').next() == Some(page)))
            .ok_or_else(|| RunnerError::Script {
                message: format!("no background page {page} is running"),
            })?;
        let target = answer::owned(form, "actor", "watchTargets frame")?;
        let console = form["consoleActor"]
            .as_str()
            .ok_or_else(|| RunnerError::Script { message: "the add-on's background has no console".into() })?
            .to_owned();
        {
            let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
            routes.retain(|_, (l, _)| !Arc::ptr_eq(l, log));
            routes.insert(target, (log.clone(), page.to_owned()));
        }
        self.request(&watcher, "watchResources", json!({"resourceTypes": ["console-message"]})).await?;
        Ok(console)
    }

    /// Evaluates `expression` in the global behind `console`, awaiting a promise, and returns
    /// its value as JSON (through `JSON.stringify` in the page, so only data comes back).
    pub(super) async fn evaluate(
        &self,
        console: &str,
        expression: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        evaluate_on(&self.rdp, console, expression, timeout).await
    }

    /// The open tabs.
    pub(super) async fn tabs(&self) -> Result<Vec<Tab>, RunnerError> {
        let list = self.request("root", "listTabs", json!({})).await?;
        list["tabs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                Ok(Tab {
                    descriptor: answer::owned(t, "actor", "listTabs tab")?,
                    url: answer::owned(t, "url", "listTabs tab")?,
                    browser_id: t["browserId"].as_u64(),
                })
            })
            .collect()
    }

    /// A tab's page target: (target actor, console actor), kept from an earlier call
    /// unless `fresh`.
    pub(super) async fn tab_target(
        &self,
        descriptor: &str,
        fresh: bool,
    ) -> Result<(String, String), RunnerError> {
        if !fresh
            && let Some(t) = self.tab_targets.lock().unwrap_or_else(PoisonError::into_inner).get(descriptor)
        {
            return Ok(t.clone());
        }
        let reply = self.request(descriptor, "getTarget", json!({})).await?;
        let frame = if reply["frame"].is_object() { &reply["frame"] } else { &reply["form"] };
        let actor = answer::owned(frame, "actor", "getTarget frame")?;
        let console = frame["consoleActor"]
            .as_str()
            .ok_or_else(|| RunnerError::Script { message: format!("tab {descriptor} has no console") })?
            .to_owned();
        self.tab_targets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(descriptor.to_owned(), (actor.clone(), console.clone()));
        Ok((actor, console))
    }

    /// Evaluates in a tab's page; a target that stopped answering (its document went to
    /// another process) is replaced once.
    pub(super) async fn evaluate_in_tab(
        &self,
        descriptor: &str,
        expression: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let (_, console) = self.tab_target(descriptor, false).await?;
        match self.evaluate(&console, expression, timeout).await {
            Err(RunnerError::Rdp(RdpError::Actor { .. } | RdpError::Timeout { .. })) => {
                let (_, console) = self.tab_target(descriptor, true).await?;
                self.evaluate(&console, expression, timeout).await
            }
            other => other,
        }
    }

    /// Starts navigating a tab's page to `url`.
    pub(super) async fn navigate(&self, descriptor: &str, url: &str) -> Result<(), RunnerError> {
        let (target, _) = self.tab_target(descriptor, false).await?;
        if self.request(&target, "navigateTo", json!({"url": url})).await.is_err() {
            let (target, _) = self.tab_target(descriptor, true).await?;
            self.request(&target, "navigateTo", json!({"url": url})).await?;
        }
        // The page may move to another process: ask for its target again next time.
        self.tab_targets.lock().unwrap_or_else(PoisonError::into_inner).remove(descriptor);
        Ok(())
    }

    /// The parent process's console (chrome privileges: what opens tabs).
    async fn parent_console(&self) -> Result<String, RunnerError> {
        let mut cached = self.parent_console.lock().await;
        if let Some(c) = cached.as_ref() {
            return Ok(c.clone());
        }
        let console = parent_console_on(&self.rdp).await?;
        *cached = Some(console.clone());
        Ok(console)
    }

    /// The documents of the extension popups every browser window shows (the popup's
    /// `<browser webextension-view-type="popup">` element, in the parent process).
    pub(super) async fn popups(&self) -> Result<Vec<String>, RunnerError> {
        let console = self.parent_console().await?;
        let expression = "[...Services.wm.getEnumerator('navigator:browser')].flatMap((w) => \
             [...w.document.querySelectorAll('browser[webextension-view-type=popup]')]) \
             .map((b) => b.currentURI ? b.currentURI.spec : '')";
        let urls = self.evaluate(&console, expression, REQUEST_TIMEOUT).await?;
        Ok(urls.as_array().into_iter().flatten().filter_map(|u| u.as_str().map(str::to_owned)).collect())
    }

    /// Opens `url` in a new background tab of the first browser window and returns it once
    /// the debugger lists it.
    pub(super) async fn open_tab(&self, url: &str) -> Result<PageInfo, RunnerError> {
        let console = self.parent_console().await?;
        let expression = format!(
            "(() => {{ const w = Services.wm.getMostRecentWindow('navigator:browser'); \
             const t = w.gBrowser.addTab({}, {{ triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }}); \
             return t.linkedBrowser.browserId; }})()",
            Value::String(url.to_owned())
        );
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        // Right after the start the browser window may not be there yet (`w` is null).
        let browser_id = loop {
            match self.evaluate(&console, &expression, REQUEST_TIMEOUT).await {
                Ok(v) => break v.as_u64(),
                Err(RunnerError::Script { .. }) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => return Err(e),
            }
        };
        loop {
            if let Some(t) =
                self.tabs().await?.into_iter().find(|t| t.browser_id.is_some() && t.browser_id == browser_id)
            {
                return Ok(PageInfo { target_id: t.descriptor, url: url.to_owned() });
            }
            if Instant::now() >= deadline {
                return Err(RunnerError::Script {
                    message: format!("the tab opened for {url} never appeared"),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// What the page in a tab printed since its document loaded. Firefox files content
    /// scripts' console calls and errors under the page too (they name their
    /// `moz-extension://` file); those are left out: the extension's own log has them (the
    /// tab follower of `tab_consoles.rs`, the browser's error output).
    pub(super) async fn page_messages(&self, descriptor: &str) -> Result<Vec<ConsoleEvent>, RunnerError> {
        let watcher = self.watcher(descriptor).await?;
        let forms = self.watch_targets(&watcher).await?;
        let targets: Vec<&str> = forms.iter().filter_map(|f| f["actor"].as_str()).collect();
        let mut events = self.rdp.subscribe();
        let types = json!({"resourceTypes": ["console-message", "error-message"]});
        self.request(&watcher, "watchResources", types.clone()).await?;
        let mut out = Vec::new();
        while let Ok(p) = events.try_recv() {
            if p["type"] == "resources-available-array"
                && p["from"].as_str().is_some_and(|f| targets.contains(&f))
            {
                out.extend(resource_events(&p, false));
            }
        }
        self.rdp.notify(&watcher, "unwatchResources", types)?;
        self.rdp.notify(&watcher, "unwatchTargets", json!({"targetType": "frame"}))?;
        // Extensions' messages are in their own logs (`tab_consoles.rs`, `output.rs`).
        out.retain(|e| !e.url.as_deref().is_some_and(|u| u.starts_with("moz-extension://")));
        let cut = out.len().saturating_sub(PAGE_MESSAGES);
        out.drain(..cut);
        Ok(out)
    }
}

/// [`Devtools::evaluate`] on any debugger connection (the tab follower has its own).
pub(super) async fn evaluate_on(
    rdp: &RdpClient,
    console: &str,
    expression: &str,
    timeout: Duration,
) -> Result<Value, RunnerError> {
    let text = format!(
        "(async () => {{ const v = await ({expression}\n); return v === undefined ? undefined : JSON.stringify(v); }})()"
    );
    let mut events = rdp.subscribe();
    let started = rdp
        .request(console, "evaluateJSAsync", json!({"text": text, "mapped": {"await": true}}), timeout)
        .await?;
    let id = started["resultID"].clone();
    let deadline = tokio::time::Instant::now() + timeout;
    let result = loop {
        let packet = match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(p)) => p,
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => continue,
            Ok(Err(_)) => return Err(RdpError::Closed.into()),
            Err(_) => {
                return Err(RdpError::Timeout {
                    to: console.to_owned(),
                    kind: "evaluateJSAsync".into(),
                    timeout,
                }
                .into());
            }
        };
        if packet["type"] == "evaluationResult" && packet["resultID"] == id {
            break packet;
        }
    };
    if let Some(message) = result["exceptionMessage"].as_str().filter(|_| !result["exception"].is_null()) {
        return Err(RunnerError::Script { message: message.lines().next().unwrap_or(message).to_owned() });
    }
    if result["topLevelAwaitRejected"] == true {
        return Err(RunnerError::Script { message: "the promise was rejected".into() });
    }
    let text = match grip::read(&result["result"]) {
        Grip::Undefined | Grip::Inline(Value::Null) => return Ok(Value::Null),
        Grip::Inline(Value::String(s)) => s,
        Grip::LongString { actor, length, .. } => {
            let got =
                rdp.request(&actor, "substring", json!({"start": 0, "end": length}), REQUEST_TIMEOUT).await?;
            answer::owned(&got, "substring", "long string substring")?
        }
        Grip::Inline(other) => return Ok(other),
        Grip::Other(class) => {
            return Err(RunnerError::Script { message: format!("the value is a {class}, not data") });
        }
    };
    serde_json::from_str(&text).map_err(|e| RunnerError::Script { message: format!("unreadable value: {e}") })
}

/// The parent process's console actor on `rdp` (chrome privileges).
pub(super) async fn parent_console_on(rdp: &RdpClient) -> Result<String, RunnerError> {
    let process = rdp.request("root", "getProcess", json!({"id": 0}), REQUEST_TIMEOUT).await?;
    let descriptor = answer::owned(&process["processDescriptor"], "actor", "root getProcess descriptor")?;
    let target = rdp.request(&descriptor, "getTarget", json!({}), REQUEST_TIMEOUT).await?;
    let form = if target["process"].is_object() { &target["process"] } else { &target["form"] };
    Ok(form["consoleActor"]
        .as_str()
        .ok_or_else(|| RunnerError::Script { message: "the parent process has no console".into() })?
        .to_owned())
}

/// A tab as the debugger lists it.
#[derive(Debug, Clone)]
pub(super) struct Tab {
    pub descriptor: String,
    pub url: String,
    pub browser_id: Option<u64>,
}

fn refused(dir: &std::path::Path, e: RdpError) -> RunnerError {
    match e {
        RdpError::Actor { message, error, .. } => RunnerError::LoadRefused {
            dir: dir.to_owned(),
            message: if message.is_empty() { error } else { message },
        },
        other => other.into(),
    }
}

/// The console events of a `resources-available-array` packet. `background`: console
/// calls of a background page carry their file as their context (they count as the
/// worker's in summaries).
pub(super) fn resource_events(packet: &Value, background: bool) -> Vec<ConsoleEvent> {
    let mut out = Vec::new();
    for entry in packet["array"].as_array().into_iter().flatten() {
        // An entry is `[resource type, resources]`; one of another shape carries nothing.
        let Some(kind) = entry[0].as_str() else { continue };
        for r in entry[1].as_array().into_iter().flatten() {
            match kind {
                "console-message" => {
                    let mut e = console_api(if r["message"].is_object() { &r["message"] } else { r });
                    if !background {
                        e.context = None;
                    }
                    out.push(e);
                }
                "error-message" => out.push(page_error(&r["pageError"])),
                _ => {}
            }
        }
    }
    out
}

fn line_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0)
}

fn console_api(m: &Value) -> ConsoleEvent {
    let url = m["filename"].as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    ConsoleEvent {
        kind: EventKind::Console,
        level: Level::from_method(m["level"].as_str().unwrap_or("log")),
        text: grip::arguments_text(m["arguments"].as_array().map(Vec::as_slice).unwrap_or_default()),
        context: url.clone(),
        url,
        line: line_of(&m["lineNumber"]),
        column: line_of(&m["columnNumber"]),
        tab_id: None,
        frame_id: None,
        page_world: false,
    }
}

fn page_error(e: &Value) -> ConsoleEvent {
    let warning = e["warning"] == true;
    let text = match &e["errorMessage"] {
        Value::String(s) => s.clone(),
        other => match grip::read(other) {
            Grip::LongString { initial, .. } => initial,
            _ => String::new(),
        },
    };
    ConsoleEvent {
        kind: if warning { EventKind::Console } else { EventKind::Exception },
        level: if warning { Level::Warn } else { Level::Error },
        text,
        url: e["sourceName"].as_str().filter(|s| !s.is_empty()).map(str::to_owned),
        line: line_of(&e["lineNumber"]),
        column: line_of(&e["columnNumber"]),
        context: None,
        tab_id: None,
        frame_id: None,
        page_world: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes verified on ESR 153 (`watchResources` on a tab and on an add-on).
    #[test]
    fn console_resources_read_as_events() {
        let packet = json!({"type": "resources-available-array", "from": "t", "array": [
            ["console-message", [{"arguments": ["cs error marker", 2], "lineNumber": 1, "columnNumber": 137,
              "filename": "moz-extension://u/content.js", "level": "error"}]],
            ["error-message", [{"pageError": {"errorMessage": "SyntaxError: expected expression, got ';'",
              "sourceName": "moz-extension://u/content.js", "lineNumber": 1, "columnNumber": 15, "warning": false}}]]]});
        let page = resource_events(&packet, false);
        assert_eq!(page.len(), 2);
        assert_eq!(
            (page[0].kind, page[0].level, page[0].text.as_str()),
            (EventKind::Console, Level::Error, "cs error marker 2")
        );
        assert_eq!((page[0].line, page[0].column, page[0].context.as_deref()), (Some(1), Some(137), None));
        assert_eq!((page[1].kind, page[1].line), (EventKind::Exception, Some(1)));
        let bg = resource_events(&packet, true);
        assert_eq!(bg[0].context.as_deref(), Some("moz-extension://u/content.js"));
        assert!(
            resource_events(
                &json!({"type": "resources-available-array", "array": [["network-event", [{}]]]}),
                true
            )
            .is_empty()
        );
    }
}
