// Network capture from webRequest metadata, per observed tab, in the background.
//
//   webRequest (all tabs, observational) ──▶ tab watched? ── no ──▶ held ≤ 10 s (a new tab's
//        │ onBeforeRequest … onCompleted / onErrorOccurred             first load can start
//        ▼                                                             before it is adopted)
//   entries per tab (bounded: count + bytes) ──▶ network.list / network.get
//   Firefox only: a blocking onBeforeRequest per watched tab attaches filterResponseData to
//   documents and XHR/fetch, which copies each response body as it passes (the page still
//   gets every byte); bounded per body and per tab. Chromium gives bodies only to the
//   debugger: with debugger mode on, a client arms it per tab (netbodies.js).
//
// Watched: tabs the agent opened or navigated, and tabs a client asked about. What a CSP
// blocks never reaches webRequest in either browser; the console hook reports it
// (`securitypolicyviolation`). Values are kept as the browser gave them; the MCP server
// redacts URLs, header values and bodies before anything reaches an agent.
import { api, family } from "./api.js";
import { globMatch } from "./actions.js";
import { afterOf, captureOn, pageOf } from "./consolelog.js";
import { HelperError } from "./errors.js";
import { changed } from "./observers.js";
import { armDebuggerBodies, capturing as debuggerCapturing, debuggerBodyOf } from "./netbodies.js";
import { CAPTURE, ERROR_CODES, METHOD_SPECS } from "./protocol.js";
import { describeTab, resolveTab } from "./tabs.js";
import { existingState } from "./tabstate.js";

// Bounds per tab (host/src/protocol/capture.rs): requests, their metadata, response bodies.
const ENTRY_CAP = CAPTURE.networkEntries;
const BYTE_CAP = CAPTURE.networkBytes;
const BODY_CAP = CAPTURE.bodyBytes;
const TAB_BODY_CAP = CAPTURE.tabBodyBytes;
const REQUEST_BODY_CAP = CAPTURE.requestBodyBytes;
const HEADER_CAP = 100;
const VALUE_CAP = 4096;
const HELD_MS = 10_000;
const HELD_CAP = 50;

/** Resource types whose bodies Firefox's filter keeps (what an agent reads: pages and API calls). */
const BODY_TYPES = ["main_frame", "sub_frame", "xmlhttprequest"];

/** @type {Map<number, object>} watched tab → its log */
const nets = new Map();
/** @type {Map<number, object>} unwatched tab → its recent requests, until adopted or stale */
const held = new Map();
/** Tabs a client asked about (agent tabs are watched through their tab state). */
const observed = new Set();
/** Firefox: the blocking listener of each watched tab. */
const bodyListeners = new Map();
/** requestId → the entry it belongs to now (redirects keep the id, entries do not). */
const current = new Map();

const canFilter = family === "gecko" && typeof api.webRequest?.filterResponseData === "function";

function newNet() {
  return { entries: [], bytes: 0, seq: 0, dropped: 0, since: Date.now(), bodyBytes: 0 };
}

function watched(tabId) {
  return observed.has(tabId) || existingState(tabId)?.agent === true;
}

/** The log a request of `tabId` goes to: the tab's own when watched, else a short-lived hold. */
function netFor(tabId, now) {
  if (watched(tabId)) {
    let net = nets.get(tabId);
    if (!net) {
      net = held.get(tabId)?.net ?? newNet();
      held.delete(tabId);
      nets.set(tabId, net);
    }
    if (canFilter && !bodyListeners.has(tabId) && captureOn()) armBodies(tabId);
    return net;
  }
  for (const [id, h] of held) if (now - h.at > HELD_MS) held.delete(id);
  let h = held.get(tabId);
  if (!h) {
    h = { at: now, net: newNet() };
    held.set(tabId, h);
  }
  return h.net;
}

const sizeOf = (e) => 200 + e.url.length + (e.headersSize ?? 0) + (e.requestBody?.bytes ?? 0);

/** Counts what `e` holds now in its log's bytes (headers arrive after the entry). */
function recount(net, e) {
  const size = sizeOf(e);
  net.bytes += size - (e.counted ?? 0);
  e.counted = size;
}

