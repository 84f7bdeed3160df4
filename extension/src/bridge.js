// The native-messaging link to the webext-mcp host (wire protocol v1, see protocol.js):
//
//   connectNative ──▶ hello event ──▶ requests ──▶ method table ──▶ replies
//        ▲                              ▲
//        │ at once, then a backoff      └── chunk frames reassembled first
//        │ capped at 2 s; alarm,
//        │ onStartup/onInstalled, any incoming event
//   onDisconnect (the browser's own words kept as lastError)
//
// Browsers never restart a native host, and the host exits on purpose (stdin EOF, a framing
// error from the browser, SIGTERM): the helper must come back by itself, promptly, because
// every call made meanwhile fails NOT_CONNECTED. Timers die with a suspended service worker,
// so the backoff timer is only the fast path; the background also calls ensureConnected()
// from an alarm and from every listener.
import { api } from "./api.js";
import { HelperError, checkParams, errorBody } from "./errors.js";
import { CHUNK, ERROR_CODES, EVENTS, LIMITS, NATIVE_HOST_NAME, PROTOCOL_VERSION } from "./protocol.js";

// Delays before reconnect attempts after consecutive failures; the last one repeats. The first
// retry is immediate (a host that exited is usually just restartable) and the cap is short:
// a missing host costs one failed process start every 2 s, while a gap of up to 10 s (the
// old 250 ms … 10 s ladder, reached after a few quick host exits) failed every call in it.
const RETRY_MS = [0, 100, 250, 500, 1000, 2000];
// A port still open this long after connectNative means the host started and read our hello:
// both browsers disconnect within milliseconds when the host is missing or exits at once.
const CONFIRM_AFTER_MS = 1000;
// Deadline of a request that names none (the host's default), and the longest one honoured.
const DEFAULT_TIMEOUT_MS = LIMITS.defaultCallTimeoutMs;
const MAX_TIMEOUT_MS = LIMITS.maxCallTimeoutMs;
// A chunked payload whose next slice does not come within this time is dropped (the host
// drops its own unfinished ones as long after their first slice).
const CHUNK_IDLE_MS = LIMITS.chunkDeadlineMs;

const encoder = new TextEncoder();

/** UTF-8 length of a string. */
export function utf8Length(text) {
  return encoder.encode(text).length;
}

export class Bridge {
  #port = null;
  #state = "disconnected";
  #since = Date.now();
  #lastError = null;
  #failures = 0;
  #retryTimer = null;
  #retryAt = null;
  #confirmTimer = null;
  #chunks = new Map();
  #methods;
  #hello;
  #listeners = new Set();

  /**
   * @param {object} methods table: method name → async (params, meta) => result
   * @param {() => Promise<object>} hello builds the hello event's params
   */
  constructor({ methods, hello }) {
    this.#methods = methods;
    this.#hello = hello;
  }

  get status() {
    return {
      state: this.#state,
      since: this.#since,
      lastError: this.#lastError,
      failures: this.#failures,
      retryAt: this.#retryAt,
      host: NATIVE_HOST_NAME,
      protocol: PROTOCOL_VERSION,
    };
  }

