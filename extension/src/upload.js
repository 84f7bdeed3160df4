// File uploads (upload_file_by_uid, upload_file): the server reads the files (its upload
// rule decides which, see mcp/src/upload.rs) and opens an upload (`page.uploadOpen`): the
// element is resolved first (auto-waited, a ref re-checked) and the upload bound to it in
// its frame's agent (page/upload.js). Then each piece (`page.uploadChunk`, one request of
// one native-messaging frame) goes straight to that frame, where it is decoded as it
// arrives, and `page.upload` sets the files on the same element (or drops them on it); the
// action settles like any other. A Firefox drop is built in the page's main world, so its
// pieces wait in this background instead. Staged memory is bounded and short-lived; a
// cancelled, finished or expired upload drops every piece that still arrives for it.
import { api, family } from "./api.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES } from "./protocol.js";
import { DEFAULT_ACTION_TIMEOUT_MS, settle, target } from "./actions.js";
import { debuggerEnabled, withDebugger } from "./debugger.js";
import { callFrame } from "./inject.js";
import { recheck } from "./recheck.js";
import { staleRef } from "./snapshot.js";
import { resolveTab, watchNavigation } from "./tabs.js";
import { ordinalOf, serialized, stateOf } from "./tabstate.js";

const ID = /^[A-Za-z0-9_-]{8,64}$/;
/** Base64 characters staged at once, across uploads (about 96 MiB of files). */
const MAX_STAGED_CHARS = 128 * 1024 * 1024;
const STAGED_TTL_MS = 60_000;
const RETRY_MS = 50;
const MAX_PIECES = 1 << 16;

/**
 * upload id → {tab, st, frameId, inPage, metas, pieces: [[base64…]…] (helper staging
 * only), chars, at}. `inPage`: the pieces live decoded in the frame's agent.
 */
const staged = new Map();

function stagedChars() {
  let n = 0;
  for (const u of staged.values()) n += u.chars;
  return n;
}

function expire(now = Date.now()) {
  for (const [id, u] of staged) if (now - u.at > STAGED_TTL_MS) forget(id);
}

/** Drops upload `id` here and, best effort, in its frame (a closed tab holds nothing). */
function forget(id) {
  const u = staged.get(id);
  staged.delete(id);
  closePort(u);
  if (u) callFrame(u.tab, u.st, u.frameId, "uploadCancel", [id]).catch(() => {});
  return Boolean(u);
}

function checkId(id) {
  if (!ID.test(id ?? "")) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`upload` must be 8–64 of A-Z a-z 0-9 _ -");
}

function metasOf(files) {
  if (!Array.isArray(files) || files.length > 100) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`files` takes at most 100 files");
  return files.map((f) => {
    const size = Number(f?.size);
    if (!Number.isSafeInteger(size) || size < 0) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "each file needs a whole `size` in bytes");
    return { name: String(f.name), type: String(f.type ?? ""), size, lastModified: Number(f.lastModified ?? Date.now()) };
  });
}

/**
 * The upload's element, once ready: `open` names the agent call that probes it (and, for
 * an upload staged in the page, opens it there at once). Waits until `deadline`.
 */
async function ready(tab, st, t, params, open) {
  const deadline = Date.now() + (params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS);
  for (;;) {
    const probe = await callFrame(tab, st, t.frameId, open[0], open[1]);
    if (probe === null) throw staleRef(params.locator, tab, "its frame is gone");
    if (probe.ambiguous) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${params.locator}\` matches ${probe.count} elements`, "pass nth, or a ref from take_snapshot", { matches: probe.ambiguous });
    if (probe.error) throw new HelperError(ERROR_CODES[probe.code] ?? ERROR_CODES.INVALID_ARGUMENT, `${probe.error}${probe.element ? `: ${probe.element.what}` : ""}`, probe.hint);
    if (!probe.waiting) return probe;
    if (t.spec.id != null && probe.waiting === "no element matches") throw staleRef(params.locator, tab, "the element is gone or belongs to an earlier page");
    if (Date.now() >= deadline) throw new HelperError(ERROR_CODES.TIMEOUT, `\`${params.locator}\` did not become ready for an upload: ${probe.waiting}`, "take a snapshot to see what the page shows");
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

async function located(tab, st, params) {
  const t = await target(tab, st, params.locator, params.nth);
  if (t.role) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "upload takes a ref, text=… or a CSS selector, not a role locator");
  return t;
}

