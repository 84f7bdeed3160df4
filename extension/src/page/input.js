// Part of the page agent: classic scripts injected on demand (scripting.executeScript with
// `files`, in the order of AGENT_FILES in ../inject.js) into a frame's isolated world, once
// per document: identity.js, locate.js, input.js, settle.js. identity.js starts the agent's
// shared parts (`globalThis.__webextMcpAgent`, internal); each later file adds to them and
// to the API; settle.js, the last, publishes it as `globalThis.__webextMcp`, which later
// injections call by name. Each file runs once per document, however often it is injected.
// Everything that waits or measures time is driven by the background: page timers are
// clamped and rAF never fires in background tabs, so nothing here uses either.
//
// input.js: actions, in two halves the background drives (probe, then dispatch), with
// the events a user's mouse and keyboard would have caused.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (globalThis.__webextMcp || !agent || agent.loaded.has("input")) return;
  agent.loaded.add("input");
  const { api, state, describe, single, stillChecked } = agent;
  const { collapse } = globalThis.__webextMcpCollector;

  function isEnabled(el) {
    return !(el.matches(":disabled") || el.closest("[aria-disabled='true']"));
  }

  function isEditable(el) {
    if (el.isContentEditable) return true;
    if (el.localName === "textarea") return !el.readOnly;
    if (el.localName === "input") return !el.readOnly && !["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color"].includes(el.type);
    return false;
  }

  // What `fill` sets besides text: a box's state, a choice, a value picked from a widget.
  const SET_BY_FILL = ["checkbox", "radio", "range", "color"];

  function isFillable(el) {
    if (el.localName === "select") return true;
    if (el.localName === "input" && SET_BY_FILL.includes(el.type)) return !el.readOnly;
    return isEditable(el);
  }

  /** A checkbox or radio value: a boolean, or its usual spellings; undefined otherwise. */
  function flagOf(value) {
    if (value === true || value === false) return value;
    const t = String(value).trim().toLowerCase();
    if (["true", "on", "checked", "yes", "1"].includes(t)) return true;
    if (["false", "off", "unchecked", "no", "0"].includes(t)) return false;
    return undefined;
  }

  /** Why `value` cannot go into `el`, or null. */
  function fillProblem(el, value) {
    const box = el.localName === "input" && (el.type === "checkbox" || el.type === "radio");
    if (box) {
      const want = flagOf(value);
      if (want === undefined) return `a ${el.type} takes true or false, not ${JSON.stringify(value)}`;
      if (el.type === "radio" && !want && el.checked) return "a checked radio cannot be unchecked: fill another radio of its group with true";
      return null;
    }
    if (el.localName === "select") {
      const options = Array.from(el.options);
      const v = String(value);
      if (options.some((o) => o.value === v || collapse(o.text).trim() === v)) return null;
      return `no option ${JSON.stringify(v)}; options: ${options.map((o) => `"${collapse(o.text).trim()}"`).join(", ")}`;
    }
    if (typeof value === "boolean") return `${JSON.stringify(value)} is for checkboxes and radios; this field takes text`;
    return null;
  }

  function inViewport(r) {
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  }

  /**
   * First half of an action: resolves `spec`, checks that the element is attached, visible
   * and enabled (and editable for `needs: "editable"`), scrolls it into view and reads its
   * box. The background waits ≥ 50 ms and calls `dispatch` with that box.
   */
  api.probe = (spec, needs, value) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (!el.isConnected) return { waiting: "the element is not attached" };
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return { waiting: "the element is not visible", element: describe(el) };
    if (needs !== "any" && !isEnabled(el)) return { waiting: "the element is disabled", element: describe(el) };
    if (needs === "editable" && !isEditable(el) && el.localName !== "select") return { error: "the element is not editable", code: "INVALID_ARGUMENT", element: describe(el) };
    if (needs === "fillable") {
      if (!isFillable(el)) return { error: "fill takes text fields, checkboxes, radios, selects, date and range inputs and contenteditable elements, not this element", code: "INVALID_ARGUMENT", element: describe(el) };
      const problem = fillProblem(el, value);
      if (problem) return { error: problem, code: "INVALID_ARGUMENT", element: describe(el) };
    }
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

  /** Fills `el` as a user would; returns what the field holds afterwards. */
  function fill(el, value) {
    const problem = fillProblem(el, value);
    if (problem) throw Object.assign(new Error(problem), { code: "INVALID_ARGUMENT" });
    el.focus?.({ preventScroll: true });
    if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
      // A click toggles the box and fires input and change, as a user's would.
      if (el.checked !== flagOf(value)) click(el, 0, 0);
      return el.checked;
    }
    if (el.localName === "select") {
      selectOptions(el, [String(value)]);
      return el.value;
    }
    const text = String(value);
    fire(el, "beforeinput", InputEvent, { inputType: "insertReplacementText", data: text });
    setValue(el, text);
    fire(el, "input", InputEvent, { inputType: "insertReplacementText", data: text });
    fire(el, "change");
    const now = el.isContentEditable ? el.textContent : el.value;
    // Never a password back, even the one just filled: its length says it was taken.
    if (el.type === "password") return `(${now.length} characters)`;
    // Dates, numbers, colours sanitise what they do not take to "" (ranges clamp instead).
    if (now === "" && text !== "" && el.localName === "input") {
      throw Object.assign(new Error(`this ${el.type} field did not take ${JSON.stringify(text)}${el.type === "date" ? " (dates are YYYY-MM-DD)" : ""}`), { code: "INVALID_ARGUMENT" });
    }
    return now;
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
    // Re-checked against the snapshot by the background: changed since then, check again.
    if (opts.rechecked && !stillChecked(el)) return { waiting: "the element changed while it was checked" };
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
    let applied;
    try {
      switch (action) {
        case "click":
          click(el, x, y);
          break;
        case "hover":
          hover(el, x, y);
          break;
        case "fill":
          applied = fill(el, opts.value);
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
    return { done: true, element: describe(el), doc: state.doc, x, y, applied };
  };

  /** Actions without a target element: a key to the focused element, a page scroll. */
  api.pageAction = (action, opts = {}) => {
    api.mark();
    if (action === "press") press(null, opts.key, opts.shift);
    else if (action === "scroll") scrollBy({ left: opts.dx ?? 0, top: opts.dy ?? 0, behavior: "instant" });
    return { done: true, scroll: [Math.round(scrollX), Math.round(scrollY)], doc: state.doc };
  };
})();
