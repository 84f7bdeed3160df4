const api = globalThis.browser ?? globalThis.chrome;
const clock = document.getElementById('clock');
const list = document.getElementById('links');

function tick() {
  const now = new Date();
  clock.textContent = now.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const hour = now.getHours();
  document.getElementById('greeting').textContent =
    hour < 12 ? 'Good morning' : hour < 18 ? 'Good afternoon' : 'Good evening';
}

function show(links) {
  list.replaceChildren(...links.map((href) => {
    const item = document.createElement('li');
    const a = document.createElement('a');
    a.href = href;
    a.textContent = href;
    item.append(a);
    return item;
  }));
}

api.storage.sync.get({ links: [] }).then(({ links }) => show(links));

document.getElementById('add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('url');
  const { links } = await api.storage.sync.get({ links: [] });
  links.push(input.value);
  await api.storage.sync.set({ links });
  input.value = '';
  show(links);
});

tick();
setInterval(tick, 1000);
