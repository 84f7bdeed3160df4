// Viewport and device emulation (`page.resize`, `page.emulate`).
//
// - Resize: a tab's viewport is its window's content area, so the window is sized until the
//   page reports the innerWidth × innerHeight asked for (every tab of that window gets the
//   new size). The user's daily browser is theirs: a window is sized only when every tab in
//   it is the agent's (opened or navigated by it — the agent window of agentwindow.js is the
//   usual one), or with `force`. Otherwise, Chromium with debugger mode sizes the tab alone
//   (`Emulation.setDeviceMetricsOverride`); a hidden tab the agent opened in the user's
//   window is moved into the agent window first (as screenshots do); a tab of the user's is
//   PERMISSION_DENIED naming `force`.
// - Emulate: only the debugger can (Chromium, debugger mode): `Emulation.*` per tab, held
//   until reset because the overrides end with the session — Chromium shows its "started
//   debugging this browser" bar on a desktop all that time. Firefox gives extensions no
//   per-tab emulation at all; both answer UNSUPPORTED naming what is missing.
import { api, family, hasDebugger } from "./api.js";
import { inAgentWindow, moveToAgentWindow, showInAgentWindow } from "./agentwindow.js";
import { debuggerEnabled, holdDebugger, releaseDebugger, withDebugger } from "./debugger.js";
import { HelperError } from "./errors.js";
import { unscriptable } from "./inject.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { stateOf } from "./tabstate.js";
import { describeTab, resolveTab } from "./tabs.js";

const SIDE = METHOD_SPECS["page.resize"].params.width;
const HOLD = "emulation";
/** How long a window resize may take to reach the page's layout. */
const SETTLE_MS = 2000;
/** Window updates tried before the size is reported as the browser left it. */
const ATTEMPTS = 4;
const SCHEMES = ["light", "dark"];
const MOTIONS = ["reduce", "no-preference"];

/** Emulation in effect per tab (Chromium debugger sessions held for HOLD). */
const emulations = new Map();

// In the page: what it sees of its viewport and media.
function measureInPage() {
  return {
    innerWidth,
    innerHeight,
    devicePixelRatio,
    userAgent: navigator.userAgent,
    dark: matchMedia("(prefers-color-scheme: dark)").matches,
    reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
    touch: matchMedia("(pointer: coarse)").matches,
  };
}

async function measure(tab) {
  try {
    const [r] = await api.scripting.executeScript({ target: { tabId: tab.id }, func: measureInPage });
    return r.result;
  } catch (e) {
    throw unscriptable(tab, e);
  }
}

function checkSide(name, v) {
  if (!Number.isInteger(v) || v < SIDE.min || v > SIDE.max) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${name}\` is ${SIDE.min}–${SIDE.max} CSS px`, "e.g. width 1280, height 800");
  }
}

/** Whether every tab of `win` is the agent's (opened or navigated by it). */
async function onlyAgentTabs(win) {
  for (const t of win.tabs ?? []) {
    if (!(await stateOf(t.id)).agent) return false;
  }
  return true;
}

/**
 * How `tab` gets its size: `window` (sized in place, or after a move into the agent window)
 * or `debugger`. Throws PERMISSION_DENIED for a window holding tabs of the user's.
 */
async function plan(tab, force) {
  const win = await api.windows.get(tab.windowId, { populate: true });
  if (force || (await inAgentWindow(tab)) || (await onlyAgentTabs(win))) return { via: "window", agent: await inAgentWindow(tab) };
  if (hasDebugger && (await debuggerEnabled())) return { via: "debugger" };
  if (!tab.active && (await stateOf(tab.id)).agent) {
    await moveToAgentWindow(tab);
    return { via: "window", agent: true, moved: true };
  }
  const theirs = [];
  for (const t of win.tabs ?? []) if (!(await stateOf(t.id)).agent) theirs.push(t.id);
  throw new HelperError(
    ERROR_CODES.PERMISSION_DENIED,
    `tab ${tab.id}'s window ${win.id} holds ${theirs.length} tab(s) of yours: sizing it would resize them too`,
    family === "chromium"
      ? "open the page with new_page {window: \"agent\"} (the agent's own window), turn on debugger mode in the helper's status page (a per-tab size), or pass force: true to size that window anyway"
      : "open the page with new_page {window: \"agent\"} (the agent's own window), or pass force: true to size that window anyway",
    { windowId: win.id, userTabs: theirs.length },
  );
}

