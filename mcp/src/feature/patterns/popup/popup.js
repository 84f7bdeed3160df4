// The toolbar popup: its own page, alive while it is open. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const { name, version } = api.runtime.getManifest();
document.getElementById('name').textContent = `${name} ${version}`;

// Without the `tabs` permission a tab has no title or URL, but its id is there.
api.tabs.query({ active: true, currentWindow: true }).then(([tab]) => {
  document.getElementById('tab').textContent = tab ? `Active tab: ${tab.id}` : 'No active tab';
});
