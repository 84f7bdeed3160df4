// evaluate_script's result scrubbed of the tab's secrets, by exact match: the values of the
// cookies the tab's URL sends (its container's store in Firefox, every partition) and the
// localStorage/sessionStorage values the engine hides (ext-wasm/src/stored.rs). Arbitrary
// code can always encode a secret (reverse it, split it), so this is best effort, not a
// boundary; it stops the plain `document.cookie` and `localStorage.token`.
import { api } from "./api.js";

/** Values shorter than this are left: replacing every "1" or "en" would wreck results. */
const MIN_SECRET = 6;
const REDACTED = "<redacted>";

// In the page (isolated world): every web storage entry of the top document.
function storageInPage() {
  const out = [];
  try {
    for (const s of [localStorage, sessionStorage]) {
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i);
        if (key !== null) out.push([key, s.getItem(key) ?? ""]);
      }
    }
  } catch {
    // A page without storage (about:blank, a sandboxed document).
  }
  return out;
}

/** The secrets of `tab` (longest first), each also as it reads inside a JSON string. */
export async function secretsOf(tab, eng) {
  const found = new Set();
  if (api.cookies && /^https?:/.test(tab.url ?? "")) {
    const details = { url: tab.url, partitionKey: {}, ...(tab.cookieStoreId && { storeId: tab.cookieStoreId }) };
    const cookies = await api.cookies.getAll(details).catch(() => []);
    for (const c of cookies) found.add(c.value);
  }
  const results = await api.scripting.executeScript({ target: { tabId: tab.id }, func: storageInPage }).catch(() => []);
  for (const [key, value] of results?.[0]?.result ?? []) {
    // Values get_storage hides whole; one shown with secret spans replaced is not a secret
    // as a whole (its spans are the engine's business in every other output).
    if (eng.storedValue(String(key), String(value), "safe").value === REDACTED) found.add(String(value));
  }
  const out = new Set();
  for (const v of found) {
    if (typeof v !== "string" || v.length < MIN_SECRET) continue;
    out.add(v);
    out.add(JSON.stringify(v).slice(1, -1));
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** `json` with every secret replaced; answers the text and how many were replaced. */
export function scrubSecrets(json, secrets) {
  let text = json;
  let scrubbed = 0;
  for (const s of secrets) {
    if (!text.includes(s)) continue;
    const parts = text.split(s);
    scrubbed += parts.length - 1;
    text = parts.join(REDACTED);
  }
  return { text, scrubbed };
}