/** `page.uploadOpen`: resolves the element and binds upload `upload` to it. */
export async function uploadOpen(params) {
  const tab = await resolveTab(params);
  checkId(params.upload);
  const metas = metasOf(params.files);
  const st = await stateOf(tab.id);
  return serialized(st, async () => {
    expire();
    const id = params.upload;
    if (staged.has(id)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${id} is already open`, "draw a new upload id");
    const drop = Boolean(params.drop);
    const t = await located(tab, st, params);
    // Firefox hides DataTransfer items a content script added from the page's handlers, so
    // a Firefox drop is built in the page's main world (mainDrop): its pieces wait here.
    const inPage = !(drop && family === "gecko");
    const probe = await ready(tab, st, t, params, ["uploadOpen", [id, t.spec, drop, metas]]);
    try {
      if (t.line) await recheck(tab, st, { frameId: t.frameId, ordinal: t.ordinal, id: t.spec.id, ref: t.ref }, t.line);
    } catch (e) {
      await callFrame(tab, st, t.frameId, "uploadCancel", [id]).catch(() => {});
      throw e;
    }
    staged.set(id, { tab, st, frameId: t.frameId, inPage, metas, pieces: metas.map(() => []), chars: 0, at: Date.now(), port: null, portGone: false, seq: 0, waiting: new Map() });
    const warnings = metas.filter((f) => !accepted(probe.accept, f)).map((f) => `${f.name} (${f.type}) is not in the input's accept list "${probe.accept}"`);
    return { upload: id, element: probe.element.what, accept: probe.accept, warnings, staging: inPage ? "page" : "helper" };
  });
}

function oneFile(probe, n) {
  return new HelperError(ERROR_CODES.INVALID_ARGUMENT, `${probe.element.what} takes one file (no \`multiple\`); ${n} were given`, "upload one file");
}

/**
 * `page.uploadChunk`: one piece of one file of an open upload, in any order. `timings`:
 * `helperMs` since the request reached this handler's guard (`meta.receivedAt`), `pageMs`
 * the hand-over to the frame, `decodeMs` the agent's decode.
 */
export async function uploadChunk(params, meta = {}) {
  const receivedAt = meta.receivedAt ?? performance.now();
  const { upload: id, file, index, data } = params;
  checkId(id);
  if (!Number.isInteger(file) || file < 0 || file > 99 || !Number.isInteger(index) || index < 0 || index >= MAX_PIECES) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`file` and `index` must be small non-negative integers");
  }
  if (typeof data !== "string") throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`data` must be base64");
  expire();
  const u = staged.get(id);
  if (!u) throw notOpen(id);
  const tabId = params.tabId ?? (await resolveTab(params)).id;
  if (u.tab.id !== tabId) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${id} belongs to another tab`, "send the pieces to the tab the upload was opened in");
  if (file >= u.metas.length) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${id} has ${u.metas.length} file(s), not ${file + 1}`);
  if (stagedChars() + data.length > MAX_STAGED_CHARS) {
    forget(id);
    throw new HelperError(ERROR_CODES.PAYLOAD_TOO_LARGE, "too much is staged for uploads at once; this upload was dropped", "wait for the other uploads to finish, then try again");
  }
  u.chars += data.length;
  u.at = Date.now();
  if (!u.inPage) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || u.pieces[file][index] !== undefined) {
      forget(id);
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `piece ${index} of file ${file} is not base64, or came twice; upload ${id} was dropped`);
    }
    u.pieces[file][index] = data;
    return { upload: id, file, index, stagedBytes: Math.floor((u.chars * 3) / 4) };
  }
  const handedAt = performance.now();
  const swIn = performance.timeOrigin + receivedAt;
  const handed = performance.timeOrigin + handedAt;
  const out = await handOver(u, id, file, index, data);
  if (!out || out.error) {
    forget(id);
    throw new HelperError(ERROR_CODES[out?.code] ?? ERROR_CODES.NOT_FOUND, `${out?.error ?? "the frame of the upload is gone"}; upload ${id} was dropped`, "open the upload again");
  }
  const now = performance.now();
  const timings = { helperMs: Math.round(now - receivedAt), pageMs: Math.round(now - handedAt), decodeMs: out.decodeMs, trace: { swIn, handed, agentIn: out.agentIn, agentOut: out.agentOut, swBack: performance.timeOrigin + now } };
  return { upload: id, file, index, stagedBytes: out.staged, timings };
}

