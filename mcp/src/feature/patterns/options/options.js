// The options page: settings kept in storage.sync (the `storage` permission), so they follow
// the user's profile. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const DEFAULTS = { enabled: true };
const form = document.getElementById('form');
const status = document.getElementById('status');

api.storage.sync.get(DEFAULTS).then((settings) => {
  form.enabled.checked = settings.enabled;
});

form.addEventListener('change', async () => {
  await api.storage.sync.set({ enabled: form.enabled.checked });
  status.textContent = 'Saved';
});
