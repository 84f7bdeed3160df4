const api = globalThis.browser ?? globalThis.chrome;
const count = document.getElementById('count');

function show(response) {
  count.textContent = String(response?.clicks ?? 0);
}

api.runtime.sendMessage({ type: 'count:get' }).then(show);

document.getElementById('increment').addEventListener('click', () => {
  api.runtime.sendMessage({ type: 'count:increment' }).then(show);
});

document.getElementById('options').addEventListener('click', () => {
  api.runtime.openOptionsPage();
});
