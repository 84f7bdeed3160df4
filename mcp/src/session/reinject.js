// Evaluated in the extension's background, as a function expression called with two
// arguments: the indexes of the content-script entries the dev build could not wrap (their
// tabs are reloaded instead), and the phase. For every entry, find the open tabs it matches;
// elsewhere, in phase "inject" (after a reload): remove what the old copy rendered
// (`[data-extension-root]`, the Extension.js convention), count the injection in the
// document (`data-webext-mcp-generation` on `<html>`: absent = 1, the browser's own
// injection; `extension_source_inspect` reports it) and inject the entry's CSS and scripts
// again. Before a reload, in the old background, while the old content scripts' world still
// exists: phase "unmount" calls the functions their mounts returned (the registry
// `mount.js` keeps; Extension.js calls them before re-injecting too), and phase "clean"
// (Firefox, which runs the new content scripts in open tabs by itself) does that, the
// removal and the count. Answers one row per tab.
async (reloadIndexes, phase) => {
  const cleanOnly = phase !== "inject";
  const reloadEntries = new Set(reloadIndexes);
  const entries = chrome.runtime.getManifest().content_scripts || [];
  const plans = new Map();
  for (let i = 0; i < entries.length; i++) {
    const cs = entries[i];
    if (!cs.matches || !cs.matches.length) continue;
    let tabs = [];
    try { tabs = await chrome.tabs.query({ url: cs.matches }); } catch (e) { continue; }
    let excluded = new Set();
    if (cs.exclude_matches && cs.exclude_matches.length) {
      try { excluded = new Set((await chrome.tabs.query({ url: cs.exclude_matches })).map(t => t.id)); } catch (e) {}
    }
    for (const t of tabs) {
      if (excluded.has(t.id)) continue;
      const p = plans.get(t.id) || { url: t.url, reload: false, inject: [] };
      if (reloadEntries.has(i)) p.reload = true; else p.inject.push(i);
      plans.set(t.id, p);
    }
  }
  const out = [];
  for (const [tabId, p] of plans) {
    try {
      if (p.reload && !cleanOnly) {
        await chrome.tabs.reload(tabId);
        out.push({ tabId, url: p.url, action: "reloaded" });
        continue;
      }
      await chrome.scripting.executeScript({
        target: { tabId, allFrames: true },
        args: [phase],
        func: (phase) => {
          if (phase !== "inject") {
            const mounts = globalThis.__webextMcpMounts || {};
            for (const key of Object.keys(mounts)) {
              const unmount = mounts[key];
              delete mounts[key];
              try { unmount(); } catch (e) { console.warn("webext-mcp: a content script's cleanup failed:", e); }
            }
            if (phase === "unmount") return;
          }
          const d = document.documentElement;
          const g = parseInt(d.getAttribute("data-webext-mcp-generation") || "1", 10) || 1;
          d.setAttribute("data-webext-mcp-generation", String(g + 1));
          for (const e of document.querySelectorAll("[data-extension-root]")) e.remove();
        },
      });
      if (phase === "unmount") {
        out.push({ tabId, url: p.url, action: "unmounted" });
        continue;
      }
      if (cleanOnly) {
        out.push({ tabId, url: p.url, action: "reinjected", by: "browser" });
        continue;
      }
      for (const i of p.inject) {
        const cs = entries[i];
        const target = { tabId, allFrames: !!cs.all_frames };
        if (cs.css && cs.css.length) await chrome.scripting.insertCSS({ target, files: cs.css });
        if (cs.js && cs.js.length) await chrome.scripting.executeScript({ target, files: cs.js, injectImmediately: true });
      }
      out.push({ tabId, url: p.url, action: "reinjected", entries: p.inject });
    } catch (e) {
      out.push({ tabId, url: p.url, action: "failed", error: String((e && e.message) || e) });
    }
  }
  return out;
}
