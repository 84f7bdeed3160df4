// Pushed "new entries" events for the MCP resources console://<tab> and network://<tab>.
//
//   consolelog.js / netlog.js ── changed(tab, kind, seq) ──▶ coalesced per tab (≤ 4/s)
//        ──▶ event observe.changed {tabId, console?, network?} ──▶ host ──▶ subscribed clients
//
// The event carries the tab id and the newest seq of each log only, never an entry: a client
// reads the entries with console.list / network.list, which answer only a client that names
// the tab. The host forwards events only to connections that subscribed to them.
import { api } from "./api.js";
import { EVENTS } from "./protocol.js";

// At most one event per tab per this interval; changes in between are folded into it.
const COALESCE_MS = 250;

/** @type {(name: string, params: object) => void} */
let emit = () => {};
/** tab → {console?, network?, timer} waiting to be sent */
const pending = new Map();
/** tab → when its last event went */
const lastSent = new Map();

/** Where events go (background.js: the bridge's port). */
export function setEmitter(fn) {
  emit = fn;
}

/** The tab's `kind` log ("console" | "network") has entries up to `seq`. */
export function changed(tabId, kind, seq) {
  let p = pending.get(tabId);
  if (!p) {
    p = {};
    pending.set(tabId, p);
    const wait = Math.max(0, (lastSent.get(tabId) ?? 0) + COALESCE_MS - Date.now());
    p.timer = setTimeout(() => flush(tabId), wait);
  }
  p[kind] = seq;
}

function flush(tabId) {
  const p = pending.get(tabId);
  pending.delete(tabId);
  if (!p) return;
  lastSent.set(tabId, Date.now());
  const params = { tabId };
  if (p.console !== undefined) params.console = p.console;
  if (p.network !== undefined) params.network = p.network;
  emit(EVENTS.OBSERVE_CHANGED, params);
}

api.tabs.onRemoved.addListener((tabId) => {
  const p = pending.get(tabId);
  if (p) clearTimeout(p.timer);
  pending.delete(tabId);
  lastSent.delete(tabId);
  // Every closed tab (an id only): a subscription to a tab that never logged ends too.
  emit(EVENTS.OBSERVE_CHANGED, { tabId, closed: true });
});
