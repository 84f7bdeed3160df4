// Every listener is registered synchronously at top level: the browser may start this script
// just to deliver one event, and a listener added later would miss it.
const api = globalThis.browser ?? globalThis.chrome;
const MENU_ID = 'lookup-selection';

api.runtime.onInstalled.addListener(() => {
  api.contextMenus.create({ id: MENU_ID, title: 'Look up “%s”', contexts: ['selection'] });
});

api.contextMenus.onClicked.addListener(async (info) => {
  if (info.menuItemId !== MENU_ID || !info.selectionText) return;
  const query = info.selectionText.trim().slice(0, 200);
  const { history = [] } = await api.storage.local.get('history');
  await api.storage.local.set({ history: [query, ...history].slice(0, 10) });
  await api.tabs.create({ url: `https://duckduckgo.com/?q=${encodeURIComponent(query)}` });
});
