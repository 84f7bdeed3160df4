// Part of the page agent (see input.js for how the parts are injected): file uploads.
// An upload is opened on its element first (`uploadOpen`: the element is bound to the
// upload id), its pieces are decoded here as they arrive (`uploadPiece`, any order), and
// `upload` builds the files from the pieces — on the bound element only — and sets them on
// an <input type=file> — the files a user would have picked, with `input` and `change` — or
// drops them on the element (dragenter, dragover, drop) for drop zones. File inputs are
// often hidden behind a styled label, so neither visibility nor a hit test is asked.
(() => {
  const agent = globalThis.__webextMcpAgent;
  if (globalThis.__webextMcp || !agent || agent.loaded.has("upload")) return;
  agent.loaded.add("upload");
  const { api, state, describe, single } = agent;

  /** Open uploads of this document at once; an older one is dropped for a new one. */
  const MAX_OPEN = 4;
  /** An open upload is dropped this long after its last piece (the background's expiry). */
  const OPEN_TTL_MS = 60_000;
  const MAX_PIECES = 1 << 16;
  const PORT_PREFIX = "webext-mcp-upload:";
  // upload id → {el, metas, pieces: [[Uint8Array…]…], bytes, limit, timer}
  const open = new Map();

  function bytesOf(b64) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(b64);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function forget(id) {
    const u = open.get(id);
    if (u) clearTimeout(u.timer);
    open.delete(id);
    return Boolean(u);
  }

  function arm(id, u) {
    clearTimeout(u.timer);
    u.timer = setTimeout(() => open.delete(id), OPEN_TTL_MS);
  }

  /**
   * Binds upload `id` to the element `spec` names once it is ready for it (the probe's
   * answer otherwise, so the background waits and asks again).
   */
  api.uploadOpen = (id, spec, asDrop, metas) => {
    const probe = api.uploadProbe(spec, asDrop);
    if (probe.error || probe.waiting || probe.ambiguous || !probe.element) return probe;
    if (!probe.multiple && metas.length > 1) {
      return { error: `${probe.element.what} takes one file (no \`multiple\`); ${metas.length} were given`, code: "INVALID_ARGUMENT", hint: "upload one file" };
    }
    forget(id);
    while (open.size >= MAX_OPEN) forget(open.keys().next().value);
    const u = { el: single(spec).el, metas, pieces: metas.map(() => []), bytes: 0, limit: metas.reduce((n, m) => n + m.size, 0), timer: null };
    open.set(id, u);
    arm(id, u);
    return { ...probe, opened: true };
  };

  /** Piece `index` of file `file` of upload `id`, decoded now; a bad piece drops the upload. */
  api.uploadPiece = (id, file, index, data) => {
    const u = open.get(id);
    if (!u) return { error: `upload ${id} is not open in this document (cancelled, expired, or the page changed)`, code: "NOT_FOUND" };
    const pieces = u.pieces[file];
    if (!pieces || !Number.isInteger(index) || index < 0 || index >= MAX_PIECES || pieces[index] !== undefined) {
      forget(id);
      return { error: `piece ${index} of file ${file} does not belong to upload ${id}, or came twice`, code: "INVALID_ARGUMENT" };
    }
    let bytes;
    const started = performance.now();
    const agentIn = performance.timeOrigin + started;
    try {
      bytes = bytesOf(data);
    } catch {
      forget(id);
      return { error: `piece ${index} of file ${file} is not base64`, code: "INVALID_ARGUMENT" };
    }
    if (u.bytes + bytes.length > u.limit) {
      forget(id);
      return { error: `upload ${id} got more bytes than its files hold`, code: "PAYLOAD_TOO_LARGE" };
    }
    pieces[index] = bytes;
    u.bytes += bytes.length;
    arm(id, u);
    const ended = performance.now();
    return { staged: u.bytes, decodeMs: Math.round((ended - started) * 10) / 10, agentIn, agentOut: performance.timeOrigin + ended };
  };

  api.uploadCancel = (id) => ({ cancelled: forget(id) });

  // Chromium hands a piece over a port from the background (../upload.js, `portOf`):
  // `executeScript` converts a 1 MB string argument through base::Value, ~200 ms a piece
  // on a loaded machine, where a port message is one serialized string. Only this
  // extension can connect to its content scripts; a port names an upload opened here.
  const runtime = (globalThis.browser ?? globalThis.chrome)?.runtime;
  runtime?.onConnect?.addListener((port) => {
    if (typeof port.name !== "string" || !port.name.startsWith(PORT_PREFIX)) return;
    const id = port.name.slice(PORT_PREFIX.length);
    if (!open.has(id)) return port.disconnect();
    port.onMessage.addListener((m) => {
      port.postMessage({ seq: m?.seq, out: api.uploadPiece(id, m?.file, m?.index, m?.data) });
    });
  });

  /**
   * The files of upload `id`, built from its pieces (no copy into one buffer), when `el` is
   * the element it was opened for and every piece arrived. Taken once.
   */
  function take(id, el) {
    const u = open.get(id);
    forget(id);
    if (!u) return { error: `upload ${id} is not open in this document (cancelled, expired, or the page changed)`, code: "NOT_FOUND", hint: "upload again" };
    if (u.el !== el) {
      return { error: `the locator now names another element than the one upload ${id} was opened for; nothing was uploaded`, code: "STALE", hint: "take a snapshot and upload again" };
    }
    const files = [];
    for (let k = 0; k < u.metas.length; k++) {
      const m = u.metas[k];
      const parts = u.pieces[k];
      let size = 0;
      for (let i = 0; i < parts.length; i++) {
        if (parts[i] === undefined) return { error: `piece ${i} of ${m.name} never arrived`, code: "INVALID_ARGUMENT" };
        size += parts[i].length;
      }
      if (size !== m.size) return { error: `file ${m.name} arrived with ${size} of ${m.size} bytes`, code: "INVALID_ARGUMENT" };
      files.push(new File(parts, m.name, { type: m.type, lastModified: m.lastModified }));
    }
    return { files };
  }

  /** What `upload` needs of its target: an enabled file input, or any element to drop on. */
  api.uploadProbe = (spec, drop, bound = null) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (bound != null && open.get(bound)?.el !== el) return { error: `the locator now names another element than the one upload ${bound} was opened for; nothing was uploaded`, code: "STALE" };
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
   * Sets (or drops) the files of upload `id` on the element `spec` names. With `via` (a
   * drop in Firefox, whose DataTransfer hides what a content script added from the page),
   * the files wait in the page's own world (see ../upload.js): the agent only tells that
   * side which element, by firing the `via` event on it, and reports `sent`.
   */
  api.upload = (spec, id, drop, via = null, sent = []) => {
    const one = single(spec);
    if (!one.el) return one;
    const el = one.el;
    if (via) {
      const u = open.get(id);
      forget(id);
      if (u?.el !== el) return { error: `the locator now names another element than the one upload ${id} was opened for; nothing was uploaded`, code: "STALE" };
      api.mark();
      el.dispatchEvent(new Event(via, { bubbles: true, composed: true }));
      return { done: true, element: describe(el), doc: state.doc, files: sent };
    }
    const got = take(id, el);
    if (!got.files) return got;
    const files = got.files;
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
