// Part of the page agent (injected after identity.js): a diff's re-walk of only what changed
// since this document's last table. take_snapshot {diff: true} after a small change would
// otherwise walk the whole page again (most of a diff's time on a docs page) to find one
// new line.
//
// The walk is the collector's, in this (the agent's) world, from the root, but it does not
// enter an element that is unchanged: one that was in the last table, is not on the way to a
// change (`since.shallow`: children added or removed; `since.deep`: attributes or text
// changed, added, an input event's target), and has no changed ancestor. It emits a marker
// there instead, and the background puts that element's subtree from its copy of the last
// table in its place (snapshot.js `expandPatch`). identity.js gives up on a re-walk (a
// full walk follows) when a change reaches past its subtree: frames added or removed (frame
// indices shift), style sheets, `<label>`s, `id`/`for` attributes, the root or body
// attributes, a resize, more than a few hundred changed elements.
//
// What it cannot see (as the table cache before it): changes that make no mutation (a
// script setting `value`, CSSOM rule edits), and style that depends on siblings
// (`:first-child`, `+`) of an unchanged element whose parent gained or lost children.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (!agent || agent.loaded.has("patch")) return;
  agent.loaded.add("patch");
  const { walk } = globalThis.__webextMcpCollector;

  /** The flat-tree parent: a slotted node's slot, a shadow root's host, else the parent. */
  const up = (n) => n.assignedSlot ?? (n.parentNode?.nodeType === 11 ? n.parentNode.host : n.parentNode);

  /**
   * The table of a re-walk (`patch: true`, markers in `nodes`), or null when the document
   * has no root. `since` is identity.js's record of the changes.
   */
  agent.patchWalk = (since, maxNodes) => {
    if (!document.documentElement) return null;
    const started = performance.now();
    const { state, idOf, closedRootOf } = agent;
    // Every element from a change up to the root is walked again itself.
    const path = new Set();
    const climb = (n) => {
      for (; n?.nodeType === 1 && !path.has(n); n = up(n)) path.add(n);
    };
    for (const set of [since.deep, since.shallow]) for (const el of set) if (el.isConnected) climb(el);
    // Names given by aria-labelledby are read from elsewhere in the document: such elements
    // are walked again (their own line only, unless they changed).
    for (const el of document.querySelectorAll("[aria-labelledby]")) climb(el);
    const underDeep = (el) => {
      for (let n = up(el); n?.nodeType === 1; n = up(n)) if (since.deep.has(n)) return true;
      return false;
    };
    const reuse = (el) => {
      if (path.has(el)) return null;
      const id = state.ids.get(el);
      return id !== undefined && state.tabled.has(id) && !underDeep(el) ? id : null;
    };
    const tabled = new Set();
    const tableId = (el) => {
      const id = idOf(el);
      tabled.add(id);
      return id;
    };
    const { json, count } = walk([document.documentElement], { maxNodes, idOf: tableId, closedRoot: (el) => Boolean(closedRootOf(el)), reuse });
    return { nodes: json, elements: count, walkMs: performance.now() - started, jsonMs: 0, walker: "patch", patch: true, tabled };
  };
})();
