(() => {
  const multi = globalThis.__webextMulti;
  const heading = document.querySelector('h1')?.textContent ?? document.title;
  multi.mount('webext-multi-example', `example-site.js: ${heading}`, 'left:12px;bottom:44px;background:#b45309;');
  multi.report('example-site');
})();
