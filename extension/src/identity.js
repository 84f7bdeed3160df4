// Which browser this is, in the names webext-mcp uses (`chrome`, `chromium`, `edge`, `brave`,
// `firefox`, `zen`, …), and its version.
import { api, family } from "./api.js";

// Chromium-family brands as reported by navigator.userAgentData; anything else (including
// headless Chromium's brands) is `chromium`.
const CHROMIUM_BRANDS = [
  ["Google Chrome", "chrome"],
  ["Microsoft Edge", "edge"],
  ["Brave", "brave"],
  ["Opera", "opera"],
  ["Vivaldi", "vivaldi"],
];

let cached = null;

/** `{browser, browserVersion}`, computed once per background lifetime. */
export function identity() {
  cached ??= detect().catch((e) => {
    cached = null;
    throw e;
  });
  return cached;
}

async function detect() {
  if (family === "gecko") {
    const info = await api.runtime.getBrowserInfo();
    return { browser: info.name.toLowerCase().replace(/\s+/g, "-"), browserVersion: info.version };
  }
  const ua = globalThis.navigator?.userAgentData;
  if (ua) {
    let versions = ua.brands;
    try {
      const high = await ua.getHighEntropyValues(["fullVersionList"]);
      if (Array.isArray(high.fullVersionList)) versions = high.fullVersionList;
    } catch {
      // Low-entropy brands carry major versions only; good enough.
    }
    for (const [brand, name] of CHROMIUM_BRANDS) {
      const hit = versions.find((b) => b.brand === brand);
      if (hit) return { browser: name, browserVersion: hit.version };
    }
    const chromium = versions.find((b) => b.brand === "Chromium");
    if (chromium) return { browser: "chromium", browserVersion: chromium.version };
  }
  const m = /(?:Chrome|Chromium)\/([\d.]+)/.exec(globalThis.navigator?.userAgent ?? "");
  return { browser: "chromium", browserVersion: m ? m[1] : "unknown" };
}
