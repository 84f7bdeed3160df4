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

/** `{text, added, removed, changed}` between two renderings (see the module comment). */
export function diffLines(before, after) {
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
