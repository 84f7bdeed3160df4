const api = globalThis.browser ?? globalThis.chrome;

api.runtime.onMessage.addListener((message, sender) => {
  if (message?.type === 'entry-ran') {
    console.info(`${message.entry} ran in tab ${sender.tab?.id} frame ${sender.frameId}`);
  }
  return false;
});
