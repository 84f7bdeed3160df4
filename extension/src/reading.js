// Reading without a snapshot tree: get_page_text (`page.text`) and find_by_text
// (`page.find`), from the same collector tables and engine as snapshots (the engine's
// reading.rs). Each kind of answer is cached for its cursors apart from the others, so a
// text page never supersedes a snapshot's cursor.
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { callAgent, injectMainCollector } from "./inject.js";
import { cursorOf, pageAtCursor, pageOf } from "./pager.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { MARKS, bounded, collectFrames, framesInOrder, maxBytesOf, redactOf, renderCollected, timingsOf } from "./snapshot.js";
import { describeTab, resolveTab } from "./tabs.js";
import { ordinalOf, rememberShown, stateOf } from "./tabstate.js";

const DEFAULT_LIMIT = METHOD_SPECS["page.find"].params.limit.default;

/**
 * Collects every frame of the tab and renders it in `options.mode`: `{frames, out, marks}`,
 * `marks` the stage boundaries `timingsOf` reads (`started` is when the call began). Cold (no
 * table held), `scope` (page/identity.js `scoped`: `{find}` or `{main}`) has each frame walk
 * only what the answer can come from.
 */
async function rendered(eng, tab, st, options, started, scope = null) {
  const t0 = performance.now();
  const scoped = scope && st.tables.size === 0 ? await scopedFrames(tab, st, scope) : null;
  // After a small change (an action) only the changed parts are walked again (page/patch.js).
  let collected = scoped ?? (await collectFrames(tab, st, false, null, true));
  const t1 = performance.now();
  const t1wall = Date.now();
  const all = { viewportOnly: false, collapse: false, ...options };
  let { frames, out } = await renderCollected(eng, tab, st, collected, all);
  // read_page's scope is the one element that could have role `main`; the engine says
  // whether it has (`rootFrom`), else the whole page is read.
  if (scoped && options.mode === "read" && frames[0].table.scoped && out.rootFrom !== "main") {
    collected = await collectFrames(tab, st, false, null, true);
    ({ frames, out } = await renderCollected(eng, tab, st, collected, all));
  }
  return { frames, out, marks: { started, t0, t1, t1wall, t2: performance.now() } };
}

/**
 * The frames of `tab` walked with `scope` in their main worlds (page/identity.js `scoped`),
 * ordered as `collectFrames` orders them, with the agent's ids; nothing is kept (the table
 * cache and the diffs' re-walks are untouched). Null when a frame cannot walk so (its main
 * world is off or absent, the DOM changed during the walk) or the top did not answer: then
 * the frames are collected as usual.
 */
async function scopedFrames(tab, st, scope) {
  let results = await callAgent(tab, st, { allFrames: true }, "scoped", [scope]);
  const fresh = results.filter((r) => r.value?.needsMainWorld).map((r) => ({ frameId: r.frameId, channel: r.value.channel }));
  if (fresh.length) {
    await injectMainCollector(tab, fresh);
    const again = await callAgent(tab, st, { frameIds: fresh.map((f) => f.frameId) }, "scoped", [{ ...scope, mainInjected: true }]);
    results = results.filter((r) => !r.value?.needsMainWorld).concat(again);
  }
  const answered = results.filter((r) => r.value && typeof r.value === "object");
  if (answered.some((r) => typeof r.value.nodes !== "string") || !answered.some((r) => r.frameId === 0)) return null;
  const frames = answered.map((r) => ({ frameId: r.frameId, path: r.value.path, table: r.value, doc: r.value.doc }));
  frames.sort(framesInOrder);
  return frames.map((f) => ({ ...f, ordinal: ordinalOf(st, f.frameId) }));
}

/**
 * get_page_text without tables: each frame's text walk (page/collector.js `textWalk`, in the
 * page's main world when it answers), joined, stitched and redacted by the engine
 * (ext-wasm/src/textwalk.rs). `{frames, out, marks}` as `rendered`, or null when the walks
 * cannot stand for the tables' (the top frame did not answer, or the engine refused a walk:
 * a frame element out of the order the agent saw, a malformed answer); then the caller reads
 * the tables. Nothing is kept: the table cache and the diffs' re-walks are untouched.
 */
async function walkedText(eng, tab, st, redact, started, stopAfter = null) {
  const t0 = performance.now();
  let results = await callAgent(tab, st, { allFrames: true }, "text", [{ stopAfter }]);
  const fresh = results.filter((r) => r.value?.needsMainWorld).map((r) => ({ frameId: r.frameId, channel: r.value.channel }));
  if (fresh.length) {
    await injectMainCollector(tab, fresh);
    const again = await callAgent(tab, st, { frameIds: fresh.map((f) => f.frameId) }, "text", [{ mainInjected: true, stopAfter }]);
    results = results.filter((r) => !r.value?.needsMainWorld).concat(again);
  }
  const frames = results.filter((r) => typeof r.value?.tokens === "string").map((r) => ({ frameId: r.frameId, path: r.value.path, table: r.value }));
  if (!frames.some((f) => f.frameId === 0)) return null;
  frames.sort(framesInOrder);
  const t1 = performance.now();
  const t1wall = Date.now();
  const head = JSON.stringify({ frames: frames.map((f, k) => ({ path: f.path, tokens: k, order: f.table.order ?? null, partial: f.table.partial === true })), redact });
  let out;
  try {
    out = eng.pageText(head, frames.map((f) => f.table.tokens));
  } catch (e) {
    if (e instanceof HelperError) return null;
    throw e;
  }
  return { frames, out, marks: { started, t0, t1, t1wall, t2: performance.now() } };
}

