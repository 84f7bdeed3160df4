// Where a frame's document sits in the top document's viewport, for element screenshots of
// refs inside frames (same-origin and cross-origin alike).
//
//   ref's frame ──webNavigation.getFrame──▶ parent ─▶ … ─▶ top     (frame ids, bottom up)
//   each child: its index in parent.frames (a WindowProxy comparison, allowed cross-origin)
//   each parent: the <iframe>/<frame> whose contentWindow is frames[index] → its content box
//
// Nothing is read from the page's own scripts: both functions run in the helper's isolated
// world, and a page can only move its own frames (which moves the pixels the same way).
import { api } from "./api.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES } from "./protocol.js";

/** Deeper nesting than this is refused (a page could nest frames without end). */
const DEPTH_CAP = 12;

/** Runs in the child frame: its position in `parent.frames`, -1 when not found. */
function indexInParent() {
  const parent = window.parent;
  if (parent === window) return -1;
  for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === window) return i;
  return -1;
}

/**
 * Runs in the parent frame: the content box (inside border and padding) of the frame
 * element showing `frames[index]`, in this document's viewport; `scroll` first brings it
 * into view when it is not wholly visible. null when no element shows it.
 */
function frameBox(index, scroll) {
  const w = window.frames[index];
  if (!w) return null;
  let el = null;
  for (const f of document.querySelectorAll("iframe, frame")) {
    if (f.contentWindow === w) {
      el = f;
      break;
    }
  }
  if (!el) return null;
  let r = el.getBoundingClientRect();
  if (scroll && (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)) {
    el.scrollIntoView({ block: "nearest", inline: "nearest" });
    r = el.getBoundingClientRect();
  }
  const cs = getComputedStyle(el);
  return { x: r.left + el.clientLeft + parseFloat(cs.paddingLeft || "0"), y: r.top + el.clientTop + parseFloat(cs.paddingTop || "0") };
}

async function runIn(tab, frameId, func, args = []) {
  const [res] = await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: [frameId] }, func, args });
  return res?.result;
}

function frameGone(tab, why) {
  return new HelperError(ERROR_CODES.STALE, `the ref's frame in tab ${tab.id} cannot be placed: ${why}`, "take a new snapshot and use its refs");
}

/** `[{parent, index}]` from the top document down to `frameId`'s parent. */
export async function frameChain(tab, frameId) {
  const chain = [];
  let child = frameId;
  while (child !== 0) {
    if (chain.length >= DEPTH_CAP) throw new HelperError(ERROR_CODES.UNSUPPORTED, `the element is more than ${DEPTH_CAP} frames deep`, "screenshot_page with a clip around it");
    const frame = await api.webNavigation.getFrame({ tabId: tab.id, frameId: child });
    if (!frame || !Number.isInteger(frame.parentFrameId) || frame.parentFrameId < 0) throw frameGone(tab, "its frame is gone");
    const index = await runIn(tab, child, indexInParent);
    if (!Number.isInteger(index) || index < 0) throw frameGone(tab, "its frame element was not found");
    chain.unshift({ parent: frame.parentFrameId, index });
    child = frame.parentFrameId;
  }
  return chain;
}

/** Runs in a frame: resolves after it painted twice (at most 300 ms: a hidden tab paints nothing). */
function twoFrames() {
  return new Promise((resolve) => {
    const done = () => resolve(true);
    requestAnimationFrame(() => requestAnimationFrame(done));
    setTimeout(done, 300);
  });
}

/**
 * Waits until frame `frameId` painted: Chromium and Firefox draw a cross-origin frame in
 * its own process and throttle it while it is off screen, so right after it was scrolled
 * into view the capture would show the space where it will be.
 */
export async function framePainted(tab, frameId) {
  await runIn(tab, frameId, twoFrames).catch(() => {});
}

/** The sum of the chain's frame offsets (`scroll`: bring each frame element into view first, top down). */
export async function chainOffset(tab, chain, scroll) {
  let x = 0;
  let y = 0;
  for (const { parent, index } of chain) {
    const box = await runIn(tab, parent, frameBox, [index, scroll]);
    if (!box) throw frameGone(tab, "its frame element was not found");
    x += box.x;
    y += box.y;
  }
  return { x, y };
}
