// File uploads (upload_file_by_uid, upload_file): the server reads the files (its upload
// rule decides which, see mcp/src/upload.rs), sends them here in pieces (`page.uploadChunk`:
// each piece one request, which the host splits into frames under the native-messaging
// cap), and `page.upload` hands them to the page agent one file per call (page/upload.js),
// which sets them on the input or drops them on the target, then the action settles like
// any other. Staged pieces live in this background's memory, bounded and short-lived.
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

/** upload id → {tabId, files: [[base64 piece…]…], chars, at} */
const staged = new Map();

function stagedChars() {
  let n = 0;
  for (const u of staged.values()) n += u.chars;
  return n;
}

function expire(now = Date.now()) {
  for (const [id, u] of staged) if (now - u.at > STAGED_TTL_MS) staged.delete(id);
}

/** `page.uploadChunk`: one piece of one file, in order. */
export async function uploadChunk(params) {
  const tab = await resolveTab(params);
  const { upload: id, file, index, data } = params;
  if (!ID.test(id)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`upload` must be 8–64 of A-Z a-z 0-9 _ -");
  if (!Number.isInteger(file) || file < 0 || file > 99 || !Number.isInteger(index) || index < 0) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`file` and `index` must be small non-negative integers");
  }
  if (typeof data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`data` must be base64");
  expire();
  if (stagedChars() + data.length > MAX_STAGED_CHARS) {
    throw new HelperError(ERROR_CODES.PAYLOAD_TOO_LARGE, "too much is staged for uploads at once", "wait for the other uploads to finish, then try again");
  }
  let u = staged.get(id);
  if (!u) {
    if (file !== 0 || index !== 0) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${id} must start with file 0, piece 0`);
    u = { tabId: tab.id, files: [], chars: 0, at: Date.now() };
    staged.set(id, u);
  }
  if (u.tabId !== tab.id) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${id} belongs to another tab`);
  // Pieces come in order: the next piece of the last file, or piece 0 of the next file.
  const next = file === u.files.length ? 0 : file === u.files.length - 1 ? u.files[file].length : -1;
  if (index !== next) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `piece ${index} of file ${file} of upload ${id} arrived out of order`, "send the pieces in order");
  }
  if (file === u.files.length) u.files.push([]);
  u.files[file].push(data);
  u.chars += data.length;
  u.at = Date.now();
  return { upload: id, file, index, stagedBytes: Math.floor((u.chars * 3) / 4) };
}

/** Whether a file matches an `accept` list (`.png,image/*`); empty accepts everything. */
function accepted(accept, { name, type }) {
  const tokens = String(accept ?? "").split(",").map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (!tokens.length) return true;
  const lower = name.toLowerCase();
  return tokens.some((t) => (t.startsWith(".") ? lower.endsWith(t) : t.endsWith("/*") ? type.split("/")[0] === t.slice(0, -2) : t === type));
}

/** `page.upload`: the staged files onto the element `locator` names, then settle. */
export async function upload(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  return serialized(st, () => uploadOn(tab, st, params));
}

