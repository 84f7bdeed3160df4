// Part of the page agent (see input.js for how the parts are injected): file uploads.
// The background stages each file here (`uploadStage`, one call per file, so no single
// call carries a whole upload), then `upload` sets them on an <input type=file> — the
// files a user would have picked, with `input` and `change` — or drops them on an element
// (dragenter, dragover, drop) for drop zones. File inputs are often hidden behind a styled
// label, so neither visibility nor a hit test is asked of the target.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (globalThis.__webextMcp || !agent || agent.loaded.has("upload")) return;
  agent.loaded.add("upload");
  const { api, state, describe, single } = agent;

  // upload id → File[] (one pending upload per frame at a time is the normal case).
  const staged = new Map();

  function bytesOf(b64) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(b64);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  /** Keeps file `index` of upload `id` (base64 `data`) as a File until `upload` takes it. */
  api.uploadStage = (id, index, meta, data) => {
    if (index === 0) staged.set(id, []);
    const files = staged.get(id);
    if (!files || files.length !== index) return { error: `file ${index} of upload ${id} arrived out of order`, code: "INVALID_ARGUMENT" };
    const file = new File([bytesOf(data)], meta.name, { type: meta.type, lastModified: meta.lastModified });
    if (file.size !== meta.size) return { error: `file ${meta.name} arrived with ${file.size} of ${meta.size} bytes`, code: "INVALID_ARGUMENT" };
    files.push(file);
    return { staged: files.length };
  };

  /** What `upload` needs of its target: an enabled file input, or any element to drop on. */
  api.uploadProbe = (spec, drop) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (!el.isConnected) return { waiting: "the element is not attached" };
    const input = el.localName === "input" && el.type === "file";
    if (!drop && !input) {
      return { error: "upload sets the files of an <input type=file>; for a drop zone pass drop: true", code: "INVALID_ARGUMENT", element: describe(el) };
    }
    if (input && el.disabled) return { waiting: "the element is disabled", element: describe(el) };
    return { element: describe(el), input, accept: input ? el.accept : "", multiple: input ? el.multiple : true };
  };

  /**
   * Debugger mode: fires the one-use `channel` event on the element, so the debugger's
   * main-world listener learns which element it is (../upload.js, viaDebugger).
   */
  api.uploadPoint = (spec, channel) => {
    const one = single(spec);
    if (!one.el) return one;
    api.mark();
    one.el.dispatchEvent(new Event(channel, { bubbles: true, composed: true }));
    return { fired: true, doc: state.doc };
  };

  /** The files the element holds now, as the page sees them. */
  api.uploadSeen = (spec) => {
    const one = single(spec);
    if (!one.el) return one;
    return { element: describe(one.el), files: Array.from(one.el.files ?? [], (f) => ({ name: f.name, size: f.size, type: f.type })) };
  };

  function fire(el, type, init = {}) {
    return el.dispatchEvent(new Event(type, { bubbles: true, composed: true, ...init }));
  }

  /**
   * Sets (or drops) the files staged under `id` on the element `spec` names. With `via` (a
   * drop in Firefox, whose DataTransfer hides what a content script added from the page),
   * the files wait in the page's own world (see ../upload.js): the agent only tells that
   * side which element, by firing the `via` event on it, and reports `sent`.
   */
  api.upload = (spec, id, drop, via = null, sent = []) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (via) {
      api.mark();
      el.dispatchEvent(new Event(via, { bubbles: true, composed: true }));
      return { done: true, element: describe(el), doc: state.doc, files: sent };
    }
    const files = staged.get(id);
    staged.delete(id);
    if (!files) return { error: `nothing is staged under upload ${id}`, code: "INVALID_ARGUMENT" };
    const data = new DataTransfer();
    for (const f of files) data.items.add(f);
    api.mark();
    try {
      if (drop) {
        const r = el.getBoundingClientRect();
        const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
        for (const type of ["dragenter", "dragover", "drop"]) {
          el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: data, ...at }));
        }
      } else {
        el.files = data.files;
        fire(el, "input");
        fire(el, "change");
      }
    } catch (e) {
      return { error: e.message, code: "SCRIPT_ERROR" };
    }
    const seen = drop ? data.files : el.files;
    return {
      done: true,
      element: describe(el),
      doc: state.doc,
      files: Array.from(seen ?? [], (f) => ({ name: f.name, size: f.size, type: f.type })),
    };
  };
})();
