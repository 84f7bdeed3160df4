const api = globalThis.browser ?? globalThis.chrome;
const DEFAULTS = { enabled: true, badge: 'on', color: '#2563eb' };

async function apply() {
  const settings = await api.storage.sync.get(DEFAULTS);
  await api.action.setBadgeText({ text: settings.enabled ? settings.badge.slice(0, 4) : '' });
  await api.action.setBadgeBackgroundColor({ color: settings.color });
}

api.runtime.onInstalled.addListener(apply);
api.runtime.onStartup.addListener(apply);
api.storage.onChanged.addListener((_changes, area) => {
  if (area === 'sync') apply();
});
api.action.onClicked.addListener(() => api.runtime.openOptionsPage());
