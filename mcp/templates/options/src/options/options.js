const api = globalThis.browser ?? globalThis.chrome;
const DEFAULTS = { enabled: true, badge: 'on', color: '#2563eb' };
const form = document.getElementById('form');
const status = document.getElementById('status');

api.storage.sync.get(DEFAULTS).then((settings) => {
  form.enabled.checked = settings.enabled;
  form.badge.value = settings.badge;
  form.color.value = settings.color;
});

form.addEventListener('change', async () => {
  await api.storage.sync.set({
    enabled: form.enabled.checked,
    badge: form.badge.value,
    color: form.color.value,
  });
  status.textContent = 'Saved';
});
