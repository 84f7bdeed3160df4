//! The local corpus: synthetic pages for every construct the snapshot must handle, served on
//! 127.0.0.1 by two servers (two origins, for cross-origin frames), plus the Rust docs of
//! this machine's toolchain served from the sysroot.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common::http::TestServer;

pub struct Corpus {
    pub main: TestServer,
    /// A second origin (another port) for cross-origin frames; kept to keep it serving.
    #[allow(dead_code)]
    pub other: TestServer,
}

/// A password, a hidden value and a card number planted in the forms page: no output may
/// contain them.
pub const SECRETS: [&str; 4] =
    ["hunter2-password", "hidden-token-77", "4111 1111 1111 1111", "4111111111111111"];

pub const SYNTHETIC: [&str; 7] =
    ["/forms.html", "/table.html", "/aria.html", "/shadow.html", "/frames.html", "/csp.html", "/big.html"];

static CORPUS: OnceLock<Corpus> = OnceLock::new();

pub fn corpus() -> &'static Corpus {
    CORPUS.get_or_init(|| {
        let main = TestServer::start();
        let other = TestServer::start();
        main.page("/forms.html", FORMS);
        main.page("/table.html", TABLE);
        main.page("/aria.html", ARIA);
        main.page("/shadow.html", SHADOW);
        main.route("/shadow.js", "text/javascript", SHADOW_JS);
        main.page("/frames.html", &FRAMES.replace("OTHER", &other.url("/child.html")));
        main.page("/same-child.html", SAME_CHILD);
        other.page("/child.html", OTHER_CHILD);
        main.route_with_headers(
            "/csp.html",
            "text/html; charset=utf-8",
            &[("Content-Security-Policy", "script-src 'self'")],
            CSP_PAGE,
        );
        main.page("/no-csp.html", CSP_PAGE);
        main.route("/csp.js", "text/javascript", CSP_JS);
        main.page("/big.html", &big_page(10_000));
        main.page("/mutate.html", MUTATE);
        main.route("/mutate.js", "text/javascript", MUTATE_JS);
        main.route(
            "/trusted.js",
            "text/javascript",
            "document.getElementById('b').addEventListener('click', (e) => { document.getElementById('seen').textContent = 'click ' + e.isTrusted; });\n\
             document.getElementById('t').addEventListener('keydown', (e) => { document.getElementById('seen').textContent = 'key ' + e.isTrusted; });",
        );
        for (path, html) in ACTION_PAGES {
            main.page(path, html);
        }
        for n in [1_000, 100_000] {
            main.page(&format!("/big-{n}.html"), &big_page(n));
        }
        // The forms page again, with page code that turns the main-world walk off.
        for (path, script) in TAMPERING {
            let script = page_script(script);
            main.page(path, &FORMS.replace("<title>Forms</title>", &format!("<title>Forms</title><script>{script}</script>")));
        }
        if let Some(docs) = rust_docs() {
            main.serve_dir("/doc/", &docs);
        }
        Corpus { main, other }
    })
}

impl Corpus {
    pub fn url(&self, path: &str) -> String {
        self.main.url(path)
    }
}

/// `$(rustc --print sysroot)/share/doc/rust/html`, when the rust-docs component is there.
pub fn rust_docs() -> Option<PathBuf> {
    let out = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("share/doc/rust/html");
    root.join("std/vec/struct.Vec.html").is_file().then_some(root)
}

/// A page of about `nodes` elements: sections of lists of links with text.
pub fn big_page(nodes: usize) -> String {
    let mut html = String::from("<!doctype html><title>Big</title><body><h1>Big page</h1>\n");
    let sections = (nodes / 100).max(1);
    for s in 0..sections {
        html.push_str(&format!("<section><h2>Section {s}</h2><ul>\n"));
        for i in 0..33 {
            html.push_str(&format!("<li><a href=\"/item/{s}/{i}\">Item {s}.{i}</a></li>\n"));
        }
        html.push_str("</ul></section>\n");
    }
    html
}