/**
 * One piece to the upload's frame: over the upload's port in Chromium (a port message
 * costs far less than an `executeScript` argument of 1 MB there), else by `executeScript`.
 * Resolves to the agent's answer, or `null` when the frame is gone.
 */
function handOver(u, id, file, index, data) {
  const port = portOf(u, id);
  if (!port) return callFrame(u.tab, u.st, u.frameId, "uploadPiece", [id, file, index, data]);
  const seq = ++u.seq;
  return new Promise((resolve) => {
    u.waiting.set(seq, resolve);
    port.postMessage({ seq, file, index, data });
  });
}

/** The port to the agent of upload `id` (Chromium), opened on first use. */
function portOf(u, id) {
  if (family === "gecko" || u.portGone) return null;
  if (u.port) return u.port;
  const port = api.tabs.connect(u.tab.id, { frameId: u.frameId, name: `webext-mcp-upload:${id}` });
  port.onMessage.addListener((m) => {
    const resolve = u.waiting.get(m?.seq);
    u.waiting.delete(m?.seq);
    resolve?.(m.out ?? null);
  });
  port.onDisconnect.addListener(() => {
    u.port = null;
    u.portGone = true;
    for (const resolve of u.waiting.values()) resolve(null);
    u.waiting.clear();
  });
  u.port = port;
  return port;
}

function closePort(u) {
  try {
    u?.port?.disconnect();
  } catch {
    // already closed
  }
}

/** `page.uploadCancel`: drops an open upload, here and in its frame. */
export async function uploadCancel(params) {
  checkId(params.upload);
  const u = staged.get(params.upload);
  staged.delete(params.upload);
  closePort(u);
  if (u) await callFrame(u.tab, u.st, u.frameId, "uploadCancel", [params.upload]).catch(() => {});
  return { upload: params.upload, cancelled: Boolean(u) };
}

function notOpen(id) {
  return new HelperError(
    ERROR_CODES.NOT_FOUND,
    `upload ${id} is not open (never opened, cancelled, finished or expired): the piece was dropped`,
    "open the upload with page.uploadOpen, then send its pieces",
  );
}

/** Whether a file matches an `accept` list (`.png,image/*`); empty accepts everything. */
function accepted(accept, { name, type }) {
  const tokens = String(accept ?? "").split(",").map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (!tokens.length) return true;
  const lower = name.toLowerCase();
  return tokens.some((t) => (t.startsWith(".") ? lower.endsWith(t) : t.endsWith("/*") ? type.split("/")[0] === t.slice(0, -2) : t === type));
}

/** `page.upload`: the files of an open upload onto its element, then settle. */
export async function upload(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const u = params.paths ? null : staged.get(params.upload);
  if (!params.paths) staged.delete(params.upload);
  closePort(u);
  return serialized(st, () => uploadOn(tab, st, params, u)).catch((e) => {
    if (u) callFrame(u.tab, u.st, u.frameId, "uploadCancel", [params.upload]).catch(() => {});
    throw e;
  });
}

