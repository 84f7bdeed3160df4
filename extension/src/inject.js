// Calling the page agent (page/identity.js … page/settle.js) in a tab's frames: the agent is injected once per
// document, on first need; every call seeds a new document's ids from the tab's counter and
// reports the counter back.
import { api } from "./api.js";
import { HelperError } from "./errors.js";
import { installCollector } from "./page/collector.js";
import { ERROR_CODES } from "./protocol.js";

// After the collector (the agent walks with it), the agent in its order: identity.js starts
// it, settle.js publishes it.
const AGENT_FILES = ["page/identity.js", "page/patch.js", "page/locate.js", "page/input.js", "page/upload.js", "page/settle.js"];

// Runs in the page's isolated world: calls the agent by name, or says it is missing.
function callInPage(name, args, seed) {
  const agent = globalThis.__webextMcp;
  if (!agent) return { missing: true };
  agent.seed(seed);
  try {
    return Promise.resolve(agent[name](...args)).then(
      (value) => ({ value, next: agent.next() }),
      (e) => ({ thrown: { message: String(e?.message ?? e), code: e?.code }, next: agent.next() }),
    );
  } catch (e) {
    return { thrown: { message: String(e?.message ?? e), code: e?.code }, next: agent.next() };
  }
}

export function unscriptable(tab, e) {
  return new HelperError(
    ERROR_CODES.PERMISSION_DENIED,
    `cannot read tab ${tab.id} (${tab.url || "no URL"}): ${e?.message ?? e}`,
    "browser pages (chrome://, about:, the web store, other extensions) cannot be scripted; use a web page",
  );
}

/**
 * Calls `name(...args)` in the agent of the frames `target` names (`{allFrames: true}` or
 * `{frameIds: […]}`) of `tab`. `st` is the tab's state (its `next` counter is read and
 * raised). Resolves to `[{frameId, value}]`; frames that could not run it are left out.
 */
export async function callAgent(tab, st, target, name, args = []) {
  const run = (t) => api.scripting.executeScript({ target: { tabId: tab.id, ...t }, func: callInPage, args: [name, args, st.next] });
  let results;
  try {
    results = await run(target);
    const missing = results.filter((r) => r?.result?.missing).map((r) => r.frameId ?? 0);
    if (missing.length) {
      await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: missing }, func: installCollector, args: [null] });
      await api.scripting.executeScript({ target: { tabId: tab.id, frameIds: missing }, files: AGENT_FILES });
      const again = await run({ frameIds: missing });
      results = results.filter((r) => !r?.result?.missing).concat(again);
    }
  } catch (e) {
    throw unscriptable(tab, e);
  }
  const out = [];
  for (const r of results ?? []) {
    const res = r?.result;
    if (!res || res.missing) continue;
    if (Number.isInteger(res.next)) st.next = Math.max(st.next, res.next);
    if (res.thrown) {
      const code = ERROR_CODES[res.thrown.code] ?? ERROR_CODES.SCRIPT_ERROR;
      throw new HelperError(code, res.thrown.message);
    }
    out.push({ frameId: r.frameId ?? 0, value: res.value });
  }
  return out;
}

/**
 * Injects the main-world side of the collector into the frames of `tab` that asked for it
 * (`[{frameId, channel}]`: the agent walks there when it answers), each with its document's
 * channel as an argument, so page code never sees it in transit. When the browser refuses,
 * the agent finds no answer and walks in its own world.
 */
export async function injectMainCollector(tab, frames) {
  await Promise.all(
    frames.map(({ frameId, channel }) =>
      api.scripting
        .executeScript({ target: { tabId: tab.id, frameIds: [frameId] }, func: installCollector, args: [String(channel)], world: "MAIN" })
        .catch(() => {}),
    ),
  );
}

/** The agent's answer in one frame, or `null` when that frame did not answer. */
export async function callFrame(tab, st, frameId, name, args = []) {
  const out = await callAgent(tab, st, { frameIds: [frameId] }, name, args);
  return out.length ? out[0].value : null;
}
