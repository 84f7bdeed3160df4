// Cookies (`cookies.get`, `cookies.set`, `cookies.clear`) through the `cookies` API: every
// attribute, cookie stores (Firefox containers) and CHIPS partitions. Values are secrets:
// they leave the helper only when the request says `includeValues` (the server sends it only
// when its `tools.cookie_values` policy allows), and never appear in errors or logs.
import { api, family } from "./api.js";
import { HelperError } from "./errors.js";
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";

const LISTING_MAX_BYTES = METHOD_SPECS["cookies.get"].params.maxBytes.default;
const SAME_SITE = Object.freeze({ no_restriction: "None", lax: "Lax", strict: "Strict", unspecified: "Unspecified" });
const SAME_SITE_IN = Object.freeze({ none: "no_restriction", no_restriction: "no_restriction", lax: "lax", strict: "strict", unspecified: "unspecified" });
const utf8 = new TextEncoder();

function cookiesApi() {
  if (!api.cookies) {
    throw new HelperError(ERROR_CODES.PERMISSION_DENIED, "the helper lacks the `cookies` permission", "update the helper (webext-mcp install, then reload it) and run doctor");
  }
  return api.cookies;
}

/** The `cookies.getAll` details of a request's filters. */
function filterOf(params) {
  const details = {};
  if (params.url != null) {
    checkUrl(params.url);
    details.url = params.url;
  }
  if (params.domain != null) details.domain = String(params.domain).replace(/^\./, "");
  if (params.name != null) details.name = params.name;
  if (params.storeId != null) details.storeId = params.storeId;
  // Every partition unless one is named: without it both browsers return unpartitioned
  // cookies only, and a CHIPS cookie would be invisible.
  details.partitionKey = params.partitionKey ?? {};
  return details;
}

async function matching(params) {
  const c = cookiesApi();
  const details = filterOf(params);
  let list;
  try {
    list = await c.getAll(details);
  } catch (e) {
    throw badFilter(e);
  }
  return list.sort((a, b) => cmp(a.domain, b.domain) || cmp(a.path, b.path) || cmp(a.name, b.name) || cmp(a.storeId, b.storeId));
}

function cmp(a, b) {
  return String(a ?? "") < String(b ?? "") ? -1 : String(a ?? "") > String(b ?? "") ? 1 : 0;
}

function badFilter(e) {
  return new HelperError(ERROR_CODES.INVALID_ARGUMENT, `the browser refused the cookie filter: ${e?.message ?? e}`, "check url, storeId (list_pages shows tab containers) and partitionKey ({topLevelSite: \"https://site\"})");
}

function checkUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${url}\` is not an absolute URL`, "e.g. https://example.com/");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cookies belong to http(s) URLs, not \`${u.protocol}\``, "e.g. https://example.com/");
  }
}

/** The wire form of a cookie: attributes and size; the value only when asked. */
function describe(k, withValue) {
  const out = {
    name: k.name,
    domain: k.domain,
    path: k.path,
    secure: k.secure,
    httpOnly: k.httpOnly,
    sameSite: SAME_SITE[k.sameSite] ?? String(k.sameSite ?? "Unspecified"),
    session: k.session,
    hostOnly: k.hostOnly,
    storeId: k.storeId,
    size: utf8.encode(k.name).length + utf8.encode(k.value ?? "").length,
  };
  if (!k.session && k.expirationDate != null) out.expirationDate = k.expirationDate;
  if (k.partitionKey && Object.keys(k.partitionKey).length) out.partitionKey = k.partitionKey;
  if (withValue) out.value = k.value;
  return out;
}

export async function getCookies(params) {
  const all = await matching(params);
  const maxBytes = params.maxBytes ?? LISTING_MAX_BYTES;
  let offset = 0;
  if (params.cursor != null) {
    if (!/^\d+$/.test(params.cursor)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "`cursor` is not a get_cookies cursor", "pass the nextCursor of the previous page");
    offset = Number(params.cursor);
  }
  const cookies = [];
  let bytes = 0;
  let i = offset;
  for (; i < all.length; i++) {
    const c = describe(all[i], params.includeValues === true);
    const size = utf8.encode(JSON.stringify(c)).length + 1;
    if (cookies.length > 0 && bytes + size > maxBytes) break;
    cookies.push(c);
    bytes += size;
  }
  return { cookies, total: all.length, offset, nextCursor: i < all.length ? String(i) : null };
}

