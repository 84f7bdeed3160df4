const api = globalThis.browser ?? globalThis.chrome;

if (api.sidePanel) {
  // Chromium: the toolbar click opens the side panel.
  api.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch((e) => console.warn(e));
} else if (api.sidebarAction) {
  // Firefox: toggle the sidebar from the toolbar (must run in the click's user gesture).
  api.action.onClicked.addListener(() => api.sidebarAction.toggle());
}
