// The content script's panel (a component), rendered into the shadow root of its host below.
function Panel({ words, onClose }) {
  return (
    <div className="panel">
      <span className="text">{`${words} words on this page`}</span>
      <button type="button" onClick={onClose}>
        ×
      </button>
    </div>
  );
}