/// Pages whose own code keeps the main-world collector from answering (a fake extension
/// runtime), or answers for it with a forged table (elements of the wrong tag, or JSON the
/// engine cannot read): all must read like `/forms.html`. The collector's events are named
/// after a random per-document channel, so a forger first learns it the only way it can:
/// by patching `addEventListener` before the collector registers (`HOOK` below).
pub const TAMPERING: [(&str, &str); 3] = [
    ("/fake-runtime.html", r#"globalThis.browser = { runtime: { id: "not-an-extension" } };"#),
    (
        "/forged-table.html",
        r#"HOOK((reply) => {
  const head = JSON.stringify({ walkMs: 0, positions: [0, 1], tags: "body div", hosts: [], custom: [] });
  document.dispatchEvent(new CustomEvent(reply, { detail: head + "\n" + JSON.stringify([[0, 0, "body"], [1, 1, "div"]]) }));
});"#,
    ),
    (
        "/broken-table.html",
        r#"HOOK((reply) => {
  const head = JSON.stringify({ walkMs: 0, positions: [0], tags: "html", hosts: [], custom: [] });
  document.dispatchEvent(new CustomEvent(reply, { detail: head + "\n" + '[[0, 0, "html"], [1, "unterminated' }));
});"#,
    ),
];

/// Page code that takes over the main-world collector: `HOOK(answer)` patches
/// `addEventListener` so that the collector's request listeners (names ending in
/// `:FORMAT:all` / `:FORMAT:viewport`, and the scoped walks' `:FORMAT:find` / `:FORMAT:main`) call `answer(replyEventName, viewportOnly)` instead.
pub const HOOK: &str = r#"function HOOK(answer) {
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    const m = /^(.*):FORMAT:(all|viewport|find|main)$/.exec(String(type));
    if (!m) return add.call(this, type, fn, opts);
    return add.call(this, type, (e) => { e.stopImmediatePropagation(); answer(m[1] + ":FORMAT:table", m[2] === "viewport"); }, opts);
  };
}
"#;

/// `script` with [`HOOK`] defined and `FORMAT` replaced by the collector's.
pub fn page_script(script: &str) -> String {
    format!("{HOOK}{script}").replace("FORMAT", collector_format())
}

/// The collector's event-name suffix (`FORMAT` in extension/src/page/collector.js).
fn collector_format() -> &'static str {
    let source = include_str!("../../../extension/src/page/collector.js");
    let start = source.find("const FORMAT = \"").expect("FORMAT in collector.js") + "const FORMAT = \"".len();
    &source[start..start + source[start..].find('"').unwrap()]
}

const FORMS: &str = r##"<!doctype html><html lang="en"><head><title>Forms</title></head><body>
<h1>Every input</h1>
<form id="f" aria-label="Signup">
  <label for="name">Name</label> <input id="name" type="text" value="Ada">
  <label>Email <input type="email" value="ada@example.test" required></label>
  <label for="pw">Password</label> <input id="pw" type="password" value="hunter2-password">
  <input type="hidden" name="token" value="hidden-token-77">
  <label><input type="checkbox" checked> Remember me</label>
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" checked> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label>
  </fieldset>
  <label for="vol">Volume</label> <input id="vol" type="range" min="0" max="10" value="3">
  <label for="qty">Quantity</label> <input id="qty" type="number" value="2">
  <label for="day">Day</label> <input id="day" type="date" value="2026-11-30">
  <label for="col">Colour</label> <input id="col" type="color" value="#336699">
  <label for="up">Upload</label> <input id="up" type="file">
  <input type="search" aria-label="Search the site" placeholder="Search…">
  <input type="tel" placeholder="Phone">
  <input type="url" title="Homepage" value="https://example.test/">
  <span id="bio-label">About you</span> <textarea aria-labelledby="bio-label">Hello there</textarea>
  <label for="country">Country</label>
  <select id="country"><option>Norway</option><option selected>Peru</option></select>
  <label for="langs">Languages</label>
  <select id="langs" multiple><option selected>Rust</option><option>C</option><option selected>Zig</option></select>
  <label for="card">Card number</label>
  <input id="card" autocomplete="cc-number" value="4111 1111 1111 1111">
  <input type="text" value="disabled field" disabled aria-label="Locked">
  <button type="submit">Sign up</button> <input type="reset"> <button type="button" disabled>Later</button>
</form>
<p>Pay with 4111111111111111 today.</p>
</body></html>"##;