function add(net, e, cap) {
  e.seq = ++net.seq;
  e.id = `r${e.seq}`;
  net.entries.push(e);
  recount(net, e);
  while (net.entries.length > cap || (net.bytes > BYTE_CAP && net.entries.length > 1)) {
    const old = net.entries.shift();
    net.bytes -= old.counted;
    if (old.body?.chunks) net.bodyBytes -= old.body.kept;
    net.dropped++;
  }
}

function requestBodyOf(rb) {
  if (!rb) return undefined;
  if (rb.error) return { error: String(rb.error).slice(0, 200) };
  if (rb.formData) {
    const formData = {};
    let bytes = 0;
    for (const [k, vs] of Object.entries(rb.formData).slice(0, 200)) {
      formData[k] = (Array.isArray(vs) ? vs : [vs]).map((v) => String(v).slice(0, VALUE_CAP));
      bytes += k.length + formData[k].reduce((n, v) => n + v.length, 0);
    }
    return { formData, bytes };
  }
  const parts = Array.isArray(rb.raw) ? rb.raw : [];
  const buffers = parts.map((p) => p.bytes).filter((b) => b instanceof ArrayBuffer);
  const bytes = buffers.reduce((n, b) => n + b.byteLength, 0);
  const joined = new Uint8Array(Math.min(bytes, REQUEST_BODY_CAP));
  let at = 0;
  for (const b of buffers) {
    if (at >= joined.length) break;
    const chunk = new Uint8Array(b, 0, Math.min(b.byteLength, joined.length - at));
    joined.set(chunk, at);
    at += chunk.length;
  }
  const files = parts.filter((p) => p.file).length;
  return { text: new TextDecoder().decode(joined), bytes, truncated: bytes > REQUEST_BODY_CAP, ...(files && { files }) };
}

function headersOf(list) {
  if (!Array.isArray(list)) return undefined;
  return list.slice(0, HEADER_CAP).map((h) => ({ name: String(h.name).slice(0, 200), value: String(h.value ?? "").slice(0, VALUE_CAP) }));
}

const headersSize = (hs) => (hs ?? []).reduce((n, h) => n + h.name.length + h.value.length + 4, 0);

function header(list, name) {
  return list?.find((h) => h.name.toLowerCase() === name)?.value;
}

const FILTER = { urls: ["<all_urls>"] };
// Chromium shows Cookie, Set-Cookie and Referer only to listeners that ask for extraHeaders;
// Firefox knows no such option (and refuses unknown ones).
const EXTRA = family === "chromium" ? ["extraHeaders"] : [];

function onBefore(d) {
  if (!Number.isInteger(d.tabId) || d.tabId < 0 || !captureOn()) return;
  // Requests that never finish (a tab closed mid-load) must not pile up.
  if (current.size > 10_000) current.clear();
  const net = netFor(d.tabId, Date.now());
  const e = {
    method: d.method,
    url: d.url,
    type: d.type,
    frameId: d.frameId,
    initiator: d.initiator ?? d.originUrl ?? undefined,
    requestId: d.requestId,
    failed: false,
    fromCache: false,
    timings: { start: d.timeStamp },
  };
  const body = requestBodyOf(d.requestBody);
  if (body) e.requestBody = body;
  current.set(d.requestId, { net, e });
  const own = nets.get(d.tabId) === net;
  add(net, e, own ? ENTRY_CAP : HELD_CAP);
  if (own) changed(d.tabId, "network", net.seq);
}

function entryOf(d) {
  return current.get(d.requestId)?.e;
}

function netOf(d) {
  return current.get(d.requestId)?.net;
}

/** A request ended (completed, failed, redirected): subscribers of a watched tab hear of it. */
function done(d) {
  const c = current.get(d.requestId);
  current.delete(d.requestId);
  if (c && nets.get(d.tabId) === c.net) changed(d.tabId, "network", c.net.seq);
}

