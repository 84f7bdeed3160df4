// Screenshots (`page.screenshot`): the viewport, the whole page, a clip or one element of any
// tab, background tabs included, without activating the tab or focusing its window.
//
// How, per browser (docs/screenshots-and-storage.md says why; docs/bench/pages.md has the measurements):
// - Firefox: `tabs.captureTab(tabId, {rect, scale})` draws any tab, hidden or not, any part
//   of its document (full page and clips included).
// - Chromium draws no hidden tab: a hidden tab produces no compositor frames, and the
//   debugger's `Page.captureScreenshot` of one never answers (every variant measured). So a
//   tab is first made visible without touching the user's focus (`madeVisible`): the active
//   tab of a window as it is; a tab of the agent's own unfocused window (agentwindow.js) made
//   active there; a hidden tab the agent opened, moved into that window first. Then
//   `tabs.captureVisibleTab(windowId)` (at most 2 calls a second: one queue for every
//   client); full pages and clips beyond the viewport through the debugger
//   (`captureBeyondViewport`, attached for that one capture; Chromium shows its "started
//   debugging this browser" bar on a desktop meanwhile).
// Sensitive fields (mask.js) are masked while the capture runs unless `redact: "off"`.
// The image is then fitted to the budget (long side, bytes) with an OffscreenCanvas.
import { api, family, hasDebugger } from "./api.js";
import { inAgentWindow, moveToAgentWindow, showInAgentWindow } from "./agentwindow.js";
import { withDebugger } from "./debugger.js";
import { HelperError } from "./errors.js";
import { callFrame, unscriptable } from "./inject.js";
import { maskFields, maskPainted } from "./mask.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { stateOf } from "./tabstate.js";
import { inRefFrame, parseRef } from "./snapshot.js";
import { describeTab, resolveTab } from "./tabs.js";
import { chainOffset, frameChain, framePainted } from "./framechain.js";

const SPEC = METHOD_SPECS["page.screenshot"].params;
const SCREENSHOT_MAX_BYTES = SPEC.maxBytes.default;
const HARD_MAX_BYTES = SPEC.maxBytes.max;
const DEFAULT_MAX_WIDTH = SPEC.maxWidth.default;
/** The tallest full page drawn (CSS px); browsers refuse bigger canvases. */
const PAGE_HEIGHT_CAP = 16_384;
/** `captureVisibleTab` allows 2 calls per second per extension (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND). */
const QUOTA_WINDOW_MS = 1000;
const QUOTA_CALLS = 2;
const QUOTA_MARGIN_MS = 30;

/** Every capture runs in this queue, one at a time: the quota and one debugger session per tab. */
let queue = Promise.resolve();
const recentVisibleCaptures = [];

function inQueue(fn) {
  const run = queue.then(fn);
  queue = run.catch(() => {});
  return run;
}

async function quotaSlot() {
  if (recentVisibleCaptures.length >= QUOTA_CALLS) {
    const wait = recentVisibleCaptures[0] + QUOTA_WINDOW_MS + QUOTA_MARGIN_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    recentVisibleCaptures.shift();
  }
  recentVisibleCaptures.push(Date.now());
}

/**
 * Makes sure Chromium paints `tab` without touching the user's focus, and says how: the
 * active tab of a window (`visibleTab`); a tab of the agent window, made active there
 * (`agentWindow`); a hidden tab the agent opened or navigated, first moved into the agent
 * window (`moved`). Chromium draws no hidden tab (the debugger's capture of one never
 * answers, docs/screenshots-and-storage.md), so a hidden tab of the user's own is UNSUPPORTED.
 */
