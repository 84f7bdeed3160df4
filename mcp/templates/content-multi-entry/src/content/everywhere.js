(() => {
  const multi = globalThis.__webextMulti;
  multi.mount('webext-multi-everywhere', 'everywhere.js', 'left:12px;bottom:12px;background:#0f766e;');
  multi.report('everywhere');
})();
