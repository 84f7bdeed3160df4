// evaluate_script: a function (or expression) run in the page's main world, with JSON
// arguments and a JSON result, paged by maxBytes + cursor like snapshots. Code strings are
// compiled by the page, so the page's Content-Security-Policy applies: a refusal is
// SCRIPT_ERROR with a hint, never worked around.
import { api } from "./api.js";
import { debuggerEnabled, trustedEvaluate, withDebugger } from "./debugger.js";
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { unscriptable } from "./inject.js";
import { pageAtCursor, pageOf } from "./pager.js";
import { ERROR_CODES } from "./protocol.js";
import { scrubSecrets, secretsOf } from "./scrub.js";
import { DEFAULT_MAX_BYTES } from "./snapshot.js";
import { describeTab, resolveTab } from "./tabs.js";
import { serialized, stateOf } from "./tabstate.js";

// Runs in the page's main world. Answers {json} or {error: {name, message, kind}}.
async function runInPage(code, args) {
  const fail = (kind, e) => ({ error: { kind, name: e?.name ?? "Error", message: String(e?.message ?? e) } });
  let fn;
  try {
    fn = (0, eval)(`(${code}\n)`);
  } catch (e) {
    return fail(e?.name === "EvalError" ? "csp" : "compile", e);
  }
  let value;
  try {
    value = typeof fn === "function" ? await fn(...args) : await fn;
  } catch (e) {
    return fail("throw", e);
  }
  if (value === undefined) return { json: "null", undefined: true };
  if (typeof value === "function" || typeof value === "symbol" || (typeof Node !== "undefined" && value instanceof Node) || value === window) {
    return fail("unserializable", new TypeError(`the result is a ${value === window ? "Window" : value instanceof Node ? value.nodeName + " node" : typeof value}`));
  }
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return fail("unserializable", new TypeError(`the result (${typeof value}) has no JSON form`));
    return { json };
  } catch (e) {
    return fail("unserializable", e);
  }
}

const HINTS = {
  csp: "the page's Content-Security-Policy forbids compiling code strings; read the page with take_snapshot instead",
  compile: "pass a function expression such as `() => document.title`, or an expression",
  throw: "the code threw in the page; fix it and retry",
  unserializable: "return plain JSON data (strings, numbers, arrays, objects), e.g. el.textContent instead of the element",
};

export async function evaluate(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const eng = await engine();
  const maxBytes = params.maxBytes ?? DEFAULT_MAX_BYTES;
  if (params.cursor != null) {
    const where = { prefix: "r", what: "result", tab, hint: "run the script again" };
    return answer(tab, st.result, pageAtCursor(eng, st.result, params.cursor, maxBytes, where));
  }
  if (typeof params.function !== "string" || params.function.trim() === "") {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`function` must be the code to run", "e.g. `() => document.title`");
  }
  const trusted = await debuggerEnabled();
  let out;
  if (trusted) {
    // Debugger mode: Runtime.evaluate, which the page's CSP does not govern.
    out = await serialized(st, () =>
      withDebugger(tab.id, (send) => trustedEvaluate(send, params.function, params.args ?? [])),
    ).catch((e) => {
      throw new HelperError(ERROR_CODES.PERMISSION_DENIED, `cannot attach the debugger to tab ${tab.id}: ${e?.message ?? e}`, "another debugger (DevTools?) may be attached");
    });
  } else {
    let results;
    try {
      results = await api.scripting.executeScript({
        target: { tabId: tab.id },
        world: "MAIN",
        func: runInPage,
        args: [params.function, params.args ?? []],
      });
    } catch (e) {
      throw unscriptable(tab, e);
    }
    out = results?.[0]?.result;
    if (!out) {
      const err = results?.[0]?.error;
      throw new HelperError(ERROR_CODES.SCRIPT_ERROR, `the script did not return (${err?.message ?? err ?? "no result"})`, HINTS.throw);
    }
  }
  if (out.error) {
    const { kind, name, message } = out.error;
    throw new HelperError(ERROR_CODES.SCRIPT_ERROR, `${name}: ${message}`, HINTS[kind], { kind });
  }
  // Scrubbed before it is kept: later pages of the result come from the kept text.
  const { text, scrubbed } = params.scrubSecrets === false ? { text: out.json, scrubbed: 0 } : scrubSecrets(out.json, await secretsOf(tab, eng));
  st.results = (st.results ?? 0) + 1;
  st.result = { id: `r${st.results}`, text };
  return { ...answer(tab, st.result, pageOf(eng, st.result, 0, maxBytes)), via: trusted ? "debugger" : "main-world", scrubbed };
}

function answer(tab, result, { chunk, ...page }) {
  return { tab: describeTab(tab), resultId: result.id, json: chunk, ...page };
}
