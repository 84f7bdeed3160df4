const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onMessage.addListener((message, sender) => {
  if (message?.type === 'page-globals') {
    console.info(`tab ${sender.tab?.id}: ${message.names.length} page globals`);
  }
  return false;
});
