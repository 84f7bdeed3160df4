// Main world: the page's globals are visible, extension APIs are not. Send findings to the
// isolated-world script with a tagged window message.
(() => {
  const CHANNEL = 'webext-main-world-template';
  const baseline = new Set(Object.getOwnPropertyNames(document.createElement('iframe').contentWindow ?? {}));
  const names = Object.getOwnPropertyNames(window).filter((n) => !baseline.has(n)).slice(0, 50);
  window.postMessage({ channel: CHANNEL, type: 'page-globals', names }, window.location.origin);
})();
