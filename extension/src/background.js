// Background of the webext-mcp helper: a module service worker in Chromium, a module
// background script (event page) in Firefox.
//
// Every listener is registered synchronously at top level: a Chromium service worker woken
// by an event only delivers it to listeners that exist when the script's first turn ends.
// Every listener also calls wake(), so any event reconnects a helper whose host went away
// while the worker slept.
import { api, grantedPermissions, hasDebugger } from "./api.js";
import { Bridge } from "./bridge.js";
import { debuggerSessions } from "./debugger.js";
import { engine } from "./engine.js";
import { identity } from "./identity.js";
import { methodTable } from "./methods.js";
import { setEmitter } from "./observers.js";
import { applyChanges, defaultLabel, effectiveLabel, loadSettings } from "./settings.js";
import { visibleTabs } from "./tabs.js";

const ALARM = "webext-mcp.reconnect";
const STATUS_PORT = "status";

let settings = null;
const ready = loadSettings().then((s) => {
  settings = s;
  ensureAlarm().catch((e) => console.error("webext-mcp: cannot create the reconnect alarm:", e));
  return s;
});

const bridge = new Bridge({ methods: methodTable({ browserInfo }), hello });
const statusPorts = new Set();
setEmitter((event, params) => bridge.emit(event, params));

api.runtime.onStartup.addListener(wake);
api.runtime.onInstalled.addListener(wake);
api.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) wake();
});
api.storage.onChanged.addListener(onStorageChanged);
api.runtime.onConnect.addListener(onPageConnect);
api.permissions.onAdded.addListener(onPermissionsChanged);
api.permissions.onRemoved.addListener(onPermissionsChanged);
bridge.onStatus(() => pushStatus());
bridge.ensureConnected();

function wake() {
  bridge.ensureConnected();
}

// Creating an alarm that already exists resets its schedule, and this runs on every worker
// start: a worker woken by the alarm every 30 s would otherwise push the next one out forever.
async function ensureAlarm() {
  const period = settings.alarmPeriodSeconds / 60;
  const existing = await api.alarms.get(ALARM);
  if (existing && existing.periodInMinutes === period) return;
  await api.alarms.create(ALARM, { periodInMinutes: period });
}

function capabilities(s) {
  const caps = ["tabs", "scripting", "engine"];
  if (hasDebugger && s.debuggerMode) caps.push("debugger");
  return caps;
}

async function hello() {
  const s = await ready;
  const { browser, browserVersion } = await identity();
  return {
    extVersion: api.runtime.getManifest().version,
    browser,
    browserVersion,
    label: effectiveLabel(settings ?? s, browser),
    capabilities: capabilities(settings ?? s),
    permissions: await grantedPermissions(),
  };
}

/** `container`: a container-scoped server's cookie store — only its tabs are listed. */
async function browserInfo({ container = null } = {}) {
  await ready;
  const [{ browser, browserVersion }, platform, tabs, wasm] = await Promise.all([
    identity(),
    api.runtime.getPlatformInfo(),
    visibleTabs(container).then((tabs) => tabs.map((t) => ({ windowId: t.windowId, tabId: t.id }))),
    engineStatus(),
  ]);
  return {
    browser,
    browserVersion,
    extVersion: api.runtime.getManifest().version,
    label: effectiveLabel(settings, browser),
    platform: { os: platform.os, arch: platform.arch },
    tabs,
    capabilities: capabilities(settings),
    // The browser's own words for the last native-messaging failure, so `doctor` can show
    // why the helper was disconnected before this connection.
    lastError: bridge.status.lastError,
    // Tabs the helper's debugger is attached to right now (debugger mode detaches at once).
    debuggerSessions: debuggerSessions(),
    permissions: await grantedPermissions(),
    ...wasm,
  };
}

async function engineStatus() {
  try {
    return { engineVersion: (await engine()).version };
  } catch (e) {
    return { engineVersion: null, engineError: String(e?.message ?? e) };
  }
}

function onStorageChanged(changes, area) {
  wake();
  if (area !== "local") return;
  ready.then(() => {
    const before = settings;
    settings = applyChanges(settings, changes);
    if (before.label !== settings.label || before.debuggerMode !== settings.debuggerMode) {
      // The host rewrites its descriptor on every hello: this is how a new label reaches
      // list_connected_browsers.
      bridge.sayHello();
    }
    if (before.alarmPeriodSeconds !== settings.alarmPeriodSeconds) {
      ensureAlarm().catch((e) => console.error("webext-mcp: cannot update the reconnect alarm:", e));
    }
    pushStatus();
  });
}

// A grant from the status page (or a revocation in the browser's settings) reaches the host
// in a new hello, so doctor compares what the helper holds now.
function onPermissionsChanged() {
  wake();
  bridge.sayHello();
  pushStatus();
}

// Messages from the status page, by type.
const PAGE_MESSAGES = Object.freeze({
  reconnect: () => bridge.reconnectNow(),
});

function onPageConnect(port) {
  wake();
  if (port.name !== STATUS_PORT) return;
  statusPorts.add(port);
  port.onDisconnect.addListener(() => statusPorts.delete(port));
  port.onMessage.addListener((msg) => {
    const handler = Object.hasOwn(PAGE_MESSAGES, msg?.type) ? PAGE_MESSAGES[msg.type] : null;
    if (handler) handler(msg);
    else console.warn("webext-mcp: unknown status page message", msg?.type);
  });
  pushStatus(port);
}

async function pushStatus(only) {
  const targets = only ? [only] : [...statusPorts];
  if (targets.length === 0) return;
  const status = await fullStatus();
  for (const port of targets) {
    try {
      port.postMessage({ type: "status", status });
    } catch {
      statusPorts.delete(port);
    }
  }
}

async function fullStatus() {
  const s = await ready;
  const current = settings ?? s;
  const id = await identity().catch(() => ({ browser: "unknown", browserVersion: "unknown" }));
  return {
    ...bridge.status,
    browser: id.browser,
    browserVersion: id.browserVersion,
    extVersion: api.runtime.getManifest().version,
    label: effectiveLabel(current, id.browser),
    customLabel: current.label,
    defaultLabel: defaultLabel(current, id.browser),
    capabilities: capabilities(current),
    debuggerAvailable: hasDebugger,
    debuggerMode: current.debuggerMode,
    capture: current.capture,
    alarmPeriodSeconds: current.alarmPeriodSeconds,
    permissions: await grantedPermissions(),
    ...(await engineStatus()),
  };
}
