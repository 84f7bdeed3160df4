// Web storage of a tab's origin (`storage.get`, `storage.set`, `storage.clear`):
// localStorage and sessionStorage of the tab's top document, read and written from the
// isolated world (the same Storage objects the page's own scripts use), and a read-only
// listing of its IndexedDB databases with object-store counts. Values pass the one
// redaction engine (ext-wasm/src/stored.rs) unless the request says `includeValues`.
import { engine } from "./engine.js";
import { HelperError } from "./errors.js";
import { unscriptable } from "./inject.js";
import { api } from "./api.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { describeTab, resolveTab } from "./tabs.js";

const LISTING_MAX_BYTES = METHOD_SPECS["storage.get"].params.maxBytes.default;
/** Longest value text carried from the page per entry (characters); longer ones are cut. */
const VALUE_CHARS = 4096;
const DATABASES_CAP = 50;
const STORES_CAP = 100;
/** How long one IndexedDB database may take to open and count (a pending upgrade blocks). */
const DB_TIMEOUT_MS = 2000;
const utf8 = new TextEncoder();

function areasOf(area, allowAll) {
  if (area === "local") return ["local"];
  if (area === "session") return ["session"];
  if (allowAll && area === "all") return ["local", "session"];
  throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown area \`${area}\``, allowAll ? "use local, session or all" : "use local or session");
}

/** Runs `func(...args)` in the tab's top document; a page that refuses storage is PERMISSION_DENIED. */
async function inTop(tab, func, args) {
  let results;
  try {
    results = await api.scripting.executeScript({ target: { tabId: tab.id }, func, args });
  } catch (e) {
    throw unscriptable(tab, e);
  }
  const out = results?.[0]?.result;
  if (!out) throw new HelperError(ERROR_CODES.SCRIPT_ERROR, `tab ${tab.id} did not answer`, "reload the page and retry");
  if (out.denied) {
    throw new HelperError(ERROR_CODES.PERMISSION_DENIED, `the page at ${tab.url} has no web storage (${out.denied})`, "storage belongs to http(s) pages; navigate the tab to the site first");
  }
  return out;
}

// In the page: the entries of the areas, values cut to `chars`, sizes in UTF-16 units.
function readInPage(areas, prefix, chars) {
  const entries = [];
  try {
    for (const area of areas) {
      const s = area === "local" ? localStorage : sessionStorage;
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i);
        if (key === null || (prefix && !key.startsWith(prefix))) continue;
        const value = s.getItem(key) ?? "";
        entries.push({ area, key, size: key.length + value.length, value: value.slice(0, chars), cut: value.length > chars });
      }
    }
  } catch (e) {
    return { denied: String(e?.name ?? e) };
  }
  return { origin: location.origin, entries };
}

// In the page: IndexedDB databases and the count of each object store, read-only.
async function databasesInPage(maxDbs, maxStores, timeoutMs) {
  if (!indexedDB?.databases) return { origin: location.origin, databases: null };
  let list;
  try {
    list = await indexedDB.databases();
  } catch (e) {
    return { origin: location.origin, databases: null, error: String(e?.name ?? e) };
  }
  const one = (info) =>
    new Promise((resolve) => {
      const done = (v) => resolve({ name: info.name, version: info.version, ...v });
      const timer = setTimeout(() => done({ stores: null, error: "timed out" }), timeoutMs);
      // Opening without a version never upgrades; a database that would need one is left closed.
      const req = indexedDB.open(info.name);
      req.onupgradeneeded = () => {
        req.transaction?.abort();
      };
      req.onerror = () => {
        clearTimeout(timer);
        done({ stores: null, error: String(req.error?.name ?? "error") });
      };
      req.onsuccess = () => {
        const db = req.result;
        const names = Array.from(db.objectStoreNames).slice(0, maxStores);
        if (names.length === 0) {
          clearTimeout(timer);
          db.close();
          return done({ stores: [] });
        }
        const tx = db.transaction(names, "readonly");
        const stores = names.map((name) => ({ name, count: null }));
        names.forEach((name, i) => {
          const c = tx.objectStore(name).count();
          c.onsuccess = () => {
            stores[i].count = c.result;
          };
        });
        tx.oncomplete = tx.onabort = tx.onerror = () => {
          clearTimeout(timer);
          db.close();
          done({ stores });
        };
      };
    });
  const databases = await Promise.all(list.filter((d) => typeof d.name === "string").slice(0, maxDbs).map(one));
  return { origin: location.origin, databases };
}

