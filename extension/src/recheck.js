// Before an action on a ref: is the element still what the snapshot showed? The snapshot's
// lines can come from the page's main world, which page code can answer for with lies (a
// "Delete account" button shown as "Keep my account"); and a page can change an element
// between the snapshot and the action. So each rendering shown to the agent is remembered
// per tab (`st.shown`, newest first, tabstate.js), and before acting on a ref the agent, in its isolated
// world, walks the element (with its ancestors and labels) afresh; the engine renders that,
// and the two lines must agree under the rule below, else STALE with both, and nothing is
// acted on.
//
// The rule (docs/snapshot.md, "Re-check before acting on a ref"): the same role, and the same accessible name after
// whitespace normalization (a name cut with `…` matching the start of the other), or names
// that differ by one word of a known toggle pair
// (TOGGLES, case-insensitive). The tag is the element's own (ids name elements, whose tag never
// changes) and was checked when the snapshot's table was mapped to ids. A ref no rendering
// showed (an old one, or one from a restarted helper) is acted on without the name check.
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { callFrame } from "./inject.js";
import { ERROR_CODES } from "./protocol.js";
import { engineInput } from "./snapshot.js";
import { shownLine } from "./tabstate.js";

/** Words a toggle control swaps for each other; a name may differ by one of these. */
export const TOGGLES = [
  ["follow", "following"], ["follow", "unfollow"], ["play", "pause"], ["show", "hide"], ["expand", "collapse"],
  ["open", "close"], ["mute", "unmute"], ["like", "unlike"], ["like", "liked"], ["subscribe", "subscribed"],
  ["subscribe", "unsubscribe"], ["star", "unstar"], ["star", "starred"], ["watch", "unwatch"], ["pin", "unpin"],
  ["save", "saved"], ["more", "less"],
];

/** `[e4] button "Save" disabled` → {role: "button", name: "Save"} (the name as rendered). */
export function lineParts(line) {
  const m = /^\s*\[(?:f\d+)?e\d+\] (\S+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line ?? "");
  return m ? { role: m[1], name: m[2] ?? "" } : null;
}

const normalize = (name) => name.replace(/\s+/g, " ").trim();

/** Whether `found` may stand for `shown` under the rule above. */
export function sameShown(shown, found) {
  if (!shown || !found || shown.role !== found.role) return false;
  const a = normalize(shown.name);
  const b = normalize(found.name);
  if (a === b) return true;
  // A name cut at a rendering's length limit (a `root` snapshot shows longer names): the
  // cut one must be a start of the other.
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.endsWith("…") && long.startsWith(short.slice(0, -1).trimEnd())) return true;
  const wa = a.toLowerCase().split(" ");
  const wb = b.toLowerCase().split(" ");
  if (wa.length !== wb.length) return false;
  const diff = wa.map((w, i) => [w, wb[i]]).filter(([x, y]) => x !== y);
  return diff.length === 1 && TOGGLES.some(([x, y]) => (diff[0][0] === x && diff[0][1] === y) || (diff[0][0] === y && diff[0][1] === x));
}

/**
 * Re-checks the element `id` of frame `frameId` (ordinal `ordinal`) against `line`, the
 * snapshot line that showed it. Throws STALE with what was shown and found on a mismatch.
 */
export async function recheck(tab, st, { frameId, ordinal, id, ref }, line) {
  const shown = lineParts(line);
  if (!shown) return;
  const out = await callFrame(tab, st, frameId, "recheck", [id]);
  if (!out?.found) throw stale(ref, tab, "the element is gone or belongs to an earlier page", line, null);
  const eng = await engine();
  const table = { url: out.url, title: out.title, viewport: [0, 0, 0, 0], nodes: out.nodes };
  const options = { interactiveOnly: false, viewportOnly: false, root: null, maxDepth: null, redact: "safe", collapse: false };
  const rendered = eng.snapshotParts(engineInput([{ ordinal, path: [], table }], options));
  const now = shownLine({ shown: [rendered.text] }, ref);
  if (!sameShown(shown, lineParts(now))) {
    throw stale(ref, tab, `it showed as ${describe(shown)}, it is now ${now ? describe(lineParts(now)) : "not shown"}`, line, now);
  }
}

const describe = ({ role, name }) => (name ? `${role} "${name}"` : role);

function stale(ref, tab, why, shown, found) {
  return new HelperError(
    ERROR_CODES.STALE,
    `ref ${ref} in tab ${tab.id} no longer names what the snapshot showed: ${why}; nothing was done`,
    "take a new snapshot and use its refs",
    { ref, shown: shown?.trim() ?? null, found: found?.trim() ?? null },
  );
}
