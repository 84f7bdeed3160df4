// Snapshots: collect every frame of a tab (collector.js), stitch and render them with the
// engine (wasm), cache the rendering for cursors, and resolve refs back to elements.
//
// Per tab the background owns (and keeps in storage.session, so a restarted service worker
// does not reuse ids): the element-id counter new documents are seeded from, and the frame
// ordinals (`f<K>` of refs ↔ the browser's frameId). In memory only: the tables of
// unchanged documents and the latest rendering, whose id cursors name.
import { api } from "./api.js";
import { collect, resolveId } from "./collector.js";
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES } from "./protocol.js";
import { describeTab, resolveTab } from "./tabs.js";

export const DEFAULT_MAX_BYTES = 16384;
const STORE_PREFIX = "snapshot.tab.";

/** @type {Map<number, TabState>} */
const tabs = new Map();

/**
 * @typedef {object} TabState
 * @property {number} next first id of the next new document
 * @property {Array<[number, number]>} frames [frameId, ordinal] pairs
 * @property {number} nextOrdinal
 * @property {number} snapshots snapshots taken (ids are `s<N>`)
 * @property {Map<string, object>} tables doc token → last table
 * @property {{id: string, text: string} | null} latest
 */

api.tabs.onRemoved.addListener((tabId) => {
  tabs.delete(tabId);
  api.storage.session?.remove(STORE_PREFIX + tabId).catch(() => {});
});

async function stateOf(tabId) {
  let st = tabs.get(tabId);
  if (st) return st;
  const key = STORE_PREFIX + tabId;
  const saved = (await api.storage.session?.get(key).catch(() => null))?.[key];
  st = {
    next: saved?.next ?? 1,
    frames: saved?.frames ?? [[0, 0]],
    nextOrdinal: saved?.nextOrdinal ?? 1,
    snapshots: saved?.snapshots ?? 0,
    tables: new Map(),
    latest: null,
  };
  tabs.set(tabId, st);
  return st;
}

function persist(tabId, st) {
  const { next, frames, nextOrdinal, snapshots } = st;
  api.storage.session?.set({ [STORE_PREFIX + tabId]: { next, frames, nextOrdinal, snapshots } }).catch(() => {});
}

function ordinalOf(st, frameId) {
  const hit = st.frames.find(([f]) => f === frameId);
  if (hit) return hit[1];
  const ordinal = frameId === 0 ? 0 : st.nextOrdinal++;
  st.frames.push([frameId, ordinal]);
  return ordinal;
}

function frameIdOf(st, ordinal) {
  return st.frames.find(([, k]) => k === ordinal)?.[0];
}

function scriptingError(e, tab) {
  const message = String(e?.message ?? e);
  return new HelperError(
    ERROR_CODES.PERMISSION_DENIED,
    `cannot read tab ${tab.id} (${tab.url || "no URL"}): ${message}`,
    "browser pages (chrome://, about:, the web store, other extensions) cannot be scripted; use a web page",
  );
}

const lexical = (a, b) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};

/** Collects every frame; returns frame tables ordered top first, then by path. */
async function collectFrames(tab, st, viewportOnly) {
  let results;
  try {
    results = await api.scripting.executeScript({
      target: { tabId: tab.id, allFrames: true },
      func: collect,
      args: [{ seed: st.next, viewportOnly, cached: [...st.tables.keys()], maxNodes: 200000 }],
    });
  } catch (e) {
    throw scriptingError(e, tab);
  }
  const frames = [];
  const tables = new Map();
  for (const r of results ?? []) {
    const out = r?.result;
    if (!out || typeof out !== "object") continue; // a frame that could not be scripted
    const table = out.same ? st.tables.get(out.doc) : out;
    if (!table) continue;
    tables.set(out.doc, table);
    st.next = Math.max(st.next, out.next);
    frames.push({ frameId: r.frameId ?? 0, path: out.path, table });
  }
  if (!frames.some((f) => f.frameId === 0)) {
    throw scriptingError(new Error("the top document did not answer"), tab);
  }
  st.tables = tables;
  frames.sort((a, b) => (a.frameId === 0 ? -1 : b.frameId === 0 ? 1 : lexical(a.path, b.path)));
  return frames.map((f) => ({ ...f, ordinal: ordinalOf(st, f.frameId) }));
}

