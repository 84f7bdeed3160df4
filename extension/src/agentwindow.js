// The agent's own window: `new_page {window: "agent"}` opens tabs in one window the helper
// creates unfocused (not minimized), so the user's window, its active tab and the focus never
// change. Its active tab is painted like any foreground tab: Chromium captures it with
// `tabs.captureVisibleTab` (no debugger, no "started debugging" bar), and its timers and
// animation frames run at full speed. Another of its tabs is made active there first
// (`showInAgentWindow`), which touches nothing of the user's.
import { api } from "./api.js";

const KEY = "agentWindowId";

/** The agent window if it is still open. */
export async function agentWindow() {
  const { [KEY]: id } = await api.storage.session.get(KEY);
  if (!Number.isInteger(id)) return null;
  return api.windows.get(id).catch(() => null);
}

/** A new tab at `url` in the agent window (created on first use, the size of the user's). */
export async function openInAgentWindow(url) {
  const win = await agentWindow();
  if (win) return api.tabs.create({ windowId: win.id, url, active: true });
  const ref = await api.windows.getLastFocused().catch(() => null);
  const size = ref?.width && ref?.height ? { width: ref.width, height: ref.height } : {};
  let created;
  try {
    created = await api.windows.create({ url, focused: false, state: "normal", ...size });
  } catch {
    // A browser that refuses `focused: false` opens it focused: give the focus straight back.
    created = await api.windows.create({ url, state: "normal", ...size });
    if (ref?.id != null) await api.windows.update(ref.id, { focused: true }).catch(() => {});
  }
  await api.storage.session.set({ [KEY]: created.id });
  return created.tabs?.[0] ?? (await api.tabs.query({ windowId: created.id }))[0];
}

/**
 * Moves `tab` (one the agent opened or navigated) into the agent window, creating it around
 * the tab when there is none; the tab keeps its id, page and state.
 */
export async function moveToAgentWindow(tab) {
  const win = await agentWindow();
  if (win) {
    await api.tabs.move(tab.id, { windowId: win.id, index: -1 });
    return;
  }
  const ref = await api.windows.get(tab.windowId).catch(() => null);
  const size = ref?.width && ref?.height ? { width: ref.width, height: ref.height } : {};
  const created = await api.windows.create({ tabId: tab.id, focused: false, state: "normal", ...size });
  await api.storage.session.set({ [KEY]: created.id });
}

/** Whether `tab` lives in the agent window. */
export async function inAgentWindow(tab) {
  const win = await agentWindow();
  return Boolean(win && win.id === tab.windowId);
}

// In the page: resolves once the document is visible and has painted a frame since.
function paintedInPage() {
  if (document.visibilityState !== "visible") return false;
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))));
}

/** Makes `tab` the agent window's active tab and waits (≤ 1 s) until it has painted. */
export async function showInAgentWindow(tab) {
  await api.tabs.update(tab.id, { active: true });
  const until = Date.now() + 1000;
  while (Date.now() < until) {
    const [r] = await api.scripting.executeScript({ target: { tabId: tab.id }, func: paintedInPage }).catch(() => [null]);
    if (r?.result === true) return true;
    await new Promise((res) => setTimeout(res, 25));
  }
  return false;
}