async function madeVisible(tab) {
  const win = await api.windows.get(tab.windowId).catch(() => null);
  if (tab.active && win && win.state !== "minimized") return { mechanism: "visibleTab" };
  if (await inAgentWindow(tab)) return { mechanism: "agentWindow", painted: await showInAgentWindow(tab) };
  if ((await stateOf(tab.id)).agent) {
    await moveToAgentWindow(tab);
    return { mechanism: "agentWindow", moved: true, painted: await showInAgentWindow(tab) };
  }
  throw new HelperError(
    ERROR_CODES.UNSUPPORTED,
    `tab ${tab.id} is a hidden tab of your window, and Chromium draws no hidden tab`,
    "open the page with new_page (its tabs move to the agent's own window for screenshots; window: \"agent\" opens them there), or select_page it first (that focuses it)",
  );
}
function checkOptions(params) {
  const maxBytes = params.maxBytes ?? SCREENSHOT_MAX_BYTES;
  const maxWidth = params.maxWidth ?? DEFAULT_MAX_WIDTH;
  const format = params.format ?? "auto";
  if (!["auto", "png", "jpeg"].includes(format)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown format \`${format}\``, "use png, jpeg, or leave it out (the smaller within the budget)");
  }
  if (params.quality != null && (params.quality < 1 || params.quality > 100)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`quality` is 1–100", "e.g. 80");
  }
  const clip = params.clip ?? null;
  if (clip) {
    const ok = ["x", "y", "width", "height"].every((k) => typeof clip[k] === "number" && Number.isFinite(clip[k]));
    if (!ok || clip.width < 1 || clip.height < 1 || clip.x < 0 || clip.y < 0) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`clip` needs numbers x, y ≥ 0 and width, height ≥ 1 (CSS pixels of the page)", "e.g. {\"x\":0,\"y\":0,\"width\":400,\"height\":300}");
    }
  }
  const set = [params.fullPage && "fullPage", clip && "clip", params.ref != null && "ref"].filter(Boolean);
  if (set.length > 1) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `give at most one of fullPage, clip and ref (got ${set.join(", ")})`);
  if (!Number.isInteger(maxBytes) || maxBytes < SPEC.maxBytes.min || maxBytes > HARD_MAX_BYTES) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`maxBytes\` is ${SPEC.maxBytes.min}–${HARD_MAX_BYTES}`, "leave it out for the default budget");
  }
  if (!Number.isInteger(maxWidth) || maxWidth < SPEC.maxWidth.min || maxWidth > SPEC.maxWidth.max) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`maxWidth\` is ${SPEC.maxWidth.min}–${SPEC.maxWidth.max}`, "leave it out for 1568");
  }
  return { maxBytes, maxWidth, format, quality: params.quality ?? null, clip };
}

export async function screenshot(params) {
  const tab = await resolveTab(params);
  const opts = checkOptions(params);
  const started = performance.now();
  const redact = (params.redact ?? SPEC.redact.default) !== "off";
  // The region in CSS px of the top document, relative to the viewport (`view`) or to the
  // page (`page`); null: the viewport.
  let region = null;
  let element = null;
  let inFrame = 0;
  if (params.ref != null) {
    ({ region, element, inFrame } = await elementRegion(tab, params.ref, params.padding ?? SPEC.padding.default));
  }
  const info = await pageInfo(tab, redact);
  try {
    if (opts.clip) region = { space: "page", ...opts.clip };
    if (params.fullPage) {
      const height = Math.min(info.scrollHeight, PAGE_HEIGHT_CAP);
      region = { space: "page", x: 0, y: 0, width: info.scrollWidth, height, truncated: info.scrollHeight > PAGE_HEIGHT_CAP };
    }
    // Only the capture waits in the queue; a capture that never answers frees it after
    // CAPTURE_DEADLINE_MS, so one stuck tab cannot stop every other client's screenshots.
    const { mechanism, moved, now, raw, captureMs } = await inQueue(() =>
      withDeadline(
        (async () => {
          const at = performance.now();
          const shown = family === "gecko" ? { mechanism: "captureTab" } : await madeVisible(tab);
          // A cross-origin frame just scrolled into view paints in its own process, later.
          if (inFrame) await framePainted(tab, inFrame);
          // Chromium captures the last frame its compositor drew: one drawn before the mask
          // would show the secrets.
          if (family !== "gecko" && redact && info.masked) await maskPainted(tab, info);
          // A moved tab has another window, and maybe another viewport size.
          const now = shown.moved ? await api.tabs.get(tab.id) : tab;
          const seen = shown.moved ? { ...(await maskFields(now, null)), masked: info.masked } : info;
          const raw = await capture(now, shown.mechanism, region, seen, opts);
          return { mechanism: raw.used ?? shown.mechanism, moved: Boolean(shown.moved), now, raw, captureMs: performance.now() - at };
        })(),
        tab,
      ),
    );
    const fitted = await fit(raw, opts);
    return {
      tab: describeTab(now),
      mechanism,
      format: fitted.format,
      width: fitted.width,
      height: fitted.height,
      bytes: lengthOf(fitted),
      scaled: fitted.scaled,
      masked: redact ? info.masked : 0,
      ...(moved && { moved: true }),
      ...(element && { element }),
      ...(region?.truncated && { truncated: true }),
      data: fitted.b64 ?? base64(fitted.bytes),
      timings: { captureMs: Math.round(captureMs), encodeMs: Math.round(fitted.encodeMs), helperMs: Math.round(performance.now() - started) },
    };
  } finally {
    if (redact && info.held) await maskFields(tab, false).catch(() => {});
  }
}

