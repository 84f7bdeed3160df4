// The dialog hook, a classic script run in a page's MAIN world at document_start (a content
// script registered for the agent's navigation, see ../dialogs.js) or injected into a loaded
// document; safe to run twice. Installed in the documents of tabs the agent opened or
// navigated, it answers alert/confirm/prompt at once by the tab's policy — dismiss,
// unless accept_dialog / dismiss_dialog armed the next answer — and records each dialog for
// the tool result that met it. A native dialog would stop the page's renderer and with it
// every script the helper runs there.
//
// What a page can see (DESIGN "What extension APIs can and cannot do"): that alert, confirm
// and prompt return at once and are not native functions (`confirm.toString()`), the
// `Symbol.for("webext-mcp.dialogs")` property holding the hook (which it can also call:
// take the records or arm an answer for its own dialogs), and that is all: the policy is
// pushed in, never announced with events. A page that wants a native dialog can get one
// from a fresh same-origin iframe's window, which the hook does not cover; that tab then
// answers BLOCKED.

(() => {
  const KEY = Symbol.for("webext-mcp.dialogs");
  const RECORD_CAP = 20;
  const MESSAGE_CAP = 500;
  if (window[KEY]) return;
  const records = [];
  let armed = null;
  const answer = (type, message) => {
    const take = armed;
    armed = null;
    const accept = take?.action === "accept";
    const record = { type, message: String(message ?? "").slice(0, MESSAGE_CAP), answered: accept ? "accepted" : "dismissed", armed: Boolean(take) };
    if (records.length >= RECORD_CAP) records.shift();
    records.push(record);
    return { accept, promptText: take?.promptText };
  };
  const define = (name, fn) => Object.defineProperty(window, name, { value: fn, writable: true, configurable: true, enumerable: true });
  define("alert", function alert(message) {
    answer("alert", message);
  });
  define("confirm", function confirm(message) {
    return answer("confirm", message).accept;
  });
  define("prompt", function prompt(message, value) {
    const a = answer("prompt", message);
    if (!a.accept) return null;
    return String(a.promptText ?? value ?? "");
  });
  // arm(policy) sets the answer to the next dialog; take() hands over and forgets the records.
  Object.defineProperty(window, KEY, {
    value: Object.freeze({
      arm(p) {
        armed = p ?? null;
      },
      take() {
        return records.splice(0);
      },
    }),
  });
})();