const TABLE: &str = r##"<!doctype html><title>Table</title><body>
<table><caption>Scores</caption>
<thead><tr><th>Name</th><th>Score</th></tr></thead>
<tbody><tr><td>Ada</td><td>10</td></tr><tr><td>Grace</td><td>9</td></tr>
<tr><th scope="row">Total</th><td>19</td></tr></tbody></table>
<dl><dt>Term</dt><dd>Definition</dd></dl>
</body>"##;

const ARIA: &str = r##"<!doctype html><title>Widgets</title><body>
<nav aria-label="Main"><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main>
<div role="tablist" aria-label="Views">
  <div role="tab" aria-selected="true" tabindex="0">List</div>
  <div role="tab" aria-selected="false" tabindex="-1">Grid</div>
</div>
<div role="tabpanel">List view</div>
<button aria-expanded="false" aria-haspopup="menu">Options</button>
<div role="switch" aria-checked="true" tabindex="0" aria-label="Dark mode"></div>
<div role="slider" aria-valuenow="40" aria-valuemin="0" aria-valuemax="100" aria-label="Zoom" tabindex="0"></div>
<div role="checkbox" aria-checked="mixed" tabindex="0">Select all</div>
<ul role="tree" aria-label="Files"><li role="treeitem" aria-expanded="true">src<ul role="group"><li role="treeitem">main.rs</li></ul></li></ul>
<div role="dialog" aria-modal="true" aria-labelledby="dlg-title"><h2 id="dlg-title">Confirm</h2><button>OK</button></div>
<h3 aria-level="4" role="heading">Custom level</h3>
<img src="/x.png" alt="A diagram"> <img src="/spacer.png" alt="">
<details open><summary>More</summary><p>Details text</p></details>
<details><summary>Closed</summary><p>Invisible text</p></details>
<div style="display:none"><button>Hidden button</button></div>
<div style="visibility:hidden"><span>Invisible</span><span style="visibility:visible">Visible child</span></div>
</main>
<footer>Footer text</footer>
</body>"##;

const SHADOW: &str = r##"<!doctype html><title>Shadow</title><body>
<h1>Shadow roots</h1>
<open-card><span slot="title">Slotted title</span></open-card>
<closed-card></closed-card>
<script src="/shadow.js"></script>
</body>"##;

const SHADOW_JS: &str = r##"
customElements.define("open-card", class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = '<h2><slot name="title"></slot></h2><button>Inside open</button>';
  }
});
customElements.define("closed-card", class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: "closed" });
    root.innerHTML = '<button>Inside closed</button>';
  }
});
"##;

const FRAMES: &str = r##"<!doctype html><title>Frames</title><body>
<h1>Frames</h1>
<iframe src="/same-child.html" title="Same origin" width="300" height="150"></iframe>
<iframe src="OTHER" title="Other origin" width="300" height="150"></iframe>
<p>After frames</p>
</body>"##;

const SAME_CHILD: &str =
    r##"<!doctype html><title>Same child</title><body><button>Same-origin button</button></body>"##;
const OTHER_CHILD: &str =
    r##"<!doctype html><title>Other child</title><body><a href="/x">Cross-origin link</a></body>"##;

const CSP_PAGE: &str = r##"<!doctype html><title>CSP</title><body>
<h1>Strict page</h1>
<p id="status">static</p>
<button>Act</button>
<script src="/csp.js"></script>
</body>"##;

const CSP_JS: &str = r##"document.getElementById("status").textContent = "script ran";"##;

const MUTATE: &str = r##"<!doctype html><title>Mutate</title><body>
<h1>Mutations</h1>
<button id="doomed">Doomed</button>
<button id="kept">Kept</button>
<script src="/mutate.js"></script>
</body>"##;

/// Same-document navigations drive the page (timers are clamped in background tabs).
const MUTATE_JS: &str = r##"
addEventListener("hashchange", () => {
  if (location.hash === "#remove") document.getElementById("doomed")?.remove();
  if (location.hash === "#add") {
    const b = document.createElement("button");
    b.textContent = "Added";
    document.body.append(b);
  }
});
"##;

