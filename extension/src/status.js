// The status page (action popup and options page). It holds a port to the background, which
// pushes the status on every change; settings are written straight to storage.local and the
// background picks them up through storage.onChanged.
import { api, family } from "./api.js";
import { PERMISSIONS } from "./permissions.js";
import { cleanLabel } from "./settings.js";

const $ = (id) => document.getElementById(id);
let port = null;
let labelDirty = false;

function time(ms) {
  return ms ? new Date(ms).toLocaleTimeString() : "";
}

function render(s) {
  $("state").textContent = s.state;
  $("state").dataset.state = s.state;
  const retry = s.state === "disconnected" && s.retryAt ? `, retrying at ${time(s.retryAt)}` : "";
  $("since").textContent = `since ${time(s.since)}${retry}`;
  $("last-error").textContent = s.lastError ? s.lastError.message : "none";
  $("last-error-at").textContent = s.lastError ? `at ${time(s.lastError.at)}` : "";
  $("host").textContent = s.host;
  $("browser").textContent = `${s.browser} ${s.browserVersion}`;
  $("ext-version").textContent = s.extVersion;
  $("protocol").textContent = String(s.protocol);
  $("engine-version").textContent = s.engineVersion ?? `unavailable (${s.engineError})`;
  $("label").textContent = s.label;
  $("label-input").placeholder = s.defaultLabel;
  if (!labelDirty) $("label-input").value = s.customLabel;
  $("debugger-setting").hidden = !s.debuggerAvailable;
  $("debugger-mode").checked = s.debuggerMode;
  $("capture").checked = s.capture !== false;
  renderPermissions(s.permissions);
}

// The permission table's rows for this browser family: the permissions its manifest declares.
const permissionRows = PERMISSIONS.filter((p) => p[family] !== "absent");

function isGranted(p, granted) {
  const list = p.kind === "host" ? granted?.origins : granted?.permissions;
  return Array.isArray(list) && list.includes(p.name);
}

// Optional permissions can be asked for; so can a host pattern of host_permissions, which the
// user may have withheld (Chromium's site access, Firefox's add-on permissions).
function isRequestable(p) {
  return p[family] === "optional" || p.kind === "host";
}

function grant(p) {
  // permissions.request needs a user gesture: it is called straight from the click.
  const request = p.kind === "host" ? { origins: [p.name] } : { permissions: [p.name] };
  api.permissions
    .request(request)
    .then((ok) => {
      if (!ok) showError(`${p.name} was not granted`);
    })
    .catch(showError);
}

function buildPermissionRows() {
  for (const p of permissionRows) {
    const row = document.createElement("tr");
    row.dataset.permission = p.name;
    const needed = p.neededBy.everything ? "every request" : p.neededBy.tools.join(", ");
    for (const text of [p.name, p.why, needed]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    const state = document.createElement("td");
    state.className = "state";
    const label = document.createElement("span");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "grant";
    button.textContent = "Grant";
    button.hidden = true;
    button.addEventListener("click", () => grant(p));
    state.append(label, " ", button);
    row.append(state);
    $("permission-rows").append(row);
  }
}

function renderPermissions(granted) {
  for (const p of permissionRows) {
    const row = $("permission-rows").querySelector(`tr[data-permission="${CSS.escape(p.name)}"]`);
    if (!row) continue;
    const state = row.querySelector(".state");
    const ok = isGranted(p, granted);
    state.dataset.granted = String(ok);
    state.querySelector("span").textContent = `${p[family]}, ${ok ? "granted" : "not granted"}`;
    state.querySelector("button").hidden = ok || !isRequestable(p);
  }
}

function showError(e) {
  $("page-error").hidden = false;
  $("page-error").textContent = String(e?.message ?? e);
}

// A background that does not answer (it failed to start, or is stuck) must not look like a
// page that is still loading.
const ANSWER_WITHIN_MS = 5000;

function connect() {
  port = api.runtime.connect({ name: "status" });
  const silent = setTimeout(
    () => showError(`the helper's background did not answer within ${ANSWER_WITHIN_MS / 1000} s; reload the extension`),
    ANSWER_WITHIN_MS,
  );
  port.onMessage.addListener((msg) => {
    if (msg?.type !== "status") return;
    clearTimeout(silent);
    $("page-error").hidden = true;
    render(msg.status);
  });
  // The port closes when the background restarts (service worker stopped, extension
  // reloaded); connect again, which also wakes it, so the page keeps updating.
  port.onDisconnect.addListener(() => {
    clearTimeout(silent);
    port = null;
    setTimeout(connect, 1000);
  });
}

$("label-input").addEventListener("input", () => {
  labelDirty = true;
});

$("label-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  labelDirty = false;
  api.storage.local.set({ label: cleanLabel($("label-input").value) }).catch(showError);
});

$("reset-label").addEventListener("click", () => {
  labelDirty = false;
  api.storage.local.set({ label: "" }).catch(showError);
});

$("debugger-mode").addEventListener("change", (ev) => {
  api.storage.local.set({ debuggerMode: ev.target.checked }).catch(showError);
});

$("capture").addEventListener("change", (ev) => {
  api.storage.local.set({ capture: ev.target.checked }).catch(showError);
});

$("reconnect").addEventListener("click", () => {
  port?.postMessage({ type: "reconnect" });
});

buildPermissionRows();
connect();
