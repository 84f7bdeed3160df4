// Dialogs and dead tabs, for every call that reaches a page:
//
//   new_page / navigate_page ──▶ agent tab ──▶ hook (page/dialogs.js, MAIN world): a content
//                                script registered for that load's URL at document_start, and
//                                on webNavigation.onCommitted (injectImmediately, other URLs
//                                the tab reaches) ──▶ answers by policy
//   accept_dialog / dismiss_dialog ──▶ arm the tab's next answer (pushed into its documents)
//   every page call ──▶ guard: crash poll (tabs API) · at the call's own deadline a probe
//                      script: no answer ⇒ BLOCKED · after an action, the hook's records ⇒
//                      `dialogs` (reads leave them for the next action; cursor pages of a
//                      cached snapshot are not guarded: they never touch the page)
//
// Only tabs the agent opened or navigated get the hook: the user's other pages keep native
// dialogs. A native dialog stops the page in both browsers: `scripting.executeScript` of a
// script that waits one promise turn never settles while the tabs API still answers
// (Chromium runs no script at all; Firefox runs scripts in the dialog's nested event loop
// but holds the page's promise jobs). That is the only cheap signal, so a page
// stuck in a loop looks the same; the probe runs only when the call would otherwise have
// timed out. Crashes: Chromium reports a tab whose renderer died as `status: "unloaded"`
// (not `discarded`); in Firefox executeScript resolves without the script's result while the
// tabs API still shows the page (see docs/pages.md, "Crashed tabs").
import { api } from "./api.js";
import { CONSOLE_HOOK, CONSOLE_RELAY, captureOn, hookConsole, injectConsole, logOf } from "./consolelog.js";
import { HelperError } from "./errors.js";
import { watchAgentTab } from "./netlog.js";
import { ERROR_CODES } from "./protocol.js";
import { describeTab, resolveTab } from "./tabs.js";
import { existingState, persist, stateOf } from "./tabstate.js";

/** The dialogs this document answered since the last call (and forgets them). */
function takeDialogs() {
  const hook = window[Symbol.for("webext-mcp.dialogs")];
  return hook ? hook.take() : null;
}

/**
 * A trivial script whose answer needs one turn of the page's promise jobs. Chromium runs no
 * script at all in a tab a native dialog blocks; Firefox runs scripts in the dialog's nested
 * event loop but holds the page's promise jobs, so a synchronous probe would answer there.
 */
async function pageAnswers() {
  await null;
  return true;
}

/** Arms the answer to the next dialog of a document that has the hook (MAIN world). */
function armDialogs(policy) {
  const hook = window[Symbol.for("webext-mcp.dialogs")];
  if (hook) hook.arm(policy);
  return Boolean(hook);
}

/** The hook, a classic MAIN-world script (page/dialogs.js). */
const HOOK_FILE = "page/dialogs.js";

/** How long a probe script may take before the tab counts as blocked. */
const PROBE_MS = 700;
/** How often a running call asks the tabs API whether its tab crashed. */
export const CRASH_POLL_MS = 250;

// Chromium's debugger cannot help either: Page.enable waits for the stopped renderer, and
// Page.handleJavaScriptDialog answers "No dialog is showing" to a session that did not see
// the dialog open (both observed with debugger mode on).
const BLOCKED_HINT =
  "only the user can answer a native dialog (in the browser window; Chromium's debugger cannot answer one it did not see open), then retry; other tabs keep working. Tabs opened with new_page answer dialogs themselves: arm accept_dialog/dismiss_dialog before the action";

/** The URL each tab's top document last committed (webNavigation), for Firefox's crash sign. */
const committed = new Map();
api.tabs.onRemoved.addListener((tabId) => committed.delete(tabId));

/**
 * Whether the tab's renderer is gone. Chromium: the tab is `unloaded` without being
 * discarded. Firefox: the tab shows its crash page and the tabs API reports it as
 * `about:blank` ("New Tab"), a URL its top document never committed — or, for a while,
 * still the page's URL, which documentGone() tells apart.
 */
export function crashed(tab) {
  if (!tab) return false;
  if (tab.status === "unloaded" && !tab.discarded) return true;
  const last = committed.get(tab.id);
  return tab.url === "about:blank" && tab.status === "complete" && last !== undefined && last !== "about:blank";
}

export function tabCrashed(tab) {
  return new HelperError(
    ERROR_CODES.TAB_CRASHED,
    `tab ${tab.id} crashed: its page's renderer is gone (${tab.url || "no URL"})`,
    "reload it (navigate_page with type reload) or close it (close_page); the page may crash again",
    { tab: describeTab(tab) },
  );
}

function blocked(tab) {
  return new HelperError(
    ERROR_CODES.BLOCKED,
    `tab ${tab.id} is blocked by a native JavaScript dialog (alert, confirm or prompt) that the helper cannot see or answer; no script finishes in it until the dialog is closed`,
    BLOCKED_HINT,
    { tab: describeTab(tab), dialog: { native: true } },
  );
}

