// The helper's settings, kept in storage.local so they survive browser restarts and the
// service worker's suspension. The status page writes them; the background reacts through
// storage.onChanged.
import { api } from "./api.js";

export const DEFAULTS = Object.freeze({
  // Empty means the default label `<browser>-<6 hex of profileId>`.
  label: "",
  // Chromium only: whether the helper may attach chrome.debugger (trusted input, CDP eval).
  debuggerMode: false,
  // Whether console messages and network requests of watched tabs are recorded (consolelog.js).
  capture: true,
  // Period of the reconnect alarm. Timers die with a suspended service worker; alarms do not.
  alarmPeriodSeconds: 30,
});

export const SETTING_KEYS = Object.freeze(Object.keys(DEFAULTS));

const LABEL_MAX = 64;

/** Reads the settings, creating the per-profile random id on first use. */
export async function loadSettings() {
  const stored = await api.storage.local.get(["profileId", ...SETTING_KEYS]);
  let profileId = stored.profileId;
  if (typeof profileId !== "string" || !/^[0-9a-f]{32}$/.test(profileId)) {
    profileId = randomHex(16);
    await api.storage.local.set({ profileId });
  }
  return normalize({ ...DEFAULTS, ...stored, profileId });
}

/** Applies a storage.onChanged change set to settings read earlier. */
export function applyChanges(settings, changes) {
  const next = { ...settings };
  for (const key of SETTING_KEYS) {
    if (key in changes) next[key] = changes[key].newValue ?? DEFAULTS[key];
  }
  // A cleared storage keeps this run's id; loadSettings() writes a new one next start.
  if (typeof changes.profileId?.newValue === "string") next.profileId = changes.profileId.newValue;
  return normalize(next);
}

/** The label hosts and `list_connected_browsers` show for this profile. */
export function effectiveLabel(settings, browser) {
  return settings.label || defaultLabel(settings, browser);
}

export function defaultLabel(settings, browser) {
  return `${browser}-${settings.profileId.slice(0, 6)}`;
}

/** A label as typed by the user: trimmed, no control characters, at most 64 characters. */
export function cleanLabel(text) {
  return String(text ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, LABEL_MAX);
}

function normalize(s) {
  const period = Number(s.alarmPeriodSeconds);
  return {
    profileId: s.profileId,
    label: cleanLabel(s.label),
    debuggerMode: s.debuggerMode === true,
    capture: s.capture !== false,
    alarmPeriodSeconds: Number.isFinite(period) && period > 0 ? period : DEFAULTS.alarmPeriodSeconds,
  };
}

function randomHex(bytes) {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}
