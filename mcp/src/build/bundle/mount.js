// Extension.js's content-script contract (docs/bundler.md#content-scripts), appended to a
// content-script bundle in place of the plain `$wx_r(0)`. Mirrors extension-develop 4.1.26's
// `feature-scripts-content-script-wrapper`: the entry's default export is the mount function,
// called once per injection on the `run_at` schedule; what it returns is called before the
// next injection into the same world; the CSS the script imported is put into the shadow
// root of the extension root it mounted. Written for webext-mcp, not copied.
function $wx_ready(runAt, go) {
  // document_start: at once. document_end: once the document is parsed. document_idle (and
  // the scripts/ folder): once it is complete — 4.1.26's `isReady`, which waits for
  // `complete` at idle, not merely "not loading".
  if (typeof document === "undefined" || runAt === "document_start") {
    go();
    return null;
  }
  var ready = function () {
    var s = document.readyState;
    return runAt === "document_end" ? s !== "loading" : s === "complete";
  };
  if (ready()) {
    go();
    return null;
  }
  var on = function () {
    if (!ready()) return;
    document.removeEventListener("readystatechange", on);
    go();
  };
  document.addEventListener("readystatechange", on);
  return function () {
    document.removeEventListener("readystatechange", on);
  };
}
function $wx_roots() {
  if (typeof document === "undefined" || !document.querySelectorAll) return [];
  return Array.prototype.slice.call(document.querySelectorAll("#extension-root,[data-extension-root]"));
}
// The CSS goes into one shadow root unless the author styled it already (a non-empty
// <style> of theirs, as the templates' fetchCSS() fills one): then theirs is kept and ours
// removed, now or when theirs fills — 4.1.26's `hasUserStyle` rule.
function $wx_adopt(root, text, state) {
  var styled = function () {
    var all = root.querySelectorAll("style");
    for (var i = 0; i < all.length; i++) {
      if (!all[i].hasAttribute("data-webext-mcp-css") && String(all[i].textContent || "").trim()) return true;
    }
    return false;
  };
  var ours = root.querySelector("style[data-webext-mcp-css]");
  if (styled()) {
    if (ours && ours.parentNode) ours.parentNode.removeChild(ours);
    return;
  }
  if (!ours) {
    ours = document.createElement("style");
    ours.setAttribute("data-webext-mcp-css", "");
    ours.textContent = text;
    root.insertBefore(ours, root.firstChild);
  }
  if (typeof MutationObserver !== "function") return;
  var watch = new MutationObserver(function () {
    if (!styled()) return;
    watch.disconnect();
    if (ours.parentNode) ours.parentNode.removeChild(ours);
  });
  watch.observe(root, { childList: true, subtree: true, characterData: true });
  state.observers.push(watch);
}
// Styles the extension roots this script mounted (open shadow roots only), and the older
// contract's `window.__EXTENSION_SHADOW_ROOT__`. A root is this script's when it appeared
// since `before` and no other script of the extension (they share the world, and its
// registry of claimed roots) took it first: the roots there once the mount returned, else —
// an async mount — the first found after it, looked for every 250 ms, 20 times (4.1.26's
// schedule). No root: the CSS is applied nowhere (4.1.26 injects it into no page either).
function $wx_style(state, before, css) {
  if (typeof document === "undefined") return;
  var g = $wx_global();
  var claimed = g.__webextMcpClaimed || (g.__webextMcpClaimed = typeof WeakSet === "function" ? new WeakSet() : null);
  var text = "";
  for (var k = 0; k < css.length; k++) {
    var e = $wx_r(css[k]);
    var url = typeof e === "string" ? e : e && e.$wx_css;
    if (typeof url === "string") text += (k ? " " : "") + decodeURIComponent(url.slice(url.indexOf(",") + 1));
  }
  var tries = 0;
  var tick = function () {
    state.timer = null;
    if (state.gone) return;
    var targets = [];
    var roots = $wx_roots();
    for (var i = 0; i < roots.length; i++) {
      if (before.indexOf(roots[i]) >= 0 || (claimed && claimed.has(roots[i]))) continue;
      if (claimed) claimed.add(roots[i]);
      if (roots[i].shadowRoot) targets.push(roots[i].shadowRoot);
    }
    var legacy = g.__EXTENSION_SHADOW_ROOT__;
    var host = legacy && typeof ShadowRoot === "function" && legacy instanceof ShadowRoot ? legacy.host : null;
    if (host && targets.indexOf(legacy) < 0 && !(claimed && claimed.has(host))) {
      if (claimed) claimed.add(host);
      targets.push(legacy);
    }
    if (!text) return;
    for (var j = 0; j < targets.length; j++) $wx_adopt(targets[j], text, state);
    if (!targets.length && tries++ < 20) state.timer = setTimeout(tick, 250);
  };
  tick();
}
function $wx_global() {
  return typeof globalThis !== "undefined" ? globalThis : self;
}
function $wx_mount(key, runAt, css) {
  var mounts = $wx_global().__webextMcpMounts || ($wx_global().__webextMcpMounts = {});
  // A second injection into the same world (a dev session's re-injection, a second
  // executeScript) first takes down what the first mounted.
  var previous = mounts[key];
  delete mounts[key];
  if (typeof previous === "function") {
    try {
      previous();
    } catch (e) {}
  }
  var before = $wx_roots();
  var exports = $wx_r(0);
  var state = { gone: false, cleanup: null, cancel: null, timer: null, observers: [] };
  mounts[key] = function () {
    state.gone = true;
    if (state.cancel) state.cancel();
    if (state.timer) clearTimeout(state.timer);
    for (var i = 0; i < state.observers.length; i++) state.observers[i].disconnect();
    if (typeof state.cleanup === "function") state.cleanup();
  };
  var hasDefault = $wx_esm[0] && Object.prototype.hasOwnProperty.call(exports, "default");
  var mount = hasDefault ? exports["default"] : undefined;
  if (typeof mount !== "function") {
    // No default export: the script ran as written (the older contract mounts itself).
    if (hasDefault) console.warn("webext-mcp: nothing was mounted: the content script's default-exported value is not a function (it is called as the mount function).");
    $wx_style(state, before, css);
    return;
  }
  state.cancel = $wx_ready(runAt, function () {
    state.cancel = null;
    before = $wx_roots();
    var result;
    try {
      result = mount();
    } catch (e) {
      console.warn("webext-mcp: the content script's mount function (its default-exported one) failed:", e);
      return;
    }
    if (typeof result === "function") {
      state.cleanup = result;
    } else if (result && typeof result.then === "function") {
      // 4.1.26 neither awaits the promise nor calls what it resolves to; we keep that
      // function as the cleanup too. A rejection stays unhandled, as there.
      result.then(function (cleanup) {
        if (typeof cleanup !== "function") return;
        if (state.gone) cleanup();
        else state.cleanup = cleanup;
      });
    }
    $wx_style(state, before, css);
  });
}
