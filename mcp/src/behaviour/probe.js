// What the behaviour harness runs in a page (the test page, or an extension page opened as a
// tab): wait until the DOM settles, then read the mounted extension roots and the host page's
// computed styles. Called as `(opts, ...closedShadowRoots)`; returns plain data only. Every
// string and list is capped here and again in Rust (mcp/src/behaviour/report.rs), so a page
// that lies or floods cannot grow the report.
//
// opts: {quietMs, maxMs, mount: [selector], hostSelectors: [selector], hostProperties: [name],
//        rootProperties: [name], maxRoots, maxText, maxSignatures,
//        skip: [signature]: roots the page had without the extension, left out (one each)}
async (opts, ...closedRoots) => {
  const closedOf = new Map();
  for (const r of closedRoots) if (r && r.host) closedOf.set(r.host, r);
  const shadowOf = (el) => el.shadowRoot || closedOf.get(el) || null;

  // Every shadow root below `scope`, open or handed over.
  const shadowRoots = (scope, out) => {
    for (const el of scope.querySelectorAll("*")) {
      const sr = shadowOf(el);
      if (sr && out.length < 500) {
        out.push(sr);
        shadowRoots(sr, out);
      }
    }
    return out;
  };

  // Settle: no DOM mutation (document and shadow trees) for quietMs, at most maxMs.
  const settle = () =>
    new Promise((resolve) => {
      const started = Date.now();
      let last = Date.now();
      const observer = new MutationObserver(() => {
        last = Date.now();
        watchShadows();
      });
      const seen = new Set();
      const options = { subtree: true, childList: true, attributes: true, characterData: true };
      const watchShadows = () => {
        for (const sr of shadowRoots(document, [])) {
          if (!seen.has(sr)) {
            seen.add(sr);
            observer.observe(sr, options);
          }
        }
      };
      observer.observe(document, options);
      watchShadows();
      const tick = () => {
        const now = Date.now();
        if (now - last >= opts.quietMs || now - started >= opts.maxMs) {
          observer.disconnect();
          resolve({ settled: now - last >= opts.quietMs });
        } else {
          setTimeout(tick, Math.min(50, opts.quietMs));
        }
      };
      setTimeout(tick, Math.min(50, opts.quietMs));
    });

  const clip = (s, n) => {
    s = String(s == null ? "" : s);
    return s.length > n ? s.slice(0, n) : s;
  };
  // Text of a subtree, shadow trees included (textContent skips them), whitespace folded.
  const textOf = (node, budget) => {
    let out = "";
    const walk = (n) => {
      if (out.length > budget) return;
      if (n.nodeType === 3) {
        out += n.data + " ";
        return;
      }
      if (n.nodeType !== 1 && n.nodeType !== 11) return;
      if (n.nodeType === 1 && (n.localName === "style" || n.localName === "script")) return;
      const sr = n.nodeType === 1 ? shadowOf(n) : null;
      if (sr) walk(sr);
      for (const c of n.childNodes) walk(c);
    };
    walk(node);
    return clip(out.replace(/\s+/g, " ").trim(), opts.maxText);
  };
  const styleOf = (el, props) => {
    if (!el) return null;
    const cs = getComputedStyle(el);
    const out = {};
    for (const p of props) out[p] = clip(cs.getPropertyValue(p), 200);
    return out;
  };
  // Style sheets of a document or shadow root: how many, and the characters of their rules
  // (a sheet whose rules cannot be read counts as unreadable).
  const sheetsOf = (scope) => {
    const sheets = [...(scope.styleSheets || []), ...(scope.adoptedStyleSheets || [])];
    let chars = 0;
    let unreadable = 0;
    for (const s of sheets) {
      try {
        for (const r of s.cssRules) chars += r.cssText.length;
      } catch (e) {
        // Firefox: another extension's content-script world may not read the rules of a
        // sheet a content script made; a <style> element's own text still counts.
        const node = s.ownerNode;
        if (node && node.localName === "style") chars += (node.textContent || "").length;
        else unreadable++;
      }
    }
    return { count: sheets.length, chars, unreadable };
  };
  const SKIP = new Set(["style", "link", "script", "template", "meta", "title"]);
  const firstElement = (parent) => {
    for (const c of parent.children) if (!SKIP.has(c.localName)) return c;
    return null;
  };

  const describeRoot = (el, kind) => {
    const sr = shadowOf(el);
    const inside = sr || el;
    const first = firstElement(inside);
    return {
      kind,
      name: clip(el.getAttribute("data-extension-root") || el.localName + (el.id ? "#" + el.id : ""), 80),
      tag: el.localName,
      shadow: sr ? sr.mode : null,
      inShadow: el.getRootNode() !== document,
      children: inside.children.length,
      text: textOf(el, opts.maxText),
      firstElement: first ? first.localName : null,
      style: styleOf(first, opts.rootProperties),
      sheets: sr ? sheetsOf(sr) : kind === "mount" ? sheetsOf(document) : { count: 0, chars: 0, unreadable: 0 },
    };
  };

  const waited = await settle();
  const scopes = [document, ...shadowRoots(document, [])];
  // A root's signature: what tells the page's own roots from the extension's across loads.
  const signature = (el) => {
    const sr = shadowOf(el);
    return [el.getAttribute("data-extension-root") || "", el.localName, sr ? sr.mode : "", textOf(el, 60).slice(0, 60)].join("|");
  };
  const skip = new Map();
  for (const s of opts.skip || []) skip.set(s, (skip.get(s) || 0) + 1);
  const roots = [];
  const signatures = [];
  let rootCount = 0;
  let skipped = 0;
  for (const scope of scopes) {
    for (const el of scope.querySelectorAll("[data-extension-root]")) {
      const sig = signature(el);
      if (signatures.length < opts.maxSignatures) signatures.push(sig);
      const left = skip.get(sig) || 0;
      if (left > 0) {
        skip.set(sig, left - 1);
        skipped++;
        continue;
      }
      rootCount++;
      if (roots.length < opts.maxRoots) roots.push(describeRoot(el, "root"));
    }
  }
  let mount = null;
  for (const sel of opts.mount) {
    const el = document.querySelector(sel);
    if (el) {
      mount = describeRoot(el, "mount");
      break;
    }
  }
  const host = {};
  for (const sel of opts.hostSelectors) {
    const el = document.querySelector(sel);
    if (el) host[sel] = styleOf(el, opts.hostProperties);
  }
  return {
    url: clip(location.href, 300),
    settled: waited.settled,
    rootCount,
    skipped,
    signatures,
    roots,
    mount,
    host,
  };
}
