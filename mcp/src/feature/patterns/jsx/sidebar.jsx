// The sidebar: Chromium's side panel (`side_panel`) and Firefox's sidebar (`sidebar_action`)
// show this same page. The note is kept in storage.local. Added by extension_add_feature.
const api = globalThis.browser ?? globalThis.chrome;

function Sidebar() {
  const [note, setNote] = useState('');
  const [status, setStatus] = useState('');
  useEffect(() => {
    api.storage.local.get({ note: '' }).then((saved) => setNote(saved.note));
  }, []);
  const edit = async (event) => {
    setNote(event.target.value);
    await api.storage.local.set({ note: event.target.value });
    setStatus('Saved');
  };
  return (
    <main>
      <h1>Notes</h1>
      <textarea id="note" rows={10} placeholder="Anything to keep beside the page" value={note} {...typing(edit)} />
      <p id="status" role="status">{status}</p>
    </main>
  );
}

mount(<Sidebar />);
