// The options page: settings kept in storage.sync (the `storage` permission), so they follow
// the user's profile. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;
const DEFAULTS = { enabled: true };

function Options() {
  const [settings, setSettings] = useState(null);
  const [status, setStatus] = useState('');
  useEffect(() => {
    api.storage.sync.get(DEFAULTS).then(setSettings);
  }, []);
  const change = async (event) => {
    const next = { ...settings, enabled: event.target.checked };
    setSettings(next);
    await api.storage.sync.set(next);
    setStatus('Saved');
  };
  return (
    <main>
      <form id="form">
        <label>
          <input type="checkbox" name="enabled" checked={settings?.enabled ?? false} disabled={!settings} onChange={change} />{' '}
          Enabled
        </label>
      </form>
      <p id="status" role="status">{status}</p>
    </main>
  );
}

mount(<Options />);
