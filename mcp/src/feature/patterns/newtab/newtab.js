// The page every new tab opens (chrome_url_overrides.newtab). Added by extension_add_feature.
const clock = document.getElementById('clock');
const date = document.getElementById('date');

function tick() {
  const now = new Date();
  clock.textContent = now.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  date.textContent = now.toLocaleDateString([], { weekday: 'long', month: 'long', day: 'numeric' });
}

tick();
setInterval(tick, 1000);