/**
 * Firefox's sign of a dead content process when the tabs API still shows the page (complete,
 * same URL): executeScript into the top frame resolves without the script's result. Asked twice,
 * 300 ms apart, so a document being swapped by a navigation is not taken for a crash.
 */
async function documentGone(tab) {
  for (let i = 0; i < 2; i++) {
    if (tab.status !== "complete") return false;
    const frames = await withDeadline(api.scripting.executeScript({ target: { tabId: tab.id }, func: pageAlive }), PROBE_MS).catch(() => null);
    // A live page answers [{frameId: 0, result: true}].
    if (!Array.isArray(frames) || frames.some((f) => f?.result === true)) return false;
    if (i === 0) await new Promise((r) => setTimeout(r, 300));
  }
  return true;
}

function pageAlive() {
  return true;
}

/** Resolves `true` when a trivial script runs in the tab's top frame within `ms`. */
function answers(tabId, ms = PROBE_MS) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    api.scripting.executeScript({ target: { tabId }, world: "MAIN", func: pageAnswers }).then(
      () => (clearTimeout(timer), resolve(true)),
      // An error is an answer (a browser page, a closed tab): not a dialog.
      () => (clearTimeout(timer), resolve(true)),
    );
  });
}

/** Marks a tab the agent opened or navigated: its documents get the hook from now on. */
export async function adopt(tabId) {
  const st = await stateOf(tabId);
  if (!st.agent) {
    st.agent = true;
    persist(tabId, st);
  }
  return st;
}

async function injectHook(tabId, frameIds, policy) {
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  const main = { target, world: "MAIN", injectImmediately: true };
  await api.scripting.executeScript({ ...main, files: [HOOK_FILE] }).catch(() => {});
  if (policy) await api.scripting.executeScript({ ...main, func: armDialogs, args: [policy] }).catch(() => {});
}

let registrations = 0;

/**
 * Runs `load()` (an agent navigation to `url`) with the hook registered as a MAIN-world
 * content script at document_start for that URL (any port, any query), so it is in before the
 * page's first script; unregistered when the load is over. Another tab loading the same URL
 * meanwhile gets the hook too (it then answers its dialogs by dismissing them).
 */
export async function withHookFor(url, load) {
  const pattern = matchPattern(url);
  if (!pattern || !api.scripting.registerContentScripts) return load();
  const id = `webext-mcp-dialogs-${Date.now()}-${++registrations}`;
  // The console hook (consolelog.js) rides along: the same documents, the same first moment.
  const early = { matches: [pattern], runAt: "document_start", allFrames: true, persistAcrossSessions: false };
  const scripts = captureOn()
    ? [{ id, ...early, js: [HOOK_FILE, CONSOLE_HOOK], world: "MAIN" }, { id: `${id}-relay`, ...early, js: [CONSOLE_RELAY] }]
    : [{ id, ...early, js: [HOOK_FILE], world: "MAIN" }];
  const registered = await api.scripting
    .registerContentScripts(scripts)
    .then(() => true, () => false);
  const withConsole = registered && scripts.length > 1;
  if (withConsole) consoleRegistered.push(pattern);
  try {
    return await load();
  } finally {
    if (withConsole) consoleRegistered.splice(consoleRegistered.indexOf(pattern), 1);
    if (registered) await api.scripting.unregisterContentScripts({ ids: scripts.map((s) => s.id) }).catch(() => {});
  }
}

/** Match patterns of the registrations that carry the console hook, while their loads last. */
const consoleRegistered = [];

