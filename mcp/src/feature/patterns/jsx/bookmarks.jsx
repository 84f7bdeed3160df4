// Replaces the bookmark manager (chrome_url_overrides.bookmarks: Chromium only) and shows
// the newest bookmarks through the `bookmarks` permission. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

function Bookmarks() {
  const [recent, setRecent] = useState([]);
  useEffect(() => {
    api.bookmarks.getRecent(30).then((nodes) => setRecent(nodes.filter((n) => n.url)));
  }, []);
  return (
    <main>
      <h1>Recent bookmarks</h1>
      <ol id="recent">
        {recent.map((node) => (
          <li key={node.id}>
            <a href={node.url}>{node.title || node.url}</a>
          </li>
        ))}
      </ol>
    </main>
  );
}

mount(<Bookmarks />);
