// Tabs as the MCP tools see them: the visible tab list in fingerprint order, how a request
// names its tab (tabId, pageIdx, expectTabSet), and waiting for loads from the background
// (page timers and rAF do not run in background tabs).
import { openInAgentWindow } from "./agentwindow.js";
import { api, family } from "./api.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES, FINGERPRINT, METHOD_SPECS } from "./protocol.js";
import { CRASH_POLL_MS, adopt, collectDialogs, crashed, hookNow, tabCrashed, withHookFor } from "./dialogs.js";

export const DEFAULT_LOAD_TIMEOUT_MS = METHOD_SPECS["tabs.new"].params.timeoutMs.default;
/** How long a navigation an action started may take to show up as a loading tab. */
const NAVIGATION_START_MS = 5000;

/**
 * Visible tabs: windows by ascending id, tabs by index (the fingerprint's order). With
 * `container` (a scoped server's cookie store), only that container's tabs.
 */
export async function visibleTabs(container = null) {
  const tabs = await api.tabs.query({});
  return tabs
    .filter((t) => Number.isInteger(t.id) && t.id >= 0 && (container == null || t.cookieStoreId === container))
    .sort((a, b) => a.windowId - b.windowId || a.index - b.index);
}

/** First FINGERPRINT.length hex chars of sha256 over `windowId:tabId` joined in order. */
export async function fingerprint(tabs) {
  const text = tabs.map((t) => `${t.windowId}:${t.id}`).join(FINGERPRINT.separator);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return hex.slice(0, FINGERPRINT.length);
}

/** The wire form of a tab. */
export function describeTab(t) {
  return {
    tabId: t.id,
    windowId: t.windowId,
    index: t.index,
    url: t.url ?? t.pendingUrl ?? "",
    title: t.title ?? "",
    active: Boolean(t.active),
    status: t.status ?? "unknown",
    container: containerOf(t),
  };
}

// Firefox containers: the cookie store of a tab that is not the default one.
function containerOf(t) {
  const store = t.cookieStoreId;
  if (!store || store === "firefox-default" || store === "0") return null;
  return store;
}

export async function listTabs({ container = null } = {}) {
  const tabs = await visibleTabs(container);
  return {
    tabs: tabs.map(describeTab),
    fingerprint: await fingerprint(tabs),
    // The first window's active tab (headless browsers and most users have one window).
    activeTabId: tabs.find((t) => t.active)?.id ?? null,
  };
}

/**
 * The tab a per-tab request names. `tabId` wins; `pageIdx` is a position in the visible list
 * and is checked against `expectTabSet` when given. Never falls back to another tab.
 */
export async function resolveTab({ tabId, pageIdx, expectTabSet, container = null }) {
  if (tabId != null && pageIdx != null) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "give `tabId` or `pageIdx`, not both", "prefer `tabId`");
  }
  let tabs = null;
  if (expectTabSet != null) {
    tabs = await visibleTabs(container);
    const now = await fingerprint(tabs);
    if (now !== expectTabSet) {
      throw new HelperError(
        ERROR_CODES.STALE,
        `the tab set changed (fingerprint ${now}, expected ${expectTabSet}); nothing was done`,
        "call list_pages again and use the tabId it shows",
        { fingerprint: now },
      );
    }
  }
  if (tabId != null) {
    let tab;
    try {
      tab = await api.tabs.get(tabId);
    } catch {
      throw notFound(`tab ${tabId} does not exist (closed, or not visible to the extension)`);
    }
    // A container-scoped server never touches another container's tab: to it, there is none.
    if (container != null && tab.cookieStoreId !== container) throw notFound(`tab ${tabId} does not exist in this server's container`);
    return tab;
  }
  if (pageIdx != null) {
    tabs ??= await visibleTabs(container);
    const tab = tabs[pageIdx];
    if (!tab) throw notFound(`pageIdx ${pageIdx} is out of range: ${tabs.length} tabs are visible`);
    return tab;
  }
  throw new HelperError(
    ERROR_CODES.NOT_FOUND,
    "no tab given and this server has no current page yet",
    "pass `tabId` from list_pages, or open one with new_page",
  );
}

function notFound(message) {
  return new HelperError(ERROR_CODES.NOT_FOUND, message, "call list_pages for the current tabs");
}

/**
 * Resolves with `{tab, loaded: true}` once the tab's load completes. With `requireLoading`
 * (attach before starting a navigation) only after the tab was seen changing; otherwise a
 * tab that is already `ready` resolves at once. `startWithinMs`: NOT_FOUND when no
 * navigation starts that soon (back/forward with nowhere to go does nothing at all).
 * Driven by tabs.onUpdated, never page timers; TIMEOUT after `timeoutMs`.
 */