/** get_page_text (`t` ids) and read_page (`main`: `m` ids), each with its own cursors. */
const KINDS = {
  text: { mode: "text", prefix: "t", key: "latestText", what: "page text", tool: "get_page_text" },
  main: { mode: "read", prefix: "m", key: "latestRead", what: "read_page text", tool: "read_page" },
};

// A first page needs only the start of a long page. Cold, the top document's walk ends at the
// first block this many characters past the page's end (room for what the engine joins,
// marks up or redacts differently, and for the lines a cut walk leaves unfinished at its
// end), and the text is kept as `partial`; the first cursor past it walks the whole page.
const READ_AHEAD = 4096;

const utf8 = new TextEncoder();

/**
 * The text of `kind` for `params`, for a page of `pageBytes` at `offset` (null: the whole
 * page): `{frames, out, marks, partial, bytes}`. Only a cold walk of the top document stops
 * early (`partial`), and then past that page; every other read is whole.
 */
async function readFar(eng, tab, st, kind, params, redact, started, offset, pageBytes) {
  let stopAfter = offset === null ? null : offset + pageBytes + READ_AHEAD;
  for (let tries = 1; ; tries++) {
    const r = await readOnce(eng, tab, st, kind, params, redact, started, stopAfter);
    const partial = stopAfter !== null && r.frames[0]?.frameId === 0 && r.frames[0].table.partial === true;
    const bytes = r.out.bytes ?? utf8.encode(r.out.text).length;
    // A partial text must reach past the page, so that the page ends where the whole text's
    // would; else walk further, and the third time all of it.
    if (!partial || bytes > offset + pageBytes) return { ...r, partial, bytes };
    stopAfter = tries < 2 ? stopAfter * 4 : null;
  }
}

async function readOnce(eng, tab, st, kind, params, redact, started, stopAfter) {
  // Cold (no table held), the whole page's text needs no table: walk for text alone.
  const walked = kind === KINDS.text && params.root == null && st.tables.size === 0 ? await walkedText(eng, tab, st, redact, started, stopAfter) : null;
  if (walked) return walked;
  const scope = kind === KINDS.main && params.root == null ? { main: true, stopAfter } : null;
  return rendered(eng, tab, st, { mode: kind.mode, root: params.root ?? null, redact }, started, scope);
}

/** Remembers `text` as `kind`'s answer in `cached`: what read_page showed is what actions check. */
function keepText(st, kind, cached, { out, partial, bytes }) {
  Object.assign(cached, { text: out.text, bytes, partial });
  // read_page shows refs of links and controls: actions on them are checked against what it
  // showed (a link inline as `[text](url)[e8]` is remembered as the line `[e8] link "text"`).
  if (kind === KINDS.main) rememberShown(st, `${out.text}${linkLines(out.text)}`);
}

export async function readText(params) {
  const started = performance.now();
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const maxBytes = maxBytesOf(params);
  const pageBytes = maxBytes - MARKS;
  const eng = await engine();
  const kind = params.main ? KINDS.main : KINDS.text;
  if (params.cursor != null) {
    const hint = `call ${kind.tool} again and page through it`;
    const cached = st[kind.key];
    const m = cursorOf(params.cursor, kind.prefix);
    let changed = false;
    if (m && cached?.id === m[1] && cached.partial && Number(m[2]) + pageBytes >= cached.bytes) {
      // Past the start that was read: read the whole page now (its later pages come from it).
      const before = cached.text;
      keepText(st, kind, cached, await readFar(eng, tab, st, kind, cached.params, cached.redact, started, null, pageBytes));
      const offset = Number(m[2]);
      const at = continuation(before, offset, cached.text);
      changed = at !== offset;
      if (changed) params = { ...params, cursor: `${cached.id}:${at}` };
    }
    const page = pageAtCursor(eng, cached, params.cursor, pageBytes, { prefix: kind.prefix, what: kind.what, tab, hint });
    const { chunk, ...rest } = bounded(page);
    return { snapshotId: cached.id, tab: describeTab(tab), text: chunk, ...rest, ...(changed && { pageChanged: true }) };
  }
  const redact = redactOf(params);
  const read = await readFar(eng, tab, st, kind, params, redact, started, 0, pageBytes);
  st.texts = (st.texts ?? 0) + 1;
  const cached = { id: `${kind.prefix}${st.texts}`, sections: kind.mode === "read", redact, params: { root: params.root ?? null } };
  keepText(st, kind, cached, read);
  st[kind.key] = cached;
  const { chunk, ...first } = bounded(pageOf(eng, cached, 0, pageBytes));
  const timings = timingsOf(read.frames, { ...read.marks, t3: performance.now() });
  return { snapshotId: cached.id, tab: describeTab(tab), text: chunk, ...first, nodes: read.out.nodes, frames: read.frames.length, timings };
}

