//! Closed shadow roots in Firefox: a page's own scripts (and the debugger's evaluation in
//! the page) cannot reach them, but content scripts can, through
//! `element.openOrClosedShadowRoot`. So the function runs as a content script of a loaded
//! extension with host access to the page (`scripting.executeScript`, isolated world), with
//! the closed roots found there handed over as arguments, like CDP's `DOM.resolveNode` does
//! for Chromium.
//!
//! The extension sees tabs by its own ids, the debugger by its actors: the page is marked
//! with a random value through the debugger first, and the content script answers only in
//! the document carrying it, among the tabs showing the URL the debugger reports for the
//! tab (a page could copy the mark into another page of its own site, which tells nothing
//! it could not already render into itself).
//!
//! [`Runner::call_isolated`] runs in that content-script world too, for any function (the
//! behaviour harness's probe): there the page's scripts cannot patch what the function
//! calls. It goes through an extension of the runner's own, loaded on first use (a
//! background with `scripting` and access to every page; no content script), so the
//! extension under test needs no permission and is not touched.

use std::time::Duration;

use serde_json::Value;

use super::FirefoxRunner;
use crate::runner::{ExtensionHandle, MAX_CLOSED_ROOTS, Runner, RunnerError};

/// Runs in the page as a content script: `(opts, nonce, always)`, the collector spliced in.
/// Without `always`, a page with no closed root answers `{closed: 0}` and the caller
/// evaluates in the page instead.
const PROBE: &str = r#"(opts, nonce, always) => {
  const d = document.documentElement;
  if (!d || d.getAttribute("data-webext-mcp-probe") !== nonce) return null;
  d.removeAttribute("data-webext-mcp-probe");
  const closed = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const sr = el.openOrClosedShadowRoot;
      if (!sr) continue;
      if (!el.shadowRoot && closed.length < MAX) closed.push(sr);
      walk(sr);
    }
  };
  walk(document);
  if (!closed.length && !always) return { closed: 0 };
  const collector = (FUNCTION);
  return Promise.resolve(collector(opts, ...closed)).then((v) => ({ closed: closed.length, value: JSON.stringify(v) }));
}"#;

/// The gecko id of the extension [`FirefoxRunner::call_isolated_world`] loads to run
/// functions in a page's content-script world.
pub(super) const PROBE_ID: &str = "content-probe@webext-mcp";

/// Its manifest: a background with `scripting` and access to every page, nothing else.
const PROBE_MANIFEST: &str = r#"{
  "manifest_version": 3,
  "name": "webext-mcp content probe",
  "version": "1.0",
  "permissions": ["scripting", "tabs"],
  "host_permissions": ["<all_urls>"],
  "background": { "scripts": ["background.js"] },
  "browser_specific_settings": { "gecko": { "id": "content-probe@webext-mcp" } }
}"#;

impl FirefoxRunner {
    /// [`Runner::call_with_closed_shadow_roots`] for Firefox.
    pub(super) async fn call_with_closed(
        &self,
        tab: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
    ) -> Result<Option<Value>, RunnerError> {
        // The extensions loaded last first (a session loads the helper, with access to every
        // page, after the extension under development).
        let via: Vec<_> = self.extensions().into_iter().rev().filter(|e| e.has_background).collect();
        self.in_content_world(tab, function, arg, timeout, &via, false).await
    }

    /// [`Runner::call_isolated`] for Firefox: a web page's content-script world (Xray
    /// vision: the page's DOM without what its scripts changed, closed shadow roots
    /// included), reached through an extension of ours loaded on first use; other pages (an
    /// extension's own, which no other extension may script) in their own world.
    pub(super) async fn call_isolated_world(
        &self,
        tab: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        let devtools = self.devtools("evaluating in a tab")?;
        let url = devtools.tabs().await?.into_iter().find(|t| t.descriptor == tab).map(|t| t.url);
        if url.as_deref().is_some_and(|u| u.starts_with("http://") || u.starts_with("https://")) {
            let probe = self.content_probe().await?;
            if let Some(v) = self.in_content_world(tab, function, arg, timeout, &[probe], true).await? {
                return Ok(v);
            }
            return Err(RunnerError::Script {
                message: "the page's content-script world did not answer".into(),
            });
        }
        let expression = format!("({})({arg})", function.trim_end());
        devtools.evaluate_in_tab(tab, &expression, timeout).await
    }

