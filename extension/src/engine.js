// The snapshot engine (Rust → wasm, bound by wasm-bindgen --target web), instantiated on
// first use inside a handler. Never at module top level: a module service worker whose top
// level awaits silently fails to register in Chromium, and the host never starts.
import init, * as wasm from "./engine/webext_mcp_engine.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES } from "./protocol.js";

let loading = null;

/**
 * Resolves to the engine once the wasm module is instantiated; retried after a failure.
 * Its functions take and return plain values; engine errors become HelperErrors.
 */
export function engine() {
  loading ??= init()
    .then(() => ({
      version: wasm.engineVersion(),
      // The input in parts (ext-wasm/src/untrusted.rs): a head this side wrote, and each
      // frame's texts as its world sent them, parsed and checked apart, never spliced.
      snapshotParts: ({ head, texts }) => unwrap(wasm.snapshotParts(head, texts)),
      // get_page_text from the frames' text walks (ext-wasm/src/textwalk.rs), in parts too.
      pageText: (head, texts) => unwrap(wasm.pageText(head, texts)),
      page: (text, offset, maxBytes) => unwrap(wasm.page(text, offset, maxBytes)),
      pageBySections: (text, offset, maxBytes) => unwrap(wasm.pageBySections(text, offset, maxBytes)),
      // A localStorage/sessionStorage value as it may be shown (ext-wasm/src/stored.rs).
      storedValue: (key, value, level) => JSON.parse(wasm.storedValue(key, value, level)),
      // Which texts the engine would redact (ext-wasm/src/redact.rs `hides`): screenshots mask them.
      hides: (texts) => Array.from(wasm.hides(texts), Boolean),
    }))
    .catch((e) => {
      loading = null;
      throw e;
    });
  return loading;
}

function unwrap(json) {
  const out = JSON.parse(json);
  if (out?.error) {
    const code = ERROR_CODES[out.error.code] ?? ERROR_CODES.INTERNAL;
    throw new HelperError(code, out.error.message, out.error.hint);
  }
  return out;
}
