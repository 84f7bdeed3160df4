// Snapshot diffs (take_snapshot {diff: true}): what changed in a tab's rendering since the
// same MCP client's previous snapshot of it. The host numbers its clients and prefixes each
// request id with the number (`c3:7`), so the baseline is per (client, tab) without any
// client saying who it is.
//
// Lines with a ref are matched by ref: `~` a line whose ref stayed and whose text changed,
// `+` a ref that is new, `-` one that is gone. Lines without a ref (text, `frame`, `…` runs)
// are matched by content, as a multiset: `+` and `-` only. Unchanged lines are left out; the
// new lines keep document order, removed ones follow.

/** The requesting client's key (`c3`), from the host's request id. */
export function clientOf(meta) {
  const id = String(meta?.request?.id ?? "");
  const m = /^(c\d+):/.exec(id);
  return m ? m[1] : "local";
}

/** Baselines kept per tab: a few clients at most (the oldest is forgotten). */
const KEPT = 4;

/** Remembers `entry` ({doc, url, text}) as `client`'s baseline in tab state `st`. */
export function keepBaseline(st, client, entry) {
  st.baselines ??= new Map();
  st.baselines.delete(client);
  st.baselines.set(client, entry);
  while (st.baselines.size > KEPT) st.baselines.delete(st.baselines.keys().next().value);
}

const REF = /^\s*\[((?:f\d+)?e\d+)\]/;

/**
 * The lengths of the longest run of whole lines `a` and `b` start with, and of the longest
 * run they end with after it (both end with a newline or are empty).
 */
function commonEnds(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  const head = i === a.length && i === b.length ? i : a.lastIndexOf("\n", i - 1) + 1;
  let j = 0;
  while (j < n - head && a.charCodeAt(a.length - 1 - j) === b.charCodeAt(b.length - 1 - j)) j++;
  // Back to a line start: the run is the text after the newline that precedes it.
  const at = j === 0 ? -1 : a.indexOf("\n", a.length - j);
  const tail = at < 0 ? 0 : a.length - (at + 1);
  return { head, tail: Math.max(0, Math.min(tail, j)) };
}

/**
 * `{text, added, removed, changed}` between two renderings (see the module comment). Lines
 * the two share at their start and end are the same lines with the same refs (a ref names
 * one line of a rendering), so only the lines between are compared: after a small change
 * that is a few lines of a page's thousands. (The same lines and counts as comparing the
 * whole texts; where a text line repeats, the copy listed may sit elsewhere.)
 */
export function diffLines(before, after) {
  const { head, tail } = commonEnds(before, after);
  return diffMiddle(before.slice(head, before.length - tail), after.slice(head, after.length - tail));
}

function diffMiddle(before, after) {
  const old = new Map();
  const oldText = new Map();
  for (const line of before.split("\n")) {
    if (!line) continue;
    const m = REF.exec(line);
    if (m) old.set(m[1], line);
    else oldText.set(line.trim(), (oldText.get(line.trim()) ?? 0) + 1);
  }
  const out = [];
  let added = 0;
  let changed = 0;
  const seen = new Set();
  for (const line of after.split("\n")) {
    if (!line) continue;
    const m = REF.exec(line);
    if (m) {
      seen.add(m[1]);
      const was = old.get(m[1]);
      if (was === undefined) {
        out.push(`+ ${line.trim()}`);
        added++;
      } else if (was.trim() !== line.trim()) {
        out.push(`~ ${line.trim()}`);
        changed++;
      }
      continue;
    }
    const key = line.trim();
    const left = oldText.get(key) ?? 0;
    if (left > 0) oldText.set(key, left - 1);
    else {
      out.push(`+ ${key}`);
      added++;
    }
  }
  let removed = 0;
  for (const [ref, line] of old) {
    if (!seen.has(ref)) {
      out.push(`- ${line.trim()}`);
      removed++;
    }
  }
  for (const [key, n] of oldText) {
    for (let i = 0; i < n; i++) {
      out.push(`- ${key}`);
      removed++;
    }
  }
  return { text: out.length ? `${out.join("\n")}\n` : "", added, removed, changed };
}
