// The DevTools page: runs (invisibly) whenever DevTools opens, and adds the panel. The panel
// path starts at the extension root in both browsers. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

api.devtools.panels.create('Extension', ICON_PATH, '/pages/devtools-panel.html');
