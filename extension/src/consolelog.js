// Console capture: what each observed tab's pages said, kept per tab in the background.
//
//   agent load ──▶ page/console.js (MAIN, document_start, registered with the dialog hook)
//                    │ records, one JSON batch per microtask turn (document event)
//                    ▼
//                  page/console-relay.js (ISOLATED) ──runtime.sendMessage──▶ here: checked,
//                    collapsed (repeats), bounded (count + bytes) ──▶ console.list / console.clear
//
// Tabs the agent opened or navigated carry the hook from their first script on; any other
// tab gets it when a client first asks for its console (`late`: what it said before is not
// captured, and the answer says so), and keeps it in its later documents (webNavigation).
// Entries stay in memory, per tab, until the tab closes or a client clears them; nothing is
// sent anywhere unless a client asks for that tab.
import { api } from "./api.js";
import { HelperError } from "./errors.js";
import { armDebuggerConsole, viaDebugger } from "./consolecdp.js";
import { changed } from "./observers.js";
import { CAPTURE, ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { describeTab, resolveTab } from "./tabs.js";
import { existingState, stateOf } from "./tabstate.js";

/** The hook and its relay (page/console.js, page/console-relay.js). */
export const CONSOLE_HOOK = "page/console.js";
export const CONSOLE_RELAY = "page/console-relay.js";

/** Bounds per tab: entries kept, and their approximate size (host/src/protocol/capture.rs). */
const ENTRY_CAP = CAPTURE.consoleEntries;
const BYTE_CAP = CAPTURE.consoleBytes;
const TEXT_CAP = 4000;
const URL_CAP = 2000;
const STACK_CAP = 4000;

const LEVELS = ["debug", "log", "info", "warn", "error"];
const RANK = { debug: 0, log: 1, info: 1, warn: 2, error: 3 };
const SOURCES = ["console", "exception", "rejection", "csp", "network"];

/** The status page's `capture` setting (settings.js), read here so every path sees it at once. */
let capturing = true;
api.storage.local.get("capture").then(({ capture }) => (capturing = capture !== false), () => {});
api.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && "capture" in changes) capturing = changes.capture.newValue !== false;
});

/** Whether console and network capture is on. */
export function captureOn() {
  return capturing;
}

/** @type {Map<number, object>} tab → its log */
const logs = new Map();
/** Tabs the agent did not open whose console a client asked for: their documents get the hook. */
const observed = new Set();

api.tabs.onRemoved.addListener((tabId) => {
  logs.delete(tabId);
  observed.delete(tabId);
});

function newLog() {
  return { entries: [], bytes: 0, seq: 0, dropped: 0, since: Date.now(), docs: new Map(), nextDoc: 1, top: null, announcements: 0, relayed: new Set() };
}

// Browser document ids (Chromium's `documentId`) whose relay announced itself, per tab: those
// documents have the hook, and hookConsole passes them by.
const RELAYED_CAP = 64;

function relayed(log, documentId) {
  log.relayed.add(documentId);
  if (log.relayed.size > RELAYED_CAP) log.relayed.delete(log.relayed.values().next().value);
}

/** The tab's log, created (capture starts now) when it has none. */
export function logOf(tabId) {
  let log = logs.get(tabId);
  if (!log) {
    log = newLog();
    logs.set(tabId, log);
  }
  return log;
}

/** The document `key` names, created on first sight; one announcing itself becomes its frame's current one. */
function docOf(log, key, frameId, url, late, announced) {
  let d = log.docs.get(key);
  if (!d) {
    announced = true;
    d = { doc: log.nextDoc++, frameId, url, late: Boolean(late) };
    log.docs.set(key, d);
    // Documents are few per tab; keep the last 50 (entries of older ones keep their number).
    if (log.docs.size > 50) log.docs.delete(log.docs.keys().next().value);
  }
  if (late) d.late = true;
  if (announced) d.seen = ++log.announcements;
  if (announced && frameId === 0) log.top = d.doc;
  return d;
}