/** Polls the page until its viewport changed from `before` (or SETTLE_MS passed). */
async function settled(tab, before) {
  const until = Date.now() + SETTLE_MS;
  let now = await measure(tab);
  while (Date.now() < until && now.innerWidth === before.innerWidth && now.innerHeight === before.innerHeight) {
    await new Promise((r) => setTimeout(r, 50));
    now = await measure(tab);
  }
  return now;
}

/**
 * Sizes the tab's window until the page reports `width` × `height`: the window's frame
 * (outer minus inner size, toolbars included) is measured rather than assumed, then corrected
 * from what the page reports, since browsers clamp and round.
 */
async function sizeWindow(tab, width, height) {
  const zoom = (await api.tabs.getZoom(tab.id).catch(() => 1)) || 1;
  let seen = await measure(tab);
  for (let i = 0; i < ATTEMPTS && (seen.innerWidth !== width || seen.innerHeight !== height); i++) {
    const win = await api.windows.get(tab.windowId);
    const update = {
      width: Math.round(win.width + (width - seen.innerWidth) * zoom),
      height: Math.round(win.height + (height - seen.innerHeight) * zoom),
      ...(win.state !== "normal" && { state: "normal" }),
    };
    if (update.width === win.width && update.height === win.height && !update.state) break;
    if (update.width < 1 || update.height < 1) {
      throw new HelperError(ERROR_CODES.UNSUPPORTED, `window ${win.id} reports ${win.width}×${win.height} around a viewport of ${seen.innerWidth}×${seen.innerHeight}: it cannot be sized to ${width}×${height}`, "open the page with new_page {window: \"agent\"} and resize that tab", { window: { width: win.width, height: win.height, state: win.state, type: win.type }, page: seen });
    }
    await api.windows.update(tab.windowId, update);
    const next = await settled(tab, seen);
    const changed = next.innerWidth !== seen.innerWidth || next.innerHeight !== seen.innerHeight;
    seen = next;
    // Chromium lays a hidden tab out when it is shown: its stale size says nothing more.
    if (!changed) break;
  }
  return seen;
}

export async function resize(params) {
  const tab = await resolveTab(params);
  const { width, height, force = false } = params;
  checkSide("width", width);
  checkSide("height", height);
  const how = await plan(tab, force);
  const asked = { width, height };
  if (how.via === "debugger") {
    const em = { ...emulations.get(tab.id), width, height };
    await applyEmulation(tab, em);
    const seen = await measure(tab);
    return { tab: describeTab(tab), mechanism: "debugger", width: seen.innerWidth, height: seen.innerHeight, asked, exact: seen.innerWidth === width && seen.innerHeight === height };
  }
  let now = how.moved ? await api.tabs.get(tab.id) : tab;
  // Chromium lays out hidden tabs when shown: the agent window's tab is made its active one.
  if (how.agent && !now.active) {
    await showInAgentWindow(now);
    now = await api.tabs.get(tab.id);
  }
  const seen = await sizeWindow(now, width, height);
  const win = await api.windows.get(now.windowId, { populate: true });
  return {
    tab: describeTab(now),
    mechanism: "window",
    width: seen.innerWidth,
    height: seen.innerHeight,
    asked,
    exact: seen.innerWidth === width && seen.innerHeight === height,
    window: { windowId: win.id, width: win.width, height: win.height, agent: Boolean(how.agent), otherTabs: (win.tabs?.length ?? 1) - 1 },
    ...(!now.active && { hidden: true }),
    ...(how.moved && { moved: true }),
  };
}

/** The emulation fields `params` sets, checked. */
function emulationAsked(params) {
  const out = {};
  const { deviceScaleFactor, mobile, userAgent, colorScheme, reducedMotion } = params;
  if (deviceScaleFactor != null) {
    if (deviceScaleFactor < 0.5 || deviceScaleFactor > 4) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`deviceScaleFactor` is 0.5–4", "e.g. 2 for a high-density screen");
    out.deviceScaleFactor = deviceScaleFactor;
  }
  if (mobile != null) out.mobile = mobile;
  if (userAgent != null) {
    // A header value: printable, one line.
    if (!userAgent.length || userAgent.length > 512 || /[^\x20-\x7e]/.test(userAgent)) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`userAgent` must be 1–512 printable ASCII characters", "e.g. a phone browser's user agent string");
    }
    out.userAgent = userAgent;
  }
  if (colorScheme != null) {
    if (!SCHEMES.includes(colorScheme)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown colorScheme \`${colorScheme}\``, "use light or dark");
    out.colorScheme = colorScheme;
  }
  if (reducedMotion != null) {
    if (!MOTIONS.includes(reducedMotion)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown reducedMotion \`${reducedMotion}\``, "use reduce or no-preference");
    out.reducedMotion = reducedMotion;
  }
  return out;
}