/// Pages for the action tools. Page scripts are inline-free where CSP matters; timers are
/// fine (clamped to 1 s in background tabs, which the tests allow for).
const ACTION_PAGES: [(&str, &str); 12] = [
    (
        "/trusted.html",
        r##"<!doctype html><title>Trusted</title><body>
<button id="b">Press me</button> <input id="t" aria-label="Text"> <p id="seen">none</p>
<script src="/trusted.js"></script></body>"##,
    ),
    (
        "/login.html",
        r##"<!doctype html><title>Login</title><body>
<h1>Sign in</h1>
<form action="/welcome.html" method="get">
  <label for="user">User name</label> <input id="user" name="user">
  <label for="pass">Password</label> <input id="pass" name="pass" type="password">
  <button>Sign in</button>
</form></body>"##,
    ),
    ("/welcome.html", r##"<!doctype html><title>Welcome</title><body><h1>Welcome</h1></body>"##),
    (
        "/spa.html",
        r##"<!doctype html><title>SPA</title><body>
<nav><a href="/spa/home" data-route>Home</a> <a href="/spa/about" data-route>About</a></nav>
<main id="view"><h2>Home page</h2></main>
<script>
document.addEventListener("click", (e) => {
  const a = e.target.closest("a[data-route]");
  if (!a) return;
  e.preventDefault();
  history.pushState({}, "", a.getAttribute("href"));
  const name = a.textContent;
  document.getElementById("view").innerHTML = `<h2>${name} page</h2><button>Contact ${name}</button>`;
});
</script></body>"##,
    ),
    (
        "/late.html",
        r##"<!doctype html><title>Late</title><body>
<h1>Late</h1><p id="status">waiting</p>
<script>
setTimeout(() => {
  const b = document.createElement("button");
  b.textContent = "Late button";
  b.onclick = () => { document.getElementById("status").textContent = "late clicked"; };
  document.body.append(b);
}, 2000);
</script></body>"##,
    ),
    (
        "/overlay.html",
        r##"<!doctype html><title>Overlay</title><body>
<button id="under" onclick="this.textContent='clicked'">Buy now</button>
<div id="cookie-overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.5)">Cookie consent overlay</div>
</body>"##,
    ),
    (
        "/dnd.html",
        r##"<!doctype html><title>Drag</title><body>
<div id="item" draggable="true" style="width:80px;height:40px;background:#ccc">Card</div>
<div id="zone" role="region" aria-label="Drop zone" style="width:200px;height:100px;margin-top:40px;border:2px dashed #999">Drop here</div>
<p id="result">nothing dropped</p>
<script>
const zone = document.getElementById("zone");
document.getElementById("item").addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "card-1"));
zone.addEventListener("dragover", (e) => e.preventDefault());
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  document.getElementById("result").textContent = "dropped " + e.dataTransfer.getData("text/plain");
});
</script></body>"##,
    ),
    (
        "/keys.html",
        r##"<!doctype html><title>Keys</title><body>
<input id="first" aria-label="First"> <input id="second" aria-label="Second"> <input id="third" aria-label="Third">
<p id="log"></p>
<script>
document.addEventListener("keydown", (e) => { document.getElementById("log").textContent += e.key + " "; });
</script></body>"##,
    ),
    (
        "/rows.html",
        r##"<!doctype html><title>Rows</title><body>
<button id="add">Add row</button> <button id="noop">Nothing</button>
<table><tbody id="rows"><tr><td>Row 1</td><td><button>Delete row 1</button></td></tr></tbody></table>
<script>
let n = 1;
document.getElementById("add").addEventListener("click", () => {
  n += 1;
  const tr = document.createElement("tr");
  tr.innerHTML = `<td>Row ${n}</td><td><button>Delete row ${n}</button></td>`;
  document.getElementById("rows").append(tr);
});
document.getElementById("noop").addEventListener("click", () => {});
</script></body>"##,
    ),
    ("/fields.html", crate::common::pages::FIELDS),
    (
        "/vanish.html",
        r##"<!doctype html><title>Vanish</title><body>
<input id="a" aria-label="First field"> <input id="b" aria-label="Second field"> <input id="c" aria-label="Third field">
<script>document.getElementById("a").addEventListener("input", () => document.getElementById("b").remove());</script></body>"##,
    ),
    (
        "/counter.html",
        r##"<!doctype html><title>Counter</title><body>
<button id="inc">Increment</button> <input id="note" aria-label="Note">
<p>Count: <span id="count">0</span></p>
<script>
let count = 0;
document.getElementById("inc").addEventListener("click", () => {
  count += 1;
  document.getElementById("count").textContent = String(count);
});
</script></body>"##,
    ),
];
