//! Pages more than one test binary serves.

/// Every kind of field a user fills (checkbox, radio, select, date, range, contenteditable,
/// text) and a button that only changes a paragraph's text; each field's `change` events
/// are recorded in `window.changed`.
pub const FIELDS: &str = r##"<!doctype html><title>Fields</title><body>
<label><input type="checkbox" id="tos"> I agree</label>
<label><input type="radio" name="size" id="small" value="s"> Small</label>
<label><input type="radio" name="size" id="large" value="l"> Large</label>
<label for="colour">Colour</label> <select id="colour"><option value="r">Red</option><option value="g">Green</option></select>
<label for="when">Day</label> <input type="date" id="when">
<label for="vol">Volume</label> <input type="range" id="vol" min="0" max="10" value="1">
<div id="note" contenteditable="true" role="textbox" aria-label="Note">old note</div>
<label for="who">Your name</label> <input id="who">
<button id="say">Say hi</button> <p id="out">quiet</p>
<script>
window.changed = [];
for (const el of document.querySelectorAll("input, select")) el.addEventListener("change", () => window.changed.push(el.id));
document.getElementById("say").addEventListener("click", () => { document.getElementById("out").textContent = "hello"; });
</script></body>"##;