const str = (v, cap) => (typeof v === "string" ? v.slice(0, cap) : undefined);

// An extension's origin (ours above all): page code can write records claiming any URL, and
// a record "from chrome-extension://<helper>/background.js" would read as the helper's own
// output. The hook names the first frame outside any extension, so a real page record never
// has one as its URL; such a URL is dropped, and extension origins in stacks are masked.
const EXTENSION_ORIGIN = /\b(?:chrome|moz|safari-web)-extension:\/\/[^/\s)]*/gi;
const OWN_ORIGIN = api.runtime.getURL("").replace(/\/$/, "");
const EXTENSION_URL = /^\s*(?:chrome|moz|safari-web)-extension:/i;
const masked = (s) => s.split(OWN_ORIGIN).join("extension://(hidden)").replace(EXTENSION_ORIGIN, "extension://(hidden)");
const int = (v) => (Number.isInteger(v) && v >= 0 ? v : undefined);

/** A record as the page sent it → an entry with checked fields only (the page wrote all of them). */
export function cleanRecord(r) {
  if (!r || typeof r !== "object") return null;
  const e = {
    level: LEVELS.includes(r.level) ? r.level : "log",
    source: SOURCES.includes(r.source) ? r.source : "console",
    text: masked(String(str(r.text, TEXT_CAP) ?? "")),
    time: Number.isFinite(r.time) ? r.time : Date.now(),
  };
  const url = str(r.url, URL_CAP);
  if (url && !EXTENSION_URL.test(url) && !url.includes(OWN_ORIGIN)) {
    e.url = url;
    if (int(r.line) !== undefined) e.line = r.line;
    if (int(r.column) !== undefined) e.column = r.column;
  }
  const stack = str(r.stack, STACK_CAP);
  if (stack) e.stack = masked(stack);
  if (e.source === "csp") {
    const blocked = str(r.blockedUrl, URL_CAP);
    if (blocked) e.blockedUrl = blocked;
    const directive = str(r.directive, 200);
    if (directive) e.directive = directive;
  }
  return e;
}

const sizeOf = (e) => 96 + e.text.length + (e.url?.length ?? 0) + (e.stack?.length ?? 0) + (e.blockedUrl?.length ?? 0);

const sameMessage = (a, b) =>
  a.doc === b.doc && a.frameId === b.frameId && a.level === b.level && a.source === b.source && a.text === b.text && a.url === b.url && a.line === b.line && a.column === b.column;

/**
 * Adds an entry: a repeat of the newest entry only counts (and moves to a new seq, so a
 * client polling with `since` sees the new count); the oldest go when a bound is passed.
 */
export function append(log, e) {
  const last = log.entries[log.entries.length - 1];
  if (last && sameMessage(last, e)) {
    last.count++;
    last.lastTime = e.time;
    last.seq = ++log.seq;
    return;
  }
  e.seq = ++log.seq;
  e.count = 1;
  log.entries.push(e);
  log.bytes += sizeOf(e);
  while (log.entries.length > ENTRY_CAP || (log.bytes > BYTE_CAP && log.entries.length > 1)) {
    const old = log.entries.shift();
    log.bytes -= sizeOf(old);
    log.dropped += old.count;
  }
}