/** `cookies.set` details from one requested cookie; the url from its domain when absent. */
function setDetails(c) {
  if (c === null || typeof c !== "object" || Array.isArray(c)) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "each cookie is an object {name, value, url or domain, …}");
  if (typeof c.name !== "string") throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "each cookie needs a `name` (string)");
  if (c.value != null && typeof c.value !== "string") throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cookie \`${c.name}\`: \`value\` must be a string`);
  const known = ["url", "name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "expirationDate", "storeId", "partitionKey"];
  const extra = Object.keys(c).filter((k) => !known.includes(k));
  if (extra.length) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cookie \`${c.name}\`: unknown field(s) ${extra.join(", ")}`, `fields: ${known.join(", ")}`);
  const d = { name: c.name, value: c.value ?? "" };
  let url = c.url;
  if (url == null) {
    if (c.domain == null) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cookie \`${c.name}\` needs \`url\` or \`domain\``);
    url = `${c.secure ? "https" : "http"}://${String(c.domain).replace(/^\./, "")}${c.path ?? "/"}`;
  }
  checkUrl(url);
  d.url = url;
  // A domain given means a domain cookie (sent to subdomains); without it, host-only.
  if (c.domain != null) d.domain = c.domain;
  for (const k of ["path", "secure", "httpOnly", "expirationDate", "storeId", "partitionKey"]) if (c[k] != null) d[k] = c[k];
  if (c.sameSite != null) {
    const s = SAME_SITE_IN[String(c.sameSite).toLowerCase()];
    if (!s) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `cookie \`${c.name}\`: sameSite is None, Lax, Strict or Unspecified`);
    d.sameSite = s;
  }
  // Firefox has no "unspecified": it is the absence of the attribute there.
  if (family === "gecko" && d.sameSite === "unspecified") delete d.sameSite;
  return d;
}

export async function setCookies({ cookies }) {
  const c = cookiesApi();
  const details = cookies.map(setDetails);
  const set = [];
  for (const d of details) {
    let out;
    try {
      out = await c.set(d);
    } catch (e) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `the browser refused cookie \`${d.name}\`: ${e?.message ?? e}`, "SameSite=None needs secure: true; a partitionKey needs secure: true; domain must match url", { set });
    }
    // Chromium answers null (and sets nothing) for a cookie it rejects silently.
    if (!out) throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `the browser did not set cookie \`${d.name}\``, "SameSite=None and partitioned cookies need secure: true and an https url", { set });
    set.push({ name: out.name, domain: out.domain, path: out.path, storeId: out.storeId, size: utf8.encode(out.name).length + utf8.encode(out.value ?? "").length });
  }
  return { set };
}

export async function clearCookies(params) {
  const filters = ["url", "domain", "name", "storeId", "partitionKey"].filter((k) => params[k] != null);
  if (filters.length === 0) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, "clear_cookies needs at least one filter (url, domain, name, storeId or partitionKey)", "pass domain to clear a site's cookies; dryRun: true to count first");
  }
  const c = cookiesApi();
  const list = await matching(params);
  const listed = list.map((k) => ({ name: k.name, domain: k.domain, path: k.path, storeId: k.storeId }));
  if (params.dryRun) return { matched: list.length, removed: 0, cookies: listed };
  let removed = 0;
  for (const k of list) {
    const url = `${k.secure ? "https" : "http"}://${k.domain.replace(/^\./, "")}${k.path}`;
    const details = { url, name: k.name, storeId: k.storeId };
    if (k.partitionKey && Object.keys(k.partitionKey).length) details.partitionKey = k.partitionKey;
    if (k.firstPartyDomain) details.firstPartyDomain = k.firstPartyDomain;
    const out = await c.remove(details).catch(() => null);
    if (out) removed++;
  }
  return { matched: list.length, removed, cookies: listed };
}
