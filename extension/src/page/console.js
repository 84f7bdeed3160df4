// The console hook, a classic script run in a page's MAIN world at document_start (registered
// with the dialog hook for the agent's loads, see ../dialogs.js and ../consolelog.js) or
// injected into a loaded document; safe to run twice. It records what the page's own console
// would show: console.* calls (level, text, where it was called from), uncaught errors,
// unhandled promise rejections, CSP violations (requests a CSP blocks never reach webRequest:
// this event is the only trace of them in both browsers) and elements whose resource failed
// to load. Records go out in batches, one per turn of the page's microtasks (no timers: they
// are clamped to 1 s in background tabs), as a JSON string in a `webext-mcp-console:records`
// event that the isolated relay (console-relay.js) forwards to the background.
//
// What a page can see and do: that console methods are not native (`console.log.toString()`),
// the two event names, and its own records as they pass; it can send records of its own
// (the same as calling console.log) or swallow them (its console is its own anyway). The
// background re-validates every field and bounds every tab's buffer, so a page can fill only
// its own tab's buffer, with its own text.

(() => {
  const KEY = Symbol.for("webext-mcp.console");
  if (window[KEY]) return;
  Object.defineProperty(window, KEY, { value: true });
  const RECORDS = "webext-mcp-console:records";
  const READY = "webext-mcp-console:ready";
  const HELLO = "webext-mcp-console:hello";
  // Bounds in the page: what waits for the relay, and how much of one message is kept.
  const PENDING_CAP = 1000;
  const TEXT_CAP = 4000;
  const ARG_CAP = 1000;
  const STACK_CAP = 4000;
  // Builtins as they were before the page's first script.
  const stringify = JSON.stringify;
  const now = Date.now;
  const apply = Reflect.apply;
  const keys = Object.keys;
  const isArray = Array.isArray;
  const toStr = Object.prototype.toString;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const Custom = CustomEvent;
  const microtask = queueMicrotask;
  const ErrorCtor = Error;

  let pending = [];
  let dropped = 0;
  let ready = false;
  let scheduled = false;
  let busy = false;

  const flush = () => {
    scheduled = false;
    if (!ready || pending.length === 0) return;
    const batch = pending;
    const lost = dropped;
    pending = [];
    dropped = 0;
    apply(dispatch, document, [new Custom(RECORDS, { detail: stringify({ records: batch, dropped: lost }) })]);
  };

  const record = (r) => {
    if (pending.length >= PENDING_CAP) {
      pending.shift();
      dropped++;
    }
    pending[pending.length] = r;
    if (ready && !scheduled) {
      scheduled = true;
      microtask(flush);
    }
  };

  const cut = (s, cap) => (s.length > cap ? s.slice(0, cap) + "…" : s);

  // Where a call came from: the first stack frame outside this hook (any extension URL).
  const callerOf = (stack) => {
    const lines = typeof stack === "string" ? stack.split("\n") : [];
    const kept = [];
    let where = null;
    for (const line of lines) {
      if (line.includes("-extension://") || line.trim() === "" || /^\w*Error\b/.test(line)) continue;
      kept[kept.length] = line.trim();
      if (!where) {
        const m = /\(?((?:https?|file|data|blob|about):[^\s()]*?):(\d+):(\d+)\)?\s*$/.exec(line);
        if (m) where = { url: m[1], line: Number(m[2]), column: Number(m[3]) };
      }
    }
    return { where, stack: kept.join("\n") };
  };

  // A short preview of one value, the way a console shows it; never throws.
  const show = (v, depth) => {
    try {
      if (typeof v === "string") return depth ? stringify(v) : v;
      if (v === null || typeof v !== "object") {
        if (typeof v === "function") return `ƒ ${v.name || "anonymous"}()`;
        if (typeof v === "symbol") return v.toString();
        return String(v);
      }
      if (v instanceof ErrorCtor) return `${v.name}: ${v.message}`;
      if (typeof Node !== "undefined" && v instanceof Node) {
        if (v.nodeType !== 1) return `#${v.nodeName.toLowerCase()}`;
        return `<${v.localName}${v.id ? "#" + v.id : ""}${typeof v.className === "string" && v.className ? "." + v.className.trim().split(/\s+/).join(".") : ""}>`;
      }
      if (depth >= 2) return isArray(v) ? `Array(${v.length})` : "{…}";
      if (isArray(v)) {
        const items = [];
        for (let i = 0; i < v.length && i < 20; i++) items[items.length] = show(v[i], depth + 1);
        if (v.length > 20) items[items.length] = `… ${v.length - 20} more`;
        return `[${items.join(", ")}]`;
      }
      const tag = toStr.call(v).slice(8, -1);
      const names = keys(v);
      const parts = [];
      for (let i = 0; i < names.length && i < 20; i++) parts[parts.length] = `${names[i]}: ${show(v[names[i]], depth + 1)}`;
      if (names.length > 20) parts[parts.length] = `… ${names.length - 20} more`;
      return `${tag === "Object" ? "" : tag + " "}{${parts.join(", ")}}`;
    } catch {
      return "[unreadable]";
    }
  };

  // printf-style substitutions of the first argument (%s %d %i %f %o %O %c), then the rest.
  const format = (args) => {
    const out = [];
    let rest = 0;
    if (typeof args[0] === "string" && args[0].includes("%")) {
      let i = 1;
      const first = args[0].replace(/%([sdifoOc%])/g, (all, k) => {
        if (k === "%") return "%";
        if (i >= args.length) return all;
        const a = args[i++];
        if (k === "c") return "";
        if (k === "d" || k === "i") return String(parseInt(a, 10));
        if (k === "f") return String(parseFloat(a));
        return cut(show(a, k === "s" ? 0 : 1), ARG_CAP);
      });
      out[0] = first;
      rest = i;
    }
    for (let i = rest || (out.length ? 1 : 0); i < args.length; i++) out[out.length] = cut(show(args[i], 0), ARG_CAP);
    return cut(out.join(" "), TEXT_CAP);
  };

  const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug", trace: "debug", dir: "log", table: "log", assert: "error" };
  const target = window.console;
  for (const name of keys(LEVELS)) {
    const original = target[name];
    if (typeof original !== "function") continue;
    const level = LEVELS[name];
    const wrapped = {
      [name](...args) {
        // A console call made while one is recorded (a getter that logs, a console method
        // that calls another) is passed on, not recorded twice.
        if (busy) return apply(original, this, args);
        busy = true;
        try {
          if (name !== "assert" || !args[0]) {
            const shown = name === "assert" ? ["Assertion failed:", ...args.slice(1)] : args;
            const { where, stack } = callerOf(new ErrorCtor().stack);
            const r = { level, source: "console", text: format(shown), time: now() };
            if (where) Object.assign(r, where);
            // An error logged has its own stack; other errors and traces get the call's.
            let logged = null;
            for (const a of args) if (!logged && a instanceof ErrorCtor) logged = a;
            if (logged && typeof logged.stack === "string") r.stack = cut(logged.stack, STACK_CAP);
            else if (level === "error" || name === "trace") r.stack = cut(stack, STACK_CAP);
            record(r);
          }
        } catch {
          // A value the page made unreadable: the message is lost, the call still goes on.
        }
        try {
          return apply(original, this, args);
        } finally {
          busy = false;
        }
      },
    }[name];
    try {
      Object.defineProperty(target, name, { value: wrapped, writable: true, configurable: true, enumerable: true });
    } catch {
      // A frozen console: nothing to hook.
    }
  }

  const errorText = (e, prefix) => {
    if (e instanceof ErrorCtor) return { text: cut(`${prefix}${e.name}: ${e.message}`, TEXT_CAP), stack: cut(String(e.stack ?? ""), STACK_CAP) };
    return { text: cut(prefix + show(e, 0), TEXT_CAP) };
  };

  apply(listen, window, [
    "error",
    (e) => {
      const el = e.target;
      if (el && el !== window && el.nodeType === 1) {
        // A resource that failed to load (<img>, <script>, <link>): its element, not a throw.
        const url = el.currentSrc || el.src || el.href || "";
        record({ level: "error", source: "network", text: cut(`failed to load <${el.localName}> ${url}`, TEXT_CAP), url: String(url), time: now() });
        return;
      }
      const r = { level: "error", source: "exception", time: now(), ...errorText(e.error ?? e.message, "Uncaught ") };
      if (e.error === undefined || e.error === null) r.text = cut(`Uncaught ${e.message}`, TEXT_CAP);
      if (e.filename) Object.assign(r, { url: e.filename, line: e.lineno, column: e.colno });
      record(r);
    },
    true,
  ]);
  apply(listen, window, [
    "unhandledrejection",
    (e) => record({ level: "error", source: "rejection", time: now(), ...errorText(e.reason, "Uncaught (in promise) ") }),
  ]);
  apply(listen, document, [
    "securitypolicyviolation",
    (e) => {
      const blocked = e.blockedURI || "inline";
      const r = {
        level: "error",
        source: "csp",
        text: cut(`Content-Security-Policy (${e.disposition}) blocked ${blocked}: violates ${e.effectiveDirective || e.violatedDirective}`, TEXT_CAP),
        blockedUrl: String(blocked),
        directive: String(e.effectiveDirective || e.violatedDirective || ""),
        time: now(),
      };
      if (e.sourceFile) Object.assign(r, { url: e.sourceFile, line: e.lineNumber, column: e.columnNumber });
      record(r);
    },
    true,
  ]);

  // The relay announces itself (whichever of the two scripts runs first).
  apply(listen, document, [
    READY,
    () => {
      ready = true;
      if (!scheduled) {
        scheduled = true;
        microtask(flush);
      }
    },
  ]);
  apply(dispatch, document, [new Custom(HELLO)]);
})();
