// Chromium console through the debugger (debugger mode on, a client asking with
// `console.list {viaDebugger: true}`): CDP `Runtime.consoleAPICalled`,
// `Runtime.exceptionThrown` and `Log.entryAdded` instead of the main-world hook, so pages
// whose CSP or timing defeats the hook (scripts that ran before it, `console` replaced
// first) are still heard, with V8's own source positions and stacks.
//
//   list {viaDebugger: true} ─▶ holdDebugger(tab, "console") ─▶ Runtime.enable, Log.enable
//   onEvent ─▶ a record like the hook's ─▶ consolelog.js appendRecord (the same checks,
//   bounds, documents and observe.changed); the hook's records of that tab are ignored
//   meanwhile (one source, no doubles).
//
// Runtime.enable replays what V8 still holds of the tab's earlier messages: those already
// in the log (same level and text) are skipped. Released by `viaDebugger: false`, closing the
// tab, switching debugger mode off or the user cancelling the debugging bar; the debugging
// bar shows all that time.
import { api, hasDebugger } from "./api.js";
import { debuggerEnabled, holdDebugger, releaseDebugger } from "./debugger.js";

const OWNER = "console";
/** tab → {armedAt, append} for tabs whose console comes from the debugger */
const tabs = new Map();

export function viaDebugger(tabId) {
  return tabs.has(tabId);
}

/**
 * Starts (with `on` false, stops) the tab's debugger console; `append(record, replayed)`
 * adds a record to the tab's log. Resolves to null, or why it could not start.
 */
export async function armDebuggerConsole(tabId, on, append) {
  if (!on) {
    if (tabs.delete(tabId)) await releaseDebugger(tabId, true, OWNER);
    return null;
  }
  if (tabs.has(tabId)) return null;
  if (!hasDebugger || !(await debuggerEnabled())) return "turn on debugger mode in the helper's status page first (Chromium shows its debugging bar while the console comes from the debugger)";
  await holdDebugger(tabId, OWNER);
  tabs.set(tabId, { armedAt: Date.now(), append });
  try {
    await api.debugger.sendCommand({ tabId }, "Runtime.enable");
    await api.debugger.sendCommand({ tabId }, "Log.enable");
  } catch (e) {
    tabs.delete(tabId);
    await releaseDebugger(tabId, true, OWNER);
    return `the debugger refused: ${e?.message ?? e}`;
  }
  return null;
}

const LEVEL = { warning: "warn", error: "error", assert: "error", debug: "debug", info: "info", verbose: "debug" };

/** A RemoteObject as console text: strings as they are, the rest by V8's description. */
function textOf(arg) {
  if (!arg || typeof arg !== "object") return String(arg);
  if (arg.type === "string") return String(arg.value);
  if (arg.unserializableValue !== undefined) return String(arg.unserializableValue);
  if (arg.value !== undefined && arg.type !== "object") return String(arg.value);
  return String(arg.description ?? arg.className ?? arg.type);
}

function stackOf(trace) {
  const frames = Array.isArray(trace?.callFrames) ? trace.callFrames.slice(0, 30) : [];
  return frames.map((f) => `    at ${f.functionName || "<anonymous>"} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`).join("\n");
}

/** The caller: the first frame with a URL (CDP lines and columns are 0-based). */
function placeOf(trace) {
  const f = (trace?.callFrames ?? []).find((c) => c.url);
  return f ? { url: f.url, line: f.lineNumber + 1, column: f.columnNumber + 1 } : {};
}

export function recordOfConsoleCall(p) {
  const level = LEVEL[p.type] ?? "log";
  const r = { level, source: "console", text: (p.args ?? []).map(textOf).join(" "), time: p.timestamp, ...placeOf(p.stackTrace) };
  if (p.type === "trace" || level === "error") r.stack = stackOf(p.stackTrace);
  if (p.type === "assert" && !r.text) r.text = "Assertion failed";
  return r;
}

export function recordOfException(p) {
  const d = p.exceptionDetails ?? {};
  const description = d.exception?.description ?? d.exception?.value;
  const rejection = /^Uncaught \(in promise\)/.test(d.text ?? "");
  return {
    level: "error",
    source: rejection ? "rejection" : "exception",
    text: String(description ?? d.text ?? "exception").split("\n")[0],
    time: p.timestamp,
    url: d.url,
    line: Number.isInteger(d.lineNumber) ? d.lineNumber + 1 : undefined,
    column: Number.isInteger(d.columnNumber) ? d.columnNumber + 1 : undefined,
    stack: d.stackTrace ? stackOf(d.stackTrace) : String(description ?? ""),
  };
}

export function recordOfLogEntry(e) {
  const source = e.source === "network" ? "network" : e.source === "security" || e.source === "violation" ? "csp" : "console";
  return { level: LEVEL[e.level] ?? "log", source, text: String(e.text ?? ""), time: e.timestamp, url: e.url, line: Number.isInteger(e.lineNumber) ? e.lineNumber + 1 : undefined };
}

api.debugger?.onEvent.addListener((source, method, params) => {
  const t = tabs.get(source.tabId);
  if (!t) return;
  let r = null;
  if (method === "Runtime.consoleAPICalled") {
    if (["endGroup", "clear", "profile", "profileEnd"].includes(params.type)) return;
    r = recordOfConsoleCall(params);
  } else if (method === "Runtime.exceptionThrown") {
    r = recordOfException(params);
  } else if (method === "Log.entryAdded" && params.entry) {
    // Console calls come as Runtime events too; Log adds what no script said (network errors, CSP, interventions).
    if (params.entry.source === "javascript" || params.entry.source === "console-api") return;
    r = recordOfLogEntry(params.entry);
  }
  if (r) t.append(r, Number.isFinite(r.time) && r.time < t.armedAt);
});

api.debugger?.onDetach.addListener((source) => {
  if (tabs.delete(source.tabId)) releaseDebugger(source.tabId, false, OWNER);
});
api.tabs.onRemoved.addListener((tabId) => {
  if (tabs.delete(tabId)) releaseDebugger(tabId, false, OWNER);
});
api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || changes.debuggerMode?.newValue === true || !("debuggerMode" in changes)) return;
  for (const tabId of [...tabs.keys()]) armDebuggerConsole(tabId, false);
});