async function uploadOn(tab, st, params, u) {
  const paths = params.paths ?? null;
  if (paths) return byPaths(tab, st, params, paths);
  if (!u || u.tab.id !== tab.id) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${params.upload} is not open for tab ${tab.id}`, "open it with page.uploadOpen and send its pieces first");
  if (!u.inPage && u.pieces.some((p, k) => !complete(p, u.metas[k].size))) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${params.upload} is missing pieces`, "send every piece, then page.upload");
  const drop = Boolean(params.drop);
  const deadline = Date.now() + (params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS);
  const started = Date.now();
  const nav = watchNavigation(tab.id);
  try {
    const t = await located(tab, st, params);
    if (t.frameId !== u.frameId) throw redirected(params);
    if (t.line) await recheck(tab, st, { frameId: t.frameId, ordinal: t.ordinal, id: t.spec.id, ref: t.ref }, t.line);
    const metas = u.metas;
    let via = null;
    if (!u.inPage) {
      // The bound element, still ready? Then the main world gets the files and the agent
      // fires `via` on that element (page/upload.js).
      const probe = await callFrame(tab, st, t.frameId, "uploadProbe", [t.spec, drop, params.upload]);
      if (!probe?.element || probe.error || probe.waiting) throw new HelperError(ERROR_CODES.STALE, `\`${params.locator}\` is no longer ready for the upload: ${probe?.error ?? probe?.waiting ?? "its frame is gone"}`, "take a snapshot and upload again");
      via = `webext-mcp-drop-${crypto.randomUUID()}`;
      const withData = metas.map((m, k) => ({ ...m, data: u.pieces[k].join("") }));
      await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: [t.frameId] }, world: "MAIN", func: mainDrop, args: [via, withData] });
    }
    const sent = metas.map(({ name, size, type }) => ({ name, size, type }));
    const done = await callFrame(tab, st, t.frameId, "upload", [t.spec, params.upload, drop, via, sent]);
    if (!done?.done) throw new HelperError(ERROR_CODES[done?.code] ?? ERROR_CODES.SCRIPT_ERROR, done?.error ?? "the upload did not happen", done?.hint);
    const waitedMs = Date.now() - started;
    const settled = await settle(tab, st, t.frameId, ordinalOf(st, t.frameId), nav, deadline, done.doc);
    const ord = ordinalOf(st, t.frameId);
    const ref = ord ? `f${ord}e${done.element.ref}` : `e${done.element.ref}`;
    return { action: "upload", ref, element: done.element.what, files: done.files, input: "synthetic", waitedMs, ...settled };
  } finally {
    nav.stop();
  }
}

/** Whether the pieces of a file kept here have no hole and decode to `size` bytes. */
function complete(pieces, size) {
  if (!pieces.length) return size === 0;
  let chars = 0;
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i] === undefined) return false;
    chars += pieces[i].length;
  }
  const last = pieces[pieces.length - 1];
  const pad = last.endsWith("==") ? 2 : last.endsWith("=") ? 1 : 0;
  return (chars / 4) * 3 - pad === size;
}

function redirected(params) {
  return new HelperError(
    ERROR_CODES.STALE,
    `\`${params.locator}\` now names an element in another frame than the one upload ${params.upload} was opened for; nothing was uploaded`,
    "take a snapshot and upload again",
  );
}

/** Chromium debugger mode: the input's files set from the admitted paths. */
async function byPaths(tab, st, params, paths) {
  const files = params.files ?? [];
  if (params.drop || paths.length !== files.length || !paths.every((p) => typeof p === "string" && p.startsWith("/"))) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`paths` takes one absolute path per file, and no drop", "stage the files with page.uploadOpen and page.uploadChunk instead");
  }
  if (!(await debuggerEnabled())) throw needsStaging("debugger mode is off");
  const deadline = Date.now() + (params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS);
  const started = Date.now();
  const nav = watchNavigation(tab.id);
  try {
    const t = await located(tab, st, params);
    const probe = await ready(tab, st, t, params, ["uploadProbe", [t.spec, false]]);
    if (!probe.multiple && files.length > 1) throw oneFile(probe, files.length);
    const warnings = metasOf(files).filter((f) => !accepted(probe.accept, f)).map((f) => `${f.name} (${f.type}) is not in the input's accept list "${probe.accept}"`);
    if (t.line) await recheck(tab, st, { frameId: t.frameId, ordinal: t.ordinal, id: t.spec.id, ref: t.ref }, t.line);
    if (t.frameId !== 0) throw needsStaging("the input is inside a frame");
    const done = await viaDebugger(tab, st, t, paths);
    const waitedMs = Date.now() - started;
    const settled = await settle(tab, st, 0, 0, nav, deadline, done.doc);
    return { action: "upload", ref: `e${done.element.ref}`, element: done.element.what, files: done.files, accept: probe.accept, warnings, input: "trusted", via: "debugger", waitedMs, ...settled };
  } finally {
    nav.stop();
  }
}

