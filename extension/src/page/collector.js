// The snapshot collector: one walk of a frame's DOM into the compact table of
// ext-wasm/TABLE.md. `installCollector` is injected whole (scripting.executeScript with
// `func`, so it must stay self-contained) twice per document:
//
// - into the isolated world, before the agent (page/identity.js …), which owns element
//   identity (ids, refs, actions) and walks with this code when it has to;
// - into the page's main world, where the same walk runs several times faster: DOM calls
//   from an isolated world pay for a second set of wrappers (Chromium) or for Xray
//   wrappers (Firefox, about 5× the walk). There it only answers the agent's synchronous
//   request event with the table and, for each element node, where the element sits in
//   `querySelectorAll("*")` of its tree; the agent maps those positions to its own ids in
//   the same task, checks every tag, and falls back to its own walk when anything is off.
//   The events are named after `channel`, a random name the agent draws per document and
//   the background passes in as an argument (never through the page), and they carry no
//   options: which of two names is fired says whether to walk the viewport only. Nothing
//   here trusts the page, and the engine checks what comes back (ext-wasm/src/untrusted.rs).
export function installCollector(channel = null, maxNodesCap = 200000) {
  // The events' suffixes (the agent's random channel goes before them). Bumped whenever the
  // table or the reply changes.
  const FORMAT = "webext-mcp-table-5";
  const REQUEST_ALL = `:${FORMAT}:all`;
  const REQUEST_VIEWPORT = `:${FORMAT}:viewport`;
  // find_by_text's and read_page's scoped walks (`findScope`, `mainScope`), answered with
  // the same reply event; the find request's `detail` is the query.
  const REQUEST_FIND = `:${FORMAT}:find`;
  const REQUEST_MAIN = `:${FORMAT}:main`;
  // get_page_text's walk (`textWalk`), answered with the same reply event.
  const REQUEST_TEXT = `:${FORMAT}:text`;
  const REPLY = `:${FORMAT}:table`;
  // Positions are `tree * TREE + index`: tree 0 is the document, tree k ≥ 1 the k-th open
  // shadow root the walk entered.
  const TREE = 1 << 22;

  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "base", "title"]);
  const ATTRS = new Set([
    "role", "alt", "title", "href", "type", "name", "placeholder", "for", "tabindex", "contenteditable",
    "disabled", "required", "multiple", "readonly", "open", "value", "autocomplete", "list", "size", "draggable", "scope",
  ]);
  // Inline tags whose element, without attributes, has no role or a role the engine hoists.
  // @generated bare-inline (ext-wasm tests/page_constants.rs: text::INLINE_TAGS, role::is_hoistable)
  const BARE_INLINE = new Set(["abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var"]);
  // The only elements `attachShadow` accepts besides custom elements: asking the others for
  // their shadow root is a DOM call per element for nothing.
  const SHADOW_HOSTS = new Set([
    "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "main",
    "nav", "p", "section", "span",
  ]);
  const canHost = (tag) => SHADOW_HOSTS.has(tag) || tag.includes("-");
  // Elements that start a line of get_page_text's text.
  // @generated block-tags (ext-wasm tests/page_constants.rs: reading::BLOCK_TAGS)
  const BLOCK_TAGS = new Set(["address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "td", "th", "tr", "ul", "option", "legend", "body", "iframe", "frame"]);
  const MAX_TEXT = 400;
  // Live values and resolved labels (the engine shows at most 1000 chars of either).
  const MAX_VALUE = 4000;
  const VISIBLE = { visibilityProperty: true };
  // Also false for an element that is, or sits in, opacity 0: its text is dropped (page
  // text nobody can see is a prompt-injection channel), the element itself is kept (custom
  // checkboxes and file inputs are often transparent over their label). Text painted in its
  // background's colour (`camouflaged`) is dropped the same way.
  const SEEN = { visibilityProperty: true, opacityProperty: true };

  // Runs of whitespace (`\s` includes no-break spaces) become one space. A lone space is
  // left alone, so most texts come back as the same string, with nothing allocated.
  const collapse = (text) => text.replace(/\s{2,}|[^\S ]/g, " ");

  /**
   * The attributes of `el` the engine reads (TABLE.md `a`), or null; `id` only when a
   * `label[for]` in `labelled` names it.
   */
  function attrsOf(el, labelled) {
    let a = null;
    styled = false;
    // hasAttributes() allocates nothing; a docs page has thousands of bare elements.
    if (el.hasAttributes()) {
      for (const name of el.getAttributeNames()) {
        if (name === "style") styled = true;
        if (ATTRS.has(name) || name.startsWith("aria-") || (name === "id" && labelled.has(el.id))) {
          const value = el.getAttribute(name);
          (a ??= {})[name] = value.length > 2000 ? value.slice(0, 2000) : value;
        }
      }
    }
    return a;
  }

  // Whether the element attrsOf last read has a `style` attribute.
  let styled = false;

  /**
   * Whether `el`, which sets its own text colour inline, paints its text in the colour of
   * what is behind it (or transparent): white on white. Only inline colours are looked at
   * (a style read per element would cost the walk a large share); a background image
   * anywhere up the chain means "cannot tell".
   */
  function camouflaged(el) {
    if (!el.style?.color) return false;
    const fg = getComputedStyle(el).color;
    if (fg === "transparent" || /^rgba\(.*,\s*0\)$/.test(fg)) return true;
    for (let n = el; n; n = n.parentElement) {
      const cs = getComputedStyle(n);
      if (cs.backgroundImage !== "none") return false;
      const bg = cs.backgroundColor;
      if (bg !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(bg)) return bg === fg;
    }
    // The canvas behind an unpainted page is white.
    return fg === "rgb(255, 255, 255)";
  }

  /** Marks a table node as the last one before the node budget ran out (`c`). */
  function markIncomplete(node) {
    const fixed = typeof node[1] === "number" ? 3 : 2;
    if (node.length === fixed) node.push({ c: 1 });
    else node[fixed].c = 1;
  }

  function rectOf(el) {
    const r = el.getBoundingClientRect();
    return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
  }

  /**
   * Preformatted text is mostly highlighting spans: its text and its links are what count,
   * so it is walked flat, without a visibility check per span: `run(text)` for each run of
   * text between links, `link(a, text)` for each link with its text ("" when blank), both
   * collapsed and cut.
   */
  function flatPre(pre, run, link) {
    let buffer = "";
    const flush = () => {
      if (/\S/.test(buffer)) run(collapse(buffer).slice(0, MAX_TEXT));
      buffer = "";
    };
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) {
        if (buffer.length < MAX_TEXT * 2) buffer += n.data;
      } else if (n.localName === "a" && n.hasAttribute("href")) {
        flush();
        const text = collapse(n.textContent ?? "");
        link(n, /\S/.test(text) ? text.slice(0, MAX_TEXT) : "");
        // The link's own text is done; skip past its subtree.
        let last = n;
        while (last.lastChild) last = last.lastChild;
        walker.currentNode = last;
      }
    }
    flush();
  }

  // How the walks see an element (`shownAs`).
  const SHOWN = 1;
  const HIDDEN = 2;
  const CLEAR = 3;
  /**
   * SHOWN, HIDDEN (`visibility: hidden`: its children may show), CLEAR (opacity 0: its
   * text is not walked), or null: not walked at all (not rendered, or a tag never walked).
   * Options and optgroups have no box of their own in a dropdown: they follow their select.
   * One call in the common case (visible); the rare invisible element costs two more.
   */
  function shownAs(el, tag) {
    if (SKIP.has(tag) || (tag === "input" && el.type === "hidden")) return null;
    if (tag === "option" || tag === "optgroup" || el.checkVisibility(SEEN)) return SHOWN;
    // display:contents has no box either, but its children render.
    if (!el.checkVisibility()) return getComputedStyle(el).display === "contents" ? SHOWN : null;
    return el.checkVisibility(VISIBLE) ? CLEAR : HIDDEN;
  }

  // How a scoped walk (`walk`'s `scope`) treats an element: FULL, walked as the whole walk
  // would; PATH, an ancestor of a FULL one, kept with its attributes but without its text or
  // other children, marked `k` (the engine never finds it); not in the scope, left out.
  const FULL = 1;
  const PATH = 2;
  // The element the walk meets `el` under: its slot when slotted into an open shadow root,
  // the host of the shadow root it tops, or its parent.
  const walkedParent = (el) => el.assignedSlot ?? el.parentElement ?? el.parentNode?.host ?? null;
  /** Marks `el` FULL and its ancestors, as the walk meets them, PATH. */
  function keep(scope, el) {
    scope.set(el, FULL);
    for (let p = walkedParent(el); p && !scope.has(p); p = walkedParent(p)) scope.set(p, PATH);
  }
  // Below `el` the walk walks its open shadow root's children, a slot's assigned nodes (its
  // own children when none are), else its children: the node whose children those are, or
  // the assigned nodes (an array). (Iterating `childNodes` costs several times
  // `firstChild`/`nextSibling`.)
  function walkedBelow(el, tag) {
    if (tag === "slot") {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned.length) return assigned;
    }
    return (canHost(tag) ? el.shadowRoot : null) ?? el;
  }

  // Elements whose name may come from their content (ext-wasm src/role.rs `names_from_content`
  // of their implicit role, and `pre`, and the elements named by a caption, legend or figcaption).
  // @generated named-tags (ext-wasm tests/page_constants.rs: role::implicit_role, role::NAMED_FROM_CONTENT)
  const NAMED_TAGS = new Set(["a", "area", "button", "caption", "dt", "fieldset", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "option", "pre", "summary", "table", "td", "th"]);
  // @generated named-roles (ext-wasm tests/page_constants.rs: role::NAMED_FROM_CONTENT)
  const NAMED_ROLES = new Set(["button", "link", "heading", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "cell", "gridcell", "columnheader", "rowheader", "treeitem", "checkbox", "radio", "switch", "tooltip", "caption", "term"]);
  // Always walked whole by find: controls (named by labels anywhere, by live values), labels,
  // frame elements (their frames' text is stitched in where they stand).
  const FIND_WHOLE = new Set(["input", "select", "textarea", "button", "meter", "output", "progress", "label", "iframe", "frame"]);
  // The attributes find matches, or names an element by (ext-wasm src/reading.rs, name.rs).
  const FIND_ATTRS = new Set(["placeholder", "alt", "aria-label", "title", "aria-placeholder", "value"]);
  const SPACES = "[\\s\\u0085]*";

  /**
   * find_by_text's scope for `query` (a literal one: the engine's ext-wasm src/reading.rs
   * `find`): every element that could be a hit walked whole, its ancestors as context (as the
   * walk meets them: through open shadow roots and their slots); null (walk everything) with
   * more nodes than the budget or a `label[for]` in a shadow root.
   * An element could be a hit when one of its matched or naming attributes holds the query, or
   * its own text (its text nodes and those of the inline wrappers the table hoists into it)
   * could, or, for an element named by its content, the texts and labels below it could: one
   * piece holds it, or one piece ends with a start of it and one starts with the rest of it
   * (the table may cut or drop what lies between). Whitespace and case are compared as the
   * engine's matcher compares them (JavaScript `RegExp` `iu`). This only narrows the walk: the
   * engine decides on what it is sent.
   */
  function findScope({ query, caseSensitive }, maxNodes) {
    const chars = Array.from(String(query ?? "").replace(/[\s\u0085]+/g, ""));
    if (chars.length === 0) return null;
    const flags = caseSensitive ? "u" : "iu";
    const source = (cs) => cs.map((c) => c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join(SPACES);
    const whole = new RegExp(source(chars), flags);
    const heads = [];
    const rests = [];
    for (let k = 1; k < chars.length; k++) {
      heads.push(source(chars.slice(0, k)));
      rests.push(source(chars.slice(k)));
    }
    const ends = heads.length ? new RegExp(`(?:${heads.join("|")})${SPACES}$`, flags) : null;
    const starts = heads.length ? new RegExp(`^${SPACES}(?:${rests.join("|")})`, flags) : null;
    // 1: holds the query; 2: ends with a start of it; 4: starts with the rest of it.
    const bits = (s) => (whole.test(s) ? 1 : 0) | (ends?.test(s) ? 2 : 0) | (starts?.test(s) ? 4 : 0);
    const holds = (b) => (b & 1) !== 0 || (b & 6) === 6;
    const named = (el, tag) => NAMED_TAGS.has(tag) || (el.hasAttribute("role") && el.getAttribute("role").toLowerCase().split(/\s+/).some((r) => NAMED_ROLES.has(r)));
    const scope = new Map();
    let count = 0;
    let bail = false;
    // How many `<pre>` the visit is in.
    let pres = 0;
    // The bits of the own text of the element `visit` returned from.
    let own = 0;
    // A child `c` met by `visit`: the bits of its name pieces, and those it adds to its
    // parent's own text shifted by 3 (a text's, or an inline wrapper's or slot's own text).
    const child = (c) => {
      if (c.nodeType === 3) {
        const data = c.data;
        count += 1;
        const b = bits(data.length > MAX_TEXT ? collapse(data).slice(0, MAX_TEXT) : data);
        return b | (b << 3);
      }
      if (c.nodeType !== 1) return 0;
      const t = c.localName;
      // (A `<pre>`'s flat walk reads every text below it.)
      if (SKIP.has(t) && pres === 0) return 0;
      const sub = visit(c, t);
      return sub | (BARE_INLINE.has(t) || t === "slot" ? own << 3 : 0);
    };
    // The bits of the name pieces of `el`'s subtree (its texts, its labels and alts).
    const visit = (el, tag) => {
      count += 1;
      if (FIND_WHOLE.has(tag)) {
        // Labels in shadow roots are not among the walk's `labelled` (ids it sends).
        if (tag === "label" && el.hasAttribute("for") && el.getRootNode() !== document) bail = true;
        keep(scope, el);
        own = 0;
        return 1;
      }
      let hit = false;
      let mine = 0;
      let sub = 0;
      if (el.hasAttributes()) {
        for (const name of el.getAttributeNames()) {
          if (name === "aria-labelledby") {
            hit = true;
            sub |= 1;
          } else if (FIND_ATTRS.has(name)) {
            const v = el.getAttribute(name);
            const b = bits(v.length > 2000 ? v.slice(0, 2000) : v);
            if (b & 1) hit = true;
            if (name !== "title" && name !== "placeholder") sub |= b;
          }
        }
      }
      if (tag === "svg") {
        const title = el.querySelector(":scope > title");
        if (title && bits(collapse(title.textContent ?? "")) & 1) hit = true;
      } else {
        if (tag === "pre") pres += 1;
        // (A `<pre>` is walked flat, in its light DOM.)
        const below = tag === "pre" ? el : walkedBelow(el, tag);
        if (Array.isArray(below)) {
          for (const c of below) {
            const r = child(c);
            sub |= r & 7;
            mine |= r >> 3;
          }
        } else {
          for (let c = below.firstChild; c; c = c.nextSibling) {
            const r = child(c);
            sub |= r & 7;
            mine |= r >> 3;
          }
        }
      }
      if (tag === "pre") pres -= 1;
      // A `<pre>` is walked flat, its texts joined into runs and cut (flatPre): it goes whole
      // when its texts could hold the query or a run could be cut (then an ancestor named by
      // its content could hold it across the cut too).
      if (tag === "pre" && el.textContent.length > MAX_TEXT) {
        keep(scope, el);
        sub |= 1;
      }
      if (hit || holds(mine) || (holds(sub) && (tag === "pre" || named(el, tag)))) keep(scope, el);
      own = mine;
      return sub;
    };
    const root = document.documentElement;
    if (!root) return null;
    visit(root, root.localName);
    if (bail || count >= maxNodes) return null;
    scope.set(root, scope.get(root) ?? PATH);
    return scope;
  }

  /**
   * read_page's scope: the element that can be the main content (ext-wasm src/reading.rs
   * `main_root`, the first element of role `main`) walked whole, its ancestors as context; null
   * (walk everything) unless this is the top document and exactly one element could have role
   * `main` (a `<main>`, or a `role` naming it) and none in an open shadow root, it is not
   * slotted and is in no label, no label outside it names a control inside, and no shadow root
   * holds a `label[for]`. The engine confirms the role.
   */
  function mainScope() {
    if (window !== window.top) return null;
    const mains = (root) => Array.prototype.filter.call(root.querySelectorAll("main, [role]"), (el) => el.localName === "main" || /(^|\s)main(\s|$)/i.test(el.getAttribute("role")));
    const found = mains(document);
    if (found.length !== 1) return null;
    const main = found[0];
    for (let p = main; p; p = walkedParent(p)) if (p.localName === "label" || p.assignedSlot) return null;
    for (const label of document.querySelectorAll("label[for]")) {
      if (!main.contains(label) && main.querySelector(`[id="${CSS.escape(label.htmlFor)}"]`)) return null;
    }
    const roots = [document];
    for (let k = 0; k < roots.length; k++) {
      // (Indexing a NodeList costs a fraction of iterating it.)
      const all = roots[k].querySelectorAll("*");
      for (let i = 0; i < all.length; i++) {
        const el = all[i];
        const root = canHost(el.localName) ? el.shadowRoot : null;
        if (!root) continue;
        if (mains(root).length || root.querySelector("label[for]")) return null;
        roots.push(root);
      }
    }
    const scope = new Map();
    keep(scope, main);
    return scope;
  }

  /**
   * Walks `roots` into table nodes (TABLE.md): `{json, count}`, the nodes as JSON text and
   * how many there are. The world supplies element identity:
   * `idOf(el, tag)` gives the id slot of an element's node, `closedRoot(el, node)` says
   * whether a custom element without an open root hosts a closed one, and
   * `enterShadow(host, root, node)` and `leaveShadow()` are told around the walk of an open shadow
   * root. Roots are walked at depth `baseDepth`. `reuse(el)`, when given, may answer an id
   * for an element the walk need not enter: it then emits the marker `[depth, id, "="]`
   * (a diff's re-walk, page/patch.js: the background puts the element's subtree from the
   * last table there; a marker never reaches the engine). `stopAfter`, when given, ends the
   * walk after the first block element that brings its text to that many characters:
   * `partial` then says the table holds only the document up to there (a reading tool's
   * first pages, extension/src/reading.js).
   */
  function walk(roots, {
    viewportOnly = false, maxNodes = 200000, idOf, closedRoot = () => false, enterShadow = () => {}, leaveShadow = () => {}, baseDepth = 0,
    reuse = null, scope = null, stopAfter = null,
  }) {
    // Outside the FULL elements of a scoped walk: text is left out, elements not in `scope` too.
    let scoping = scope !== null;
    const labelled = new Set();
    for (const label of document.querySelectorAll("label[for]")) labelled.add(label.htmlFor);
    const frameIndex = new Map();
    for (let i = 0; i < window.frames.length; i++) frameIndex.set(window.frames[i], i);
    const textOfIds = (el, ids) => {
      const root = el.getRootNode();
      const parts = [];
      for (const id of ids.split(/\s+/)) {
        if (!id) continue;
        const target = root.getElementById ? root.getElementById(id) : document.getElementById(id);
        if (!target) continue;
        parts.push(target.getAttribute("aria-label") ?? target.textContent ?? "");
      }
      return collapse(parts.join(" ")).trim();
    };
    // Nodes are turned into JSON text a few thousand at a time: a long-lived array of small
    // arrays is what a scavenger has to copy over and over, and background tabs run with a
    // small young generation (about a quarter of the walk went to GC there).
    let nodes = [];
    const parts = [];
    let count = 0;
    const emit = (node) => {
      nodes.push(node);
      count += 1;
      if (nodes.length > 4096) {
        // The newest node stays: the budget may still mark it incomplete.
        const last = nodes.pop();
        parts.push(JSON.stringify(nodes).slice(1, -1));
        nodes = [last];
      }
    };
    let stopped = false;
    // `stopAfter`: the characters of text emitted so far, and whether the walk ended early.
    let chars = 0;
    let partial = false;
    const emitText = (depth, x) => {
      chars += x.length;
      emit([depth, x]);
    };

    const pushText = (node, depth) => {
      const data = node.data;
      if (!data || !/\S/.test(data)) return;
      let x = collapse(data);
      if (x.length > MAX_TEXT) x = x.slice(0, MAX_TEXT);
      emitText(depth, x);
    };
    const walkChildren = (parent, depth, hidden) => {
      for (let child = parent.firstChild; child; child = child.nextSibling) {
        if (stopped) return;
        if (child.nodeType === 1) {
          walkElement(child, depth, hidden);
          if (stopAfter !== null && chars >= stopAfter && !scoping && BLOCK_TAGS.has(child.localName)) stopped = partial = true;
        } else if (child.nodeType === 3 && !hidden && !scoping) pushText(child, depth);
      }
    };
    const walkSlot = (slot, depth, hidden) => {
      const assigned = slot.assignedNodes({ flatten: true });
      if (assigned.length === 0) return walkChildren(slot, depth, hidden);
      for (const child of assigned) {
        if (child.nodeType === 1) walkElement(child, depth, hidden);
        else if (child.nodeType === 3 && !hidden && !scoping) pushText(child, depth);
      }
    };
    function walkPre(pre, depth) {
      flatPre(pre, (x) => emitText(depth, x), (a, x) => {
        const more = { a: { href: a.getAttribute("href") } };
        if (viewportOnly) more.r = rectOf(a);
        emit([depth, idOf(a, "a"), "a", more]);
        if (x) emitText(depth + 1, x);
      });
    }

    /** `inHidden`: the parent is in the table with `h` (its own text is not shown). */
    function walkElement(el, depth, inHidden = false) {
      if (partial) return;
      if (count >= maxNodes) {
        if (nodes.length) markIncomplete(nodes[nodes.length - 1]);
        stopped = true;
        return;
      }
      if (reuse !== null) {
        const id = reuse(el);
        if (id !== null) {
          emit([depth, id, "="]);
          return;
        }
      }
      const tag = el.localName;
      // A scoped walk: a FULL element (and any `<pre>`, walked flat) is walked as the whole
      // walk would; a PATH element is kept as context (`k`) for what is below it.
      let context = false;
      if (scoping) {
        const s = scope.get(el);
        if (s === undefined) return;
        if (s === FULL || tag === "pre") {
          scoping = false;
          walkElement(el, depth, inHidden);
          scoping = true;
          return;
        }
        context = true;
      }
      const shown = shownAs(el, tag);
      if (shown === null) return;
      const hidden = shown === HIDDEN;
      let transparent = shown === CLEAR;
      if (tag === "slot") return walkSlot(el, depth, hidden || transparent);

      let a = attrsOf(el, labelled);
      if (styled && !hidden && !transparent && camouflaged(el)) transparent = true;
      // An inline wrapper the engine would only see through (`<code>`, `<em>`, a bare
      // `<span>`: no attribute it reads, rendered, no shadow root) adds nothing to the
      // snapshot: its children take its place. About a tenth of the nodes of a docs page.
      // Not under a hidden parent, whose direct text the engine does not show.
      const host = canHost(tag) ? el.shadowRoot : null;
      if (!a && !hidden && !transparent && !inHidden && !viewportOnly && BARE_INLINE.has(tag) && !host) {
        walkChildren(el, depth, false);
        return;
      }

      // [depth, id, tag] and, when any applies, an object of the other fields (TABLE.md).
      const node = [depth, idOf(el, tag), tag];
      emit(node);
      let more = null;
      if (hidden) {
        (more ??= {}).h = 1;
        // The engine never shows a hidden element's own line: its link target and tooltip
        // (docs pages hide long "Run code" links) would only cross the wire.
        if (a) {
          delete a.href;
          delete a.title;
          if (Object.keys(a).length === 0) a = null;
        }
      } else if (tag === "img" && el.hasAttribute("src")) {
        (a ??= {}).src = el.getAttribute("src").slice(0, 300);
      }

      let p = null;
      if (tag === "input") {
        if (el.type === "checkbox" || el.type === "radio") {
          p = { checked: el.checked };
          if (el.indeterminate) p.indeterminate = true;
        } else if (!["button", "submit", "reset", "image", "file"].includes(el.type)) {
          p = { value: el.value.slice(0, MAX_VALUE) };
        }
      } else if (tag === "textarea") {
        p = { value: el.value.slice(0, MAX_VALUE) };
      } else if (tag === "select") {
        const opts = [];
        for (const o of el.selectedOptions) {
          if (opts.length === 100) break;
          opts.push(collapse(o.text).trim().slice(0, MAX_TEXT));
        }
        p = { value: el.value.slice(0, MAX_VALUE), opts };
      } else if (tag === "option") {
        p = { selected: el.selected };
      }
      const labelledBy = a?.["aria-labelledby"];
      if (labelledBy) (p ??= {}).label = textOfIds(el, labelledBy).slice(0, MAX_VALUE);
      if (p) (more ??= {}).p = p;
      if (viewportOnly) (more ??= {}).r = rectOf(el);

      // What is under the element: a frame, an svg (its title only), flat preformatted text,
      // a shadow tree or the light DOM.
      let below = null;
      if (tag === "iframe" || tag === "frame") {
        const index = frameIndex.get(el.contentWindow);
        if (index !== undefined) (more ??= {}).f = index;
      } else if (tag === "svg") {
        if (!a?.["aria-label"]) {
          const title = el.querySelector(":scope > title");
          if (title) (a ??= {}).title = collapse(title.textContent ?? "").trim();
        }
      } else if (tag === "pre") {
        below = "pre";
      } else if (host) {
        (more ??= {}).s = "open";
        enterShadow(el, host, node);
        below = host;
      } else {
        // Closed roots are a custom-element pattern; asking for every element costs an API call each.
        if (tag.includes("-") && closedRoot(el, node)) (more ??= {}).s = "closed";
        below = el;
      }
      if (a) (more ??= {}).a = a;
      if (context) (more ??= {}).k = 1;
      if (more) node.push(more);

      if (below === "pre") {
        if (!transparent) walkPre(el, depth + 1);
      } else if (below === el) walkChildren(el, depth + 1, hidden || transparent);
      else if (below) {
        walkChildren(below, depth + 1, hidden || transparent);
        leaveShadow();
      }
    }

    for (const root of roots) walkElement(root, baseDepth);
    if (nodes.length) parts.push(JSON.stringify(nodes).slice(1, -1));
    return { json: `[${parts.join(",")}]`, count, partial };
  }

  /**
   * get_page_text's walk of `roots`: the text the engine's text mode (ext-wasm
   * src/reading.rs `text`) reads from `walk`'s table, without the table: no ids, no
   * attributes but `aria-hidden` and `style`, no field values. Every decision on what is
   * shown is `walk`'s, in the same order (keep them together). `{json, count}`: JSON tokens
   * (ext-wasm src/textwalk.rs) — a string is the texts of the table's text nodes between two
   * boundaries (each as the table carries it, joined by spaces), 0 a block boundary, k ≥ 1 the frame element of `window.frames[k - 1]`, -k the same under
   * `aria-hidden` — and how many elements and texts it met (the budget counts both).
   * `stopAfter` and `partial` as for `walk`: the walk ends at the first block boundary after
   * that many characters of text.
   */
  function textWalk(roots, { maxNodes = 200000, stopAfter = null } = {}) {
    const frameIndex = new Map();
    for (let i = 0; i < window.frames.length; i++) frameIndex.set(window.frames[i], i);
    const out = [];
    // The texts since the last boundary, sent as one string (the engine splits them into
    // words again): far fewer tokens to write and to parse.
    let line = [];
    const flushLine = () => {
      if (line.length) out.push(line.join(" "));
      line = [];
    };
    let count = 0;
    let stopped = false;
    let chars = 0;
    let partial = false;
    const boundary = () => {
      flushLine();
      if (out.length && out[out.length - 1] !== 0) out.push(0);
    };
    const pushText = (node) => {
      const data = node.data;
      if (!data || !/\S/.test(data)) return;
      count += 1;
      const x = collapse(data);
      const cut = x.length > MAX_TEXT ? x.slice(0, MAX_TEXT) : x;
      chars += cut.length;
      line.push(cut);
    };
    // `quiet`: the parent's own text is not shown (hidden or transparent); `muted`: under
    // `aria-hidden`, nothing is shown but frame elements are still placed.
    const walkChildren = (parent, quiet, muted) => {
      for (let child = parent.firstChild; child && !stopped; child = child.nextSibling) {
        if (child.nodeType === 1) walkElement(child, muted);
        else if (child.nodeType === 3 && !quiet && !muted) pushText(child);
      }
    };
    const walkSlot = (slot, quiet, muted) => {
      const assigned = slot.assignedNodes({ flatten: true });
      if (assigned.length === 0) return walkChildren(slot, quiet, muted);
      for (const child of assigned) {
        if (child.nodeType === 1) walkElement(child, muted);
        else if (child.nodeType === 3 && !quiet && !muted) pushText(child);
      }
    };
    const push = (text) => {
      if (!text) return;
      chars += text.length;
      line.push(text);
    };
    function walkElement(el, muted) {
      stopped ||= count >= maxNodes;
      const tag = el.localName;
      const shown = stopped ? null : shownAs(el, tag);
      if (shown === null) return;
      if (tag === "slot") return walkSlot(el, shown !== SHOWN, muted);
      count += 1;
      const hidden = shown === HIDDEN;
      let transparent = shown === CLEAR;
      if (!muted && el.hasAttribute("aria-hidden")) muted = el.getAttribute("aria-hidden").trim().toLowerCase() === "true";
      if (!hidden && !transparent && el.hasAttribute("style") && camouflaged(el)) transparent = true;
      const block = !muted && BLOCK_TAGS.has(tag);
      if (block) boundary();
      if (tag === "iframe" || tag === "frame") {
        const index = frameIndex.get(el.contentWindow);
        flushLine();
        if (index !== undefined) out.push(muted ? -(index + 1) : index + 1);
      } else if (tag === "pre") {
        if (!transparent && !muted) flatPre(el, push, (a, text) => push(text));
      } else if (tag !== "svg" && tag !== "input" && tag !== "textarea" && tag !== "select") {
        // (An svg shows its title only; field values are the user's, not the page's text.)
        const host = canHost(tag) ? el.shadowRoot : null;
        walkChildren(host ?? el, hidden || transparent, muted);
      }
      if (block) {
        boundary();
        if (stopAfter !== null && chars >= stopAfter) stopped = partial = true;
      }
    }
    for (const root of roots) walkElement(root, false);
    flushLine();
    return { json: JSON.stringify(out), count, partial };
  }

  // Content scripts see their extension's runtime; the main world does not (a page that
  // fakes one only turns its own main-world walk off).
  const isolated = typeof (globalThis.browser ?? globalThis.chrome)?.runtime?.id === "string";
  if (isolated && channel === null) {
    globalThis.__webextMcpCollector ??= { walk, textWalk, collapse, attrsOf, SKIP, REQUEST_ALL, REQUEST_VIEWPORT, REQUEST_TEXT, REQUEST_FIND, REQUEST_MAIN, REPLY, TREE };
    return;
  }
  if (isolated || typeof channel !== "string") return;

  // ---- main world: answer the agent --------------------------------------------------
  // Page code that breaks JSON.stringify for arrays (old Prototype.js) gets no answer, and
  // the agent walks from its own world.
  if (Array.prototype.toJSON !== undefined) return;
  // `scopeOf(event)`: a scoped walk's scope (null: walk everything); `stopAfterOf(event)`, where
  // a walk may end (`walk`'s `stopAfter`).
  const answer = (viewportOnly, scopeOf = () => null, stopAfterOf = () => null) => (event) => {
    // A second copy of this listener (injected twice) leaves the answer to the first.
    event.stopImmediatePropagation();
    const started = performance.now();
    const scope = scopeOf(event);
    // Where an element sits in `querySelectorAll("*")` of its tree. The walk meets elements
    // in document order, so a pointer per tree finds them by scanning forward (a Map over
    // every element costs a fifth of the walk); slotted elements come out of order and fall
    // back to a Map of their tree.
    const trees = [];
    const stack = [];
    const enter = (root) => {
      trees.push({ all: root.querySelectorAll("*"), next: 0, map: null });
      stack.push(trees.length - 1);
    };
    const find = (k, el) => {
      const tree = trees[k];
      const all = tree.all;
      for (let i = tree.next; i < all.length && tree.map === null; i++) {
        if (all[i] === el) {
          tree.next = i + 1;
          return i;
        }
      }
      if (tree.map === null) {
        tree.map = new Map();
        for (let i = 0; i < all.length; i++) tree.map.set(all[i], i);
      }
      return tree.map.get(el) ?? -1;
    };
    const position = (el) => {
      const current = stack[stack.length - 1];
      let i = find(current, el);
      if (i >= 0) return current * TREE + i;
      for (let k = 0; k < trees.length; k++) {
        if (k !== current && (i = find(k, el)) >= 0) return k * TREE + i;
      }
      return -1;
    };
    enter(document);
    const positions = [];
    const tags = [];
    const hosts = [];
    const custom = [];
    const { json, partial = false } = document.documentElement
      ? walk([document.documentElement], {
        viewportOnly,
        maxNodes: maxNodesCap,
        scope,
        stopAfter: scope === null ? null : stopAfterOf(event),
        idOf: (el, tag) => {
          positions.push(position(el));
          tags.push(tag);
          return positions.length - 1;
        },
        // Closed roots are not reachable from here: the agent asks for these.
        closedRoot: (el, node) => {
          custom.push(node[1]);
          return false;
        },
        enterShadow: (host, root, node) => {
          hosts.push(positions[node[1]]);
          enter(root);
        },
        leaveShadow: () => stack.pop(),
      })
      : { json: "[]" };
    const walkMs = performance.now() - started;
    const head = JSON.stringify({ walkMs, positions, tags: tags.join(" "), hosts, custom, scoped: scope !== null, partial });
    document.dispatchEvent(new CustomEvent(channel + REPLY, { detail: `${head}\n${json}` }));
  };
  // A request's detail, when it has one, is JSON; `stopAfter` a positive integer or absent.
  const stopAfterOf = (event) => {
    try {
      const n = JSON.parse(String(event.detail ?? "null"))?.stopAfter;
      return Number.isInteger(n) && n > 0 ? n : null;
    } catch {
      return null;
    }
  };
  document.addEventListener(channel + REQUEST_TEXT, (event) => {
    event.stopImmediatePropagation();
    const started = performance.now();
    const { json, partial = false } = document.documentElement ? textWalk([document.documentElement], { maxNodes: maxNodesCap, stopAfter: stopAfterOf(event) }) : { json: "[]" };
    const head = JSON.stringify({ walkMs: performance.now() - started, partial });
    document.dispatchEvent(new CustomEvent(channel + REPLY, { detail: `${head}\n${json}` }));
  }, true);
  document.addEventListener(channel + REQUEST_ALL, answer(false), true);
  document.addEventListener(channel + REQUEST_VIEWPORT, answer(true), true);
  // The find request's detail is the query (a string, JSON `{query, caseSensitive}`).
  document.addEventListener(channel + REQUEST_FIND, answer(false, (event) => {
    try {
      return findScope(JSON.parse(String(event.detail)), maxNodesCap);
    } catch {
      return null;
    }
  }), true);
  document.addEventListener(channel + REQUEST_MAIN, answer(false, mainScope, stopAfterOf), true);
}
