// The console hook's relay, a classic script in the page's ISOLATED world (registered and
// injected beside page/console.js; safe to run twice). The main-world hook cannot reach the
// extension, so it hands its records here as a JSON string in a document event; this script
// forwards them with runtime.sendMessage, which tells the background the tab and frame (the
// browser fills in `sender`, the page cannot). Each document gets a random id drawn here, out
// of the page's reach, so the background can tell documents apart ("navigation marking").
// A page can fire the same event with records of its own: the background checks every field.

(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const KEY = "__webextMcpConsoleRelay";
  if (globalThis[KEY]) return;
  globalThis[KEY] = true;
  const RECORDS = "webext-mcp-console:records";
  const READY = "webext-mcp-console:ready";
  const HELLO = "webext-mcp-console:hello";
  // One batch's JSON: what one turn of page code can hand over (the hook keeps ≤ 1000 records).
  const BATCH_CAP = 8 * 1024 * 1024;
  const doc = Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(16).padStart(8, "0")).join("");
  const send = (msg) => {
    try {
      api.runtime.sendMessage({ channel: "webext-mcp.console", doc, ...msg }).catch(() => {});
    } catch {
      // The extension was reloaded: this document's relay is orphaned.
    }
  };
  // Set by the background when it injects into a document that was already running.
  const late = globalThis.__webextMcpConsoleLate === true;
  send({ kind: "document", origin: performance.timeOrigin, late });
  document.addEventListener(RECORDS, (e) => {
    if (typeof e.detail !== "string" || e.detail.length > BATCH_CAP) return;
    send({ kind: "records", batch: e.detail });
  });
  document.addEventListener(HELLO, () => document.dispatchEvent(new CustomEvent(READY)));
  // A document restored from the back/forward cache is current again.
  addEventListener("pageshow", (e) => {
    if (e.persisted) send({ kind: "document", origin: performance.timeOrigin, late });
  });
  document.dispatchEvent(new CustomEvent(READY));
})();
