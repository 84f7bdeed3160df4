// The snapshot engine (Rust → wasm, bound by wasm-bindgen --target web), instantiated on
// first use inside a handler. Never at module top level: a module service worker whose top
// level awaits silently fails to register in Chromium, and the host never starts.
import init, { engineVersion } from "./engine/webext_mcp_engine.js";

let loading = null;

/** Resolves to `{version}` once the wasm module is instantiated; retried after a failure. */
export function engine() {
  loading ??= init()
    .then(() => ({ version: engineVersion() }))
    .catch((e) => {
      loading = null;
      throw e;
    });
  return loading;
}
