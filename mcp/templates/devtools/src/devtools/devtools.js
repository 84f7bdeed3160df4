const api = globalThis.browser ?? globalThis.chrome;

// The panel lives in pages/ (an Extension.js special folder: every pages/*.html is built even
// though the manifest does not name it). Absolute paths work in both browsers.
api.devtools.panels.create('Template', '/icons/icon-32.png', '/pages/panel.html');
