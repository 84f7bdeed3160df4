// Main world: the page's globals are visible, extension APIs are not. Send findings to the
// isolated-world script with a tagged window message.
(() => {
  const CHANNEL = 'webext-main-world-template';
  // A blank same-origin frame holds only the browser's own globals: whatever this window has
  // beyond those, the page defined.
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  document.documentElement.append(frame);
  const builtins = new Set(Object.getOwnPropertyNames(frame.contentWindow ?? {}));
  frame.remove();
  const names = Object.getOwnPropertyNames(window).filter((n) => !builtins.has(n)).slice(0, 50);
  // Opaque origins (file:, data:, sandboxed pages) are "null", which postMessage refuses as a
  // target; the message stays in this window either way.
  const origin = window.location.origin === 'null' ? '*' : window.location.origin;
  window.postMessage({ channel: CHANNEL, type: 'page-globals', names }, origin);
})();
