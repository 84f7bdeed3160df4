// Actions on a page, driven from the background (page timers and rAF do not run in
// background tabs): find the target, wait until it is attached, visible, enabled and its box
// is stable across two reads ≥ 50 ms apart, hit-test its centre, dispatch, then settle —
// a navigation, or the DOM quiet for 50 ms — and summarise what changed.
//
// Round trips per attempt: `probe` (resolve + first box read + scroll into view) and
// `dispatch` (second read + hit test + the events, and the mark that starts the quiet
// window); settling polls `quiet`, and `changes` returns the added nodes as a table that the
// engine renders like a snapshot.
import { api } from "./api.js";
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { debuggerEnabled, trustedClick, trustedHover, trustedKey, withDebugger } from "./debugger.js";
import { callFrame } from "./inject.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { collectTables, engineInput, parseRef, render, staleRef } from "./snapshot.js";
import { describeTab, resolveTab, watchNavigation } from "./tabs.js";
import { recheck } from "./recheck.js";
import { frameIdOf, ordinalOf, rememberShown, serialized, shownLine, stateOf } from "./tabstate.js";

export const DEFAULT_ACTION_TIMEOUT_MS = METHOD_SPECS["page.act"].params.timeoutMs.default;
const STABLE_MS = 50;
const QUIET_MS = 50;
const SETTLE_CAP_MS = 3000;
/**
 * How long a click or key press that changed nothing yet waits for a navigation: a handler
 * that navigates after a short await (a fetch, a 50 ms timer in a visible tab) starts it
 * after the quiet window, and was reported as "no change".
 */
const NAV_GRACE_MS = 300;
/** The actions that navigate by themselves (a link, a submit, Enter): only they wait for one. */
const NAVIGATING = new Set(["click", "press"]);
const RETRY_MS = 50;
/** Actions debugger mode performs with trusted input. */
const TRUSTED = new Set(["click", "hover", "type", "press"]);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What each action needs of its element. */
const NEEDS = { click: "enabled", hover: "any", fill: "fillable", type: "editable", select: "enabled", press: "any", scroll: "any", drag: "enabled" };

/**
 * A locator string → where to look and what: a ref (`e12`, `f2e7`), `text=…`,
 * `role=button[name="Save"]` (matched against the engine's roles and names), or CSS.
 */
export async function target(tab, st, locator, nth) {
  if (typeof locator !== "string" || locator.trim() === "") {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "the locator is empty", "use a ref (e12), text=…, role=button[name=\"…\"] or a CSS selector");
  }
  const s = locator.trim();
  if (/^(?:f\d+)?e\d+$/.test(s)) {
    const { ordinal, id } = parseRef(s);
    const frameId = frameIdOf(st, ordinal);
    if (frameId === undefined) throw staleRef(s, tab, "its frame is unknown");
    // What the agent was shown for this ref, checked again before acting (recheck.js).
    return { frameId, spec: { id }, ref: s, ordinal, line: shownLine(st, s) };
  }
  if (s.startsWith("text=")) return { frameId: 0, spec: { text: unquote(s.slice(5)), nth }, ordinal: 0 };
  if (s.startsWith("role=")) return { frameId: 0, role: parseRole(s.slice(5)), spec: null, nth, ordinal: 0 };
  return { frameId: 0, spec: { css: s, nth }, ordinal: 0 };
}

function unquote(t) {
  const m = /^"(.*)"$/.exec(t.trim()) ?? /^'(.*)'$/.exec(t.trim());
  return m ? m[1] : t.trim();
}

