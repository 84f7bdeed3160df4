const api = globalThis.browser ?? globalThis.chrome;

// inspectedWindow.eval takes a callback in Chromium and returns a promise in Firefox; wrap it.
function evaluate(expression) {
  return new Promise((resolve) => {
    const done = (value, error) => resolve({ value, error });
    const maybe = api.devtools.inspectedWindow.eval(expression, done);
    if (maybe && typeof maybe.then === 'function') {
      maybe.then(([value, error]) => done(value, error), (error) => done(undefined, error));
    }
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
