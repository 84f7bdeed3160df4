// What `extension_source_inspect` runs in the inspected page: one `Runtime.evaluate` in the
// page's main world (CDP evaluation is not subject to the page's CSP). It only reads the DOM
// and returns plain data; Rust adds the event envelope, the console and the byte cap.
//
// opts: {meta, summary, html, tree, probe: [selector], shadowDom: "off"|"open-only"|"all",
//        maxBytes, closed: [shadow roots the caller resolved]}
// Nothing here redacts: page data goes to the server (never to a log), which applies the one
// rule set of the engine (ext-wasm/src/redact.rs) before anything reaches the agent.
(opts, ...closedRoots) => {
  const enter = opts.shadowDom !== "off";
  const doc = document;
  const TEXT_MAX = 80;
  const TREE_DEPTH = 6;
  const TREE_NODES = 200;
  const TREE_CHILDREN = 20;

  // Shadow roots the main world cannot reach (closed ones), handed over by the caller.
  const closedOf = new Map();
  for (const r of closedRoots) if (r && r.host) closedOf.set(r.host, r);
  const shadowOf = (el) => el.shadowRoot || closedOf.get(el) || null;

  // The document and every shadow root we may enter, in document order.
  const scopes = [doc];
  let lightShadowRoots = 0;
  const collect = (scope) => {
    for (const el of scope.querySelectorAll("*")) {
      const sr = shadowOf(el);
      if (!sr) continue;
      if (scope === doc) lightShadowRoots++;
      if (enter) {
        scopes.push(sr);
        collect(sr);
      }
    }
  };
  collect(doc);

  const queryAll = (selector) => {
    const found = [];
    for (const s of scopes) for (const el of s.querySelectorAll(selector)) found.push(el);
    return found;
  };
  const generation = () =>
    parseInt((doc.documentElement && doc.documentElement.getAttribute("data-webext-mcp-generation")) || "1", 10) || 1;
  const clip = (s, n) => (s.length > n ? s.slice(0, n) + "…" : s);
  const text = (el) => clip((el.textContent || "").replace(/\s+/g, " ").trim(), TEXT_MAX);
  const ownText = (el) => {
    let t = "";
    for (const c of el.childNodes) if (c.nodeType === 3) t += c.data;
    return clip(t.replace(/\s+/g, " ").trim(), TEXT_MAX);
  };
  const inShadow = (el) => el.getRootNode() !== doc;
  const visible = (el) => (typeof el.checkVisibility === "function" ? el.checkVisibility() : null);
  const rect = (el) => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
  };
  // A short selector naming `el` within its tree; shadow trees joined by " >>> ".
  const path = (el) => {
    const parts = [];
    let e = el;
    while (e && e.nodeType === 1 && parts.length < 5) {
      let part = e.localName;
      if (e.id) {
        parts.unshift(part + "#" + CSS.escape(e.id));
        break;
      }
      const p = e.parentElement;
      if (p) {
        const same = [...p.children].filter((c) => c.localName === e.localName);
        if (same.length > 1) part += ":nth-of-type(" + (same.indexOf(e) + 1) + ")";
      }
      parts.unshift(part);
      e = p;
    }
    const here = parts.join(" > ");
    const root = el.getRootNode();
    return root && root.host ? path(root.host) + " >>> " + here : here;
  };
  const describe = (el) => {
    const d = { tag: el.localName };
    if (el.id) d.id = el.id;
    if (el.classList && el.classList.length) d.classes = [...el.classList].slice(0, 8);
    const attrs = {};
    for (const a of ["role", "aria-label", "name", "type", "href", "src", "data-extension-root"]) {
      const v = el.getAttribute(a);
      // Unredacted: the server applies the engine's rules to every `attrs` and `text`.
      if (v !== null) attrs[a] = clip(v, 200);
    }
    if (Object.keys(attrs).length) d.attrs = attrs;
    d.text = text(el);
    d.visible = visible(el);
    d.rect = rect(el);
    d.path = path(el);
    if (inShadow(el)) d.inShadow = true;
    return d;
  };

  const out = { url: location.href, title: doc.title, generation: generation() };

  if (opts.meta) {
    out.meta = {
      readyState: doc.readyState,
      visibilityState: doc.visibilityState,
      contentType: doc.contentType,
      charset: doc.characterSet,
      lang: (doc.documentElement && doc.documentElement.lang) || null,
      viewport: {
        width: innerWidth,
        height: innerHeight,
        devicePixelRatio: devicePixelRatio,
        scrollX: Math.round(scrollX),
        scrollY: Math.round(scrollY),
      },
      documentSize: doc.documentElement
        ? { width: doc.documentElement.scrollWidth, height: doc.documentElement.scrollHeight }
        : null,
      frameCount: window.frames.length,
      generation: generation(),
    };
  }

  if (opts.summary) {
    out.summary = {
      extensionRoots: queryAll("[data-extension-root]").length,
      shadowRoots: enter ? scopes.length - 1 : lightShadowRoots,
      scripts: doc.scripts.length,
      inlineScripts: doc.querySelectorAll("script:not([src])").length,
      styles: queryAll("style").length,
      stylesheets: doc.querySelectorAll('link[rel~="stylesheet" i]').length,
      links: doc.querySelectorAll("a[href]").length,
      iframes: doc.querySelectorAll("iframe, frame").length,
      elements: doc.getElementsByTagName("*").length,
    };
  }

  if (opts.probe && opts.probe.length) {
    out.probes = opts.probe.map((selector) => {
      let found;
      try {
        found = queryAll(selector);
      } catch (e) {
        return { selector, error: "invalid selector: " + String((e && e.message) || e) };
      }
      return { selector, count: found.length, samples: found.slice(0, 3).map(describe) };
    });
  }

  if (opts.tree) {
    const budget = { left: TREE_NODES, cut: false };
    const node = (el, depth) => {
      budget.left--;
      const n = { tag: el.localName };
      if (el.id) n.id = el.id;
      if (el.classList && el.classList.length) n.classes = [...el.classList].slice(0, 8);
      const role = el.getAttribute("role");
      if (role) n.role = role;
      const t = ownText(el);
      if (t) n.text = t;
      n.childCount = el.children.length;
      const sr = shadowOf(el);
      if (sr) {
        n.shadowRoot = sr.mode;
        if (enter) n.shadow = kids(sr, depth);
      }
      const c = kids(el, depth);
      if (c.length) n.children = c;
      return n;
    };
    const kids = (parent, depth) => {
      const list = [];
      if (depth >= TREE_DEPTH) {
        if (parent.children.length) budget.cut = true;
        return list;
      }
      for (const c of parent.children) {
        if (budget.left <= 0 || list.length >= TREE_CHILDREN) {
          budget.cut = true;
          break;
        }
        list.push(node(c, depth + 1));
      }
      return list;
    };
    out.roots = queryAll("[data-extension-root]").map((el) => {
      const own = parseInt(el.getAttribute("data-extension-generation") || "", 10);
      return {
        root: el.getAttribute("data-extension-root") || null,
        generation: Number.isFinite(own) ? own : generation(),
        path: path(el),
        inShadow: inShadow(el),
        visible: visible(el),
        rect: rect(el),
        tree: node(el, 0),
      };
    });
    out.treeTruncated = budget.cut;
  }

  // page_html: the page's HTML as tokens, unredacted and unescaped; the server applies the
  // engine's redaction rules (ext-wasm/src/redact.rs) and serializes it
  // (mcp/src/session/inspect/html.rs). Tokens: ["o", tag, [[name, value]…], void?] an open tag,
  // ["t", text] a text node, ["c", tag] a close tag, ["m", data] a comment, ["d", name] the
  // doctype. A shadow root is a <template shadowrootmode> inside its host.
  if (opts.html) {
    const limit = opts.maxBytes;
    const tokens = [];
    let size = 0;
    let truncated = false;
    const push = (t, bytes) => {
      tokens.push(t);
      size += bytes;
      if (size > limit) truncated = true;
    };
    const VOID = new Set([
      "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]);
    const walk = (n) => {
      if (truncated) return;
      switch (n.nodeType) {
        case 1: {
          const tag = n.localName;
          const attrs = [];
          let bytes = tag.length + 2;
          for (const a of n.attributes) {
            attrs.push([a.name, a.value]);
            bytes += a.name.length + a.value.length + 4;
          }
          if (VOID.has(tag)) return push(["o", tag, attrs, true], bytes);
          push(["o", tag, attrs], bytes);
          const sr = enter ? shadowOf(n) : null;
          if (sr) {
            push(["o", "template", [["shadowrootmode", sr.mode]]], 30);
            for (const c of sr.childNodes) walk(c);
            push(["c", "template"], 11);
          }
          for (const c of (tag === "template" ? n.content : n).childNodes) walk(c);
          push(["c", tag], tag.length + 3);
          return;
        }
        case 3:
          push(["t", n.data], n.data.length);
          return;
        case 8:
          push(["m", n.data], n.data.length + 7);
          return;
        case 10:
          push(["d", n.name], n.name.length + 11);
          return;
        default:
      }
    };
    for (const c of doc.childNodes) walk(c);
    out.html = { tokens, truncated };
  }

  return out;
}