/**
 * Where the page after byte `offset` of `before` (the start of a page read earlier) goes on in
 * `after` (the whole page read now): the same offset when the text up to it is the same;
 * else (the page changed in between) just after the line `before`'s pages ended with, where
 * it stands nearest that offset in `after`, or the line start at or after the offset.
 */
function continuation(before, offset, after) {
  const a = utf8.encode(after);
  const b = utf8.encode(before).subarray(0, offset);
  if (offset <= a.length && b.every((x, i) => a[i] === x)) return offset;
  const decoder = new TextDecoder();
  const read = decoder.decode(b);
  const last = read.slice(read.lastIndexOf("\n", read.length - 2) + 1);
  let best = null;
  if (last.length > 1) {
    for (let i = after.indexOf(last); i >= 0; i = after.indexOf(last, i + 1)) {
      if (i > 0 && after[i - 1] !== "\n") continue;
      const end = utf8.encode(after.slice(0, i + last.length)).length;
      if (best === null || Math.abs(end - offset) < Math.abs(best - offset)) best = end;
    }
  }
  if (best !== null) return best;
  if (offset >= a.length) return a.length;
  const nl = a.indexOf(10, Math.max(0, offset - 1));
  return nl < 0 ? a.length : nl + 1;
}

const INLINE_LINK = /\[((?:[^\]\\]|\\.)*)\]\([^)\s]*\)\[((?:f\d+)?e\d+)\]/g;

/** `[e8] link "text"` for each inline link of a read_page text. */
function linkLines(text) {
  let out = "";
  for (const m of text.matchAll(INLINE_LINK)) out += `[${m[2]}] link ${JSON.stringify(m[1])}\n`;
  return out;
}

// `/pattern/flags`: a JavaScript regular expression, which the engine runs (ext-wasm
// src/matcher.rs). Checked here so that a bad pattern is the agent's error, with its reason.
const REGEX_QUERY = /^\/(.+)\/([a-z]*)$/s;

function regexOf(query, params) {
  const m = REGEX_QUERY.exec(query.trim());
  if (!m) return {};
  if (params.exact) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`exact` does not apply to a /regex/ query", "anchor the pattern instead: /^text$/");
  }
  const [, regex, flags] = m;
  try {
    new RegExp(regex, flags);
  } catch (e) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${query}\` is not a valid regular expression: ${e.message}`, "use JavaScript RegExp syntax, e.g. /sign (in|up)/");
  }
  return { regex, flags };
}

export async function findText(params) {
  const started = performance.now();
  let timings;
  const tab = await resolveTab(params);
  const st = await stateOf(tab.id);
  const limit = params.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`limit` must be a positive integer");
  }
  let cached = st.latestFind;
  let offset = 0;
  if (params.cursor != null) {
    const m = /^(q\d+):(\d+)$/.exec(params.cursor);
    if (!m) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${params.cursor}\` is not a find_by_text cursor`, "pass the nextCursor of the previous page");
    if (cached?.id !== m[1]) {
      throw new HelperError(ERROR_CODES.STALE, `find ${m[1]} of tab ${tab.id} was superseded`, "call find_by_text again");
    }
    offset = Number(m[2]);
  } else {
    const query = String(params.query ?? "");
    if (!query.trim()) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`query` is empty", "pass the text to find");
    const eng = await engine();
    const options = { mode: "find", query, exact: Boolean(params.exact), caseSensitive: Boolean(params.caseSensitive), redact: redactOf(params), ...regexOf(query, params) };
    // A literal query: each frame walks only what could match it (a pattern could match anything).
    const scope = options.regex === undefined ? { find: { query, caseSensitive: options.caseSensitive } } : null;
    const { frames, out, marks } = await rendered(eng, tab, st, options, started, scope);
    timings = timingsOf(frames, { ...marks, t3: performance.now() });
    st.finds = (st.finds ?? 0) + 1;
    cached = { id: `q${st.finds}`, hits: out.hits ?? [], lines: out.text.split("\n").filter(Boolean) };
    st.latestFind = cached;
  }
  const hits = cached.hits.slice(offset, offset + limit);
  const text = cached.lines.slice(offset, offset + limit).map((l) => `${l}\n`).join("");
  // What the agent was shown: an action on one of these refs is checked against it.
  rememberShown(st, text);
  const next = offset + limit < cached.hits.length ? `${cached.id}:${offset + limit}` : null;
  const { chunk, ...page } = bounded({ chunk: text, offset, nextCursor: next, totalBytes: new TextEncoder().encode(cached.lines.join("\n")).length });
  return { snapshotId: cached.id, tab: describeTab(tab), text: chunk, ...page, hits, total: cached.hits.length, ...(timings && { timings }) };
}
