const api = globalThis.browser ?? globalThis.chrome;
const site = document.getElementById('site');
const note = document.getElementById('note');
const status = document.getElementById('status');
let key = null;

async function follow() {
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  let host = '';
  try {
    host = new URL(tab?.url ?? '').host;
  } catch {
    host = '';
  }
  key = host ? `note:${host}` : null;
  site.textContent = host || 'No site';
  note.disabled = !key;
  note.value = key ? ((await api.storage.local.get(key))[key] ?? '') : '';
}

note.addEventListener('input', async () => {
  if (!key) return;
  await api.storage.local.set({ [key]: note.value });
  status.textContent = 'Saved';
});

api.tabs.onActivated.addListener(follow);
api.tabs.onUpdated.addListener((_id, change) => { if (change.url) follow(); });
follow();
