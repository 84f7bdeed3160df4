// Replaces the browser's history page (chrome_url_overrides.history: Chromium only) and
// lists visits through the `history` permission. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

function History() {
  const [text, setText] = useState('');
  const [visits, setVisits] = useState([]);
  useEffect(() => {
    api.history.search({ text, maxResults: 50, startTime: 0 }).then(setVisits);
  }, [text]);
  return (
    <main>
      <h1>History</h1>
      <input id="filter" type="search" placeholder="Search history" value={text} {...typing((e) => setText(e.target.value))} />
      <ul id="visits">
        {visits.map((item) => (
          <li key={item.id}>
            <a href={item.url}>{item.title || item.url}</a>
          </li>
        ))}
      </ul>
    </main>
  );
}

mount(<History />);