// Registered at top level (background.js imports this module synchronously).
api.runtime.onMessage.addListener((msg, sender) => {
  if (msg?.channel !== "webext-mcp.console" || sender.id !== api.runtime.id || !capturing) return;
  const tabId = sender.tab?.id;
  if (!Number.isInteger(tabId) || tabId < 0 || typeof msg.doc !== "string") return;
  const frameId = Number.isInteger(sender.frameId) ? sender.frameId : 0;
  const log = logOf(tabId);
  const url = String(sender.url ?? "").slice(0, URL_CAP);
  const d = docOf(log, `${frameId}:${msg.doc.slice(0, 32)}`, frameId, url, msg.late === true, msg.kind === "document");
  if (msg.kind === "document" && typeof sender.documentId === "string") relayed(log, sender.documentId);
  if (msg.kind !== "records" || typeof msg.batch !== "string" || viaDebugger(tabId)) return;
  let batch;
  try {
    batch = JSON.parse(msg.batch);
  } catch {
    return;
  }
  const records = Array.isArray(batch?.records) ? batch.records : [];
  for (const r of records.slice(-ENTRY_CAP)) {
    const e = cleanRecord(r);
    if (!e) continue;
    e.doc = d.doc;
    e.frameId = frameId;
    append(log, e);
  }
  const lost = (int(batch?.dropped) ?? 0) + Math.max(0, records.length - ENTRY_CAP);
  log.dropped += lost;
  if (records.length) changed(tabId, "console", log.seq);
});

/**
 * Adds a record from the debugger (consolecdp.js) to the tab's log, in its current top
 * document. `replayed`: V8 held it from before the debugger came; skipped when the hook
 * already has it.
 */
function appendRecord(tabId, record, replayed) {
  const e = cleanRecord(record);
  if (!e) return;
  const log = logOf(tabId);
  if (replayed && log.entries.some((x) => x.level === e.level && x.text === e.text)) return;
  e.doc = log.top ?? docOf(log, "0:debugger", 0, "", false, true).doc;
  e.frameId = 0;
  append(log, e);
  changed(tabId, "console", log.seq);
}

/** Puts the hook (and relay) into the tab's documents now; `late`: they were already running. */
export async function injectConsole(tabId, frameIds, late = false) {
  if (!capturing) return;
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  const quiet = () => {};
  if (late) await api.scripting.executeScript({ target, func: markLate }).catch(quiet);
  await api.scripting.executeScript({ target, world: "MAIN", injectImmediately: true, files: [CONSOLE_HOOK] }).catch(quiet);
  await api.scripting.executeScript({ target, injectImmediately: true, files: [CONSOLE_RELAY] }).catch(quiet);
}

/**
 * After an agent load (`hookNow`): the hook goes into the tab's documents that lack it. In
 * Chromium the frames' `documentId`s tell which documents announced their relay (the content
 * script registered for the load put it in at document_start), so a page whose frames all
 * have it costs no script round trip; where the ids are missing (Firefox) every frame gets
 * the injection, which the hook and relay ignore when they are already in.
 */
export async function hookConsole(tabId) {
  if (!capturing) return;
  const frames = await api.webNavigation?.getAllFrames({ tabId }).catch(() => null);
  const log = logs.get(tabId);
  if (!log || !Array.isArray(frames) || !frames.length || !frames.every((f) => typeof f.documentId === "string")) {
    return injectConsole(tabId);
  }
  const missing = frames.filter((f) => !log.relayed.has(f.documentId)).map((f) => f.frameId);
  if (missing.length === frames.length) return injectConsole(tabId);
  // One call per frame: a frame list fails whole when one of them cannot be scripted.
  await Promise.all(missing.map((frameId) => injectConsole(tabId, [frameId])));
}

/** Runs in the isolated world before the relay: its documents began before the hook. */
function markLate() {
  globalThis.__webextMcpConsoleLate = true;
}

// A new document of an observed tab the agent did not open (agent tabs get the hook with
// the dialog hook, dialogs.js). As early as injectImmediately gets; the page's first inline
// script can be earlier.
api.webNavigation?.onCommitted.addListener(async ({ tabId, frameId }) => {
  if (!observed.has(tabId)) return;
  const st = existingState(tabId) ?? (await stateOf(tabId));
  if (!st.agent) injectConsole(tabId, [frameId]);
});

/**
 * The tab's log; a tab the helper has not hooked yet gets the hook now (its earlier
 * messages are lost: the answer's documents say `late`).
 */