const CAPTURE_DEADLINE_MS = 12_000;

function withDeadline(work, tab) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new HelperError(ERROR_CODES.TIMEOUT, `the browser did not capture tab ${tab.id} within ${CAPTURE_DEADLINE_MS} ms`, "retry; select_page the tab if it keeps failing")), CAPTURE_DEADLINE_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Viewport and page size (and the mask, when asked) from the top document. */
async function pageInfo(tab, redact) {
  try {
    return redact ? await maskFields(tab, true) : await maskFields(tab, null);
  } catch (e) {
    throw unscriptable(tab, e);
  }
}

/**
 * The element's box (CSS px of the top document's viewport, after it was scrolled into
 * view), padded. A ref inside frames (same-origin or not) is offset by its frame chain: each
 * frame element's content box in its parent's viewport (frameChain.js).
 */
async function elementRegion(tab, ref, padding) {
  const { id } = parseRef(ref);
  // STALE when the ref names no live element (the same answer as every ref tool).
  const { frameId } = await inRefFrame(tab, ref, "resolveId", [false]);
  const chain = frameId === 0 ? [] : await frameChain(tab, frameId);
  await chainOffset(tab, chain, true);
  const st = await stateOf(tab.id);
  const probe = await callFrame(tab, st, frameId, "probe", [{ id }, "any"]);
  if (!probe?.rect) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `ref ${ref} cannot be shown: ${probe?.waiting ?? probe?.error ?? "it has no box"}`, "hidden and empty elements have no screenshot; take a new snapshot");
  }
  const offset = await chainOffset(tab, chain, false);
  const [x, y, w, h] = probe.rect;
  const [left, top] = [x + offset.x - padding, y + offset.y - padding];
  const region = { space: "view", x: Math.max(0, left), y: Math.max(0, top), width: w + 2 * padding + Math.min(0, left), height: h + 2 * padding + Math.min(0, top) };
  return { region, inFrame: frameId, element: { ...probe.element, ...(chain.length && { frames: chain.length }) } };
}

/** `{bytes, mime, width, height}` of the raw capture (PNG unless jpeg was asked). */
async function capture(tab, mechanism, region, info, opts) {
  const format = opts.format === "jpeg" ? "jpeg" : "png";
  const quality = opts.quality ?? 80;
  if (mechanism === "captureTab") {
    const rect = region && toPage(region, info);
    const options = { format, ...(format === "jpeg" && { quality }), ...(rect && { rect }) };
    // Draw no larger than the budget's long side: captureTab scales for us.
    const cssLong = Math.max(rect?.width ?? info.innerWidth, rect?.height ?? info.innerHeight);
    options.scale = Math.min(info.dpr, opts.maxWidth / cssLong);
    const raw = await decoded(await api.tabs.captureTab(tab.id, options));
    return { ...raw, scaled: options.scale < info.dpr };
  }
  // Painted now: the viewport and regions inside it from captureVisibleTab, the rest (full
  // pages, clips beyond the viewport) from the debugger, which draws a painted tab.
  if (!(region && region.space === "page" && !insideView(region, info))) {
    await quotaSlot();
    const url = await captureVisible(tab, format, quality);
    const raw = await decoded(url);
    return region ? crop(raw, toView(region, info), raw.width / info.innerWidth) : raw;
  }
  if (!hasDebugger) throw new HelperError(ERROR_CODES.UNSUPPORTED, "this browser has no debugger for a full page", "capture the viewport, or clips inside it");
  return debuggerCapture(tab, region, info, format, quality);
}

async function captureVisible(tab, format, quality) {
  try {
    return await api.tabs.captureVisibleTab(tab.windowId, { format, ...(format === "jpeg" && { quality }) });
  } catch (e) {
    if (!/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(String(e?.message))) throw captureFailed(tab, e);
    await new Promise((r) => setTimeout(r, QUOTA_WINDOW_MS));
    return api.tabs.captureVisibleTab(tab.windowId, { format, ...(format === "jpeg" && { quality }) });
  }
}

