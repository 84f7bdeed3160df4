// What the background keeps per tab: the element-id counter new documents are seeded from
// and the frame ordinals (`f<K>` of refs ↔ the browser's frameId), both persisted in
// storage.session so a restarted service worker never reuses an id; in memory, the tables of
// unchanged documents and the latest rendering (cursors name it); and a queue that runs the
// tab's actions one at a time.
import { api } from "./api.js";

const STORE_PREFIX = "tab.";

/** @type {Map<number, object>} */
const tabs = new Map();

api.tabs.onRemoved.addListener((tabId) => {
  tabs.delete(tabId);
  api.storage.session?.remove(STORE_PREFIX + tabId).catch(() => {});
});

export async function stateOf(tabId) {
  let st = tabs.get(tabId);
  if (st) return st;
  const key = STORE_PREFIX + tabId;
  const saved = (await api.storage.session?.get(key).catch(() => null))?.[key];
  st = tabs.get(tabId); // another call may have created it meanwhile
  if (st) return st;
  st = {
    next: saved?.next ?? 1,
    frames: saved?.frames ?? [[0, 0]],
    nextOrdinal: saved?.nextOrdinal ?? 1,
    snapshots: saved?.snapshots ?? 0,
    tables: new Map(),
    latest: null,
    // Renderings shown to the agent, newest first (recheck.js compares refs against them).
    shown: [],
    queue: Promise.resolve(),
  };
  tabs.set(tabId, st);
  return st;
}

/** The state if the tab has one (no storage read). */
export function existingState(tabId) {
  return tabs.get(tabId) ?? null;
}

export function persist(tabId, st) {
  const { next, frames, nextOrdinal, snapshots } = st;
  api.storage.session?.set({ [STORE_PREFIX + tabId]: { next, frames, nextOrdinal, snapshots } }).catch(() => {});
}

export function ordinalOf(st, frameId) {
  const hit = st.frames.find(([f]) => f === frameId);
  if (hit) return hit[1];
  const ordinal = frameId === 0 ? 0 : st.nextOrdinal++;
  st.frames.push([frameId, ordinal]);
  return ordinal;
}

export function frameIdOf(st, ordinal) {
  return st.frames.find(([, k]) => k === ordinal)?.[0];
}

/** Renderings remembered per tab: the latest snapshots and action summaries. */
const SHOWN_KEPT = 4;

/** Remembers a rendering (snapshot text or summary lines) as shown to the agent in `st`. */
export function rememberShown(st, text) {
  if (!text) return;
  st.shown = [text, ...(st.shown ?? []).filter((t) => t !== text)].slice(0, SHOWN_KEPT);
}

/** The line that showed `ref` most recently (`[ref] …` at a line's start), or null. */
export function shownLine(st, ref) {
  const needle = `[${ref}] `;
  for (const text of st.shown ?? []) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      let start = at;
      while (start > 0 && text[start - 1] === " ") start--;
      if (start !== 0 && text[start - 1] !== "\n") continue;
      const end = text.indexOf("\n", at);
      return text.slice(at, end < 0 ? undefined : end);
    }
  }
  return null;
}

/** Runs `fn` after the tab's earlier queued work: one action per tab at a time. */
export function serialized(st, fn) {
  const run = st.queue.then(fn, fn);
  st.queue = run.catch(() => {});
  return run;
}