export async function takeSnapshot(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const maxBytes = params.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 256) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`maxBytes` must be an integer ≥ 256");
  }
  const eng = await engine();
  if (params.cursor != null) return nextPage(eng, tab, st, params.cursor, maxBytes);

  const redact = params.redact ?? "safe";
  if (!["safe", "off"].includes(redact)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown redact mode \`${redact}\``, "use safe or off");
  }
  const t0 = performance.now();
  const frames = await collectFrames(tab, st, Boolean(params.viewportOnly));
  const t1 = performance.now();
  const out = eng.snapshot({
    frames: frames.map(({ ordinal, path, table }) => ({
      ordinal,
      path,
      url: table.url,
      title: table.title,
      viewport: table.viewport,
      nodes: table.nodes,
    })),
    options: {
      interactiveOnly: Boolean(params.interactiveOnly),
      viewportOnly: Boolean(params.viewportOnly),
      root: params.root ?? null,
      maxDepth: params.maxDepth ?? null,
      redact,
      collapse: true,
    },
  });
  const t2 = performance.now();
  st.snapshots += 1;
  const id = `s${st.snapshots}`;
  st.latest = { id, text: out.text };
  persist(tab.id, st);
  const first = eng.page(out.text, 0, maxBytes);
  return {
    snapshotId: id,
    tab: describeTab(tab),
    visibility: frames[0].table.visibility,
    text: first.chunk,
    offset: 0,
    nextCursor: first.nextOffset == null ? null : `${id}:${first.nextOffset}`,
    totalBytes: new TextEncoder().encode(out.text).length,
    nodes: out.nodes,
    refs: out.refs,
    collapsed: out.collapsed,
    frames: frames.length,
    timings: { collectMs: Math.round(t1 - t0), engineMs: Math.round(t2 - t1) },
  };
}

function nextPage(eng, tab, st, cursor, maxBytes) {
  const m = /^(s\d+):(\d+)$/.exec(cursor);
  if (!m) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${cursor}\` is not a snapshot cursor`, "pass the nextCursor of the previous page");
  }
  const [, id, offsetText] = m;
  if (!st.latest || st.latest.id !== id) {
    throw new HelperError(
      ERROR_CODES.STALE,
      `snapshot ${id} of tab ${tab.id} was superseded${st.latest ? ` by ${st.latest.id}` : ""}`,
      "take a new snapshot and page through it",
    );
  }
  const offset = Number(offsetText);
  const pageOut = eng.page(st.latest.text, offset, maxBytes);
  return {
    snapshotId: id,
    tab: describeTab(tab),
    text: pageOut.chunk,
    offset,
    nextCursor: pageOut.nextOffset == null ? null : `${id}:${pageOut.nextOffset}`,
    totalBytes: new TextEncoder().encode(st.latest.text).length,
  };
}

export async function clearSnapshot(params) {
  const tab = await resolveTab(params);
  const st = tabs.get(tab.id);
  const had = Boolean(st?.latest || st?.tables.size);
  if (st) {
    st.latest = null;
    st.tables.clear();
  }
  return { cleared: had };
}

/** `e12` → {ordinal: 0, id: 12}; `f2e7` → {ordinal: 2, id: 7}. */
export function parseRef(ref) {
  const m = /^(?:f(\d+))?e(\d+)$/.exec(ref ?? "");
  if (!m) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${ref}\` is not a ref`, "refs look like e12 or f2e7 (from take_snapshot)");
  }
  return { ordinal: m[1] === undefined ? 0 : Number(m[1]), id: Number(m[2]) };
}

/**
 * Runs `func(id, ...args)` in the frame a ref belongs to; STALE when the frame or element is
 * gone (`func` answers `{found: false}`).
 */
export async function inRefFrame(tab, ref, func, args = []) {
  const { ordinal, id } = parseRef(ref);
  const st = await stateOf(tab.id);
  const frameId = frameIdOf(st, ordinal);
  if (frameId === undefined) throw staleRef(ref, tab, "its frame is unknown");
  let results;
  try {
    results = await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: [frameId] }, func, args: [id, ...args] });
  } catch (e) {
    throw staleRef(ref, tab, `its frame is gone (${e?.message ?? e})`);
  }
  const out = results?.[0]?.result;
  if (!out?.found) throw staleRef(ref, tab, "the element is gone or belongs to an earlier page");
  return { out, ordinal, frameId };
}

function staleRef(ref, tab, why) {
  return new HelperError(ERROR_CODES.STALE, `ref ${ref} no longer names an element in tab ${tab.id}: ${why}`, "take a new snapshot and use its refs", { ref });
}

export async function resolveRef(params) {
  const tab = await resolveTab(params);
  const { out, ordinal, frameId } = await inRefFrame(tab, params.ref, resolveId, [true]);
  return {
    ref: params.ref,
    selector: out.selector,
    shadowPath: out.shadowPath,
    unique: out.unique,
    tag: out.tag,
    frame: { ordinal, frameId, url: out.url },
  };
}