function parseRole(text) {
  const m = /^([a-z]+)\s*(?:\[\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*\])?$/i.exec(text.trim());
  if (!m) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cannot read role locator \`role=${text}\``, 'write role=button or role=button[name="Save"]');
  return { role: m[1].toLowerCase(), name: (m[2] ?? m[3])?.replace(/\\"/g, '"') ?? null };
}

/**
 * The top document's table as the engine's frames, from the snapshot's table cache: an
 * unchanged document is not walked again on each retry. `here`: walk in the agent's world.
 */
async function topFrames(tab, st, here = false) {
  const [top] = await collectTables(tab, st, { frameIds: [0] }, false, here);
  if (!top) throw new HelperError(ERROR_CODES.NOT_FOUND, `the top document of tab ${tab.id} did not answer`, "wait for the page to load");
  const table = top.value.same ? st.tables.get(top.value.doc) : top.value;
  if (!top.value.same) st.tables.set(table.doc, table);
  return [{ frameId: 0, ordinal: 0, path: [], table }];
}

/** Role locators resolve to ids through a rendering of the top document by the engine. */
async function roleMatches(tab, st, { role, name }) {
  const eng = await engine();
  const frames = await topFrames(tab, st);
  const options = { interactiveOnly: false, viewportOnly: false, root: null, maxDepth: null, redact: "safe", collapse: false };
  const { out } = await render(eng, frames, options, () => {
    st.tables.delete(frames[0].table.doc);
    return topFrames(tab, st, true);
  });
  const hits = [];
  for (const line of out.text.split("\n")) {
    const m = /^\s*\[e(\d+)\] (\S+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
    if (!m || m[2] !== role) continue;
    const lineName = (m[3] ?? "").replace(/\\"/g, '"');
    if (name == null || lineName.toLowerCase().includes(name.toLowerCase())) hits.push({ id: Number(m[1]), line: line.trim() });
  }
  return hits;
}

function locatorError(code, message, data, hint) {
  return new HelperError(ERROR_CODES[code] ?? ERROR_CODES.INTERNAL, message, hint, data);
}

/**
 * Waits for the target to be actionable and dispatches `action`. Returns the dispatch
 * answer with the element and the time spent waiting.
 */
async function waitAndDispatch(tab, st, t, action, opts, deadline, locator, needs = NEEDS[action]) {
  let last = "no element matches";
  let covered = null;
  for (;;) {
    let spec = t.spec;
    let check = t.line ? { ref: t.ref, line: t.line } : null;
    if (t.role) {
      const hits = await roleMatches(tab, st, t.role);
      if (hits.length > 1 && t.nth == null) {
        throw locatorError("INVALID_ARGUMENT", `\`${locator}\` matches ${hits.length} elements`, { matches: hits.slice(0, 10).map((h) => h.line) }, "pass nth, or a ref from take_snapshot");
      }
      const hit = hits[t.nth ?? 0];
      spec = hit ? { id: hit.id } : null;
      check = hit ? { ref: `e${hit.id}`, line: hit.line } : null;
    }
    const probe = spec ? await callFrame(tab, st, t.frameId, "probe", [spec, needs, opts.value]) : { waiting: "no element matches" };
    if (probe === null) throw staleRef(locator, tab, "its frame is gone");
    if (probe.ambiguous) {
      throw locatorError("INVALID_ARGUMENT", `\`${locator}\` matches ${probe.count} elements`, { matches: probe.ambiguous }, "pass nth (0-based), a narrower locator, or a ref from take_snapshot");
    }
    if (probe.error) throw locatorError(probe.code, `${probe.error}${probe.element ? `: ${probe.element.what}` : ""}`, { element: probe.element });
    if (probe.waiting) {
      if (t.spec?.id != null && probe.waiting === "no element matches") throw staleRef(locator, tab, "the element is gone or belongs to an earlier page");
      last = probe.element ? `${probe.waiting} (${probe.element.what})` : probe.waiting;
    } else {
      await sleep(STABLE_MS);
      if (check && spec.id != null) await recheck(tab, st, { frameId: t.frameId, ordinal: t.ordinal, id: spec.id, ref: check.ref }, check.line);
      const d = await callFrame(tab, st, t.frameId, "dispatch", [spec, action, probe.rect, check ? { ...opts, rechecked: true } : opts]);
      if (d?.done) return d;
      if (d?.error) throw locatorError(d.code, d.error);
      if (d?.ambiguous) throw locatorError("INVALID_ARGUMENT", `\`${locator}\` matches ${d.count} elements`, { matches: d.ambiguous });
      if (d?.covered) {
        covered = d.covered;
        last = `covered by ${d.covered.what}`;
      } else if (d?.unstable) {
        last = "the element is still moving";
      } else if (d?.waiting) {
        last = d.waiting;
      }
    }
    if (Date.now() >= deadline) {
      const candidates = t.spec && !t.spec.id ? await callFrame(tab, st, t.frameId, "candidates", [t.spec]).catch(() => []) : [];
      throw locatorError(
        "TIMEOUT",
        `\`${locator}\` was not actionable in time: ${last}`,
        { reason: last, coveredBy: covered, candidates },
        covered ? "close or dismiss the covering element first" : candidates?.length ? `closest: ${candidates.map((c) => c.what).join("; ")}` : "take a snapshot to see what the page shows",
      );
    }
    await sleep(RETRY_MS);
  }
}

/**
 * After a dispatch: a navigation (waited for until the action's `deadline`), or the DOM
 * quiet for QUIET_MS (measured by the page's clock, polled from here, capped), then the
 * summary of what changed.
 */
export async function settle(tab, st, frameId, ordinal, nav, deadline, doc) {
  // One deadline for the whole action (auto-wait, then settle): the page side answers within
  // the caller's timeoutMs, before the transport's own deadline.
  const started = Date.now();
  let quiet = null;
  for (;;) {
    if (nav.started) {
      // Loading: a new document, or a same-document navigation (history.pushState, a
      // fragment) that some browsers also report as loading.
      const loaded = await nav.finished(Math.max(1, deadline - Date.now()));
      quiet = await callFrame(tab, st, frameId, "quiet", []).catch(() => null);
      if (!quiet || quiet.doc !== doc) {
        return { navigated: true, tab: describeTab(loaded), settledMs: Date.now() - started, changes: null };
      }
    } else {
      quiet = await callFrame(tab, st, frameId, "quiet", []).catch(() => null);
      if (!quiet || quiet.doc !== doc) {
        nav.started = true; // already another document
        continue;
      }
      if (quiet.unloading) {
        // The page is leaving; the tab reports loading once the navigation commits.
        if (Date.now() > deadline) break;
        await sleep(25);
        continue;
      }
    }
    const capped = Date.now() - started > SETTLE_CAP_MS;
    if (capped) break;
    if (quiet.quietMs >= QUIET_MS) {
      if (quiet.changed || Date.now() - started >= (nav.grace ?? 0)) break;
      await sleep(25);
      continue;
    }
    await sleep(Math.max(10, QUIET_MS - quiet.quietMs));
  }
  nav.stop();
  let changes = null;
  if (quiet.changed) {
    const c = await callFrame(tab, st, frameId, "changes", []);
    const refOf = (id) => (ordinal ? `f${ordinal}e${id}` : `e${id}`);
    changes = { added: [], removed: c.removed.map(refOf), changed: (c.changed ?? []).map((x) => `[${refOf(x.ref)}] ${x.what}`), truncated: c.overflow };
    if (c.count > 0) {
      const eng = await engine();
      const table = { url: c.url, title: c.title, viewport: [0, 0, 0, 0], nodes: c.nodes };
      const out = eng.snapshotParts(engineInput([{ ordinal, path: [], table }], { interactiveOnly: true, viewportOnly: false, root: null, maxDepth: null, redact: "safe", collapse: false }));
      changes.added = out.text.split("\n").filter((l) => l.trim() !== "");
      rememberShown(st, out.text);
    }
    if (!changes.added.length && !changes.removed.length && !changes.changed.length) changes = null;
  }
  const now = await api.tabs.get(tab.id);
  return { navigated: false, tab: describeTab(now), settledMs: Date.now() - started, changes };
}

function actionOptions(p) {
  return { value: p.value, text: p.text, values: p.values, key: p.key, shift: Boolean(p.shift) };
}

/** `page.act`: one action on one element (or on the page for press/scroll without target). */
export async function act(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  return serialized(st, () => actOn(tab, st, params));
}

async function actOn(tab, st, params) {
  const { action } = params;
  if (!(action in NEEDS)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown action \`${action}\``, `use one of ${Object.keys(NEEDS).join(", ")}`);
  }
  const timeoutMs = params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const started = Date.now();
  const nav = watchNavigation(tab.id);
  nav.grace = NAVIGATING.has(action) ? NAV_GRACE_MS : 0;
  try {
    if (params.locator == null) {
      if (action !== "press" && action !== "scroll") {
        throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${action}\` needs a locator or a ref`);
      }
      const opts = { ...actionOptions(params), dx: params.dx, dy: params.dy };
      if (action === "press" && (await debuggerEnabled())) {
        await callFrame(tab, st, 0, "mark", []);
        const before = await callFrame(tab, st, 0, "quiet", []);
        await withDebugger(tab.id, (send) => trustedKey(send, opts.key, opts.shift));
        const settled = await settle(tab, st, 0, 0, nav, deadline, before?.doc);
        return { action, input: "trusted", ...settled };
      }
      const out = await callFrame(tab, st, 0, "pageAction", [action, opts]);
      const settled = await settle(tab, st, 0, 0, nav, deadline, out?.doc);
      return { action, input: "synthetic", scroll: out?.scroll, ...settled };
    }
    const t = await target(tab, st, params.locator, params.nth);
    const opts = actionOptions(params);
    if (action === "drag") {
      if (params.to == null) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "drag needs `to`");
      const to = await target(tab, st, params.to, params.toNth);
      if (to.frameId !== t.frameId) throw new HelperError(ERROR_CODES.UNSUPPORTED, "drag between frames is not supported");
      opts.to = to.spec ?? { id: (await roleMatches(tab, st, to.role))[0]?.id ?? -1 };
      // The drop target is re-checked once, before the drag starts (the source before dispatch).
      if (to.line) await recheck(tab, st, { frameId: to.frameId, ordinal: to.ordinal, id: to.spec.id, ref: to.ref }, to.line);
    }
    // Debugger mode: the page gets trusted input (isTrusted) for what CDP can type or click
    // in the top document; everything else stays synthetic.
    const trusted = TRUSTED.has(action) && t.frameId === 0 && (await debuggerEnabled());
    let done;
    if (trusted) {
      const aim = { hit: action === "click" || action === "hover", focus: action === "type" || action === "press" };
      done = await waitAndDispatch(tab, st, t, "aim", aim, deadline, params.locator, NEEDS[action]);
      await withDebugger(tab.id, async (send) => {
        if (action === "click") await trustedClick(send, done.x, done.y);
        else if (action === "hover") await trustedHover(send, done.x, done.y);
        else if (action === "press") await trustedKey(send, opts.key, opts.shift);
        else for (const ch of String(opts.text)) await trustedKey(send, ch);
      });
    } else {
      done = await waitAndDispatch(tab, st, t, action, opts, deadline, params.locator);
    }
    const waitedMs = Date.now() - started;
    const settled = await settle(tab, st, t.frameId, ordinalOf(st, t.frameId), nav, deadline, done.doc);
    const ref = t.ordinal ? `f${t.ordinal}e${done.element.ref}` : `e${done.element.ref}`;
    const value = action === "fill" ? { value: done.applied } : {};
    return { action, ref, element: done.element.what, input: trusted ? "trusted" : "synthetic", waitedMs, ...value, ...settled };
  } finally {
    nav.stop();
  }
}

