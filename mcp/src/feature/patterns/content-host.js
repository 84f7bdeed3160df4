// Runs in the isolated world: same DOM as the page, separate JavaScript globals. The UI lives
// in a shadow root so the page's styles do not reach it. Safe to inject twice: the previous
// root is replaced and data-extension-generation bumped. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const ROOT_ID = 'webext-content-root';

const previous = document.getElementById(ROOT_ID);
const generation = Number(previous?.getAttribute('data-extension-generation') ?? 0) + 1;
previous?.remove();

const words = (document.body?.innerText ?? '').split(/\s+/).filter(Boolean).length;
const root = document.createElement('div');
root.id = ROOT_ID;
// The inspector (extension_source_inspect) finds UI roots by this attribute.
root.setAttribute('data-extension-root', 'content');
root.setAttribute('data-extension-generation', String(generation));
const shadow = root.attachShadow({ mode: 'open' });
const style = document.createElement('style');
style.textContent = `
  .panel { position: fixed; left: 12px; bottom: 12px; z-index: 2147483647;
    font: 12px/1.3 system-ui, sans-serif; background: #111827; color: #f9fafb;
    padding: 8px 10px; border-radius: 8px; display: flex; gap: 8px; align-items: center; }
  button { font: inherit; background: #374151; color: inherit; border: 0;
    border-radius: 4px; padding: 2px 6px; cursor: pointer; }`;
const container = document.createElement('div');
shadow.append(style, container);
document.documentElement.append(root);
