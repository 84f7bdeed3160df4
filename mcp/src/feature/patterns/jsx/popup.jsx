// The toolbar popup: its own page, alive while it is open. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

function Popup() {
  const { name, version } = api.runtime.getManifest();
  const [tab, setTab] = useState('');
  useEffect(() => {
    // Without the `tabs` permission a tab has no title or URL, but its id is there.
    api.tabs.query({ active: true, currentWindow: true }).then(([active]) => {
      setTab(active ? `Active tab: ${active.id}` : 'No active tab');
    });
  }, []);
  return (
    <main>
      <h1 id="name">{`${name} ${version}`}</h1>
      <p id="tab">{tab}</p>
    </main>
  );
}

mount(<Popup />);