/**
 * `page.fillForm`: several fields by ref, one settle at the end. Every field is checked
 * first (it exists, takes a fill, takes its value), so a bad field fails the call with
 * nothing applied; a field that fails while applying stops the call with what was applied
 * and what was not named in the error.
 */
export async function fillForm(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  return serialized(st, async () => {
    const timeoutMs = params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const nav = watchNavigation(tab.id);
    try {
      const targets = [];
      for (const field of params.fields) {
        if (typeof field?.ref !== "string" || field.value === undefined) {
          throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "each field needs `ref` and `value`");
        }
        const t = await target(tab, st, field.ref);
        const probe = await callFrame(tab, st, t.frameId, "probe", [t.spec, "fillable", field.value]);
        if (probe?.error) {
          throw locatorError(probe.code, `field ${field.ref}: ${probe.error}${probe.element ? `: ${probe.element.what}` : ""}; nothing was filled`, { failed: field.ref, applied: [] }, "fix that field's value (or ref) and fill the form again");
        }
        targets.push({ field, t });
      }
      const filled = [];
      let frameId = 0;
      let ordinal = 0;
      let doc = null;
      for (const { field, t } of targets) {
        ({ frameId, ordinal } = t);
        const opts = { value: field.value, keepMark: filled.length > 0 };
        let done;
        try {
          done = await waitAndDispatch(tab, st, t, "fill", opts, deadline, field.ref);
        } catch (e) {
          const rest = targets.slice(filled.length + 1).map((x) => x.field.ref);
          const applied = filled.map((f) => f.ref);
          const message = `field ${field.ref} failed: ${e.message}; applied: ${applied.join(", ") || "none"}; not applied: ${[field.ref, ...rest].join(", ")}`;
          throw new HelperError(e.code ?? ERROR_CODES.INTERNAL, message, e.hint ?? "fill the fields not applied again once the page allows it", { failed: field.ref, applied: filled, notApplied: rest });
        }
        filled.push({ ref: field.ref, element: done.element.what, value: done.applied });
        doc = done.doc;
      }
      const settled = await settle(tab, st, frameId, ordinal, nav, deadline, doc);
      return { action: "fill_form", filled, input: "synthetic", ...settled };
    } finally {
      nav.stop();
    }
  });
}

