// Replaces the bookmark manager (chrome_url_overrides.bookmarks: Chromium only) and shows
// the newest bookmarks through the `bookmarks` permission. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const recent = document.getElementById('recent');

api.bookmarks.getRecent(30).then((nodes) => {
  for (const node of nodes.filter((n) => n.url)) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = node.url;
    a.textContent = node.title || node.url;
    li.append(a);
    recent.append(li);
  }
});
