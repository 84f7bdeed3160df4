// The WebExtension namespace. Firefox has `browser` (promise-based); Chromium has `chrome`,
// which returns promises for every API this helper uses in MV3.
export const api = globalThis.browser ?? globalThis.chrome;

/** Whether this browser has `chrome.debugger` (Chromium family only; Firefox has none). */
export const hasDebugger = typeof api.debugger?.attach === "function";

/** The browser family, in the permission table's words: only Gecko has runtime.getBrowserInfo. */
export const family = typeof api.runtime.getBrowserInfo === "function" ? "gecko" : "chromium";

/** What the helper holds now, `{permissions, origins}` (permissions.getAll), for hello and the status page. */
export async function grantedPermissions() {
  const { permissions = [], origins = [] } = await api.permissions.getAll();
  return { permissions, origins };
}
