// Part of the page agent: classic scripts injected on demand (scripting.executeScript with
// `files`, in the order of AGENT_FILES in ../inject.js) into a frame's isolated world, once
// per document: identity.js, locate.js, input.js, settle.js. identity.js starts the agent's
// shared parts (`globalThis.__webextMcpAgent`, internal); each later file adds to them and
// to the API; settle.js, the last, publishes it as `globalThis.__webextMcp`, which later
// injections call by name. Each file runs once per document, however often it is injected.
// Everything that waits or measures time is driven by the background: page timers are
// clamped and rAF never fires in background tabs, so nothing here uses either.
//
// locate.js: locators (`{id}`, `{css}`, `{text}`), the elements they name, short
// descriptions for errors, and a selector for an id.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (globalThis.__webextMcp || !agent || agent.loaded.has("locate")) return;
  agent.loaded.add("locate");
  const { api, idOf, elementById } = agent;
  const { collapse, SKIP, walk, attrsOf } = globalThis.__webextMcpCollector;

  function cssEscape(s) {
    return globalThis.CSS?.escape ? CSS.escape(s) : s.replace(/[^\w-]/g, (c) => `\\${c}`);
  }

  function selectorIn(target) {
    const root = target.getRootNode();
    const steps = [];
    for (let node = target; node && node.nodeType === 1; node = node.parentElement) {
      if (node.id) {
        const sel = `#${cssEscape(node.id)}`;
        if (root.querySelectorAll(sel).length === 1) {
          steps.unshift(sel);
          break;
        }
      }
      let step = node.localName;
      const siblings = node.parentElement ? node.parentElement.children : root.children;
      const same = Array.from(siblings).filter((c) => c.localName === node.localName);
      if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      steps.unshift(step);
    }
    return steps.join(" > ");
  }

  /** `{found: false}` when id names no live element of this document. */
  api.resolveId = (id, withSelector) => {
    const el = elementById(id);
    if (!el) return { found: false, url: location.href };
    if (!withSelector) return { found: true, tag: el.localName };
    const shadowPath = [];
    let target = el;
    for (;;) {
      shadowPath.unshift(selectorIn(target));
      const root = target.getRootNode();
      if (!(root instanceof ShadowRoot)) break;
      target = root.host;
    }
    const last = shadowPath[shadowPath.length - 1];
    const root = el.getRootNode();
    const unique = root.querySelectorAll(last).length === 1 && root.querySelector(last) === el;
    return { found: true, tag: el.localName, selector: shadowPath.join(" >>> "), shadowPath, unique, url: location.href };
  };

  // ---- re-checking a ref before an action -----------------------------------------------

  /**
   * What names `el` cheaply: its role and labelling attributes and its text. `dispatch`
   * compares it with the one `recheck` saw, so an element changed after the check waits for
   * the next check instead of being acted on.
   */
  function identityKey(el) {
    const attrs = ["role", "aria-label", "aria-labelledby", "title", "alt", "value", "placeholder"].map((n) => el.getAttribute(n));
    return JSON.stringify([el.localName, attrs, collapse((el.textContent ?? "").slice(0, 4000))]);
  }
  let checked = null;

  /**
   * A small table walked here, in this world (the main world's answers can lie), for the
   * engine to render the element `id` names as the snapshot would: the ancestors as bare
   * element nodes (roles depend on context), then the element with its subtree, or the
   * nearest label around it (a wrapping label names a control), and the `label[for]`s that
   * name it. `{found: false}` when the element is gone.
   */
  api.recheck = (id) => {
    const el = elementById(id);
    if (!el) return { found: false };
    const root = el.closest("label") ?? el;
    const chain = [];
    for (let n = root; ;) {
      n = n.parentElement ?? n.getRootNode().host ?? null;
      if (!n) break;
      chain.unshift(n);
    }
    const labelled = new Set(el.id ? [el.id] : []);
    const nodes = chain.map((a, depth) => {
      const attrs = attrsOf(a, labelled);
      return attrs ? [depth, idOf(a), a.localName, { a: attrs }] : [depth, idOf(a), a.localName];
    });
    const parts = [JSON.stringify(nodes).slice(1, -1)];
    const options = { idOf, closedRoot: () => false, baseDepth: chain.length };
    parts.push(walk([root], options).json.slice(1, -1));
    if (el.id) {
      const labels = Array.from(el.getRootNode().querySelectorAll?.("label[for]") ?? []).filter((l) => l.htmlFor === el.id && !l.contains(el));
      if (labels.length) parts.push(walk(labels, { ...options, baseDepth: Math.min(1, chain.length) }).json.slice(1, -1));
    }
    checked = { el, key: identityKey(el) };
    return { found: true, tag: el.localName, nodes: `[${parts.filter(Boolean).join(",")}]`, url: location.href, title: document.title };
  };

  /** Whether `el` is still as `recheck` last saw it. */
  function stillChecked(el) {
    return checked?.el === el && checked.key === identityKey(el);
  }

  // ---- locators ------------------------------------------------------------------------

  /** A short description of an element for error messages and candidate lists. */
  function describe(el) {
    const id = idOf(el);
    // Never a field's value (passwords, card numbers): its label-ish attributes instead.
    const buttonValue = el.localName === "input" && ["submit", "reset", "button"].includes(el.type) ? el.value : null;
    const fieldish = ["input", "textarea", "select"].includes(el.localName);
    const raw = [el.getAttribute("aria-label"), buttonValue, fieldish ? null : el.textContent, el.getAttribute("placeholder"), el.getAttribute("name")]
      .find((t) => typeof t === "string" && t.trim() !== "");
    const text = collapse(raw ?? "").trim().slice(0, 60);
    let what = el.localName;
    if (el.id) what += `#${el.id}`;
    return { ref: id, tag: el.localName, text, what: text ? `${what} "${text}"` : what };
  }

  function ownText(el) {
    return collapse(el.innerText ?? el.textContent ?? "").trim().toLowerCase();
  }

  /**
   * Elements a locator spec names: `{id}` (a ref's element), `{css}`, or `{text}` (the
   * innermost visible elements whose text contains it, case-insensitively).
   */
  function matchAll(spec) {
    if (spec.id != null) {
      const el = elementById(spec.id);
      return el ? [el] : [];
    }
    if (spec.css != null) {
      try {
        return Array.from(document.querySelectorAll(spec.css));
      } catch (e) {
        throw Object.assign(new Error(`invalid CSS selector \`${spec.css}\`: ${e.message}`), { code: "INVALID_ARGUMENT" });
      }
    }
    if (spec.text != null) {
      const needle = collapse(spec.text).trim().toLowerCase();
      const hits = [];
      const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_ELEMENT);
      for (let el = walker.currentNode; el; el = walker.nextNode()) {
        if (SKIP.has(el.localName)) continue;
        if (!ownText(el).includes(needle)) continue;
        // Keep the innermost: drop an ancestor once a descendant matches.
        for (let i = hits.length - 1; i >= 0; i--) if (hits[i].contains(el)) hits.splice(i, 1);
        hits.push(el);
      }
      return hits.filter((el) => el.checkVisibility?.({ visibilityProperty: true }) ?? true);
    }
    return [];
  }

  /** The single element `spec` names, or `{error}` / `{waiting}` for the background. */
  function single(spec) {
    const all = matchAll(spec);
    if (all.length === 0) return { waiting: "no element matches" };
    if (spec.nth != null) {
      const el = all[spec.nth];
      return el ? { el } : { waiting: `only ${all.length} elements match, nth ${spec.nth} does not exist` };
    }
    if (all.length > 1) return { ambiguous: all.slice(0, 10).map(describe), count: all.length };
    return { el: all[0] };
  }

  /** Elements near what a failed locator asked for, to put in its error. */
  api.candidates = (spec) => {
    let pool = [];
    if (spec.text != null) {
      const words = collapse(spec.text).trim().toLowerCase().split(" ").filter((w) => w.length > 2);
      pool = Array.from(document.querySelectorAll("a, button, input, select, textarea, [role], label, h1, h2, h3"))
        .filter((el) => words.some((w) => ownText(el).includes(w) || (el.getAttribute("aria-label") ?? "").toLowerCase().includes(w)));
    } else if (spec.css != null) {
      const tag = /^[a-z][a-z0-9-]*/i.exec(spec.css)?.[0];
      if (tag) {
        try {
          pool = Array.from(document.querySelectorAll(tag));
        } catch {
          pool = [];
        }
      }
    }
    return pool.filter((el) => el.checkVisibility?.() ?? true).slice(0, 5).map(describe);
  };

  Object.assign(agent, { describe, matchAll, single, stillChecked });
})();
