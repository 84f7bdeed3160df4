// The page every new tab opens (chrome_url_overrides.newtab). Added by extension_add_feature.
function Newtab() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <main>
      <p id="clock">{now.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}</p>
      <p id="date">{now.toLocaleDateString([], { weekday: 'long', month: 'long', day: 'numeric' })}</p>
    </main>
  );
}

mount(<Newtab />);