    /// The probe extension ([`PROBE_ID`]), loaded now if it is not yet.
    async fn content_probe(&self) -> Result<ExtensionHandle, RunnerError> {
        if let Some(e) = self.extensions().into_iter().find(|e| e.id == PROBE_ID) {
            return Ok(e);
        }
        let dir = {
            let temp = self.temp.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let base = temp.as_ref().map(|t| t.path().to_owned()).ok_or_else(|| RunnerError::Io {
                what: "the runner's temporary directory is gone".into(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            })?;
            base.join("content-probe")
        };
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text)
                .map_err(|source| RunnerError::Io { what: format!("cannot write {}", dir.display()), source })
        };
        std::fs::create_dir_all(&dir)
            .map_err(|source| RunnerError::Io { what: format!("cannot create {}", dir.display()), source })?;
        write("manifest.json", PROBE_MANIFEST)?;
        write("background.js", "// Only runs scripts the runner asks for.\n")?;
        self.load_temporary(&dir).await
    }

    /// Marks the page with a nonce over the debugger, then runs `function(arg, ...closed)` as
    /// a content script through the first of `via` that reaches the marked document.
    async fn in_content_world(
        &self,
        tab: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
        via: &[ExtensionHandle],
        always: bool,
    ) -> Result<Option<Value>, RunnerError> {
        let devtools = self.devtools("reaching a page's content-script world")?;
        let url = devtools
            .tabs()
            .await?
            .into_iter()
            .find(|t| t.descriptor == tab)
            .map(|t| t.url)
            .unwrap_or_default();
        let nonce = nonce();
        let mark = format!(
            "void document.documentElement.setAttribute('data-webext-mcp-probe', {})",
            Value::String(nonce.clone())
        );
        devtools.evaluate_in_tab(tab, &mark, timeout).await?;
        let probe =
            PROBE.replace("MAX", &MAX_CLOSED_ROOTS.to_string()).replace("FUNCTION", function.trim_end());
        let script = format!(
            "(async (opts, nonce, url) => {{\n\
               for (const t of (await chrome.tabs.query({{}})).filter((t) => t.url === url)) {{\n\
                 try {{\n\
                   const [r] = await chrome.scripting.executeScript({{ target: {{ tabId: t.id }}, func: {probe}, args: [opts, nonce, {always}] }});\n\
                   if (r && r.result) return r.result;\n\
                 }} catch (e) {{}}\n\
               }}\n\
               return null;\n\
             }})({arg}, {}, {})",
            Value::String(nonce),
            Value::String(url)
        );
        for ext in via {
            let Ok(found) = self.evaluate_background(ext, &script, timeout).await else { continue };
            if found.is_null() {
                continue;
            }
            if found["closed"] == 0 && !always {
                return Ok(None);
            }
            let text = found["value"].as_str().unwrap_or("null");
            return serde_json::from_str(text)
                .map(Some)
                .map_err(|e| RunnerError::Script { message: format!("unreadable value: {e}") });
        }
        // No extension could reach the page: the caller falls back to a plain evaluation.
        let _ = devtools
            .evaluate_in_tab(
                tab,
                "void document.documentElement.removeAttribute('data-webext-mcp-probe')",
                timeout,
            )
            .await;
        Ok(None)
    }
}

/// A value a page cannot guess.
fn nonce() -> String {
    let seed = format!("{:?}-{}-{:p}", std::time::SystemTime::now(), std::process::id(), &PROBE);
    webext_mcp_host::digest::sha256_hex(seed.as_bytes())[..24].to_owned()
}
