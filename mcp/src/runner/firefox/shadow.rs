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

use std::time::Duration;

use serde_json::Value;

use super::FirefoxRunner;
use crate::runner::{MAX_CLOSED_ROOTS, Runner, RunnerError};

/// Runs in the page as a content script: `(opts, nonce)`, the collector spliced in.
const PROBE: &str = r#"(opts, nonce) => {
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
  if (!closed.length) return { closed: 0 };
  const collector = (FUNCTION);
  return Promise.resolve(collector(opts, ...closed)).then((v) => ({ closed: closed.length, value: JSON.stringify(v) }));
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
        let devtools = self.devtools("reaching closed shadow roots")?;
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
                   const [r] = await chrome.scripting.executeScript({{ target: {{ tabId: t.id }}, func: {probe}, args: [opts, nonce] }});\n\
                   if (r && r.result) return r.result;\n\
                 }} catch (e) {{}}\n\
               }}\n\
               return null;\n\
             }})({arg}, {}, {})",
            Value::String(nonce),
            Value::String(url)
        );
        // The extensions loaded last first (a session loads the helper, with access to every
        // page, after the extension under development).
        for ext in self.extensions().iter().rev().filter(|e| e.has_background) {
            let Ok(found) = self.evaluate_background(ext, &script, timeout).await else { continue };
            if found.is_null() {
                continue;
            }
            if found["closed"] == 0 {
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