api.webRequest?.onBeforeRequest.addListener(onBefore, FILTER, ["requestBody"]);
api.webRequest?.onSendHeaders.addListener(
  (d) => {
    const e = entryOf(d);
    if (!e) return;
    e.requestHeaders = headersOf(d.requestHeaders);
    e.headersSize = headersSize(e.requestHeaders);
    e.timings.sent = d.timeStamp;
    recount(netOf(d), e);
  },
  FILTER,
  ["requestHeaders", ...EXTRA],
);
api.webRequest?.onHeadersReceived.addListener(
  (d) => {
    const e = entryOf(d);
    if (!e) return;
    e.status = d.statusCode;
    e.statusText = statusTextOf(d.statusLine);
    e.responseHeaders = headersOf(d.responseHeaders);
    e.headersSize = (e.headersSize ?? 0) + headersSize(e.responseHeaders);
    e.timings.headers = d.timeStamp;
    recount(netOf(d), e);
  },
  FILTER,
  ["responseHeaders", ...EXTRA],
);
api.webRequest?.onBeforeRedirect.addListener(
  (d) => {
    const e = entryOf(d);
    if (!e) return;
    e.status = d.statusCode;
    e.redirectUrl = d.redirectUrl;
    e.fromCache = Boolean(d.fromCache);
    e.timings.end = d.timeStamp;
    done(d);
  },
  FILTER,
);
api.webRequest?.onResponseStarted.addListener(
  (d) => {
    const e = entryOf(d);
    if (e) e.timings.response = d.timeStamp;
  },
  FILTER,
);
api.webRequest?.onCompleted.addListener(
  (d) => {
    const e = entryOf(d);
    if (!e) return;
    e.status = d.statusCode;
    e.statusText ??= statusTextOf(d.statusLine);
    e.fromCache = Boolean(d.fromCache);
    if (d.ip) e.ip = d.ip;
    e.timings.end = d.timeStamp;
    // Firefox counts bytes itself; Chromium tells only what Content-Length said.
    const sizes = {};
    if (Number.isFinite(d.requestSize)) sizes.request = d.requestSize;
    if (Number.isFinite(d.responseSize)) sizes.response = d.responseSize;
    const declared = Number(header(e.responseHeaders, "content-length"));
    if (Number.isFinite(declared) && header(e.responseHeaders, "content-length") !== undefined) sizes.contentLength = declared;
    e.sizes = sizes;
    done(d);
  },
  FILTER,
);
api.webRequest?.onErrorOccurred.addListener(
  (d) => {
    const e = entryOf(d);
    if (!e) return;
    e.failed = true;
    e.error = String(d.error ?? "failed").slice(0, 200);
    e.fromCache = Boolean(d.fromCache);
    e.timings.end = d.timeStamp;
    done(d);
  },
  FILTER,
);

function statusTextOf(line) {
  // "HTTP/1.1 404 Not Found" → "Not Found"
  const m = /^\S+\s+\d{3}\s*(.*)$/.exec(String(line ?? ""));
  return m ? m[1].slice(0, 200) : undefined;
}

/** Firefox: from now on, bodies of the tab's documents and XHR/fetch responses are kept. */
function armBodies(tabId) {
  const listener = (d) => {
    if (captureOn()) attachFilter(d);
    return {};
  };
  try {
    api.webRequest.onBeforeRequest.addListener(listener, { urls: ["<all_urls>"], tabId, types: BODY_TYPES }, ["blocking"]);
    bodyListeners.set(tabId, listener);
  } catch {
    // No webRequestBlocking / webRequestFilterResponse (an older helper): no bodies.
    bodyListeners.set(tabId, null);
  }
}

/** Bodies being filtered, by requestId, until their entry takes them. */
const filtering = new Map();

function attachFilter(d) {
  let filter;
  try {
    filter = api.webRequest.filterResponseData(d.requestId);
  } catch {
    return;
  }
  const body = { chunks: [], kept: 0, bytes: 0, state: "receiving" };
  filtering.set(d.requestId, body);
  filter.ondata = (ev) => {
    const data = ev.data;
    body.bytes += data.byteLength;
    const room = BODY_CAP - body.kept;
    if (room > 0) {
      const part = data.byteLength > room ? data.slice(0, room) : data;
      body.chunks.push(part);
      body.kept += part.byteLength;
    }
    filter.write(data);
  };
  filter.onstop = () => {
    body.state = "complete";
    filter.close();
    settle(d.tabId, d.requestId, body);
  };
  filter.onerror = () => {
    body.state = "error";
    body.error = String(filter.error ?? "filter error").slice(0, 200);
    settle(d.tabId, d.requestId, body);
  };
}

