// document_start in every frame: the DOM is still empty, so only mark the frame and report.
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const isTop = window === window.top;
  document.documentElement?.setAttribute('data-webext-multi-frame', isTop ? 'top' : 'child');
  api.runtime.sendMessage({ type: 'entry-ran', entry: isTop ? 'frames (top)' : 'frames (child)' }).catch(() => {});
})();
