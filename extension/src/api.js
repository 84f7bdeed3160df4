// The WebExtension namespace. Firefox has `browser` (promise-based); Chromium has `chrome`,
// which returns promises for every API this helper uses in MV3.
export const api = globalThis.browser ?? globalThis.chrome;

/** Whether this browser has `chrome.debugger` (Chromium family only; Firefox has none). */
export const hasDebugger = typeof api.debugger?.attach === "function";
