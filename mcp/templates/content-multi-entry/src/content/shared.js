// Shared by several entries. One namespaced global instead of top-level declarations, so
// loading this file twice in the same page is harmless.
globalThis.__webextMulti = globalThis.__webextMulti ?? {
  api: globalThis.browser ?? globalThis.chrome,
  // Replaces the root with this id (if any) and returns a fresh one with a bumped
  // data-extension-generation.
  mount(id, text, css) {
    const previous = document.getElementById(id);
    const generation = Number(previous?.getAttribute('data-extension-generation') ?? 0) + 1;
    previous?.remove();
    const root = document.createElement('div');
    root.id = id;
    // The inspector (extension_source_inspect) finds UI roots by this attribute.
    root.setAttribute('data-extension-root', id);
    root.setAttribute('data-extension-generation', String(generation));
    const shadow = root.attachShadow({ mode: 'open' });
    const el = document.createElement('div');
    el.style.cssText = `position:fixed;z-index:2147483647;font:12px/1.3 system-ui,sans-serif;
      color:#fff;padding:4px 8px;border-radius:4px;${css}`;
    el.textContent = text;
    shadow.append(el);
    document.documentElement.append(root);
    return root;
  },
  report(entry) {
    this.api.runtime.sendMessage({ type: 'entry-ran', entry }).catch(() => {});
  },
};
