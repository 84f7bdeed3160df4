const api = globalThis.browser ?? globalThis.chrome;

// The content script reports how many words it counted; keep the last value per tab.
const counts = new Map();

api.runtime.onMessage.addListener((message, sender) => {
  if (message?.type === 'words' && sender.tab?.id !== undefined) {
    counts.set(sender.tab.id, message.count);
  }
  return false;
});

api.tabs.onRemoved.addListener((tabId) => counts.delete(tabId));
