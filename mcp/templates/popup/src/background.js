const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onInstalled.addListener(() => {
  api.action.setBadgeText({ text: 'new' });
  api.action.setBadgeBackgroundColor({ color: '#16a34a' });
});

api.runtime.onStartup.addListener(() => {
  api.action.setBadgeText({ text: '' });
});
