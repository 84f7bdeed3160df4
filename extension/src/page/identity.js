// Part of the page agent: classic scripts injected on demand (scripting.executeScript with
// `files`, in the order of AGENT_FILES in ../inject.js) into a frame's isolated world, once
// per document: identity.js, locate.js, input.js, settle.js. identity.js starts the agent's
// shared parts (`globalThis.__webextMcpAgent`, internal); each later file adds to them and
// to the API; settle.js, the last, publishes it as `globalThis.__webextMcp`, which later
// injections call by name. Each file runs once per document, however often it is injected.
// Everything that waits or measures time is driven by the background: page timers are
// clamped and rAF never fires in background tabs, so nothing here uses either.
//
// identity.js: element identity (ids from the per-tab counter the background seeds each
// document with, so an id from an older document never names an element of a newer one),
// the mutation log, and the relay to the snapshot collector (the walk itself is
// page/collector.js, run in the page's main world when it answers, here otherwise).
(() => {
  if (globalThis.__webextMcp || globalThis.__webextMcpAgent) return;
  const { walk, textWalk, REQUEST_ALL, REQUEST_VIEWPORT, REQUEST_TEXT, REQUEST_FIND, REQUEST_MAIN, REPLY, TREE } = globalThis.__webextMcpCollector;
  const INTERACTIVE_TAGS = new Set(["a", "button", "input", "select", "textarea", "summary", "option", "details", "label"]);
  // @generated interactive-roles (ext-wasm tests/page_constants.rs: role::INTERACTIVE_ROLES)
  const INTERACTIVE_ROLES = new Set(["link", "button", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "slider", "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem"]);
  const MAX_LOGGED = 5000;

  // This document's name for the main-world collector's events: drawn here (the page cannot
  // patch this world's crypto) and handed to the main world only as an injection argument.
  const channel = Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join("");
  const state = {
    doc: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
    next: 0,
    ids: new WeakMap(),
    byId: new Map(),
    dirty: true,
    key: "",
    // Each table this document hands out is numbered; `tabled` holds the ids of the element
    // nodes in the latest (a diff re-walk reuses their subtrees from the background's copy).
    gen: 0,
    tabled: new Set(),
  };

  // The mutation log: when the DOM last changed, and what was added and removed since the
  // last mark (an action's dispatch).
  const log = { last: performance.now(), seq: 0, added: [], removed: [], changed: [], overflow: false };
  // What changed since the last collection, for a diff's re-walk of only that (page/patch.js):
  // `deep`, elements whose subtree is walked again (changed attributes or text, added, the
  // target of an input event); `shallow`, elements whose children changed (walked again
  // themselves, their unchanged children reused from the last table); `full` when a change
  // reaches past its subtree (frames, style sheets, labels, ids) or there are too many.
  const since = { deep: new Set(), shallow: new Set(), full: false };
  const MAX_SINCE = 256;
  const GLOBAL_TAGS = new Set(["iframe", "frame", "style", "link", "label", "slot"]);
  const reachesOut = (n) => GLOBAL_TAGS.has(n.localName) || Boolean(n.querySelector?.("iframe, frame, style, link, label, slot"));
  function noteSince(records) {
    if (since.full) return;
    for (const r of records) {
      if (r.type === "childList") {
        if (r.target.nodeType !== 1) since.full = true;
        else since.shallow.add(r.target);
        for (const list of [r.addedNodes, r.removedNodes]) {
          for (const n of list) {
            if (n.nodeType !== 1) continue;
            if (reachesOut(n)) since.full = true;
            if (list === r.addedNodes) since.deep.add(n);
          }
        }
      } else if (r.type === "attributes") {
        const el = r.target;
        if (r.attributeName === "id" || r.attributeName === "for" || el === document.documentElement || el === document.body || GLOBAL_TAGS.has(el.localName)) since.full = true;
        else since.deep.add(el);
      } else if (r.target.parentElement) {
        since.deep.add(r.target.parentElement);
      }
    }
    if (since.deep.size + since.shallow.size > MAX_SINCE) since.full = true;
  }
  const noteEvent = (event) => {
    state.dirty = true;
    if (since.full) return;
    if (event.type === "resize" || since.deep.size >= MAX_SINCE) since.full = true;
    else if (event.type !== "scroll" && event.target?.nodeType === 1) since.deep.add(event.target);
  };
  /** Logs mutation records; true when any of them added or removed nodes. */
  function logMutations(records) {
    if (records.length === 0) return false;
    state.dirty = true;
    noteSince(records);
    log.last = performance.now();
    log.seq += records.length;
    let tree = false;
    for (const r of records) {
      if (r.type !== "childList") {
        // Text and attribute changes: the element whose text or attribute it was.
        const el = r.type === "attributes" ? r.target : r.target.parentElement;
        if (el && log.changed.length < MAX_LOGGED) log.changed.push(el);
        continue;
      }
      tree = true;
      for (const n of r.addedNodes) if (n.nodeType === 1) remember(log.added, n);
      for (const n of r.removedNodes) if (n.nodeType === 1) remember(log.removed, n);
      // Text replaced (`textContent = …`): the element's text changed.
      const text = (n) => n.nodeType === 3;
      if ((Array.prototype.some.call(r.addedNodes, text) || Array.prototype.some.call(r.removedNodes, text)) && log.changed.length < MAX_LOGGED) log.changed.push(r.target);
    }
    return tree;
  }
  const observer = new MutationObserver(logMutations);
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  for (const type of ["input", "change", "toggle", "scroll", "resize"]) {
    addEventListener(type, noteEvent, { capture: true, passive: true });
  }
  // A navigation away starts: the background then waits for the next document.
  addEventListener("beforeunload", () => {
    log.unloading = true;
  });
  addEventListener("pagehide", () => {
    log.unloading = true;
  });
  addEventListener("pageshow", () => {
    log.unloading = false;
  });
  function remember(list, node) {
    if (list.length < MAX_LOGGED) list.push(node);
    else log.overflow = true;
  }

  function idOf(el) {
    let id = state.ids.get(el);
    if (id === undefined) {
      id = state.next++;
      state.ids.set(el, id);
      state.byId.set(id, new WeakRef(el));
    }
    return id;
  }

  function elementById(id) {
    const el = state.byId.get(id)?.deref();
    return el && el.isConnected ? el : null;
  }

  function framePath() {
    const path = [];
    try {
      let w = window;
      while (w !== w.parent) {
        const parent = w.parent;
        let index = -1;
        for (let i = 0; i < parent.frames.length; i++) {
          if (parent.frames[i] === w) {
            index = i;
            break;
          }
        }
        path.unshift(index);
        w = parent;
      }
    } catch {
      path.unshift(-1);
    }
    return path;
  }

  /** The closed shadow root of `el`, or null (only content scripts can ask). */
  function closedRootOf(el) {
    try {
      if (globalThis.chrome?.dom?.openOrClosedShadowRoot) return globalThis.chrome.dom.openOrClosedShadowRoot(el);
      return el.openOrClosedShadowRoot ?? null;
    } catch {
      return null;
    }
  }

  function isInteractive(el, tag = el.localName) {
    if (INTERACTIVE_TAGS.has(tag)) return tag !== "a" || el.hasAttribute("href");
    const role = el.getAttribute("role");
    if (role && INTERACTIVE_ROLES.has(role.trim().split(/\s+/)[0])) return true;
    if (el.hasAttribute("tabindex") && el.tabIndex >= 0) return true;
    if (el.getAttribute("draggable") === "true") return true;
    return el.isContentEditable && !el.parentElement?.isContentEditable;
  }

  const api = {};

  /** Seeds this document's ids from the background's per-tab counter (first call only). */
  api.seed = (seed) => {
    if (state.next === 0) state.next = Math.max(1, seed | 0);
  };
  api.next = () => state.next;

  // ---- the collector (page/collector.js walks) -----------------------------------------
  // The main-world collector's answer to a REQUEST dispatched from here: it arrives
  // synchronously, inside dispatchEvent.
  let reply = null;
  document.addEventListener(channel + REPLY, (event) => {
    if (typeof event.detail === "string") reply = event.detail;
  }, true);
  // Whether this document's main world answers (null: not asked yet).
  let mainWorld = null;

  /**
   * The table walked in the main world with this world's ids, or why not: `"absent"` (no
   * main-world collector answered) or `"mismatch"` (the DOM changed during the walk, or a
   * position did not name an element of the reported tag: the caller walks here instead).
   * `partial` (the walk ended early) is taken from the page only when `stopping` asked for it.
   */
  function collectInMain({ viewportOnly, request = null, detail = null, stopping = false }) {
    logMutations(observer.takeRecords());
    reply = null;
    const name = request ?? (viewportOnly ? REQUEST_VIEWPORT : REQUEST_ALL);
    document.dispatchEvent(detail === null ? new CustomEvent(channel + name) : new CustomEvent(channel + name, { detail }));
    const answer = reply;
    reply = null;
    if (answer === null) return "absent";
    const started = performance.now();
    const cut = answer.indexOf("\n");
    if (cut < 0) return "mismatch";
    let head;
    try {
      head = JSON.parse(answer.slice(0, cut));
    } catch {
      return "mismatch";
    }
    const { positions, hosts, custom } = head;
    if (!Array.isArray(positions) || !Array.isArray(hosts) || !Array.isArray(custom)) return "mismatch";
    const trees = [document.querySelectorAll("*")];
    const at = (position) => (Number.isInteger(position) && position >= 0 ? trees[Math.floor(position / TREE)]?.[position % TREE] : undefined);
    for (const host of hosts) {
      const root = at(host)?.shadowRoot;
      if (!root) return "mismatch";
      trees.push(root.querySelectorAll("*"));
    }
    const tags = String(head.tags).split(" ");
    if (tags.length !== positions.length && positions.length > 0) return "mismatch";
    const ids = new Array(positions.length);
    for (let k = 0; k < positions.length; k++) {
      const el = at(positions[k]);
      if (!el || el.localName !== tags[k]) return "mismatch";
      ids[k] = idOf(el);
    }
    const closed = [];
    for (const k of custom) {
      const el = Number.isInteger(k) ? at(positions[k]) : undefined;
      if (el && closedRootOf(el)) closed.push(k);
    }
    // Which frame each frame element shows, as this world sees it: the engine takes a
    // table's `f` only where it agrees (a page cannot put one frame's nodes under another).
    const frameIndex = [];
    for (let k = 0; k < tags.length; k++) {
      if (tags[k] !== "iframe" && tags[k] !== "frame") continue;
      const w = at(positions[k]).contentWindow;
      for (let i = 0; w && i < window.frames.length; i++) {
        if (window.frames[i] === w) {
          frameIndex.push([k, i]);
          break;
        }
      }
    }
    // Positions are only meaningful in the tree the walk saw.
    if (logMutations(observer.takeRecords())) return "mismatch";
    // Strings cross to the background much faster than arrays (Firefox clones arrays
    // element by element); the background splices both into the engine input.
    return { nodes: answer.slice(cut + 1), elements: ids.length, ids: JSON.stringify(ids), closed: JSON.stringify(closed), frameIndex, walkMs: Number(head.walkMs) || 0, mapMs: performance.now() - started, tabled: new Set(ids), scoped: head.scoped === true, partial: stopping && head.partial === true };
  }

  /** The walk in this world: slower, but needs nothing from the page. */
  function collectHere({ viewportOnly, maxNodes }) {
    const started = performance.now();
    const tabled = new Set();
    const tableId = (el) => {
      const id = idOf(el);
      tabled.add(id);
      return id;
    };
    const { json, count } = document.documentElement
      ? walk([document.documentElement], { viewportOnly, maxNodes, idOf: tableId, closedRoot: (el) => Boolean(closedRootOf(el)) })
      : { json: "[]", count: 0 };
    // The walk writes its JSON as it goes: there is no separate stage to time.
    return { nodes: json, elements: count, walkMs: performance.now() - started, tabled };
  }

  /** What every table answer says of the document it was walked in, as it is now. */
  const documentFacts = () => ({
    url: location.href,
    title: document.title,
    viewport: [Math.round(scrollX), Math.round(scrollY), innerWidth, innerHeight],
    visibility: document.visibilityState,
    sentAt: Date.now(),
  });

  /**
   * The frame table, or `{same: true, doc, path}` when `doc` is in `cached` and nothing
   * changed since the last collection, or `{needsMainWorld: true}` when the main-world
   * collector should be injected first (`mainInjected` says it just was). `here` walks in
   * this world whatever the main world would answer.
   */
  api.collect = ({ viewportOnly = false, cached = [], maxNodes = 200000, mainInjected = false, here = false, base = null } = {}) => {
    const path = framePath();
    const key = viewportOnly ? "viewport" : "all";
    // Asked to walk here: the engine refused what this document's main world answered (or
    // could not read it), so it is not asked again for this document.
    if (here) mainWorld = false;
    // Changes not yet delivered to the observer count too.
    logMutations(observer.takeRecords());
    if (!state.dirty && state.key === key && cached.includes(state.doc)) return { same: true, doc: state.doc, path };
    let table = null;
    let why = here ? "asked" : "absent";
    // A diff, and the background holds this document's latest table: walk only what changed.
    if (base?.[state.doc] === state.gen && state.key === key && !viewportOnly && !here && !since.full) {
      table = globalThis.__webextMcpAgent.patchWalk?.(since, maxNodes) ?? null;
    }
    // The main world walks with the budget it was installed with.
    if (!table && mainWorld !== false && !here && maxNodes === 200000) {
      const started = performance.now();
      const out = collectInMain({ viewportOnly, maxNodes });
      if (typeof out === "object") {
        mainWorld = true;
        table = { ...out, walker: "main", jsonMs: performance.now() - started - out.walkMs - out.mapMs };
      } else if (out === "absent" && !mainInjected && mainWorld === null) {
        return { needsMainWorld: true, channel, doc: state.doc, path };
      } else {
        if (out === "absent") mainWorld = false;
        why = out;
      }
    }
    if (!table) {
      table = { ...collectHere({ viewportOnly, maxNodes }), jsonMs: 0, walker: "isolated", why };
    }
    if (state.byId.size > 2 * table.elements + 1000) {
      for (const [id, ref] of state.byId) if (!ref.deref()) state.byId.delete(id);
    }
    state.dirty = false;
    state.key = key;
    state.gen += 1;
    // A patch's reused subtrees keep their ids: the set only grows (an id that left the
    // table makes the background refuse the patch, and the next walk is a full one).
    if (table.patch) for (const id of table.tabled) state.tabled.add(id);
    else state.tabled = table.tabled;
    since.deep.clear();
    since.shallow.clear();
    since.full = false;
    const { tabled: _ids, ...sent } = table;
    return {
      ...sent,
      gen: state.gen,
      doc: state.doc,
      path,
      ...documentFacts(),
    };
  };

  /**
   * find_by_text's or read_page's table of this document, walked in the main world with only
   * what the answer can come from (collector.js `findScope` for `find`, the query; `mainScope`
   * for `main`) and this world's ids: `{nodes, ids, …, scoped}` (`scoped` false: the main world
   * walked everything), `{needsMainWorld: true}` as `collect`, or `{absent: true}` (walk the
   * usual way). Nothing here changes what `collect` holds or re-walks. `stopAfter` (the top
   * document's `main` only): the walk may end after that many characters of text, and
   * `partial` says it did (collector.js `walk`).
   */
  api.scoped = ({ find = null, main = false, mainInjected = false, stopAfter = null } = {}) => {
    const path = framePath();
    if (mainWorld === false) return { absent: true, doc: state.doc, path };
    const request = find ? REQUEST_FIND : main ? REQUEST_MAIN : null;
    if (!request) return { absent: true, doc: state.doc, path };
    const started = performance.now();
    const stop = main && window === window.top && Number.isInteger(stopAfter) ? JSON.stringify({ stopAfter }) : null;
    // Only a walk asked to stop may have stopped (a page cannot make its reader ask again).
    const out = collectInMain({ viewportOnly: false, request, detail: find ? JSON.stringify(find) : stop, stopping: stop !== null });
    if (out === "absent") {
      if (!mainInjected && mainWorld === null) return { needsMainWorld: true, channel, doc: state.doc, path };
      mainWorld = false;
    }
    if (typeof out !== "object") return { absent: true, doc: state.doc, path };
    mainWorld = true;
    const { tabled: _ids, ...sent } = out;
    return {
      ...sent,
      walker: out.scoped ? "scoped" : "main",
      jsonMs: performance.now() - started - out.walkMs - out.mapMs,
      doc: state.doc,
      path,
      ...documentFacts(),
    };
  };

  /**
   * get_page_text's walk of this document (collector.js `textWalk`): `{tokens, order, …}`,
   * in the main world when it answers (`order`: the frame elements this world sees, in
   * document order, by `window.frames` index; the engine checks the walk against it), else
   * here. No ids, no table: nothing here changes what `collect` holds or re-walks.
   * `stopAfter` (the top document only; child frames are always read whole, their text stands
   * inside the top's): the walk may end after that many characters, and `partial` says it did.
   */
  api.text = ({ mainInjected = false, stopAfter = null } = {}) => {
    const doc = state.doc;
    const path = framePath();
    const started = performance.now();
    const stop = window === window.top && Number.isInteger(stopAfter) ? stopAfter : null;
    let out = null;
    if (mainWorld !== false) {
      reply = null;
      document.dispatchEvent(stop === null ? new CustomEvent(channel + REQUEST_TEXT) : new CustomEvent(channel + REQUEST_TEXT, { detail: JSON.stringify({ stopAfter: stop }) }));
      const answer = reply;
      reply = null;
      const cut = answer === null ? -1 : answer.indexOf("\n");
      if (cut >= 0) {
        let walkMs = 0;
        let partial = false;
        try {
          const head = JSON.parse(answer.slice(0, cut));
          walkMs = Number(head.walkMs) || 0;
          partial = head.partial === true;
        } catch {
          // The timing is the page's word; the tokens are checked by the engine.
        }
        const order = [];
        for (const el of document.querySelectorAll("iframe, frame")) {
          for (let i = 0; i < window.frames.length; i++) {
            if (window.frames[i] === el.contentWindow) {
              order.push(i);
              break;
            }
          }
        }
        mainWorld = true;
        out = { tokens: answer.slice(cut + 1), order, walkMs, walker: "text", partial: stop !== null && partial };
      } else if (answer === null) {
        if (!mainInjected && mainWorld === null) return { needsMainWorld: true, channel, doc, path };
        mainWorld = false;
      }
    }
    if (!out) {
      const { json, partial = false } = document.documentElement ? textWalk([document.documentElement], { stopAfter: stop }) : { json: "[]" };
      out = { tokens: json, order: null, walkMs: performance.now() - started, walker: "text-isolated", partial };
    }
    return { ...out, jsonMs: 0, mapMs: 0, doc, path, url: location.href, title: document.title, sentAt: Date.now() };
  };

  globalThis.__webextMcpAgent = {
    loaded: new Set(["identity"]),
    api,
    state,
    log,
    idOf,
    elementById,
    isInteractive,
    closedRootOf,
  };
})();
