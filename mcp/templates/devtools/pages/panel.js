const api = globalThis.browser ?? globalThis.chrome;

// The callback form of inspectedWindow.eval works in both families (Firefox also offers it on
// `chrome.*`); `browser.devtools.inspectedWindow.eval` would take an options object instead.
function evaluate(expression) {
  return new Promise((resolve) => {
    globalThis.chrome.devtools.inspectedWindow.eval(expression, (value, error) => resolve({ value, error }));
  });
}

async function listScripts() {
  const { value } = await evaluate('[...document.scripts].map((s) => s.src || "(inline)")');
  const list = document.getElementById('scripts');
  list.replaceChildren(...(value ?? []).map((src) => {
    const item = document.createElement('li');
    item.textContent = src;
    return item;
  }));
}

document.getElementById('form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const { value, error } = await evaluate(document.getElementById('expr').value);
  document.getElementById('result').textContent =
    error ? `Error: ${error.value ?? error.description ?? JSON.stringify(error)}` : JSON.stringify(value, null, 2);
});

api.devtools.network.onNavigated.addListener(listScripts);
listScripts();
