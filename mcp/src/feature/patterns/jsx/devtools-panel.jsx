// The DevTools panel: a page inside DevTools that can evaluate code in the inspected page.
const api = globalThis.browser ?? globalThis.chrome;
// Only a page shown inside DevTools has the `devtools` API (opened as a tab, it has none).
const inspected = api.devtools?.inspectedWindow;

function Panel() {
  const [result, setResult] = useState('');
  const read = () => {
    inspected.eval('document.title', (value, error) => {
      setResult(error ? `error: ${error.value ?? error.code}` : String(value));
    });
  };
  return (
    <main>
      <p>
        Inspecting tab <strong id="tab">{inspected ? String(inspected.tabId) : 'none: open this panel in DevTools'}</strong>
      </p>
      <button id="title" type="button" onClick={read} disabled={!inspected}>
        Read the page title
      </button>
      <pre id="result">{result}</pre>
    </main>
  );
}

mount(<Panel />);