  /** Calls `fn(status)` on every change; returns the unsubscribe function. */
  onStatus(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Connects unless a port is open (or opening). Cheap; call it from every listener. */
  ensureConnected() {
    if (!this.#port) this.#connect();
  }

  /** The status page's "reconnect now": skip the backoff wait. */
  reconnectNow() {
    this.#failures = 0;
    this.ensureConnected();
  }

  /** Sends hello on the open port (again when the label or capabilities changed). */
  async sayHello() {
    const port = this.#port;
    if (!port) return;
    let params;
    try {
      params = await this.#hello();
    } catch (e) {
      console.error("webext-mcp: cannot build hello:", e);
      return;
    }
    if (port === this.#port) post(port, { v: PROTOCOL_VERSION, event: EVENTS.HELLO, params });
  }

  /** Sends an event (no reply) when a port is open; dropped otherwise (events are hints). */
  emit(event, params) {
    const port = this.#port;
    if (port) post(port, { v: PROTOCOL_VERSION, event, params });
  }

  #connect() {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#retryAt = null;
    let port;
    try {
      port = api.runtime.connectNative(NATIVE_HOST_NAME);
    } catch (e) {
      // e.g. a TypeError when the manifest lacks the nativeMessaging permission (no connectNative).
      this.#failed(String(e?.message ?? e));
      return;
    }
    this.#port = port;
    port.onMessage.addListener((msg) => this.#receive(port, msg));
    port.onDisconnect.addListener((p) => this.#disconnected(port, p));
    this.#setState("connecting");
    this.#confirmTimer = setTimeout(() => this.#confirm(port), CONFIRM_AFTER_MS);
    this.sayHello();
  }

  #confirm(port) {
    if (port !== this.#port || this.#state !== "connecting") return;
    clearTimeout(this.#confirmTimer);
    this.#failures = 0;
    this.#setState("connected");
  }

  #disconnected(port, p) {
    if (port !== this.#port) return;
    // Chromium says why in runtime.lastError (reading it here also marks it checked);
    // Firefox sets port.error and leaves runtime.lastError null.
    const why = p?.error?.message ?? api.runtime.lastError?.message ?? "the native host closed the connection";
    const wasConnected = this.#state === "connected";
    this.#port = null;
    clearTimeout(this.#confirmTimer);
    for (const id of [...this.#chunks.keys()]) this.#dropChunks(id);
    if (wasConnected) this.#failures = 0;
    this.#failed(why);
  }

  #failed(message) {
    // Once per distinct reason, so a missing host does not flood the extension's console.
    if (this.#lastError?.message !== message || this.#state === "connected") {
      console.warn(`webext-mcp: native host ${NATIVE_HOST_NAME} disconnected: ${message}`);
    }
    this.#lastError = { message, at: Date.now() };
    this.#failures += 1;
    const delay = RETRY_MS[Math.min(this.#failures - 1, RETRY_MS.length - 1)];
    this.#retryAt = Date.now() + delay;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.ensureConnected(), delay);
    this.#setState("disconnected");
  }

  #setState(state) {
    if (state !== this.#state) {
      this.#state = state;
      this.#since = Date.now();
    }
    const status = this.status;
    for (const fn of this.#listeners) {
      try {
        fn(status);
      } catch (e) {
        console.error("webext-mcp: status listener failed:", e);
      }
    }
  }

  #receive(port, msg) {
    if (port !== this.#port) return;
    this.#confirm(port);
    if (msg !== null && typeof msg === "object" && CHUNK.key in msg) {
      this.#receiveChunk(port, msg);
      return;
    }
    this.#handle(port, msg, { chunked: false, chunks: 0, text: null });
  }

  #receiveChunk(port, frame) {
    const { id, seq, last } = frame[CHUNK.key] ?? {};
    const data = frame[CHUNK.dataKey];
    if (typeof id !== "string" || !Number.isInteger(seq) || typeof data !== "string") {
      console.warn("webext-mcp: ignoring a malformed chunk frame");
      return;
    }
    let entry = this.#chunks.get(id);
    const expected = entry ? entry.parts.length : 0;
    if (seq !== expected) {
      this.#dropChunks(id);
      reply(port, id, { error: { code: ERROR_CODES.INVALID_ARGUMENT, message: `chunk ${seq} of \`${id}\` arrived, expected ${expected}` } });
      return;
    }
    if (!entry && this.#chunks.size >= LIMITS.unfinishedChunks) {
      // The host sends one payload's slices back to back; this many open ids is a bug.
      reply(port, id, { error: { code: ERROR_CODES.BUSY, message: `${LIMITS.unfinishedChunks} chunked payloads are already unfinished` } });
      return;
    }
    if (!entry) {
      entry = { parts: [], length: 0, timer: null };
      this.#chunks.set(id, entry);
    }
    clearTimeout(entry.timer);
    entry.parts.push(data);
    entry.length += data.length;
    if (entry.length > LIMITS.socketFrame) {
      this.#dropChunks(id);
      reply(port, id, { error: { code: ERROR_CODES.PAYLOAD_TOO_LARGE, message: `chunked payload \`${id}\` exceeds ${LIMITS.socketFrame} bytes` } });
      return;
    }
    if (!last) {
      entry.timer = setTimeout(() => this.#dropChunks(id), CHUNK_IDLE_MS);
      return;
    }
    this.#chunks.delete(id);
    const text = entry.parts.join("");
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      reply(port, id, { error: { code: ERROR_CODES.INVALID_ARGUMENT, message: `reassembled payload \`${id}\` is not JSON: ${e.message}` } });
      return;
    }
    this.#handle(port, msg, { chunked: true, chunks: entry.parts.length, text });
  }

  #dropChunks(id) {
    const entry = this.#chunks.get(id);
    if (entry) clearTimeout(entry.timer);
    this.#chunks.delete(id);
  }

  async #handle(port, msg, meta) {
    if (msg === null || typeof msg !== "object" || typeof msg.method !== "string") {
      // The host sends only requests (and chunks of them).
      console.warn("webext-mcp: ignoring a frame that is not a request");
      return;
    }
    const { id, method } = msg;
    const timeoutMs = Math.min(Number.isInteger(msg.timeoutMs) && msg.timeoutMs > 0 ? msg.timeoutMs : DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
    try {
      if (msg.v !== PROTOCOL_VERSION) {
        throw new HelperError(
          ERROR_CODES.VERSION_SKEW,
          `request speaks protocol ${msg.v}, this helper speaks protocol ${PROTOCOL_VERSION}`,
          "use the helper extension that came with this webext-mcp (run `webext-mcp install` again)",
          { theirs: msg.v, ours: PROTOCOL_VERSION },
        );
      }
      const handler = Object.hasOwn(this.#methods, method) ? this.#methods[method] : null;
      if (!handler) {
        throw new HelperError(
          ERROR_CODES.UNSUPPORTED,
          `this helper extension does not answer \`${method}\``,
          "the helper is older than the host; run `webext-mcp install` again and reload the helper",
        );
      }
      const params = checkParams(method, msg.params);
      // The caller's own deadline: the host's is one margin later (host/src/protocol/timeouts.rs).
      const callTimeoutMs = Math.max(1, timeoutMs - LIMITS.callMarginMs);
      const result = await withTimeout(handler(params, { ...meta, request: msg, callTimeoutMs }), timeoutMs, method);
      reply(port, id, { result: result ?? null });
    } catch (e) {
      reply(port, id, { error: errorBody(e) });
    }
  }
}

function withTimeout(promise, ms, method) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new HelperError(ERROR_CODES.TIMEOUT, `\`${method}\` did not finish within ${ms} ms`, "retry, or pass a longer timeout")),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function reply(port, id, outcome) {
  let frame = { id, ...outcome };
  const text = JSON.stringify(frame);
  // Chromium drops the port on a browser → host message over 64 MiB; answer with an error
  // instead of losing the connection. (Each UTF-16 unit is at most 3 UTF-8 bytes.)
  if (text.length * 3 > LIMITS.browserToHostFrame && utf8Length(text) > LIMITS.browserToHostFrame) {
    frame = {
      id,
      error: {
        code: ERROR_CODES.PAYLOAD_TOO_LARGE,
        message: `the answer is ${utf8Length(text)} bytes, over the ${LIMITS.browserToHostFrame}-byte limit`,
        hint: "ask for less (page through results)",
      },
    };
  }
  post(port, frame);
}

function post(port, frame) {
  try {
    port.postMessage(frame);
  } catch (e) {
    // The port closed between the request and the answer; the host has already answered
    // NOT_CONNECTED or will be restarted.
    console.warn("webext-mcp: cannot post to the native port:", e?.message ?? e);
  }
}
