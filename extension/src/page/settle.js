// Part of the page agent: classic scripts injected on demand (scripting.executeScript with
// `files`, in the order of AGENT_FILES in ../inject.js) into a frame's isolated world, once
// per document: identity.js, locate.js, input.js, settle.js. identity.js starts the agent's
// shared parts (`globalThis.__webextMcpAgent`, internal); each later file adds to them and
// to the API; settle.js, the last, publishes it as `globalThis.__webextMcp`, which later
// injections call by name. Each file runs once per document, however often it is injected.
// Everything that waits or measures time is driven by the background: page timers are
// clamped and rAF never fires in background tabs, so nothing here uses either.
//
// settle.js: settling and change summaries (the change window an action opens, how
// long the DOM has been quiet, what it added and removed), then the agent is published.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (globalThis.__webextMcp || !agent || agent.loaded.has("settle")) return;
  agent.loaded.add("settle");
  const { api, state, log, idOf, isInteractive, describe, matchAll } = agent;
  const { walk } = globalThis.__webextMcpCollector;

  /** Starts a new change window (called at dispatch). */
  api.mark = () => {
    log.added = [];
    log.removed = [];
    log.changed = [];
    log.overflow = false;
    log.last = performance.now();
    log.markSeq = log.seq;
  };

  /** How long the DOM has been quiet, by the page's clock, and whether it changed at all. */
  api.quiet = () => ({
    quietMs: performance.now() - log.last,
    changed: log.seq !== log.markSeq,
    unloading: Boolean(log.unloading),
    doc: state.doc,
    url: location.href,
    title: document.title,
  });

  /**
   * What changed since the mark: a table (TABLE.md nodes) of the added subtrees that are
   * still attached, and the ids of removed interactive elements the agent had named.
   */
  api.changes = () => {
    const added = log.added.filter((n) => n.isConnected && !log.added.some((m) => m !== n && m.contains(n)));
    const { json: nodes, count } = walk(added, { idOf });
    const removed = [];
    for (const n of log.removed) {
      if (n.isConnected) continue;
      const stack = [n];
      while (stack.length) {
        const el = stack.pop();
        const id = state.ids.get(el);
        if (id !== undefined && isInteractive(el)) removed.push(id);
        stack.push(...el.children);
      }
    }
    // `nodes` is JSON text of `count` nodes.
    return { nodes, count, removed, changed: changedElements(added), overflow: log.overflow, url: location.href, title: document.title };
  };

  const MAX_CHANGED = 20;

  /**
   * The visible elements whose text or attributes changed since the mark (outside the
   * added subtrees, which are reported as added), innermost first, described as in errors.
   */
  function changedElements(added) {
    const seen = new Set();
    const out = [];
    for (const el of log.changed) {
      if (seen.has(el) || !el.isConnected || added.some((a) => a.contains(el))) continue;
      seen.add(el);
      if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) continue;
      // An ancestor of an element already listed says less than it.
      if (out.some((o) => el.contains(o.el))) continue;
      out.push({ el, ...describe(el) });
      if (out.length >= MAX_CHANGED) break;
    }
    return out.map(({ ref, what }) => ({ ref, what }));
  }

  /** wait_for's probe: whether `spec` matches a visible element now. */
  api.present = (spec) => {
    const all = matchAll(spec).filter((el) => el.isConnected && (el.checkVisibility?.({ visibilityProperty: true }) ?? true));
    return { count: all.length, first: all[0] ? describe(all[0]) : null, url: location.href };
  };

  globalThis.__webextMcp = api;
})();
