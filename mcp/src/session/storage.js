// Reads or changes the extension's own storage; evaluated by a session in the extension's
// background (Chromium: its service worker; Firefox: its background page), so it acts with
// the extension's permissions. The arguments are JSON data from the caller.
// `get` answers [[key, value], …] sorted by key; the others how many keys they touched.
async (action, area, keys, items) => {
  const storage = (globalThis.browser ?? globalThis.chrome)?.storage;
  const api = storage?.[area];
  if (!api) {
    throw new Error(`storage.${area} is not available (is the "storage" permission declared?)`);
  }
  if (action === "get") {
    const got = await api.get(keys);
    return Object.keys(got).sort().map((k) => [k, got[k]]);
  }
  if (action === "set") {
    await api.set(items);
    return Object.keys(items).length;
  }
  if (action === "remove") {
    await api.remove(keys);
    return keys.length;
  }
  const before = Object.keys(await api.get(null)).length;
  await api.clear();
  return before;
}
