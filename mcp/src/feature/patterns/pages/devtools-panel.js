// The DevTools panel: a page inside DevTools that can evaluate code in the inspected page.
const api = globalThis.browser ?? globalThis.chrome;
const result = document.getElementById('result');
document.getElementById('tab').textContent = String(api.devtools.inspectedWindow.tabId);

document.getElementById('title').addEventListener('click', () => {
  api.devtools.inspectedWindow.eval('document.title', (value, error) => {
    result.textContent = error ? `error: ${error.value ?? error.code}` : String(value);
  });
});