/** Gives a finished body to the newest entry of its request, within the tab's body bound. */
function settle(tabId, requestId, body) {
  filtering.delete(requestId);
  const net = nets.get(tabId);
  if (!net) return;
  const e = net.entries.findLast((x) => x.requestId === requestId);
  if (!e) return;
  e.body = body;
  net.bodyBytes += body.kept;
  for (const old of net.entries) {
    if (net.bodyBytes <= TAB_BODY_CAP) break;
    if (old.body?.chunks && old !== e) {
      net.bodyBytes -= old.body.kept;
      old.body = { state: "evicted", bytes: old.body.bytes };
    }
  }
}

api.tabs.onRemoved.addListener((tabId) => {
  nets.delete(tabId);
  held.delete(tabId);
  observed.delete(tabId);
  const listener = bodyListeners.get(tabId);
  if (listener) api.webRequest.onBeforeRequest.removeListener(listener);
  bodyListeners.delete(tabId);
});

/**
 * Starts an agent tab's log now (after its load; called by the dialog hook's `hookNow`), so
 * Firefox's body filter is armed before the tab's next request, whatever order the first
 * requests and the adoption came in.
 */
export function watchAgentTab(tabId) {
  netFor(tabId, Date.now());
}

/** The tab's log; a tab not watched yet is watched from now on (its earlier requests are not seen). */
function watch(tabId) {
  if (!watched(tabId)) {
    // What the tab did before a client asked stays unseen (the hold is for agent tabs only).
    held.delete(tabId);
    observed.add(tabId);
  }
  return netFor(tabId, Date.now());
}

const TYPES = {
  document: ["main_frame", "sub_frame"],
  fetch: ["xmlhttprequest"],
  xhr: ["xmlhttprequest"],
};

/** Whether `status` (200, 4xx, ok, failed) admits the entry; throws on a filter it cannot read. */
export function statusFilter(status) {
  if (status == null) return () => true;
  const s = String(status).toLowerCase();
  if (s === "failed") return (e) => e.failed;
  if (s === "ok") return (e) => !e.failed && e.status >= 200 && e.status < 400;
  if (/^[1-5]xx$/.test(s)) return (e) => !e.failed && Math.floor(e.status / 100) === Number(s[0]);
  if (/^\d{3}$/.test(s)) return (e) => e.status === Number(s);
  throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `unknown status filter \`${status}\``, "use a code (404), a class (4xx), ok or failed");
}

/** The wire form of an entry in a list: no headers or bodies (network.get has them). */
function summary(e) {
  const { requestHeaders, responseHeaders, requestBody, body, headersSize: _, requestId: __, counted: ___, ...rest } = e;
  return { ...rest, body: bodyState(e) };
}

function bodyState(e) {
  if (e.body) return { state: e.body.state, bytes: e.body.bytes };
  if (filtering.has(e.requestId)) return { state: "receiving" };
  return { state: "none" };
}

const DEFAULT_PAGE_BYTES = METHOD_SPECS["network.list"].params.maxBytes.default;

const CHROMIUM_BODIES =
  "Chromium gives response bodies only to its debugger: with debugger mode on (the helper's status page), pass captureBodies: true, then reload or repeat the requests";

function bodiesNote(tabId, why) {
  if (canFilter) return { captured: true, via: "filterResponseData", types: ["document", "fetch"], note: "Firefox keeps response bodies of documents and XHR/fetch loaded after the tab was watched" };
  if (family === "gecko") return { captured: false, why: "this helper lacks webRequestBlocking / webRequestFilterResponse: reinstall it (doctor shows the upgrade)" };
  if (debuggerCapturing(tabId)) return { captured: true, via: "debugger", types: ["document", "fetch"], note: "kept from the loads after captureBodies on; Chromium shows its debugging bar meanwhile" };
  return { captured: false, why: why ?? CHROMIUM_BODIES };
}

