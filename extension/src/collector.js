// The collector: injected with scripting.executeScript into every frame of a tab (isolated
// world), it walks the DOM once into the compact table of ext-wasm/TABLE.md. The functions
// exported here are serialized by executeScript, so each is self-contained: no imports, no
// module-level helpers.
//
// Per document it keeps, in the isolated world's globals, the element ↔ id maps and a dirty
// flag set by a MutationObserver (and input/change events): an unchanged document answers
// `same` and the background reuses the table it cached. Ids are numbers from a per-tab
// counter owned by the background: a document takes the counter's value as its first id the
// first time it is collected, so an id from an older document never names an element of a
// newer one. No rAF and no IntersectionObserver: they stall in background tabs.

/**
 * @param {{seed: number, viewportOnly: boolean, cached: string[], maxNodes: number}} opts
 * @returns the frame table, or `{same: true, doc, next, path}` when `doc` is in `cached` and
 *   nothing changed since
 */
export function collect(opts) {
  const STATE_KEY = "__webextMcpCollector";
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "base", "title"]);
  const ATTRS = new Set([
    "role", "alt", "title", "href", "type", "name", "placeholder", "for", "tabindex", "contenteditable",
    "disabled", "required", "multiple", "readonly", "open", "value", "autocomplete", "list", "size",
  ]);
  const INTERACTIVE_TAGS = new Set(["a", "button", "input", "select", "textarea", "summary", "option", "details", "label"]);
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "slider",
    "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem",
  ]);
  const MAX_TEXT = 400;

  let state = globalThis[STATE_KEY];
  if (!state) {
    state = {
      doc: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
      next: Math.max(1, opts.seed | 0),
      ids: new WeakMap(),
      byId: new Map(),
      dirty: true,
      key: "",
    };
    const markDirty = () => {
      state.dirty = true;
    };
    new MutationObserver(markDirty).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    for (const type of ["input", "change", "toggle", "scroll", "resize"]) {
      addEventListener(type, markDirty, { capture: true, passive: true });
    }
    globalThis[STATE_KEY] = state;
  }

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

  const key = opts.viewportOnly ? "viewport" : "all";
  if (!state.dirty && state.key === key && opts.cached.includes(state.doc)) {
    return { same: true, doc: state.doc, next: state.next, path };
  }

  const idOf = (el) => {
    let id = state.ids.get(el);
    if (id === undefined) {
      id = state.next++;
      state.ids.set(el, id);
      state.byId.set(id, new WeakRef(el));
    }
    return id;
  };

  // Ids some `label[for]` points at: only those elements send their id attribute.
  const labelled = new Set();
  for (const label of document.querySelectorAll("label[for]")) labelled.add(label.htmlFor);

  const frameIndex = new Map();
  for (let i = 0; i < window.frames.length; i++) frameIndex.set(window.frames[i], i);

  const closedRootOf = (el) => {
    try {
      if (globalThis.chrome?.dom?.openOrClosedShadowRoot) return globalThis.chrome.dom.openOrClosedShadowRoot(el);
      return el.openOrClosedShadowRoot ?? null;
    } catch {
      return null;
    }
  };

  const collapse = (text) => text.replace(/[\s\u00a0]+/g, " ");
  const textOfIds = (el, ids) => {
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.split(/\s+/)) {
      if (!id) continue;
      const target = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      if (!target) continue;
      const own = target.getAttribute("aria-label");
      parts.push(own ?? target.textContent ?? "");
    }
    return collapse(parts.join(" ")).trim();
  };

  const nodes = [];
  const maxNodes = opts.maxNodes || 200000;
  let stopped = false;

  const isInteractive = (el, tag) => {
    if (INTERACTIVE_TAGS.has(tag)) return tag !== "a" || el.hasAttribute("href");
    const role = el.getAttribute("role");
    if (role && INTERACTIVE_ROLES.has(role.trim().split(/\s+/)[0])) return true;
    if (el.hasAttribute("tabindex") && el.tabIndex >= 0) return true;
    return el.isContentEditable && !el.parentElement?.isContentEditable;
  };

  const rectOf = (el) => {
    const r = el.getBoundingClientRect();
    return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
  };

  const pushText = (node, depth) => {
    const data = node.data;
    if (!data || !/\S/.test(data)) return;
    let x = collapse(data);
    if (x.length > MAX_TEXT) x = x.slice(0, MAX_TEXT);
    nodes.push({ d: depth, t: "#text", x });
  };

  const walkChildren = (parent, depth, hidden) => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (stopped) return;
      if (child.nodeType === 1) walkElement(child, depth);
      else if (child.nodeType === 3 && !hidden) pushText(child, depth);
    }
  };

  const walkSlot = (slot, depth, hidden) => {
    const assigned = slot.assignedNodes({ flatten: true });
    if (assigned.length === 0) return walkChildren(slot, depth, hidden);
    for (const child of assigned) {
      if (child.nodeType === 1) walkElement(child, depth);
      else if (child.nodeType === 3 && !hidden) pushText(child, depth);
    }
  };

  function walkElement(el, depth) {
    if (nodes.length >= maxNodes) {
      if (nodes.length) nodes[nodes.length - 1].c = 1;
      stopped = true;
      return;
    }
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (tag === "input" && el.type === "hidden") return;
    let hidden = false;
    if (typeof el.checkVisibility === "function" && !el.checkVisibility()) {
      // display:contents has no box of its own but its children render.
      if (getComputedStyle(el).display !== "contents") return;
    } else if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true })) {
      hidden = true;
    }
    if (tag === "slot") return walkSlot(el, depth, hidden);

    const node = { i: idOf(el), d: depth, t: tag };
    nodes.push(node);
    if (hidden) node.h = 1;

    let a = null;
    for (const attr of el.attributes) {
      const name = attr.name;
      if (ATTRS.has(name) || name.startsWith("aria-") || (name === "id" && labelled.has(attr.value))) {
        (a ??= {})[name] = attr.value.length > 2000 ? attr.value.slice(0, 2000) : attr.value;
      }
    }
    if (tag === "img" && el.hasAttribute("src")) (a ??= {}).src = el.getAttribute("src").slice(0, 300);
    if (a) node.a = a;

    let p = null;
    if (tag === "input") {
      if (el.type === "checkbox" || el.type === "radio") {
        p = { checked: el.checked };
        if (el.indeterminate) p.indeterminate = true;
      } else if (!["button", "submit", "reset", "image", "file"].includes(el.type)) {
        p = { value: el.value };
      }
    } else if (tag === "textarea") {
      p = { value: el.value };
    } else if (tag === "select") {
      const opts = Array.from(el.selectedOptions, (o) => collapse(o.text).trim());
      p = { value: el.value, opts };
    } else if (tag === "option") {
      p = { selected: el.selected };
    }
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) (p ??= {}).label = textOfIds(el, labelledBy);
    if (p) node.p = p;

    if (opts.viewportOnly || isInteractive(el, tag)) node.r = rectOf(el);

    if (tag === "iframe" || tag === "frame") {
      const index = frameIndex.get(el.contentWindow);
      if (index !== undefined) node.f = index;
      return;
    }
    if (tag === "svg") {
      if (!a?.["aria-label"]) {
        const title = el.querySelector(":scope > title");
        if (title) (node.a ??= {}).title = collapse(title.textContent ?? "").trim();
      }
      return;
    }

    const open = el.shadowRoot;
    if (open) {
      node.s = "open";
      walkChildren(open, depth + 1, hidden);
      return;
    }
    if (closedRootOf(el)) node.s = "closed";
    walkChildren(el, depth + 1, hidden);
  }

  if (document.documentElement) walkElement(document.documentElement, 0);

  // Forget elements that were garbage-collected.
  if (state.byId.size > nodes.length * 2 + 1000) {
    for (const [id, ref] of state.byId) if (!ref.deref()) state.byId.delete(id);
  }
  state.dirty = false;
  state.key = key;
  return {
    doc: state.doc,
    next: state.next,
    path,
    url: location.href,
    title: document.title,
    viewport: [Math.round(scrollX), Math.round(scrollY), innerWidth, innerHeight],
    visibility: document.visibilityState,
    nodes,
  };
}

/**
 * Looks an element up by id in this document: `{found: false}` when it is gone or never
 * belonged to this document. With `selector`, also builds a CSS selector that finds it:
 * one selector per shadow root on the way down (`shadowPath`).
 */
export function resolveId(id, withSelector) {
  const state = globalThis.__webextMcpCollector;
  const el = state?.byId.get(id)?.deref();
  if (!el || !el.isConnected) return { found: false, url: location.href };
  if (!withSelector) return { found: true, tag: el.localName };

  const cssEscape = (s) => (globalThis.CSS?.escape ? CSS.escape(s) : s.replace(/[^\w-]/g, (c) => `\\${c}`));
  const selectorIn = (target) => {
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
      const parent = node.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.localName === node.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      } else if (root !== document && !node.parentElement) {
        // top of a shadow tree: children of the root
        const same = Array.from(root.children).filter((c) => c.localName === node.localName);
        if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
      }
      steps.unshift(step);
    }
    return steps.join(" > ");
  };
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
}
