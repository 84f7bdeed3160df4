// The sidebar: Chromium's side panel (`side_panel`) and Firefox's sidebar (`sidebar_action`)
// show this same page. The note is kept in storage.local. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const note = document.getElementById('note');
const status = document.getElementById('status');

api.storage.local.get({ note: '' }).then(({ note: saved }) => {
  note.value = saved;
});

note.addEventListener('input', async () => {
  await api.storage.local.set({ note: note.value });
  status.textContent = 'Saved';
});