/** Whether a document at `url` gets the console hook from a live registration (document_start). */
function consoleCovered(url) {
  if (!consoleRegistered.length) return false;
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  // A pattern's path part matches the URL's path and query; its host part takes no port.
  const key = `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return consoleRegistered.some((p) => key.startsWith(p.slice(0, -1)));
}

/** `scheme://host/path*` of an http(s) URL (match patterns take no port); else null. */
function matchPattern(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  return `${u.protocol}//${u.hostname}${u.pathname}*`;
}

/** Installs the hook in the tab's current documents (after a load; onCommitted may have lost the race). */
export async function hookNow(tabId) {
  const st = await adopt(tabId);
  logOf(tabId);
  watchAgentTab(tabId);
  await injectHook(tabId, null, st.dialogPolicy);
  await hookConsole(tabId);
}

// A new document in an agent tab (a redirect, a link the page followed): the hook goes in as
// early as `injectImmediately` gets ahead of the parser, which the page's first inline script
// can beat; the content script withHookFor registers cannot be beaten, for the URL it names.
api.webNavigation?.onCommitted.addListener(async ({ tabId, frameId, url }) => {
  if (frameId === 0) committed.set(tabId, url);
  const st = existingState(tabId) ?? (await stateOf(tabId));
  if (st.agent) {
    logOf(tabId);
    injectHook(tabId, [frameId], st.dialogPolicy);
    // A document the registered content script reaches gets the hook there, before its first
    // script; injecting it again at commit would only cost the load two script round trips.
    if (!consoleCovered(url)) injectConsole(tabId, [frameId]);
  }
});

/** The dialogs the tab's documents answered since the last look; clears a used armed answer. */
export async function collectDialogs(tabId) {
  const st = existingState(tabId);
  if (!st?.agent) return [];
  let results = [];
  try {
    results = await withDeadline(
      api.scripting.executeScript({ target: { tabId, allFrames: true }, world: "MAIN", func: takeDialogs }),
      PROBE_MS,
    );
  } catch {
    return [];
  }
  const out = [];
  for (const r of results ?? []) {
    for (const d of Array.isArray(r?.result) ? r.result : []) {
      if (!d || typeof d !== "object") continue;
      const type = ["alert", "confirm", "prompt"].includes(d.type) ? d.type : "alert";
      const answered = d.answered === "accepted" ? "accepted" : "dismissed";
      if (d.armed) st.dialogPolicy = null;
      out.push({ type, message: String(d.message ?? "").slice(0, 500), answered, ...(r.frameId ? { frameId: r.frameId } : {}) });
    }
  }
  return out;
}

function withDeadline(promise, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error("late")), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs `run()` (a page method's handler) for the tab `params` names, within `timeoutMs` (the
 * call's own): TAB_CRASHED as soon as the tabs API reports the renderer dead, BLOCKED when at
 * the deadline the tab runs no script at all; the answer (or error data) carries the
 * `dialogs` the hook answered meanwhile, taken when `collect` says "after" the work; with
 * "none" (reads, whose work opens no dialog) the records wait for the next action, which
 * saves every read a script round trip into each frame.
 */
export async function guarded(params, timeoutMs, run, collect = "after") {
  let tab;
  try {
    tab = await resolveTab(params);
  } catch {
    return run(); // the handler reports a bad address itself
  }
  if (crashed(tab)) throw tabCrashed(tab);
  const st = await stateOf(tab.id);
  if (st.blocked && !(await answers(tab.id))) throw blocked(tab);
  st.blocked = false;
  const work = run();
  const timers = [];
  const watch = new Promise((_, reject) => {
    const poll = async () => {
      const now = await withDeadline(api.tabs.get(tab.id), PROBE_MS).catch(() => null);
      if (now && crashed(now)) return reject(tabCrashed(now));
      timers.push(setTimeout(poll, CRASH_POLL_MS));
    };
    timers.push(setTimeout(poll, CRASH_POLL_MS));
    timers.push(
      setTimeout(async () => {
        if (await answers(tab.id)) return; // alive: the handler's own timeout answers
        const now = await withDeadline(api.tabs.get(tab.id), PROBE_MS).catch(() => tab);
        if (crashed(now)) return reject(tabCrashed(now));
        st.blocked = true;
        // Work queued behind the blocked call must not run when the dialog closes later.
        st.epoch = (st.epoch ?? 0) + 1;
        st.queue = Promise.resolve();
        reject(blocked(now));
      }, Math.max(0, timeoutMs - PROBE_MS)),
    );
  });
  try {
    const result = await Promise.race([work, watch]);
    const dialogs = collect === "none" ? [] : await collectDialogs(tab.id);
    return dialogs.length && result && typeof result === "object" ? { ...result, dialogs } : result;
  } catch (e) {
    // A dead renderer makes executeScript fail with words of its own (Chromium: "Frame with
    // ID 0 was removed", "No tab with id"); the tabs API says what happened.
    const now = await api.tabs.get(tab.id).catch(() => null);
    if (now && (crashed(now) || (await documentGone(now)))) throw tabCrashed(now);
    if (collect !== "none" && e instanceof HelperError && e.code !== ERROR_CODES.BLOCKED && e.code !== ERROR_CODES.TAB_CRASHED) {
      const dialogs = await collectDialogs(tab.id);
      if (dialogs.length) e.data = { ...(e.data ?? {}), dialogs };
    }
    throw e;
  } finally {
    timers.forEach(clearTimeout);
    timers.length = 0;
    work.catch(() => {});
  }
}

/**
 * `page.dialog` (accept_dialog / dismiss_dialog): arms the answer to the tab's next dialog
 * (and installs the hook, if the tab had none); a tab a native dialog blocks is BLOCKED.
 */
export async function answerDialog(params) {
  const tab = await resolveTab(params);
  if (crashed(tab)) throw tabCrashed(tab);
  const accept = params.accept === true;
  const promptText = typeof params.promptText === "string" ? params.promptText : undefined;
  if (!(await answers(tab.id))) {
    const st = await stateOf(tab.id);
    st.blocked = true;
    throw blocked(tab);
  }
  const dialogs = await collectDialogs(tab.id);
  const st = await adopt(tab.id);
  st.dialogPolicy = { action: accept ? "accept" : "dismiss", ...(promptText !== undefined && { promptText }) };
  await injectHook(tab.id, null, st.dialogPolicy);
  return { tab: describeTab(tab), armed: st.dialogPolicy, dialogs };
}
