// Debugger mode (Chromium only, off by default, switched on in the status page): trusted
// input through CDP `Input.*` and code evaluation through `Runtime.evaluate`, which the
// page's CSP does not govern. The helper attaches for one operation and detaches at once,
// so Chromium's "started debugging" bar is up only while it acts.
import { api, hasDebugger } from "./api.js";

/** Tabs the helper is attached to right now (browser.info reports the count). */
const attached = new Set();
/**
 * Tabs whose session stays attached between operations, and who holds each (netbodies.js:
 * response bodies; consolecdp.js: the console): attached while anyone holds it.
 */
const holds = new Map();

export function debuggerSessions() {
  return attached.size;
}

/** Whether debugger mode is available and switched on. */
export async function debuggerEnabled() {
  if (!hasDebugger) return false;
  const { debuggerMode } = await api.storage.local.get("debuggerMode");
  return debuggerMode === true;
}

/** Attaches to the tab, runs `fn(send)`, and always detaches. */
export async function withDebugger(tabId, fn) {
  const target = { tabId };
  // Already ours: a call that a native dialog stopped still holds it (accept_dialog then
  // answers through the same session, and that call detaches when it ends).
  if (attached.has(tabId)) return fn((method, params = {}) => api.debugger.sendCommand(target, method, params));
  await api.debugger.attach(target, "1.3");
  attached.add(tabId);
  try {
    return await fn((method, params = {}) => api.debugger.sendCommand(target, method, params));
  } finally {
    // A hold taken meanwhile keeps the session (and its Network domain) for the tab.
    if (!holds.has(tabId)) {
      attached.delete(tabId);
      await api.debugger.detach(target).catch(() => {});
    }
  }
}

/**
 * Keeps the debugger attached to the tab until released (response bodies need the Network
 * domain enabled before the load); withDebugger then works through the same session.
 */
export async function holdDebugger(tabId, owner = "bodies") {
  const owners = holds.get(tabId) ?? new Set();
  owners.add(owner);
  holds.set(tabId, owners);
  if (attached.has(tabId)) return;
  try {
    await api.debugger.attach({ tabId }, "1.3");
  } catch (e) {
    owners.delete(owner);
    if (!owners.size) holds.delete(tabId);
    throw e;
  }
  attached.add(tabId);
}

/**
 * Ends `owner`'s hold; the last one detaches (unless the session is gone already:
 * `detach` false, and then every hold of the tab ends with it).
 */
export async function releaseDebugger(tabId, detach = true, owner = "bodies") {
  const owners = holds.get(tabId);
  if (!owners?.delete(owner)) return;
  if (owners.size && detach) return;
  holds.delete(tabId);
  attached.delete(tabId);
  if (detach) await api.debugger.detach({ tabId }).catch(() => {});
}

/** A left click at viewport coordinates of the top document. */
export async function trustedClick(send, x, y) {
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x, y, button: "left", buttons: 1, clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button: "left", buttons: 0, clickCount: 1 });
}

export async function trustedHover(send, x, y) {
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
}

const KEYS = {
  Enter: { code: "Enter", keyCode: 13, text: "\r" },
  Tab: { code: "Tab", keyCode: 9 },
  Escape: { code: "Escape", keyCode: 27 },
  Backspace: { code: "Backspace", keyCode: 8 },
  Delete: { code: "Delete", keyCode: 46 },
  ArrowDown: { code: "ArrowDown", keyCode: 40 },
  ArrowUp: { code: "ArrowUp", keyCode: 38 },
  ArrowLeft: { code: "ArrowLeft", keyCode: 37 },
  ArrowRight: { code: "ArrowRight", keyCode: 39 },
  " ": { code: "Space", keyCode: 32, text: " " },
};

/** One key press (down, up) to the focused element; `shift` adds the modifier. */
export async function trustedKey(send, key, shift = false) {
  const known = KEYS[key];
  const upper = key.length === 1 ? key.toUpperCase() : key;
  const def = known ?? { code: /[a-z]/i.test(key) ? `Key${upper}` : "", keyCode: upper.charCodeAt(0), text: key };
  const modifiers = shift ? 8 : 0;
  const base = { key, code: def.code, windowsVirtualKeyCode: def.keyCode, modifiers };
  await send("Input.dispatchKeyEvent", { type: def.text ? "keyDown" : "rawKeyDown", ...base, ...(def.text && { text: def.text }) });
  await send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
}

/**
 * `Runtime.evaluate` of a function with JSON arguments; answers like the main-world path:
 * `{json}` or `{error: {kind, name, message}}`.
 */
export async function trustedEvaluate(send, code, args) {
  const expression = `(async () => {
  const fn = (${code}
  );
  const value = typeof fn === "function" ? await fn(...${JSON.stringify(args)}) : await fn;
  if (value === undefined) return { json: "null" };
  if (typeof value === "function" || typeof value === "symbol" || value instanceof Node || value === window) {
    return { error: { kind: "unserializable", name: "TypeError", message: "the result has no JSON form" } };
  }
  const json = JSON.stringify(value);
  return json === undefined ? { error: { kind: "unserializable", name: "TypeError", message: "the result has no JSON form" } } : { json };
})()`;
  const out = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (out.exceptionDetails) {
    const e = out.exceptionDetails;
    const kind = e.exception?.className === "SyntaxError" ? "compile" : "throw";
    return { error: { kind, name: e.exception?.className ?? "Error", message: e.exception?.description?.split("\n")[0] ?? e.text } };
  }
  return out.result?.value ?? { error: { kind: "throw", name: "Error", message: "no result" } };
}
