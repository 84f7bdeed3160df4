// The methods this extension answers, keyed by the names in protocol.js. The bridge checks
// params against METHOD_SPECS before calling a handler, so handlers see typed params.
import { METHODS, METHOD_SPECS } from "./protocol.js";
import { utf8Length } from "./bridge.js";
import { act, fillForm, waitFor } from "./actions.js";
import { screenshot } from "./capture.js";
import { clearCookies, getCookies, setCookies } from "./cookies.js";
import { clearConsole, listConsole } from "./consolelog.js";
import { answerDialog, guarded } from "./dialogs.js";
import { evaluate } from "./evaluate.js";
import { getNetwork, listNetwork } from "./netlog.js";
import { findText, readText } from "./reading.js";
import { clearSnapshot, resolveRef, takeSnapshot } from "./snapshot.js";
import { clearStorage, getStorage, setStorage } from "./storage.js";
import { closeTab, listContainers, listTabs, navigate, newTab, selectTab } from "./tabs.js";
import { upload, uploadCancel, uploadChunk, uploadOpen } from "./upload.js";
import { emulate, resize } from "./viewport.js";

/**
 * @param {{browserInfo: (params: {container?: string}) => Promise<object>}} helper what the handlers need from the background
 */
export function methodTable(helper) {
  const snapshot = page(takeSnapshot, "none");
  const text = page(readText, "none");
  const find = page(findText, "none");
  const chunk = page(uploadChunk, "none");
  const table = {
    [METHODS.PING]: async ({ payload }) => ({
      pong: true,
      ...(typeof payload === "string" && { payload }),
      time: Date.now(),
    }),

    [METHODS.BROWSER_INFO]: (params) => helper.browserInfo(params),

    [METHODS.TABS_LIST]: (params) => listTabs(params),
    [METHODS.CONTAINERS_LIST]: () => listContainers(),
    [METHODS.TABS_NEW]: (params) => newTab(params),
    [METHODS.TABS_NAVIGATE]: page(navigate),
    [METHODS.TABS_SELECT]: (params) => selectTab(params),
    [METHODS.TABS_CLOSE]: (params) => closeTab(params),
    // A cursor page comes from the cached rendering and clearing drops it: neither touches
    // the page, so a dialog can neither block nor meet them — no guard. A snapshot's walk
    // runs no page code that opens dialogs: a dialog the page opens meanwhile by itself is
    // reported by the next action, whose result the hook's records join.
    [METHODS.PAGE_SNAPSHOT]: (params, meta) => (params.cursor != null ? takeSnapshot(params) : snapshot(params, meta)),
    [METHODS.PAGE_CLEAR_SNAPSHOT]: (params) => clearSnapshot(params),
    [METHODS.PAGE_RESOLVE_REF]: page(resolveRef, "none"),
    [METHODS.PAGE_TEXT]: (params, meta) => (params.cursor != null ? readText(params) : text(params, meta)),
    [METHODS.PAGE_FIND]: (params, meta) => (params.cursor != null ? findText(params) : find(params, meta)),
    [METHODS.PAGE_ACT]: page(act),
    [METHODS.PAGE_FILL_FORM]: page(fillForm),
    // Opening resolves the element (auto-waited); a piece is decoded in its frame; neither
    // acts on the page, so dialogs are left for page.upload to report.
    [METHODS.PAGE_UPLOAD_OPEN]: page(uploadOpen, "none"),
    [METHODS.PAGE_UPLOAD_CHUNK]: (params, meta) => chunk(params, { ...meta, receivedAt: performance.now() }),
    [METHODS.PAGE_UPLOAD_CANCEL]: (params) => uploadCancel(params),
    [METHODS.PAGE_UPLOAD]: page(upload),
    [METHODS.PAGE_EVALUATE]: page(evaluate),
    [METHODS.PAGE_WAIT_FOR]: page(waitFor),
    [METHODS.PAGE_DIALOG]: (params) => answerDialog(params),
    [METHODS.PAGE_SCREENSHOT]: page(screenshot, "none"),
    [METHODS.PAGE_RESIZE]: page(resize, "none"),
    [METHODS.PAGE_EMULATE]: page(emulate, "none"),

    [METHODS.COOKIES_GET]: (params) => getCookies(params),
    [METHODS.COOKIES_SET]: (params) => setCookies(params),
    [METHODS.COOKIES_CLEAR]: (params) => clearCookies(params),
    [METHODS.STORAGE_GET]: page(getStorage, "none"),
    [METHODS.STORAGE_SET]: page(setStorage),
    [METHODS.STORAGE_CLEAR]: page(clearStorage),
    // What was captured in the background: no page script runs, so no guard.
    [METHODS.CONSOLE_LIST]: (params) => listConsole(params),
    [METHODS.CONSOLE_CLEAR]: (params) => clearConsole(params),
    [METHODS.NETWORK_LIST]: (params) => listNetwork(params),
    [METHODS.NETWORK_GET]: (params) => getNetwork(params),

    [METHODS.DEBUG_DIGEST]: async ({ payload }, meta) => ({
      length: payload.length,
      bytes: utf8Length(payload),
      sha256: await sha256Hex(payload),
      chunked: meta.chunked,
      chunks: meta.chunks,
      // The reassembled text is the frame body byte for byte. A whole frame is re-serialized:
      // equal to what the host sent when the payload needs no JSON escapes.
      frameBytes: utf8Length(meta.text ?? JSON.stringify(meta.request)),
    }),
  };
  for (const [name, spec] of Object.entries(METHOD_SPECS)) {
    if (spec.target === "extension" && !(name in table)) {
      console.error(`webext-mcp: protocol method \`${name}\` has no handler in this helper`);
    }
  }
  return Object.freeze(table);
}

/**
 * A handler of a method that reaches a page, guarded (dialogs.js): a crashed tab is
 * TAB_CRASHED at once, a tab a native dialog blocks is BLOCKED by the call's own deadline
 * (`timeoutMs` when the method takes one, else the request's), and the answer reports the
 * dialogs met on the way — taken after the work (`collect` "after": actions) or left for
 * the next action ("none": reads).
 */
function page(handler, collect = "after") {
  return (params, meta) => guarded(params, params.timeoutMs ?? meta.callTimeoutMs, () => handler(params, meta), collect);
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
