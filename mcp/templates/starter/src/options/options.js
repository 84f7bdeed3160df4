const api = globalThis.browser ?? globalThis.chrome;
const input = document.getElementById('greeting');
const status = document.getElementById('status');

api.storage.local.get({ greeting: 'Hello from Starter' }).then(({ greeting }) => {
  input.value = greeting;
});

input.addEventListener('change', async () => {
  await api.storage.local.set({ greeting: input.value });
  status.textContent = 'Saved';
  setTimeout(() => { status.textContent = ''; }, 1200);
});
