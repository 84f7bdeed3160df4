//! Extensions loaded into a running Firefox as temporary add-ons, over the debugger: the
//! first load installs (with the fixed uuid set first), later loads of the same directory
//! reload the add-on in place (same id, same uuid, `storage.local` kept; manifest changes
//! included), and evaluation in the add-on's background.

use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::devtools::{Addon, Devtools};
use super::{FirefoxRunner, Prepared, background_url, manifest_gecko_id, uuid_for};
use crate::runner::log::{ExtensionHandle, ExtensionLog};
use crate::runner::rdp::RdpError;
use crate::runner::{Runner, RunnerError, read_manifest};

/// How long a (re)loaded add-on's background may take to start before its console is
/// followed.
const BACKGROUND_TIMEOUT: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::ADDON_BACKGROUND_START_MS);

/// A temporary add-on this runner installed.
#[derive(Debug, Clone)]
pub(super) struct Temporary {
    /// The directory it was loaded from (the copy installed may be elsewhere).
    pub dir: std::path::PathBuf,
    pub addon: Addon,
    /// Its background document's URL.
    pub page: Option<String>,
    /// The console of its current background, once followed.
    pub console: Option<String>,
}

impl FirefoxRunner {
    /// [`Runner::load_extension`](crate::runner::Runner::load_extension) for Firefox.
    pub(super) async fn load_temporary(&self, dir: &Path) -> Result<ExtensionHandle, RunnerError> {
        let devtools = self.devtools("loading an extension into a running browser")?;
        let dir = std::fs::canonicalize(dir)
            .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
        let mut manifest = read_manifest(&dir)?;
        // Without a gecko id Firefox makes up a new one (and a new uuid) at every install:
        // install a copy that carries the id the xpi path would give it.
        let has_id = manifest_gecko_id(&manifest).is_some();
        let source = if has_id { dir.clone() } else { self.stage(&dir, &mut manifest)? };
        let known = self.temporary_of(&dir).map(|t| t.addon);
        // After a first install's follow (still running off the caller's path), so the
        // reload's own follow is not undone by it.
        let following = self.following.clone().lock_owned().await;
        if let Some(addon) = known {
            let previous = self.extensions().into_iter().find(|e| e.dir == dir);
            let uuid = uuid_of(&addon.base_url);
            let bg = background_url(&manifest, &uuid);
            if let Some(p) = &previous {
                p.log.reset_background();
            }
            if let Some(url) = &bg {
                self.router.forget_loaded(url);
            }
            devtools.reload(&addon, &source).await?;
            let id = previous.as_ref().map(|p| p.id.clone());
            let log = previous.map_or_else(ExtensionLog::new, |p| p.log);
            let handle = self.remember(&dir, &addon.base_url, id, &manifest, log);
            self.router.register(
                Prepared { dir: dir.clone(), gecko_id: handle.id.clone(), uuid, background_url: bg },
                handle.log.clone(),
            );
            // The descriptor may be replaced by the reload: look it up again.
            let addon = devtools.addon(&handle.id).await.unwrap_or(addon);
            let page = background_url(&manifest, &uuid_of(&addon.base_url));
            self.set_temporary(Temporary { dir: dir.clone(), addon, page, console: None });
            follow(self.devtools.as_deref(), &self.temporary, &handle).await;
            drop(following);
            return Ok(handle);
        }
        let log = ExtensionLog::new();
        if let Some(id) = manifest_gecko_id(&manifest) {
            if !self.preset_uuids.iter().any(|p| p == id) {
                devtools.set_uuid(id, &uuid_for(id)).await?;
            }
            // Known before the install: the background's first load is attributed.
            let uuid = uuid_for(id);
            self.router.register(
                Prepared {
                    dir: dir.clone(),
                    gecko_id: id.to_owned(),
                    uuid: uuid.clone(),
                    background_url: background_url(&manifest, &uuid),
                },
                log.clone(),
            );
        }
        let id = devtools.install(&source).await?;
        let addon = devtools.addon(&id).await?;
        let uuid = uuid_of(&addon.base_url);
        self.router.register(
            Prepared {
                dir: dir.clone(),
                gecko_id: id.clone(),
                uuid: uuid.clone(),
                background_url: background_url(&manifest, &uuid),
            },
            log.clone(),
        );
        let handle = self.remember(&dir, &addon.base_url, Some(id), &manifest, log);
        let page = background_url(&manifest, &uuid);
        self.set_temporary(Temporary { dir, addon, page, console: None });
        // The background's console is followed off the caller's path (0.5–0.8 s of a cold
        // start under load): what it printed before is delivered when the watch starts, and
        // uncaught errors come from the browser's output anyway. Evaluation and reloads wait
        // for it (`following`).
        if let (Some(devtools), Ok(runtime)) = (self.devtools.clone(), tokio::runtime::Handle::try_current())
        {
            let (temporary, ext) = (self.temporary.clone(), handle.clone());
            runtime.spawn(async move {
                follow(Some(&devtools), &temporary, &ext).await;
                drop(following);
            });
        }
        tracing::info!(id = %handle.id, dir = %handle.dir.display(), "temporary add-on installed");
        Ok(handle)
    }