/** Sends every override of `em` through the tab's held session (one call replaces each kind). */
async function applyEmulation(tab, em) {
  await holdDebugger(tab.id, HOLD);
  emulations.set(tab.id, em);
  try {
    await withDebugger(tab.id, async (send) => {
      const metrics = em.width != null || em.height != null || em.deviceScaleFactor != null || em.mobile != null;
      if (metrics) {
        // 0 leaves that metric to the window.
        await send("Emulation.setDeviceMetricsOverride", { width: em.width ?? 0, height: em.height ?? 0, deviceScaleFactor: em.deviceScaleFactor ?? 0, mobile: em.mobile === true });
      }
      if (em.mobile != null) await send("Emulation.setTouchEmulationEnabled", { enabled: em.mobile, maxTouchPoints: em.mobile ? 5 : 1 });
      if (em.userAgent != null) await send("Emulation.setUserAgentOverride", { userAgent: em.userAgent });
      const features = [];
      if (em.colorScheme != null) features.push({ name: "prefers-color-scheme", value: em.colorScheme });
      if (em.reducedMotion != null) features.push({ name: "prefers-reduced-motion", value: em.reducedMotion });
      if (features.length) await send("Emulation.setEmulatedMedia", { features });
    });
  } catch (e) {
    await clearEmulation(tab.id);
    throw new HelperError(ERROR_CODES.SCRIPT_ERROR, `the debugger refused the emulation of tab ${tab.id}: ${e?.message ?? e}`, "emulate {reset: true}, then try again; the user may have cancelled the debugging bar");
  }
}

/** Ends a tab's emulation: overrides cleared, the hold released (the last one detaches). */
async function clearEmulation(tabId) {
  if (!emulations.delete(tabId)) return;
  // Another hold (response bodies) may keep the session: clear the overrides explicitly.
  await withDebugger(tabId, async (send) => {
    await send("Emulation.clearDeviceMetricsOverride").catch(() => {});
    await send("Emulation.setTouchEmulationEnabled", { enabled: false }).catch(() => {});
    await send("Emulation.setEmulatedMedia", { features: [] }).catch(() => {});
  }).catch(() => {});
  await releaseDebugger(tabId, true, HOLD);
}

function unsupported(fields) {
  if (family === "gecko") {
    return new HelperError(
      ERROR_CODES.UNSUPPORTED,
      `Firefox gives extensions no per-tab emulation: ${fields.join(", ")} cannot be set`,
      "resize_page sizes the tab's window; a Firefox dev session's preferences (ui.systemUsesDarkTheme, general.useragent.override, layout.css.devPixelsPerPx) set these for the whole browser",
      { unsupported: fields },
    );
  }
  return new HelperError(
    ERROR_CODES.UNSUPPORTED,
    `emulating ${fields.join(", ")} needs Chromium's debugger, and debugger mode is off`,
    "turn on debugger mode in the helper's status page (Chromium shows its \"started debugging this browser\" bar while an emulation lasts), then call emulate again",
    { unsupported: fields, missing: "debugger mode" },
  );
}

export async function emulate(params) {
  const tab = await resolveTab(params);
  const asked = emulationAsked(params);
  const fields = Object.keys(asked);
  if (!fields.length && !params.reset) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "nothing to emulate", "give deviceScaleFactor, mobile, userAgent, colorScheme or reducedMotion, or reset: true");
  }
  if (params.reset) await clearEmulation(tab.id);
  if (!fields.length) return { tab: describeTab(tab), mechanism: "none", emulation: {}, page: await measure(tab) };
  if (!hasDebugger || !(await debuggerEnabled())) throw unsupported(fields);
  const em = { ...emulations.get(tab.id), ...asked };
  await applyEmulation(tab, em);
  return { tab: describeTab(tab), mechanism: "debugger", emulation: em, page: await measure(tab) };
}

// The overrides end with the session: forget them when it ends (the user cancelled the bar,
// the tab closed) or debugger mode is switched off.
api.debugger?.onDetach.addListener((source) => {
  if (emulations.delete(source.tabId)) releaseDebugger(source.tabId, false, HOLD);
});
api.tabs.onRemoved.addListener((tabId) => {
  if (emulations.delete(tabId)) releaseDebugger(tabId, false, HOLD);
});
api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !("debuggerMode" in changes) || changes.debuggerMode?.newValue === true) return;
  for (const tabId of [...emulations.keys()]) clearEmulation(tabId);
});
