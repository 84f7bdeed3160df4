// The page agent: a classic script injected on demand (scripting.executeScript with
// `files`) into a frame's isolated world, once per document. It defines
// `globalThis.__webextMcp`, which later injections call by name (see ../inject.js).
//
// What lives here is what must touch the live DOM from the extension's side: collecting the
// snapshot table (the walk itself is page/collector.js, run in the page's main world when it
// answers, here otherwise), element identity (ids from the per-tab counter the background
// seeds each document with, so an id from an older document never names an element of a
// newer one), locators, the reads and the dispatch of actions, and a mutation log.
// Everything that waits or measures time is driven by the background: page timers are
// clamped and rAF never fires in background tabs, so nothing here uses either.
(() => {
  if (globalThis.__webextMcp) return;

  const { walk, collapse, SKIP, REQUEST, REPLY, TREE } = globalThis.__webextMcpCollector;
  const INTERACTIVE_TAGS = new Set(["a", "button", "input", "select", "textarea", "summary", "option", "details", "label"]);
  // @generated interactive-roles (ext-wasm tests/page_constants.rs: role::INTERACTIVE_ROLES)
  const INTERACTIVE_ROLES = new Set(["link", "button", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "slider", "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem"]);
  const MAX_LOGGED = 5000;

  const state = {
    doc: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
    next: 0,
    ids: new WeakMap(),
    byId: new Map(),
    dirty: true,
    key: "",
  };

  // The mutation log: when the DOM last changed, and what was added and removed since the
  // last mark (an action's dispatch).
  const log = { last: performance.now(), seq: 0, added: [], removed: [], overflow: false };
  const markDirty = () => {
    state.dirty = true;
  };
  /** Logs mutation records; true when any of them added or removed nodes. */
  function logMutations(records) {
    if (records.length === 0) return false;
    state.dirty = true;
    log.last = performance.now();
    log.seq += records.length;
    let tree = false;
    for (const r of records) {
      if (r.type !== "childList") continue;
      tree = true;
      for (const n of r.addedNodes) if (n.nodeType === 1) remember(log.added, n);
      for (const n of r.removedNodes) if (n.nodeType === 1) remember(log.removed, n);
    }
    return tree;
  }
  const observer = new MutationObserver(logMutations);
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  for (const type of ["input", "change", "toggle", "scroll", "resize"]) {
    addEventListener(type, markDirty, { capture: true, passive: true });
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
  document.addEventListener(REPLY, (event) => {
    if (typeof event.detail === "string") reply = event.detail;
  }, true);
  // Whether this document's main world answers (null: not asked yet).
  let mainWorld = null;

  /**
   * The table walked in the main world with this world's ids, or why not: `"absent"` (no
   * main-world collector answered) or `"mismatch"` (the DOM changed during the walk, or a
   * position did not name an element of the reported tag: the caller walks here instead).
   */
  function collectInMain(options) {
    logMutations(observer.takeRecords());
    reply = null;
    document.dispatchEvent(new CustomEvent(REQUEST, { detail: JSON.stringify(options) }));
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
    // Positions are only meaningful in the tree the walk saw.
    if (logMutations(observer.takeRecords())) return "mismatch";
    // Strings cross to the background much faster than arrays (Firefox clones arrays
    // element by element); the background splices both into the engine input.
    return { nodes: answer.slice(cut + 1), elements: ids.length, ids: JSON.stringify(ids), closed: JSON.stringify(closed), walkMs: Number(head.walkMs) || 0, mapMs: performance.now() - started };
  }

  /** The walk in this world: slower, but needs nothing from the page. */
  function collectHere({ viewportOnly, maxNodes }) {
    const started = performance.now();
    const { json, count } = document.documentElement
      ? walk([document.documentElement], { viewportOnly, maxNodes, idOf, closedRoot: (el) => Boolean(closedRootOf(el)) })
      : { json: "[]", count: 0 };
    // The walk writes its JSON as it goes: there is no separate stage to time.
    return { nodes: json, elements: count, walkMs: performance.now() - started };
  }

  /**
   * The frame table, or `{same: true, doc, path}` when `doc` is in `cached` and nothing
   * changed since the last collection, or `{needsMainWorld: true}` when the main-world
   * collector should be injected first (`mainInjected` says it just was). `here` walks in
   * this world whatever the main world would answer.
   */
  api.collect = ({ viewportOnly = false, cached = [], maxNodes = 200000, mainInjected = false, here = false } = {}) => {
    const path = framePath();
    const key = viewportOnly ? "viewport" : "all";
    if (!state.dirty && state.key === key && cached.includes(state.doc)) return { same: true, doc: state.doc, path };
    let table = null;
    let why = here ? "asked" : "absent";
    if (mainWorld !== false && !here) {
      const started = performance.now();
      const out = collectInMain({ viewportOnly, maxNodes });
      if (typeof out === "object") {
        mainWorld = true;
        table = { ...out, walker: "main", jsonMs: performance.now() - started - out.walkMs - out.mapMs };
      } else if (out === "absent" && !mainInjected && mainWorld === null) {
        return { needsMainWorld: true, doc: state.doc, path };
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
    return {
      ...table,
      doc: state.doc,
      path,
      url: location.href,
      title: document.title,
      viewport: [Math.round(scrollX), Math.round(scrollY), innerWidth, innerHeight],
      visibility: document.visibilityState,
      sentAt: Date.now(),
    };
  };

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

  // ---- actions -------------------------------------------------------------------------

  function isEnabled(el) {
    return !(el.matches(":disabled") || el.closest("[aria-disabled='true']"));
  }

  function isEditable(el) {
    if (el.isContentEditable) return true;
    if (el.localName === "textarea") return !el.readOnly;
    if (el.localName === "input") return !el.readOnly && !["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color"].includes(el.type);
    return false;
  }

  function inViewport(r) {
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  }

  /**
   * First half of an action: resolves `spec`, checks that the element is attached, visible
   * and enabled (and editable for `needs: "editable"`), scrolls it into view and reads its
   * box. The background waits ≥ 50 ms and calls `dispatch` with that box.
   */
  api.probe = (spec, needs) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (!el.isConnected) return { waiting: "the element is not attached" };
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return { waiting: "the element is not visible", element: describe(el) };
    if (needs !== "any" && !isEnabled(el)) return { waiting: "the element is disabled", element: describe(el) };
    if (needs === "editable" && !isEditable(el) && el.localName !== "select") return { error: "the element is not editable", code: "INVALID_ARGUMENT", element: describe(el) };
    let r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return { waiting: "the element has no size", element: describe(el) };
    if (!inViewport(r)) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    return { rect: [r.x, r.y, r.width, r.height], element: describe(el) };
  };

  function sameRect(a, b) {
    return a && b && a.every((v, i) => Math.abs(v - b[i]) < 1);
  }

  // The element at the point, through open shadow roots.
  function hitAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit?.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function composedContains(el, node) {
    for (let n = node; n; n = n.parentNode ?? n.host) if (n === el) return true;
    return false;
  }

  function mouse(type, el, x, y, extra = {}) {
    const Ctor = type.startsWith("pointer") ? PointerEvent : MouseEvent;
    const init = { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, button: 0, view: window, ...extra };
    if (Ctor === PointerEvent) Object.assign(init, { pointerId: 1, pointerType: "mouse", isPrimary: true });
    if (type.endsWith("enter") || type.endsWith("leave")) init.bubbles = false;
    return el.dispatchEvent(new Ctor(type, init));
  }

  function hover(el, x, y) {
    for (const t of ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove"]) mouse(t, el, x, y);
  }

  function focusable(el) {
    return el.tabIndex >= 0 || el.isContentEditable;
  }

  function click(el, x, y) {
    hover(el, x, y);
    mouse("pointerdown", el, x, y, { buttons: 1 });
    const down = mouse("mousedown", el, x, y, { buttons: 1, detail: 1 });
    if (down) {
      const target = el.closest("label")?.control ?? el;
      const focusTarget = focusable(target) ? target : el.closest("a[href], button, input, select, textarea, [tabindex]");
      focusTarget?.focus?.({ preventScroll: true });
    }
    mouse("pointerup", el, x, y);
    mouse("mouseup", el, x, y, { detail: 1 });
    // A dispatched click runs the element's activation behaviour (links navigate, boxes
    // toggle, submit buttons submit, labels forward to their control).
    mouse("click", el, x, y, { detail: 1 });
  }

  function valueSetter(el) {
    const proto = el.localName === "textarea" ? HTMLTextAreaElement.prototype : el.localName === "select" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    return Object.getOwnPropertyDescriptor(proto, "value")?.set;
  }

  function setValue(el, value) {
    if (el.isContentEditable) {
      el.textContent = value;
    } else {
      const set = valueSetter(el);
      if (set) set.call(el, value);
      else el.value = value;
    }
  }

  function fire(el, type, Ctor = Event, init = {}) {
    return el.dispatchEvent(new Ctor(type, { bubbles: true, cancelable: type !== "input" && type !== "change", composed: true, ...init }));
  }

  function fill(el, value) {
    el.focus?.({ preventScroll: true });
    if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
      const want = value === true || value === "true" || value === "on" || value === "checked";
      if (el.checked !== want) click(el, 0, 0);
      return;
    }
    if (el.localName === "select") return selectOptions(el, [String(value)]);
    fire(el, "beforeinput", InputEvent, { inputType: "insertReplacementText", data: String(value) });
    setValue(el, String(value));
    fire(el, "input", InputEvent, { inputType: "insertReplacementText", data: String(value) });
    fire(el, "change");
  }

  function selectOptions(el, values) {
    if (el.localName !== "select") throw Object.assign(new Error("select_option needs a <select> element"), { code: "INVALID_ARGUMENT" });
    const options = Array.from(el.options);
    const picked = values.map((v) => options.find((o) => o.value === v) ?? options.find((o) => collapse(o.text).trim() === v));
    const missing = values.filter((_, i) => !picked[i]);
    if (missing.length) {
      throw Object.assign(new Error(`no option ${missing.map((m) => `"${m}"`).join(", ")}; options: ${options.map((o) => `"${collapse(o.text).trim()}"`).join(", ")}`), { code: "INVALID_ARGUMENT" });
    }
    if (!el.multiple && picked.length > 1) throw Object.assign(new Error("this select takes one option"), { code: "INVALID_ARGUMENT" });
    for (const o of options) o.selected = picked.includes(o);
    fire(el, "input");
    fire(el, "change");
  }

  const KEY_CODES = { Enter: 13, Tab: 9, Escape: 27, Backspace: 8, " ": 32, ArrowDown: 40, ArrowUp: 38, ArrowLeft: 37, ArrowRight: 39, Delete: 46 };

  function keyEvent(el, type, key) {
    const code = key.length === 1 ? (/[a-z]/i.test(key) ? `Key${key.toUpperCase()}` : key === " " ? "Space" : "") : key;
    return el.dispatchEvent(new KeyboardEvent(type, { key, code, keyCode: KEY_CODES[key] ?? key.toUpperCase().charCodeAt(0), bubbles: true, cancelable: true, composed: true, view: window }));
  }

  function typeText(el, text) {
    el.focus?.({ preventScroll: true });
    for (const ch of text) {
      const go = keyEvent(el, "keydown", ch);
      if (go) {
        keyEvent(el, "keypress", ch);
        if (fire(el, "beforeinput", InputEvent, { inputType: "insertText", data: ch })) {
          if (el.isContentEditable) el.textContent += ch;
          else setValue(el, (el.value ?? "") + ch);
          fire(el, "input", InputEvent, { inputType: "insertText", data: ch });
        }
      }
      keyEvent(el, "keyup", ch);
    }
    fire(el, "change");
  }

  function tabbables() {
    return Array.from(document.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex], [contenteditable='true']"))
      .filter((el) => el.tabIndex >= 0 && !el.matches(":disabled") && (el.checkVisibility?.({ visibilityProperty: true }) ?? true))
      .sort((a, b) => (a.tabIndex || Infinity) - (b.tabIndex || Infinity) || 0);
  }

  // A key, with the default actions a user's key press would have had.
  function press(el, key, shift) {
    const target = el ?? document.activeElement ?? document.body;
    const go = keyEvent(target, "keydown", key);
    if (go && key.length === 1) keyEvent(target, "keypress", key);
    if (go) {
      if (key === "Enter") {
        if (target.localName === "input" && target.form) target.form.requestSubmit();
        else if (target.localName === "textarea") typeText(target, "\n");
        else if (target.matches?.("a[href], button, summary, [role=button]")) click(target, 0, 0);
      } else if (key === " " && target.matches?.("button, input[type=checkbox], input[type=radio], summary, [role=button]")) {
        click(target, 0, 0);
      } else if (key === "Tab") {
        const order = tabbables();
        const i = order.indexOf(target);
        const next = order[(i + (shift ? -1 : 1) + order.length) % order.length];
        next?.focus({ preventScroll: false });
      } else if (key === "Backspace" && isEditable(target) && !target.isContentEditable) {
        setValue(target, (target.value ?? "").slice(0, -1));
        fire(target, "input", InputEvent, { inputType: "deleteContentBackward" });
      } else if (key.length === 1 && isEditable(target)) {
        setValue(target, (target.value ?? "") + key);
        fire(target, "input", InputEvent, { inputType: "insertText", data: key });
      }
    }
    keyEvent(target, "keyup", key);
  }

  function drag(src, dst, from, to) {
    const data = new DataTransfer();
    const drag = (type, el, [x, y]) => el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: data }));
    mouse("pointerdown", src, ...from, { buttons: 1 });
    mouse("mousedown", src, ...from, { buttons: 1 });
    if (src.draggable || src.closest("[draggable=true]")) {
      drag("dragstart", src, from);
      drag("dragenter", dst, to);
      drag("dragover", dst, to);
      drag("drop", dst, to);
      drag("dragend", src, to);
    }
    mouse("pointermove", dst, ...to, { buttons: 1 });
    mouse("mousemove", dst, ...to, { buttons: 1 });
    mouse("pointerup", dst, ...to);
    mouse("mouseup", dst, ...to);
  }

  /**
   * Second half of an action: re-reads the box (`unstable` when it moved since the probe),
   * hit-tests its centre (`covered` by another element), then marks the mutation log and
   * performs `action`.
   */
  api.dispatch = (spec, action, before, opts = {}) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    const r = el.getBoundingClientRect();
    const rect = [r.x, r.y, r.width, r.height];
    if (!sameRect(rect, before)) return { unstable: true, rect };
    const x = r.x + r.width / 2;
    const y = r.y + r.height / 2;
    const needsHit = ["click", "hover", "drag"].includes(action) || (action === "aim" && opts.hit);
    if (needsHit) {
      const hit = hitAt(x, y);
      if (hit && !composedContains(el, hit) && !composedContains(hit, el)) return { covered: describe(hit), element: describe(el) };
    }
    let dst = null;
    let to = null;
    if (action === "drag") {
      const other = single(opts.to);
      if (!other.el) return { ...other, which: "to" };
      dst = other.el;
      const q = dst.getBoundingClientRect();
      to = [q.x + q.width / 2, q.y + q.height / 2];
    }
    if (!opts.keepMark) api.mark();
    try {
      switch (action) {
        case "click":
          click(el, x, y);
          break;
        case "hover":
          hover(el, x, y);
          break;
        case "fill":
          fill(el, opts.value);
          break;
        case "type":
          typeText(el, String(opts.text));
          break;
        case "select":
          selectOptions(el, opts.values);
          break;
        case "press":
          press(el, opts.key, opts.shift);
          break;
        case "scroll":
          el.scrollIntoView({ block: "center", behavior: "instant" });
          break;
        case "drag":
          drag(el, dst, [x, y], to);
          break;
        case "aim":
          // Trusted input comes next, from the background over CDP: only focus here.
          if (opts.focus) el.focus?.({ preventScroll: true });
          break;
        default:
          return { error: `unknown action ${action}`, code: "INVALID_ARGUMENT" };
      }
    } catch (e) {
      return { error: e.message, code: e.code ?? "SCRIPT_ERROR" };
    }
    return { done: true, element: describe(el), doc: state.doc, x, y };
  };

  /** Actions without a target element: a key to the focused element, a page scroll. */
  api.pageAction = (action, opts = {}) => {
    api.mark();
    if (action === "press") press(null, opts.key, opts.shift);
    else if (action === "scroll") scrollBy({ left: opts.dx ?? 0, top: opts.dy ?? 0, behavior: "instant" });
    return { done: true, scroll: [Math.round(scrollX), Math.round(scrollY)], doc: state.doc };
  };

  // ---- settling and change summaries ---------------------------------------------------

  /** Starts a new change window (called at dispatch). */
  api.mark = () => {
    log.added = [];
    log.removed = [];
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
    return { nodes, count, removed, overflow: log.overflow, url: location.href, title: document.title };
  };

  /** wait_for's probe: whether `spec` matches a visible element now. */
  api.present = (spec) => {
    const all = matchAll(spec).filter((el) => el.isConnected && (el.checkVisibility?.({ visibilityProperty: true }) ?? true));
    return { count: all.length, first: all[0] ? describe(all[0]) : null, url: location.href };
  };

  globalThis.__webextMcp = api;
})();
