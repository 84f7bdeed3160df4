// Chromium response bodies, through the debugger: Chromium gives bodies to no webRequest
// listener, only to CDP (`Network.getResponseBody`, with `Network.enable` before the load).
// With debugger mode on and a client asking (`network.list {captureBodies: true}`), the
// helper keeps its debugger attached to that tab — Chromium shows its debugging bar all
// that time — and copies the bodies of documents and XHR/fetch responses as they finish.
// Released when the tab closes, debugger mode is switched off, the user cancels the bar, or
// a client passes `captureBodies: false`.
//
// CDP and webRequest name requests differently; a body is matched to its webRequest entry
// by method and URL, the nearest in time that no other entry claimed.
import { api, hasDebugger } from "./api.js";
import { debuggerEnabled, holdDebugger, releaseDebugger } from "./debugger.js";
import { CAPTURE } from "./protocol.js";

const BODY_CAP = CAPTURE.bodyBytes;
const TAB_CAP = CAPTURE.tabBodyBytes;
const TYPES = new Set(["Document", "XHR", "Fetch"]);

/** @type {Map<number, {bodies: object[], pending: Map<string, object>, bytes: number}>} */
const tabs = new Map();

export function capturing(tabId) {
  return tabs.has(tabId);
}

/** Starts (or with `on` false, stops) keeping the tab's bodies; what the list says about bodies. */
export async function armDebuggerBodies(tabId, on) {
  if (!on) {
    if (tabs.delete(tabId)) await releaseDebugger(tabId);
    return null;
  }
  if (tabs.has(tabId)) return null;
  if (!hasDebugger || !(await debuggerEnabled())) return "turn on debugger mode in the helper's status page first (Chromium shows its debugging bar while bodies are kept)";
  await holdDebugger(tabId);
  const target = { tabId };
  await api.debugger.sendCommand(target, "Network.enable", { maxTotalBufferSize: TAB_CAP, maxResourceBufferSize: BODY_CAP });
  tabs.set(tabId, { bodies: [], pending: new Map(), bytes: 0 });
  return null;
}

function keep(t, body) {
  t.bodies.push(body);
  t.bytes += body.body.length;
  while (t.bytes > TAB_CAP && t.bodies.length > 1) t.bytes -= t.bodies.shift().body.length;
}

api.debugger?.onEvent.addListener(async (source, method, params) => {
  const t = tabs.get(source.tabId);
  if (!t) return;
  if (method === "Network.requestWillBeSent") {
    t.pending.set(params.requestId, { url: params.request.url, method: params.request.method, type: params.type, time: params.wallTime * 1000 });
  } else if (method === "Network.responseReceived") {
    const p = t.pending.get(params.requestId);
    if (p) Object.assign(p, { type: params.type, mimeType: params.response?.mimeType });
  } else if (method === "Network.loadingFailed") {
    t.pending.delete(params.requestId);
  } else if (method === "Network.loadingFinished") {
    const p = t.pending.get(params.requestId);
    t.pending.delete(params.requestId);
    if (!p || !TYPES.has(p.type)) return;
    try {
      const out = await api.debugger.sendCommand({ tabId: source.tabId }, "Network.getResponseBody", { requestId: params.requestId });
      const body = String(out.body ?? "");
      keep(t, { ...p, body: body.slice(0, BODY_CAP), base64: out.base64Encoded === true, bytes: params.encodedDataLength, cut: body.length > BODY_CAP });
    } catch {
      // Evicted from Chromium's buffer, or a response without a body (204, a redirect).
    }
  }
});

api.debugger?.onDetach.addListener((source) => {
  if (tabs.delete(source.tabId)) releaseDebugger(source.tabId, false);
});
api.tabs.onRemoved.addListener((tabId) => {
  if (tabs.delete(tabId)) releaseDebugger(tabId, false);
});
api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || changes.debuggerMode?.newValue === true || !("debuggerMode" in changes)) return;
  for (const tabId of [...tabs.keys()]) armDebuggerBodies(tabId, false);
});

/** The body CDP gave for webRequest entry `e` (claimed: no other entry gets it), or null. */
export function debuggerBodyOf(tabId, e) {
  const t = tabs.get(tabId);
  if (!t) return null;
  let best = null;
  for (const b of t.bodies) {
    if (b.claimed && b.claimed !== e.id) continue;
    if (b.url !== e.url || b.method !== e.method) continue;
    if (b.claimed === e.id) return b;
    if (!best || Math.abs(b.time - e.timings.start) < Math.abs(best.time - e.timings.start)) best = b;
  }
  if (best) best.claimed = e.id;
  return best;
}