/**
 * A region beyond the viewport (full page, far clips), Chromium: scrolled strip by strip, each
 * captured by the debugger and drawn into one canvas, then the page's scroll put back.
 * Not `captureBeyondViewport`: it resizes the viewport for the capture, so a page sized in
 * `vh` (hero sections, full-height layouts) is drawn stretched.
 */
async function debuggerCapture(tab, region, info, format, quality) {
  const rect = toPage(region, info);
  const width = Math.min(rect.width, info.innerWidth);
  const strips = [];
  for (let y = rect.y; y < rect.y + rect.height; y += info.innerHeight) strips.push([y, Math.min(info.innerHeight, rect.y + rect.height - y)]);
  const scrollTo = (x, y) => api.scripting.executeScript({ target: { tabId: tab.id }, func: (x, y) => window.scrollTo(x, y), args: [x, y] });
  try {
    return await withDebugger(tab.id, async (send) => {
      let canvas = null;
      let ratio = 1;
      for (const [y, h] of strips) {
        await scrollTo(rect.x, y);
        const { data } = await send("Page.captureScreenshot", { format: "png", clip: { x: rect.x, y, width, height: h, scale: 1 } });
        const part = await decoded(`data:image/png;base64,${data}`);
        const bitmap = part.bitmap ?? (await createImageBitmap(new Blob([bytesOf(part)], { type: part.mime })));
        if (!canvas) {
          ratio = bitmap.width / width;
          canvas = new OffscreenCanvas(Math.round(width * ratio), Math.round(rect.height * ratio));
        }
        canvas.getContext("2d").drawImage(bitmap, 0, Math.round((y - rect.y) * ratio));
      }
      const blob = await canvas.convertToBlob(format === "jpeg" ? { type: "image/jpeg", quality: quality / 100 } : { type: "image/png" });
      return { bytes: new Uint8Array(await blob.arrayBuffer()), mime: blob.type, width: canvas.width, height: canvas.height, used: "debugger" };
    });
  } catch (e) {
    throw captureFailed(tab, e);
  } finally {
    await scrollTo(info.scrollX, info.scrollY).catch(() => {});
  }
}

function captureFailed(tab, e) {
  const text = String(e?.message ?? e);
  if (/already attached/i.test(text)) {
    return new HelperError(ERROR_CODES.BUSY, `tab ${tab.id} has another debugger attached (DevTools?)`, "close DevTools on that tab, or select_page it and retry");
  }
  return new HelperError(ERROR_CODES.PERMISSION_DENIED, `cannot capture tab ${tab.id} (${tab.url || "no URL"}): ${text}`, "browser pages (chrome://, about:, the web store) cannot be captured; use a web page");
}

function toPage(region, info) {
  const dx = region.space === "view" ? info.scrollX : 0;
  const dy = region.space === "view" ? info.scrollY : 0;
  return { x: region.x + dx, y: region.y + dy, width: region.width, height: region.height };
}

function toView(region, info) {
  const dx = region.space === "page" ? info.scrollX : 0;
  const dy = region.space === "page" ? info.scrollY : 0;
  return { x: region.x - dx, y: region.y - dy, width: region.width, height: region.height };
}

function insideView(region, info) {
  const v = toView(region, info);
  return v.x >= 0 && v.y >= 0 && v.x + v.width <= info.innerWidth + 0.5 && v.y + v.height <= info.innerHeight + 0.5;
}

/** A data: URL as bytes, with its size read from the image header (PNG) or by decoding. */
/**
 * A capture's data URL as `{b64, length, mime, width, height}`. A PNG is sized from its
 * header alone and its base64 kept as the browser gave it: an image that fits the budget is
 * answered without a decode and a re-encode (a few ms of a ~200 KB viewport); `bytesOf`
 * decodes when something must draw it.
 */
async function decoded(url) {
  const comma = url.indexOf(",");
  const mime = /^data:([^;,]+)/.exec(url)?.[1] ?? "image/png";
  const b64 = url.slice(comma + 1);
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  const raw = { b64, length: (b64.length / 4) * 3 - pad, mime };
  const size = pngSize(bytesFrom(b64.slice(0, 32)));
  if (size) return { ...raw, width: size[0], height: size[1] };
  const bitmap = await createImageBitmap(new Blob([bytesOf(raw)], { type: mime }));
  return { ...raw, width: bitmap.width, height: bitmap.height, bitmap };
}

