// Safe to inject twice: a second run replaces the first root, bumps
// data-extension-generation and removes the first run's listener; everything else lives
// inside this function's scope.
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const ROOT_ID = 'webext-starter-root';

  const previous = document.getElementById(ROOT_ID);
  const generation = Number(previous?.getAttribute('data-extension-generation') ?? 0) + 1;
  previous?.remove();

  const root = document.createElement('div');
  root.id = ROOT_ID;
  // The inspector (extension_source_inspect) finds UI roots by this attribute.
  root.setAttribute('data-extension-root', 'starter');
  root.setAttribute('data-extension-generation', String(generation));
  const shadow = root.attachShadow({ mode: 'open' });
  const style = document.createElement('style');
  style.textContent = `
    .badge { position: fixed; right: 12px; bottom: 12px; z-index: 2147483647;
      font: 12px/1.3 system-ui, sans-serif; color: #fff; background: #2563eb;
      padding: 6px 10px; border-radius: 6px; box-shadow: 0 2px 6px rgb(0 0 0 / 0.25); }`;
  const badge = document.createElement('div');
  badge.className = 'badge';
  shadow.append(style, badge);
  document.documentElement.append(root);

  function render(greeting, clicks) {
    badge.textContent = `${greeting} · ${clicks} clicks`;
  }

  let greeting = 'Hello from Starter';
  let clicks = 0;
  api.storage.local.get({ greeting }).then((v) => { greeting = v.greeting; render(greeting, clicks); });
  api.runtime
    .sendMessage({ type: 'count:get' })
    .then((v) => { clicks = v?.clicks ?? 0; render(greeting, clicks); })
    .catch(() => {}); // the background may be restarting; storage.onChanged catches up
  function onChanged(changes, area) {
    if (area !== 'local') return;
    if (changes.greeting) greeting = changes.greeting.newValue;
    if (changes.clicks) clicks = changes.clicks.newValue;
    render(greeting, clicks);
  }
  globalThis.__webextStarter?.dispose();
  api.storage.onChanged.addListener(onChanged);
  globalThis.__webextStarter = { dispose: () => api.storage.onChanged.removeListener(onChanged) };
  render(greeting, clicks);
})();
