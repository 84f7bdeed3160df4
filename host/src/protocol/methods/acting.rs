//! Acting on a page: actions, forms, file uploads, evaluation, waits, dialogs.

use super::*;

pub(super) const METHODS: &[Method] = &[
    Method {
        name: PAGE_ACT,
        target: Target::Extension,
        doc: "One action with auto-wait (attached, visible, enabled, stable box, hit test), then settle.",
        params: tab_params![
            p("action", "string", true, "click | hover | fill | type | select | press | scroll | drag"),
            p(
                "locator",
                "string",
                false,
                "a ref (e12, f2e7), text=…, role=button[name=\"…\"] or a CSS selector"
            ),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p("to", "string", false, "drag: the drop target's locator"),
            p("toNth", "integer", false, "drag: which match of `to`"),
            p("value", "string|boolean", false, "fill: the value (text; checkboxes and radios: true/false)"),
            p("text", "string", false, "type: the text, key by key"),
            p("values", "array", false, "select: option values or labels"),
            p("key", "string", false, "press: a key name (Enter, Tab, Escape, a, …)"),
            p("shift", "boolean", false, "press: with Shift (Shift+Tab)"),
            p("dx", "integer", false, "scroll without locator: pixels right"),
            p("dy", "integer", false, "scroll without locator: pixels down"),
            timeout_ms("auto-wait and navigation deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{action, ref, element, input: synthetic | trusted, waitedMs, settledMs, navigated, tab, \
                 changes: {added: [snapshot lines], removed: [refs], truncated} | null}",
    },
    Method {
        name: PAGE_FILL_FORM,
        target: Target::Extension,
        doc: "Fills several fields by ref (each auto-waited), then settles once.",
        params: tab_params![
            p("fields", "array", true, "[{ref, value}]"),
            timeout_ms("deadline for the whole form", ACTION_TIMEOUT_MS),
        ],
        result: "{action: fill_form, filled: [{ref, element}], input, settledMs, navigated, tab, changes}",
    },
    Method {
        name: PAGE_UPLOAD_OPEN,
        target: Target::Extension,
        doc: "Opens a staged upload: resolves the element (auto-waited, a ref re-checked) and binds the upload to it, so the pieces that follow go straight to its frame.",
        params: tab_params![
            p("upload", "string", true, "the upload's id (8–64 of A-Z a-z 0-9 _ -), chosen by the caller"),
            p("locator", "string", true, "a ref (e12, f2e7), text=… or a CSS selector"),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p("files", "array", true, "[{name, type, size, lastModified}] in staging order"),
            p("drop", "boolean", false, "drop the files on the element instead of setting an input's files"),
            timeout_ms("auto-wait deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{upload, element, accept, warnings, staging: page | helper}",
    },
    Method {
        name: PAGE_UPLOAD_CHUNK,
        target: Target::Extension,
        doc: "One piece of a file of an open upload: decoded in the element's frame (or kept in the background for a Firefox drop); pieces may arrive in any order and stay under the message cap; an upload expires 60 s after its last piece.",
        params: tab_params![
            p("upload", "string", true, "the id page.uploadOpen opened"),
            p("file", "integer", true, "which file of the upload (0-based)"),
            p("index", "integer", true, "which piece of that file (0-based)"),
            p(
                "data",
                "string",
                true,
                "the piece, base64 (every piece but a file's last is a multiple of 3 bytes)"
            ),
        ],
        result: "{upload, file, index, stagedBytes}",
    },
    Method {
        name: PAGE_UPLOAD_CANCEL,
        target: Target::Extension,
        doc: "Drops an open upload and every piece staged for it (in the background and in the page).",
        params: tab_params![p("upload", "string", true, "the id page.uploadOpen opened")],
        result: "{upload, cancelled}",
    },
    Method {
        name: PAGE_UPLOAD,
        target: Target::Extension,
        doc: "Sets the files of an open upload on its <input type=file> (input and change events), or drops them on its element (dragenter, dragover, drop), then settles.",
        params: tab_params![
            p("locator", "string", true, "a ref (e12, f2e7), text=…, role=…[name=\"…\"] or a CSS selector"),
            p("nth", "integer", false, "which match (0-based) when the locator matches several"),
            p(
                "upload",
                "string",
                false,
                "the id page.uploadOpen opened (required without `paths`); the locator must name the element it was opened for"
            ),
            p("files", "array", true, "[{name, type, size, lastModified}] in staging order"),
            p(
                "paths",
                "array",
                false,
                "Chromium debugger mode, an <input type=file> of the top document: the admitted real paths, \
                 set by DOM.setFileInputFiles (nothing staged); UNSUPPORTED with data.stage = true when that cannot be used"
            ),
            p("drop", "boolean", false, "drop the files on the element instead of setting an input's files"),
            timeout_ms("auto-wait and navigation deadline", ACTION_TIMEOUT_MS),
        ],
        result: "{action: upload, ref, element, files: [{name, size, type}] as the page sees them, accept, warnings, input, waitedMs, settledMs, navigated, tab, changes}",
    },
    Method {
        name: PAGE_EVALUATE,
        target: Target::Extension,
        doc: "Runs a function in the page's main world with JSON arguments; JSON result, paged.",
        params: tab_params![
            p("function", "string", false, "function expression or expression (required without cursor)"),
            p("args", "array", false, "JSON arguments"),
            p("maxBytes", "integer", false, "page size of the JSON text")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("cursor", "string", false, "`<resultId>:<offset>` for the next page"),
        ],
        result: "{tab, resultId, json: this page of the JSON text, offset, nextCursor, totalBytes}",
    },
    Method {
        name: PAGE_WAIT_FOR,
        target: Target::Extension,
        doc: "Waits until text, a selector or a ref appears (or is gone), or the URL matches.",
        params: tab_params![
            p("text", "string", false, "visible text to wait for"),
            p("selector", "string", false, "CSS selector"),
            p("ref", "string", false, "a ref from take_snapshot"),
            p("url", "string", false, "URL substring, or a pattern with *"),
            p("state", "string", false, "visible | gone").or(DefaultValue::Str("visible")),
            timeout_ms("how long to wait", ACTION_TIMEOUT_MS),
        ],
        result: "{met: true, waitedMs, element?, ref?}",
    },
    Method {
        name: PAGE_DIALOG,
        target: Target::Extension,
        doc: "accept_dialog / dismiss_dialog: arms the answer to the tab's next dialog (its hook answers \
              at once); a tab a native dialog blocks is BLOCKED.",
        params: tab_params![
            p("accept", "boolean", true, "true: OK (accept); false: Cancel (dismiss)"),
            p("promptText", "string", false, "prompt(): the text to answer with when accepting"),
        ],
        result: "{tab, armed: {action, promptText?}, dialogs: [{type, message, answered}]}",
    },
];