export function waitForLoad(
  tabId,
  { timeoutMs = DEFAULT_LOAD_TIMEOUT_MS, requireLoading = false, ready = (t) => t.status === "complete", startWithinMs = 0, what = "navigation" } = {},
) {
  return new Promise((resolve, reject) => {
    let sawChange = !requireLoading;
    let done = false;
    const timers = [];
    const finish = (outcome, value) => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      api.tabs.onUpdated.removeListener(onUpdated);
      api.tabs.onRemoved.removeListener(onRemoved);
      outcome(value);
    };
    const onUpdated = (id, change, tab) => {
      if (id !== tabId) return;
      if (crashed(tab)) return finish(reject, tabCrashed(tab));
      if (change.status === "loading" || change.url) sawChange = true;
      // A same-document navigation changes the URL of a tab that stays complete.
      if (sawChange && ready(tab)) finish(resolve, { tab, loaded: true });
    };
    const onRemoved = (id) => {
      if (id === tabId) finish(reject, notFound(`tab ${tabId} was closed while loading`));
    };
    timers.push(
      setTimeout(async () => {
        const tab = await api.tabs.get(tabId).catch(() => null);
        if (!tab) return finish(reject, notFound(`tab ${tabId} was closed while loading`));
        finish(
          reject,
          new HelperError(
            ERROR_CODES.TIMEOUT,
            `tab ${tabId} did not finish loading within ${timeoutMs} ms (status ${tab.status})`,
            "the page may still be usable: take_snapshot, or retry with a larger timeoutMs",
            { tab: describeTab(tab) },
          ),
        );
      }, timeoutMs),
    );
    if (startWithinMs > 0) {
      timers.push(
        setTimeout(() => {
          if (!sawChange) finish(reject, new HelperError(ERROR_CODES.NOT_FOUND, `no ${what} started in tab ${tabId}`, "navigate by url instead"));
        }, startWithinMs),
      );
    }
    api.tabs.onUpdated.addListener(onUpdated);
    api.tabs.onRemoved.addListener(onRemoved);
    // A dead renderer does not always send an update: ask the tabs API now and then.
    const poll = async () => {
      const tab = await api.tabs.get(tabId).catch(() => null);
      if (tab && crashed(tab)) return finish(reject, tabCrashed(tab));
      if (!done) timers.push(setTimeout(poll, CRASH_POLL_MS));
    };
    timers.push(setTimeout(poll, CRASH_POLL_MS));
    if (!requireLoading) {
      api.tabs.get(tabId).then(
        (tab) => ready(tab) && finish(resolve, { tab, loaded: true }),
        () => finish(reject, notFound(`tab ${tabId} does not exist`)),
      );
    }
  });
}

/**
 * Watches a tab for a navigation that an action may start: `started` turns true when the
 * tab starts loading; `finished(ms)` waits for that load; `stop()` removes the listeners.
 */
export function watchNavigation(tabId) {
  const w = {
    started: false,
    stop() {
      api.tabs.onUpdated.removeListener(onUpdated);
    },
    async finished(timeoutMs = DEFAULT_LOAD_TIMEOUT_MS) {
      // The page said it is unloading; the tab may not report "loading" yet.
      const until = Date.now() + Math.min(timeoutMs, NAVIGATION_START_MS);
      while (!w.started && Date.now() < until) {
        const now = await api.tabs.get(tabId).catch(() => null);
        if (!now) throw notFound(`tab ${tabId} was closed`);
        if (now.status === "loading") break;
        await new Promise((r) => setTimeout(r, 25));
      }
      w.stop();
      const { tab } = await waitForLoad(tabId, { timeoutMs });
      return tab;
    },
  };
  const onUpdated = (id, change) => {
    if (id === tabId && change.status === "loading") w.started = true;
  };
  api.tabs.onUpdated.addListener(onUpdated);
  return w;
}

export async function newTab({ url, active = false, window: place = "current", timeoutMs, cookieStoreId = null }) {
  const target = url ?? "about:blank";
  checkUrl(target);
  if (place !== "current" && place !== "agent") {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown window \`${place}\``, "use current or agent");
  }
  if (place === "agent" && active) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`active` focuses the user's window; the agent window never takes focus", "leave out active, or window");
  }
  if (cookieStoreId != null && family !== "gecko") {
    throw noContainers();
  }
  const where = { url: target, ...(cookieStoreId != null && { cookieStoreId }) };
  // The agent's tab: its documents get the dialog hook, this first one before its scripts.
  return withHookFor(target, async () => {
    // A container tab opens in the user's window (the agent window holds default-store tabs).
    const tab = place === "agent" && cookieStoreId == null ? await openInAgentWindow(target) : await api.tabs.create({ ...where, active });
    await adopt(tab.id);
    // Firefox reports the new tab complete at about:blank before it starts loading the URL.
    const blank = target === "about:blank";
    const ready = (t) => t.status === "complete" && (blank || (t.url !== undefined && t.url !== "about:blank"));
    const { tab: loaded } = await waitForLoad(tab.id, { timeoutMs, ready });
    await hookNow(tab.id);
    // Dialogs the page raised while it loaded (navigate_page's guard reports its own).
    const dialogs = await collectDialogs(tab.id);
    return { tab: describeTab(loaded), loaded: true, ...(dialogs.length && { dialogs }) };
  });
}