export async function listNetwork(params) {
  const tab = await resolveTab(params);
  const net = watch(tab.id);
  const why = params.captureBodies != null && family === "chromium" ? await armDebuggerBodies(tab.id, params.captureBodies) : null;
  const types = params.type == null ? null : (TYPES[params.type] ?? [params.type]);
  const byStatus = statusFilter(params.status);
  const keep = (e) => (!types || types.includes(e.type)) && byStatus(e) && (params.url == null || globMatch(params.url, e.url));
  const { out, total, nextCursor } = pageOf(net.entries, afterOf(params), keep, params.maxBytes ?? DEFAULT_PAGE_BYTES, summary);
  return { tab: describeTab(tab), capturedSince: net.since, bodies: bodiesNote(tab.id, why), entries: out, total, dropped: net.dropped, lastSeq: net.seq, nextCursor };
}

const TEXTUAL = /^(text\/|application\/(json|.*\+json|xml|.*\+xml|javascript|ecmascript|x-www-form-urlencoded)|image\/svg\+xml)/;

/** The response body at most `maxBytes` long, as text when its type is textual. */
function responseBodyOf(tabId, e, maxBytes) {
  const b = e.body;
  const cdp = !b && family === "chromium" ? debuggerBodyOf(tabId, e) : null;
  if (cdp) return cdpBody(e, cdp, maxBytes);
  if (!b) {
    const why = filtering.has(e.requestId)
      ? "the response is still arriving"
      : canFilter
        ? BODY_TYPES.includes(e.type)
          ? "not captured: the request started before the helper watched this tab (reload the page to capture it)"
          : `not captured: bodies are kept for documents and XHR/fetch, not ${e.type}`
        : (bodiesNote(tabId).why ?? "not captured: the request started before captureBodies, or its body was not kept");
    return { available: false, why };
  }
  if (b.state !== "complete") return { available: false, bytes: b.bytes, why: b.state === "evicted" ? "evicted to keep the tab's bodies within their bound" : `the response failed: ${b.error ?? b.state}` };
  const type = String(header(e.responseHeaders, "content-type") ?? "").toLowerCase();
  if (type && !TEXTUAL.test(type)) return { available: false, bytes: b.bytes, mimeType: type, why: "binary body: not returned" };
  const all = new Uint8Array(b.kept);
  let at = 0;
  for (const c of b.chunks) {
    all.set(new Uint8Array(c), at);
    at += c.byteLength;
  }
  const charset = /charset=([\w-]+)/.exec(type)?.[1] ?? "utf-8";
  let decoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder();
  }
  const shown = all.subarray(0, Math.min(all.length, maxBytes));
  const text = decoder.decode(shown);
  return { available: true, text, bytes: b.bytes, truncated: b.bytes > shown.length, ...(type && { mimeType: type }) };
}

/** A body the debugger gave (text, or base64 for binary responses). */
function cdpBody(e, cdp, maxBytes) {
  const type = String(header(e.responseHeaders, "content-type") ?? cdp.mimeType ?? "").toLowerCase();
  if (cdp.base64 && !TEXTUAL.test(type)) return { available: false, mimeType: type, why: "binary body: not returned" };
  let text = cdp.body;
  if (cdp.base64) {
    const bytes = Uint8Array.from(atob(cdp.body), (c) => c.charCodeAt(0));
    text = new TextDecoder().decode(bytes);
  }
  const bytes = new TextEncoder().encode(text).length;
  const shown = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  return { available: true, text: shown, bytes, truncated: cdp.cut || shown.length < text.length, ...(type && { mimeType: type }) };
}

export async function getNetwork(params) {
  const tab = await resolveTab(params);
  const net = nets.get(tab.id);
  const e = net?.entries.find((x) => x.id === params.id);
  if (!e) {
    throw new HelperError(
      ERROR_CODES.NOT_FOUND,
      `tab ${tab.id} has no request \`${params.id}\` (never seen, or dropped by the bounds)`,
      "call list_network_requests for the ids it keeps",
    );
  }
  const maxBytes = params.maxBytes ?? METHOD_SPECS["network.get"].params.maxBytes.default;
  return {
    tab: describeTab(tab),
    request: {
      ...summary(e),
      requestHeaders: e.requestHeaders ?? [],
      responseHeaders: e.responseHeaders ?? [],
      ...(e.requestBody && { requestBody: e.requestBody }),
      responseBody: responseBodyOf(tab.id, e, maxBytes),
    },
  };
}
