// Replaces the browser's history page (chrome_url_overrides.history: Chromium only) and
// lists visits through the `history` permission. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const list = document.getElementById('visits');

async function show(text) {
  const items = await api.history.search({ text, maxResults: 50, startTime: 0 });
  list.replaceChildren(
    ...items.map((item) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = item.url;
      a.textContent = item.title || item.url;
      li.append(a);
      return li;
    }),
  );
}

document.getElementById('filter').addEventListener('input', (event) => show(event.target.value));
show('');
