// The background: a service worker in Chromium, an event page in Firefox. Every listener is
// registered synchronously at top level: the browser may start this script just to deliver
// one event, and a listener added later would miss it. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onInstalled.addListener(({ reason }) => {
  console.info(`installed (${reason})`);
});

// Pages and content scripts ask with runtime.sendMessage({ type: 'ping' }).
api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.type === 'ping') {
    sendResponse({ type: 'pong', at: Date.now() });
  }
});
