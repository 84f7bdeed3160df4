const api = globalThis.browser ?? globalThis.chrome;

api.action.setBadgeText({ text: '' });

api.tabs.query({ active: true, currentWindow: true }).then(([tab]) => {
  document.getElementById('title').textContent = tab?.title ?? 'No tab';
  document.getElementById('url').textContent = tab?.url ?? '';
});

document.getElementById('copy').addEventListener('click', async () => {
  const text = document.getElementById('url').textContent;
  await navigator.clipboard.writeText(text);
  document.getElementById('copy').textContent = 'Copied';
});
