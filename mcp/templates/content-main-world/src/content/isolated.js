// Isolated world: receives the main-world message, renders a badge, forwards to the
// background. Safe to inject twice: replaces its root, bumps data-extension-generation, and
// removes the listener of the previous injection (the isolated world outlives it).
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const CHANNEL = 'webext-main-world-template';
  const ROOT_ID = 'webext-main-world-root';

  function render(names) {
    const previous = document.getElementById(ROOT_ID);
    const generation = Number(previous?.getAttribute('data-extension-generation') ?? 0) + 1;
    previous?.remove();
    const root = document.createElement('div');
    root.id = ROOT_ID;
    // The inspector (extension_source_inspect) finds UI roots by this attribute.
    root.setAttribute('data-extension-root', 'content-main-world');
    root.setAttribute('data-extension-generation', String(generation));
    const shadow = root.attachShadow({ mode: 'open' });
    const badge = document.createElement('div');
    badge.style.cssText = 'position:fixed;right:12px;top:12px;z-index:2147483647;' +
      'font:12px/1.3 system-ui,sans-serif;background:#7c3aed;color:#fff;padding:6px 10px;border-radius:6px;';
    badge.textContent = `${names.length} page globals: ${names.slice(0, 5).join(', ') || 'none'}`;
    shadow.append(badge);
    document.documentElement.append(root);
  }

  function onMessage(event) {
    // Only this window, only our channel: pages can post messages too.
    if (event.source !== window || event.data?.channel !== CHANNEL) return;
    if (event.data.type !== 'page-globals' || !Array.isArray(event.data.names)) return;
    render(event.data.names);
    api.runtime.sendMessage({ type: 'page-globals', names: event.data.names }).catch(() => {});
  }

  globalThis.__webextMainWorldTemplate?.dispose();
  window.addEventListener('message', onMessage);
  globalThis.__webextMainWorldTemplate = {
    dispose: () => window.removeEventListener('message', onMessage),
  };
})();