export async function getStorage(params) {
  const tab = await resolveTab(params);
  const areas = areasOf(params.area ?? "all", true);
  const page = await inTop(tab, readInPage, [areas, params.prefix ?? "", VALUE_CHARS]);
  const eng = await engine();
  const level = params.includeValues === true ? "off" : "safe";
  const all = page.entries.map((e) => {
    const shown = eng.storedValue(String(e.key), String(e.value), level);
    return { area: e.area, key: String(e.key), size: e.size, value: shown.value, redacted: shown.redacted, ...(e.cut && { truncated: true }) };
  });
  const maxBytes = params.maxBytes ?? LISTING_MAX_BYTES;
  let offset = 0;
  if (params.cursor != null) {
    if (!/^\d+$/.test(params.cursor)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`cursor` is not a get_storage cursor", "pass the nextCursor of the previous page");
    offset = Number(params.cursor);
  }
  const entries = [];
  let bytes = 0;
  let i = offset;
  for (; i < all.length; i++) {
    let e = all[i];
    let size = utf8.encode(JSON.stringify(e)).length + 1;
    // One entry larger than the page is cut to fit rather than never shown.
    if (size > maxBytes && entries.length === 0) {
      e = { ...e, value: cutToBytes(e.value, Math.max(0, maxBytes - (size - utf8.encode(e.value).length) - 8)), truncated: true };
      size = maxBytes;
    }
    if (entries.length > 0 && bytes + size > maxBytes) break;
    entries.push(e);
    bytes += size;
  }
  const wantDbs = params.indexedDb !== false && offset === 0;
  const dbs = wantDbs ? await inTop(tab, databasesInPage, [DATABASES_CAP, STORES_CAP, DB_TIMEOUT_MS]) : null;
  return {
    tab: describeTab(tab),
    origin: page.origin,
    entries,
    total: all.length,
    offset,
    nextCursor: i < all.length ? String(i) : null,
    indexedDb: dbs ? cleanDatabases(dbs.databases) : null,
  };
}

/** The page's listing re-validated: names as strings, counts as numbers. */
function cleanDatabases(list) {
  if (!Array.isArray(list)) return null;
  return list.slice(0, DATABASES_CAP).map((d) => ({
    name: String(d?.name ?? ""),
    version: Number.isFinite(d?.version) ? d.version : null,
    stores: Array.isArray(d?.stores) ? d.stores.slice(0, STORES_CAP).map((s) => ({ name: String(s?.name ?? ""), count: Number.isInteger(s?.count) ? s.count : null })) : null,
    ...(d?.error && { error: String(d.error).slice(0, 100) }),
  }));
}

function cutToBytes(text, max) {
  let out = "";
  let n = 0;
  for (const ch of text) {
    const len = utf8.encode(ch).length;
    if (n + len > max) break;
    out += ch;
    n += len;
  }
  return out;
}

// In the page: sets the items in one area.
function setInPage(area, items) {
  try {
    const s = area === "local" ? localStorage : sessionStorage;
    for (const [k, v] of Object.entries(items)) s.setItem(k, v);
  } catch (e) {
    return e?.name === "QuotaExceededError" ? { quota: true } : { denied: String(e?.name ?? e) };
  }
  return { origin: location.origin };
}

export async function setStorage(params) {
  const tab = await resolveTab(params);
  const [area] = areasOf(params.area ?? "local", false);
  const items = params.items;
  for (const [k, v] of Object.entries(items)) {
    if (typeof v !== "string") throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`items.${k}\` must be a string (web storage holds text)`, "JSON.stringify structured values first");
  }
  const out = await inTop(tab, setInPage, [area, items]);
  if (out.quota) throw new HelperError(ERROR_CODES.PAYLOAD_TOO_LARGE, `the ${area}Storage quota of ${tab.url} is full`, "clear_storage some keys first");
  return { tab: describeTab(tab), origin: out.origin, area, set: Object.keys(items) };
}

// In the page: removes `keys` (all when null) from the areas, or only lists them.
function clearInPage(areas, keys, dryRun) {
  const removed = [];
  try {
    for (const area of areas) {
      const s = area === "local" ? localStorage : sessionStorage;
      const names = keys ?? Array.from({ length: s.length }, (_, i) => s.key(i)).filter((k) => k !== null);
      for (const k of names) {
        if (s.getItem(k) === null) continue;
        removed.push({ area, key: k });
        if (!dryRun) s.removeItem(k);
      }
    }
  } catch (e) {
    return { denied: String(e?.name ?? e) };
  }
  return { origin: location.origin, removed };
}

export async function clearStorage(params) {
  const tab = await resolveTab(params);
  const areas = areasOf(params.area ?? "all", true);
  const keys = params.keys ?? null;
  if (keys && !keys.every((k) => typeof k === "string")) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`keys` must be strings");
  const out = await inTop(tab, clearInPage, [areas, keys, params.dryRun === true]);
  return { tab: describeTab(tab), origin: out.origin, removed: out.removed.map((r) => ({ area: String(r.area), key: String(r.key) })), dryRun: params.dryRun === true };
}