function bytesFrom(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** The image bytes of a capture (decoded from its base64 once, when first needed). */
function bytesOf(raw) {
  raw.bytes ??= bytesFrom(raw.b64);
  return raw.bytes;
}

const lengthOf = (raw) => raw.length ?? raw.bytes.length;

/** Width and height from a PNG's IHDR chunk, or null for anything else. */
export function pngSize(bytes) {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || !sig.every((b, i) => bytes[i] === b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}

/** The part `rect` (CSS px of the viewport) of a viewport capture, `ratio` image px per CSS px. */
async function crop(raw, rect, ratio) {
  const bitmap = raw.bitmap ?? (await createImageBitmap(new Blob([bytesOf(raw)], { type: raw.mime })));
  const sx = Math.max(0, Math.round(rect.x * ratio));
  const sy = Math.max(0, Math.round(rect.y * ratio));
  const sw = Math.max(1, Math.min(bitmap.width - sx, Math.round(rect.width * ratio)));
  const sh = Math.max(1, Math.min(bitmap.height - sy, Math.round(rect.height * ratio)));
  const canvas = new OffscreenCanvas(sw, sh);
  canvas.getContext("2d").drawImage(bitmap, sx, sy, sw, sh, 0, 0, sw, sh);
  const blob = await canvas.convertToBlob({ type: "image/png" });
  return { bytes: new Uint8Array(await blob.arrayBuffer()), mime: "image/png", width: sw, height: sh };
}

/** The JPEG qualities tried, then the scale steps, when an image is over the byte budget. */
const QUALITIES = [0.8, 0.65, 0.5];
const SCALE_STEP = 0.75;
const FIT_ROUNDS = 10;

/**
 * The capture within the budget: as captured when it fits (long side ≤ maxWidth, bytes ≤
 * maxBytes, the format asked); else drawn smaller and re-encoded — PNG when png was asked,
 * else JPEG at falling quality, then smaller — until it fits. A budget no image meets
 * answers PAYLOAD_TOO_LARGE.
 */
export async function fit(raw, { maxBytes, maxWidth, format, quality }) {
  const started = performance.now();
  const long = Math.max(raw.width, raw.height);
  const rawFormat = raw.mime === "image/jpeg" ? "jpeg" : "png";
  if (long <= maxWidth && lengthOf(raw) <= maxBytes && (format === "auto" || format === rawFormat)) {
    return { b64: raw.b64, bytes: raw.bytes, length: lengthOf(raw), format: rawFormat, width: raw.width, height: raw.height, scaled: Boolean(raw.scaled), encodeMs: 0 };
  }
  const bitmap = raw.bitmap ?? (await createImageBitmap(new Blob([bytesOf(raw)], { type: raw.mime })));
  const type = format === "png" ? "png" : "jpeg";
  let scale = Math.min(1, maxWidth / long);
  let q = 0;
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const w = Math.max(1, Math.round(raw.width * scale));
    const h = Math.max(1, Math.round(raw.height * scale));
    const canvas = new OffscreenCanvas(w, h);
    const ctx = canvas.getContext("2d");
    // JPEG has no alpha: a transparent page background becomes white, not black.
    if (type === "jpeg") {
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, w, h);
    }
    ctx.drawImage(bitmap, 0, 0, w, h);
    const qualityNow = quality != null && round === 0 ? quality / 100 : QUALITIES[Math.min(q, QUALITIES.length - 1)];
    const blob = await canvas.convertToBlob({ type: `image/${type}`, ...(type === "jpeg" && { quality: qualityNow }) });
    if (blob.size <= maxBytes) {
      const bytes = new Uint8Array(await blob.arrayBuffer());
      return { bytes, format: type, width: w, height: h, scaled: Boolean(raw.scaled) || w !== raw.width, encodeMs: performance.now() - started };
    }
    if (type === "jpeg" && q < QUALITIES.length - 1) q++;
    else scale *= SCALE_STEP;
  }
  throw new HelperError(ERROR_CODES.PAYLOAD_TOO_LARGE, `no ${type} of this capture fits in ${maxBytes} bytes`, `raise maxBytes (up to ${HARD_MAX_BYTES}), lower maxWidth, or capture a clip`);
}

function base64(bytes) {
  let bin = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK));
  return btoa(bin);
}