    /// Copies `dir` into the runner's private directory with a gecko id written into its
    /// manifest (stable per source directory); returns the copy, and `manifest` is updated.
    fn stage(&self, dir: &Path, manifest: &mut Value) -> Result<std::path::PathBuf, RunnerError> {
        let id = super::generated_gecko_id(dir);
        let root = self.home.parent().unwrap_or(&self.home).join("staged");
        let staged = root.join(&id);
        let _ = std::fs::remove_dir_all(&staged);
        let mut files = Vec::new();
        super::collect_files(dir, dir, &mut files)
            .map_err(|e| RunnerError::BadExtension { dir: dir.to_owned(), reason: e.to_string() })?;
        for rel in files {
            let to = staged.join(&rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(RunnerError::io(format!("cannot create {}", parent.display())))?;
            }
            std::fs::copy(dir.join(&rel), &to).map_err(RunnerError::io(format!("cannot copy {rel}")))?;
        }
        super::set_gecko_id(manifest, &id);
        std::fs::write(staged.join("manifest.json"), manifest.to_string())
            .map_err(RunnerError::io("cannot write the staged manifest.json"))?;
        Ok(staged)
    }

    /// [`follow`] for a caller that found no console: after any follow under way, which
    /// may have found it.
    async fn follow_background(&self, ext: &ExtensionHandle) -> Option<String> {
        let _following = self.following.lock().await;
        if let Some(console) = self.temporary_of(&ext.dir).and_then(|t| t.console) {
            return Some(console);
        }
        follow(self.devtools.as_deref(), &self.temporary, ext).await
    }

    fn temporary_of(&self, dir: &Path) -> Option<Temporary> {
        entry_of(&self.temporary, dir)
    }