/** `page.waitFor`: until text / selector / ref appears (or is gone), or the URL matches. */
export async function waitFor(params) {
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const timeoutMs = params.timeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const gone = params.state === "gone";
  const kinds = ["text", "selector", "ref", "url"].filter((k) => params[k] != null);
  if (kinds.length !== 1) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "give exactly one of `text`, `selector`, `ref`, `url`");
  }
  const started = Date.now();
  let t = null;
  if (params.ref != null) t = await target(tab, st, params.ref);
  for (;;) {
    let met = false;
    let seen = null;
    if (params.url != null) {
      const now = await api.tabs.get(tab.id).catch(() => null);
      if (!now) throw new HelperError(ERROR_CODES.NOT_FOUND, `tab ${tab.id} was closed`);
      seen = now.url;
      met = globMatch(params.url, now.url ?? "") !== gone;
    } else {
      const spec = t ? t.spec : params.text != null ? { text: params.text } : { css: params.selector };
      const frameId = t ? t.frameId : 0;
      const out = await callFrame(tab, st, frameId, "present", [spec]).catch((e) => {
        if (e instanceof HelperError && e.code === ERROR_CODES.INVALID_ARGUMENT) throw e;
        return null; // between documents
      });
      if (out) {
        seen = out.count;
        met = gone ? out.count === 0 : out.count > 0;
        if (met && !gone) return { met: true, waitedMs: Date.now() - started, element: out.first?.what, ref: out.first ? `e${out.first.ref}` : null };
      }
    }
    if (met) return { met: true, waitedMs: Date.now() - started };
    if (Date.now() >= deadline) {
      const what = kinds[0];
      throw new HelperError(
        ERROR_CODES.TIMEOUT,
        `${what} \`${params[what]}\` did not ${gone ? "disappear" : what === "url" ? "match" : "appear"} within ${timeoutMs} ms`,
        "take a snapshot to see what the page shows, or wait longer",
        { last: seen },
      );
    }
    await sleep(100);
  }
}

/** `*` matches any run of characters; without `*`, a substring match. */
export function globMatch(pattern, text) {
  if (!pattern.includes("*")) return text.includes(pattern);
  const parts = pattern.split("*");
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (i === 0) {
      if (!text.startsWith(p)) return false;
      at = p.length;
      continue;
    }
    const found = i === parts.length - 1 && p !== "" ? text.lastIndexOf(p) : text.indexOf(p, at);
    if (found < at) return false;
    at = found + p.length;
  }
  return parts[parts.length - 1] === "" || text.endsWith(parts[parts.length - 1]);
}