/** `type`: url | back | forward | reload; waits for the load the navigation starts. */
export async function navigate(params) {
  const tab = await resolveTab(params);
  const { type, url, steps = 1, timeoutMs } = params;
  if (type === "url") {
    if (url == null) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "type `url` needs `url`");
    checkUrl(url);
  } else if (!["back", "forward", "reload"].includes(type)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown navigation type \`${type}\``, "use url, back, forward or reload");
  }
  if (!Number.isInteger(steps) || steps < 1) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`steps` must be a positive integer");
  }
  const history = type === "back" || type === "forward";
  const loaded = waitForLoad(tab.id, {
    timeoutMs,
    requireLoading: true,
    // Moving past either end of the history does nothing, silently, in both browsers.
    startWithinMs: history ? HISTORY_START_MS : 0,
    what: `${type} navigation (no ${type === "back" ? "earlier" : "later"} page in its history?)`,
  });
  loaded.catch(() => {}); // awaited below; a failed start must not leave it unhandled
  await adopt(tab.id);
  return withHookFor(type === "url" ? url : tab.url, async () => {
    if (type === "url") await api.tabs.update(tab.id, { url });
    else if (type === "reload") await api.tabs.reload(tab.id);
    else await moveInHistory(tab, type === "back" ? -steps : steps);
    const result = await loaded;
    await hookNow(tab.id);
    return { tab: describeTab(result.tab), loaded: true };
  });
}

const HISTORY_START_MS = 3000;

// history.go from the page: Chromium's tabs.goBack skips entries that were added without a
// user gesture (all of an automated tab's), and can find no page to go back to.
async function moveInHistory(tab, delta) {
  try {
    await api.scripting.executeScript({ target: { tabId: tab.id }, func: (d) => history.go(d), args: [delta] });
    return;
  } catch {
    // Not scriptable (an error page, a browser page): the tabs API then.
  }
  try {
    for (let i = 0; i < Math.abs(delta); i++) await (delta < 0 ? api.tabs.goBack(tab.id) : api.tabs.goForward(tab.id));
  } catch (e) {
    throw new HelperError(ERROR_CODES.NOT_FOUND, `tab ${tab.id} cannot move ${delta} in its history: ${e?.message ?? e}`, "navigate by url instead");
  }
}

export async function selectTab(params) {
  let tab;
  if (params.url != null) {
    if (params.tabId != null || params.pageIdx != null) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "give `url` or `tabId`/`pageIdx`, not both");
    }
    const tabs = await visibleTabs(params.container ?? null);
    const hits = tabs.filter((t) => (t.url ?? "").includes(params.url));
    if (hits.length === 0) throw notFound(`no tab's URL contains \`${params.url}\``);
    if (hits.length > 1) {
      throw new HelperError(
        ERROR_CODES.INVALID_ARGUMENT,
        `${hits.length} tabs' URLs contain \`${params.url}\``,
        "use a longer substring or the tabId",
        { tabs: hits.map(describeTab) },
      );
    }
    tab = hits[0];
  } else {
    tab = await resolveTab(params);
  }
  const updated = await api.tabs.update(tab.id, { active: true });
  await api.windows.update(tab.windowId, { focused: true }).catch(() => {});
  return { tab: describeTab(updated ?? tab) };
}

export async function closeTab(params) {
  const tab = await resolveTab(params);
  await api.tabs.remove(tab.id);
  return { closed: tab.id };
}

// Pages the tab tools may open: web pages, files and blank pages; never the browser's own.
function checkUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${url}\` is not an absolute URL`, "include the scheme, e.g. https://");
  }
  if (!["http:", "https:", "file:", "about:", "data:"].includes(parsed.protocol)) {
    throw new HelperError(
      ERROR_CODES.PERMISSION_DENIED,
      `extensions may not open \`${parsed.protocol}\` URLs`,
      "use an http(s), file, data or about:blank URL",
    );
  }
}

/** Firefox containers with their tab counts; UNSUPPORTED elsewhere. */
export async function listContainers() {
  if (family !== "gecko" || !api.contextualIdentities) {
    throw noContainers();
  }
  let identities;
  try {
    identities = await api.contextualIdentities.query({});
  } catch (e) {
    throw new HelperError(ERROR_CODES.UNSUPPORTED, `containers are turned off in this Firefox: ${e.message}`, "set privacy.userContext.enabled to true in about:config");
  }
  const tabs = await visibleTabs();
  return {
    containers: identities.map((c) => ({
      name: c.name,
      color: c.color,
      icon: c.icon,
      cookieStoreId: c.cookieStoreId,
      tabs: tabs.filter((t) => t.cookieStoreId === c.cookieStoreId).length,
    })),
  };
}

function noContainers() {
  return new HelperError(ERROR_CODES.UNSUPPORTED, "containers are a Firefox feature; this browser has none", "use a separate browser profile per identity (list_connected_browsers shows each)");
}