    fn set_temporary(&self, entry: Temporary) {
        let mut list = self.temporary.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|t| t.dir != entry.dir);
        list.push(entry);
    }

    /// Records the handle of `dir` (replacing an older one) and returns it.
    fn remember(
        &self,
        dir: &Path,
        base_url: &str,
        id: Option<String>,
        manifest: &Value,
        log: std::sync::Arc<ExtensionLog>,
    ) -> ExtensionHandle {
        let bg = &manifest["background"];
        if let Some(tabs) = &self.tab_consoles {
            tabs.own(base_url, log.clone());
        }
        let handle = ExtensionHandle {
            dir: dir.to_owned(),
            id: id.unwrap_or_default(),
            base_url: base_url.to_owned(),
            has_background: bg.get("scripts").is_some() || bg.get("page").is_some(),
            log,
        };
        let mut list = self.extensions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        list.retain(|e| e.dir != dir);
        list.push(handle.clone());
        handle
    }

    /// [`Runner::evaluate_in_background`](crate::runner::Runner::evaluate_in_background):
    /// in the add-on's background page, once it has (re)started.
    pub(super) async fn evaluate_background(
        &self,
        ext: &ExtensionHandle,
        expression: &str,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let devtools = self.devtools("evaluating in an extension's background")?;
        let started = Instant::now();
        ext.wait_background(timeout).await?;
        let entry = self.temporary_of(&ext.dir).ok_or_else(|| RunnerError::Script {
            message: format!("{} was not loaded over the debugger", ext.id),
        })?;
        let console = match entry.console {
            Some(c) => c,
            None => self
                .follow_background(ext)
                .await
                .ok_or_else(|| RunnerError::BackgroundTimeout { id: ext.id.clone(), timeout })?,
        };
        let left = timeout.saturating_sub(started.elapsed()).max(Duration::from_secs(1));
        match devtools.evaluate(&console, expression, left).await {
            // The background went away under a kept console (a reload by the extension itself).
            Err(RunnerError::Rdp(RdpError::Actor { .. })) => {
                let console = self
                    .follow_background(ext)
                    .await
                    .ok_or_else(|| RunnerError::BackgroundTimeout { id: ext.id.clone(), timeout })?;
                devtools.evaluate(&console, expression, left).await
            }
            other => other,
        }
    }

    /// Navigates a tab and returns once its new document exists (like CDP's
    /// `Page.navigate`, which answers when the navigation committed), so a following
    /// `document.readyState` is the new page's.
    pub(super) async fn navigate_tab(&self, tab: &str, url: &str) -> Result<(), RunnerError> {
        let devtools = self.devtools("navigating a tab")?;
        let origin =
            devtools.evaluate_in_tab(tab, "performance.timeOrigin", Duration::from_secs(5)).await.ok();
        let same_document = url.contains('#');
        devtools.navigate(tab, url).await?;
        if same_document {
            return Ok(());
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // During the switch the old target is gone and the new one not there yet; a
            // target dying in the switch may not answer at all: short evaluations.
            let now =
                devtools.evaluate_in_tab(tab, "performance.timeOrigin", Duration::from_secs(1)).await.ok();
            if now.is_some() && now != origin {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(RunnerError::Script { message: format!("the tab did not start loading {url}") });
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The uuid in `moz-extension://<uuid>/`.
fn uuid_of(base_url: &str) -> String {
    base_url.trim_start_matches("moz-extension://").trim_end_matches('/').to_owned()
}

fn entry_of(list: &Mutex<Vec<Temporary>>, dir: &Path) -> Option<Temporary> {
    list.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|t| t.dir == dir).cloned()
}

/// Once the background has (re)started, follows its console (what it printed before comes
/// first) and keeps its console actor for evaluation in `list`. A background that does not
/// start is reported by the caller's own wait; nothing is followed then. The caller holds
/// [`FirefoxRunner::following`].
async fn follow(
    devtools: Option<&Devtools>,
    list: &Mutex<Vec<Temporary>>,
    ext: &ExtensionHandle,
) -> Option<String> {
    if !ext.has_background || ext.wait_background(BACKGROUND_TIMEOUT).await.is_err() {
        return None;
    }
    let entry = entry_of(list, &ext.dir)?;
    let page = entry.page.clone()?;
    match devtools?.follow_background(&entry.addon, &page, &ext.log).await {
        Ok(console) => {
            let mut list = list.lock().unwrap_or_else(PoisonError::into_inner);
            // Only the entry it followed (a newer load replaces it).
            if let Some(t) =
                list.iter_mut().find(|t| t.dir == ext.dir && t.addon.descriptor == entry.addon.descriptor)
            {
                t.console = Some(console.clone());
            }
            Some(console)
        }
        Err(e) => {
            tracing::debug!(error = %e, "cannot follow the background's console");
            None
        }
    }
}