async function watch(tab) {
  if (logs.has(tab.id) || observed.has(tab.id)) return logOf(tab.id);
  const log = logOf(tab.id);
  const st = existingState(tab.id) ?? (await stateOf(tab.id));
  if (!st.agent) observed.add(tab.id);
  // Awaited, so what the page says after this answer is captured; but at most a second: a tab
  // a native dialog blocks never settles a script, and the list must answer.
  await Promise.race([injectConsole(tab.id, null, true), new Promise((r) => setTimeout(r, 1000))]);
  return log;
}

const DEFAULT_PAGE_BYTES = METHOD_SPECS["console.list"].params.maxBytes.default;

/**
 * Entries after `after` that pass `keep`, in their wire form (`shape`), cut to about
 * `maxBytes` of JSON (at least one). Only the page's entries are shaped and measured.
 */
export function pageOf(entries, after, keep, maxBytes, shape = (e) => e) {
  const out = [];
  let total = 0;
  let bytes = 0;
  let more = false;
  for (const e of entries) {
    if (e.seq <= after || !keep(e)) continue;
    total++;
    if (more) continue;
    const wire = shape(e);
    const size = JSON.stringify(wire).length + 1;
    if (out.length > 0 && bytes + size > maxBytes) {
      more = true;
      continue;
    }
    bytes += size;
    out.push(wire);
  }
  return { out, total, nextCursor: more ? String(out[out.length - 1].seq) : null };
}

/** `after` from `since` and `cursor` (a cursor is the seq of the last entry of a page). */
export function afterOf({ since, cursor }) {
  let after = Number.isInteger(since) && since > 0 ? since : 0;
  if (cursor != null) {
    if (!/^\d{1,15}$/.test(cursor)) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`cursor` is not a nextCursor of this tool", "pass nextCursor as it came, or leave it out");
    }
    after = Math.max(after, Number(cursor));
  }
  return after;
}

export async function listConsole(params) {
  const tab = await resolveTab(params);
  if (params.level != null && !LEVELS.includes(params.level)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown level \`${params.level}\``, `use one of ${LEVELS.join(", ")}`);
  }
  const log = await watch(tab);
  let refused = null;
  if (params.viaDebugger != null) {
    refused = await armDebuggerConsole(tab.id, params.viaDebugger === true, (r, replayed) => appendRecord(tab.id, r, replayed));
  }
  const floor = params.level ? RANK[params.level] : 0;
  const needle = params.contains ?? "";
  const keep = (e) => RANK[e.level] >= floor && (!needle || e.text.includes(needle));
  const { out, total, nextCursor } = pageOf(log.entries, afterOf(params), keep, params.maxBytes ?? DEFAULT_PAGE_BYTES);
  const shown = new Set(out.map((e) => e.doc));
  // Each frame's current document: the one that announced itself last there.
  const latest = new Map();
  for (const d of log.docs.values()) if (!latest.has(d.frameId) || d.seen > latest.get(d.frameId).seen) latest.set(d.frameId, d);
  const documents = [...log.docs.values()]
    .filter((d) => shown.has(d.doc) || d.doc === log.top)
    .map((d) => ({ doc: d.doc, url: d.url, frameId: d.frameId, current: latest.get(d.frameId) === d, ...(d.late && { late: true }) }));
  return {
    tab: describeTab(tab),
    via: viaDebugger(tab.id) ? "debugger" : capturing ? "hook" : "off",
    ...(refused && { debugger: { on: false, why: refused } }),
    capturedSince: log.since,
    entries: out,
    documents,
    total,
    dropped: log.dropped,
    lastSeq: log.seq,
    nextCursor,
  };
}

export async function clearConsole(params) {
  const tab = await resolveTab(params);
  const log = logs.get(tab.id);
  const cleared = log ? log.entries.length : 0;
  if (log) {
    log.entries = [];
    log.bytes = 0;
    log.dropped = 0;
  }
  return { tab: describeTab(tab), cleared };
}