/** The answer that sends the server back to staging the files (its fallback). */
function needsStaging(why) {
  return new HelperError(ERROR_CODES.UNSUPPORTED, `DOM.setFileInputFiles cannot be used here: ${why}`, "stage the files with page.uploadChunk", { stage: true });
}

/**
 * Chromium debugger mode: the browser itself reads the files (`DOM.setFileInputFiles`), as
 * if the user had picked them, and fires trusted `input` and `change`. The element the agent
 * resolved is handed to the debugger by an event: a main-world listener (a promise held by
 * the debugger, no page global) receives a one-use, randomly named event the isolated-world
 * agent fires on it, and the debugger resolves that promise to the element's object id.
 */
async function viaDebugger(tab, st, t, paths) {
  const channel = `webext-mcp-files-${crypto.randomUUID()}`;
  return withDebugger(tab.id, async (send) => {
    const armed = await send("Runtime.evaluate", {
      expression: `new Promise((resolve) => document.addEventListener(${JSON.stringify(channel)}, (e) => { e.stopImmediatePropagation(); resolve(e.composedPath()[0]); }, { once: true, capture: true }))`,
      returnByValue: false,
    });
    const promiseObjectId = armed.result?.objectId;
    if (!promiseObjectId) throw new HelperError(ERROR_CODES.SCRIPT_ERROR, "the debugger could not arm the element hand-over");
    const pointed = await callFrame(tab, st, 0, "uploadPoint", [t.spec, channel]);
    if (!pointed?.fired) throw new HelperError(ERROR_CODES[pointed?.code] ?? ERROR_CODES.SCRIPT_ERROR, pointed?.error ?? "the element is gone");
    // Dispatched synchronously: resolved by now, unless the page stopped the event first.
    const got = await Promise.race([
      send("Runtime.awaitPromise", { promiseObjectId, returnByValue: false }),
      new Promise((r) => setTimeout(() => r(null), 2000)),
    ]);
    const objectId = got?.result?.objectId;
    if (!objectId || got.result.subtype !== "node") {
      throw new HelperError(ERROR_CODES.SCRIPT_ERROR, "the page kept the element from the debugger (it stopped the hand-over event)", "retry with debugger mode off (the files are then set from the page)");
    }
    try {
      await send("DOM.setFileInputFiles", { files: paths, objectId });
    } catch (e) {
      throw new HelperError(ERROR_CODES.SCRIPT_ERROR, `the browser refused the files: ${e?.message ?? e}`, "check that the browser can read the files (a sandboxed browser sees only some folders)");
    } finally {
      await send("Runtime.releaseObject", { objectId }).catch(() => {});
    }
    const seen = await callFrame(tab, st, 0, "uploadSeen", [t.spec]);
    if (!seen?.files) throw new HelperError(ERROR_CODES.SCRIPT_ERROR, seen?.error ?? "the element is gone");
    return { element: seen.element, doc: pointed.doc, files: seen.files };
  });
}

/**
 * Injected into the page's main world (self-contained): builds the files there and, once
 * the agent fires `channel` on the target element, drops them on it. One use; the page's
 * handlers see the files as a user's drop would show them.
 */
function mainDrop(channel, files) {
  const decode = (b64) => {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(b64);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  const built = files.map((f) => new File([decode(f.data)], f.name, { type: f.type, lastModified: f.lastModified }));
  document.addEventListener(
    channel,
    (e) => {
      e.stopImmediatePropagation();
      const el = e.composedPath()[0];
      const data = new DataTransfer();
      for (const f of built) data.items.add(f);
      const r = el.getBoundingClientRect();
      const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
      for (const type of ["dragenter", "dragover", "drop"]) {
        el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: data, ...at }));
      }
    },
    { once: true, capture: true },
  );
}
