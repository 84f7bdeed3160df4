// Listeners are registered synchronously at top level, so they exist when the browser wakes
// the service worker (Chromium) or event page (Firefox) for an event.
const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onInstalled.addListener(async () => {
  const { clicks } = await api.storage.local.get('clicks');
  if (typeof clicks !== 'number') await api.storage.local.set({ clicks: 0 });
});

api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.type === 'count:get') {
    api.storage.local.get('clicks').then(({ clicks }) => sendResponse({ clicks: clicks ?? 0 }));
    return true; // answer asynchronously
  }
  if (message?.type === 'count:increment') {
    api.storage.local.get('clicks').then(async ({ clicks }) => {
      const next = (clicks ?? 0) + 1;
      await api.storage.local.set({ clicks: next });
      sendResponse({ clicks: next });
    });
    return true;
  }
  return false;
});