async function uploadOn(tab, st, params) {
  const files = params.files ?? [];
  const paths = params.paths ?? null;
  const u = paths ? null : staged.get(params.upload);
  if (!paths) staged.delete(params.upload);
  if (paths && (params.drop || paths.length !== files.length || !paths.every((p) => typeof p === "string" && p.startsWith("/")))) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`paths` takes one absolute path per file, and no drop", "stage the files with page.uploadChunk instead");
  }
  if (paths && !(await debuggerEnabled())) throw needsStaging("debugger mode is off");
  if (!paths && (!u || u.tabId !== tab.id || u.files.length !== files.length)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `upload ${params.upload} is not (fully) staged for tab ${tab.id}`, "stage every file with page.uploadChunk first");
  }
  const drop = Boolean(params.drop);
  const deadline = Date.now() + (params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS);
  const started = Date.now();
  const nav = watchNavigation(tab.id);
  try {
    const t = await target(tab, st, params.locator, params.nth);
    if (t.role) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "upload takes a ref, text=… or a CSS selector, not a role locator");
    let probe;
    for (;;) {
      probe = await callFrame(tab, st, t.frameId, "uploadProbe", [t.spec, drop]);
      if (probe === null) throw staleRef(params.locator, tab, "its frame is gone");
      if (probe.ambiguous) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${params.locator}\` matches ${probe.count} elements`, "pass nth, or a ref from take_snapshot", { matches: probe.ambiguous });
      if (probe.error) throw new HelperError(ERROR_CODES[probe.code] ?? ERROR_CODES.INVALID_ARGUMENT, `${probe.error}${probe.element ? `: ${probe.element.what}` : ""}`);
      if (!probe.waiting) break;
      if (t.spec.id != null && probe.waiting === "no element matches") throw staleRef(params.locator, tab, "the element is gone or belongs to an earlier page");
      if (Date.now() >= deadline) throw new HelperError(ERROR_CODES.TIMEOUT, `\`${params.locator}\` did not become ready for an upload: ${probe.waiting}`, "take a snapshot to see what the page shows");
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
    if (!probe.multiple && files.length > 1) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `${probe.element.what} takes one file (no \`multiple\`); ${files.length} were given`, "upload one file");
    }
    const warnings = files.filter((f) => !accepted(probe.accept, f)).map((f) => `${f.name} (${f.type}) is not in the input's accept list "${probe.accept}"`);
    if (t.line) await recheck(tab, st, { frameId: t.frameId, ordinal: t.ordinal, id: t.spec.id, ref: t.ref }, t.line);
    if (paths) {
      if (t.frameId !== 0) throw needsStaging("the input is inside a frame");
      const done = await viaDebugger(tab, st, t, paths);
      const waitedMs = Date.now() - started;
      const settled = await settle(tab, st, 0, 0, nav, deadline, done.doc);
      return { action: "upload", ref: `e${done.element.ref}`, element: done.element.what, files: done.files, accept: probe.accept, warnings, input: "trusted", via: "debugger", waitedMs, ...settled };
    }
    const metas = files.map((f) => ({ name: String(f.name), type: String(f.type ?? ""), size: Number(f.size), lastModified: Number(f.lastModified ?? Date.now()) }));
    let via = null;
    if (drop && family === "gecko") {
      // Firefox hides DataTransfer items a content script added from the page's handlers:
      // the page's own world builds this drop (mainDrop), on the element the agent names.
      via = `webext-mcp-drop-${crypto.randomUUID()}`;
      const withData = metas.map((m, k) => ({ ...m, data: u.files[k].join("") }));
      await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: [t.frameId] }, world: "MAIN", func: mainDrop, args: [via, withData] });
    } else {
      for (let k = 0; k < files.length; k++) {
        const out = await callFrame(tab, st, t.frameId, "uploadStage", [params.upload, k, metas[k], u.files[k].join("")]);
        if (!out || out.error) throw new HelperError(ERROR_CODES[out?.code] ?? ERROR_CODES.INTERNAL, out?.error ?? "the frame is gone");
      }
    }
    const sent = metas.map(({ name, size, type }) => ({ name, size, type }));
    const done = await callFrame(tab, st, t.frameId, "upload", [t.spec, params.upload, drop, via, sent]);
    if (!done?.done) throw new HelperError(ERROR_CODES[done?.code] ?? ERROR_CODES.SCRIPT_ERROR, done?.error ?? "the upload did not happen");
    const waitedMs = Date.now() - started;
    const settled = await settle(tab, st, t.frameId, ordinalOf(st, t.frameId), nav, deadline, done.doc);
    const ord = ordinalOf(st, t.frameId);
    const ref = ord ? `f${ord}e${done.element.ref}` : `e${done.element.ref}`;
    return { action: "upload", ref, element: done.element.what, files: done.files, accept: probe.accept, warnings, input: "synthetic", waitedMs, ...settled };
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
