//! Acting on a page: actions, forms, file uploads, evaluation, waits, dialogs.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
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
    MethodSpec {
        name: PAGE_FILL_FORM,
        target: Target::Extension,
        doc: "Fills several fields by ref (each auto-waited), then settles once.",
        params: tab_params![
            p("fields", "array", true, "[{ref, value}]"),
            timeout_ms("deadline for the whole form", ACTION_TIMEOUT_MS),
        ],
        result: "{action: fill_form, filled: [{ref, element}], input, settledMs, navigated, tab, changes}",
    },
    MethodSpec {
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
    MethodSpec {
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
    MethodSpec {
        name: PAGE_UPLOAD_CANCEL,
        target: Target::Extension,
        doc: "Drops an open upload and every piece staged for it (in the background and in the page).",
        params: tab_params![p("upload", "string", true, "the id page.uploadOpen opened")],
        result: "{upload, cancelled}",
    },
    MethodSpec {
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
    MethodSpec {
        name: PAGE_EVALUATE,
        target: Target::Extension,
        doc: "Runs a function in the page's main world with JSON arguments; JSON result, paged.",
        params: tab_params![
            p("function", "string", false, "function expression or expression (required without cursor)"),
            p("args", "array", false, "JSON arguments"),
            p("maxBytes", "integer", false, "page size of the JSON text")
                .or(DefaultValue::Int(DEFAULT_MAX_BYTES)),
            p("cursor", "string", false, "`<resultId>:<offset>` for the next page"),
            p(
                "scrubSecrets",
                "boolean",
                false,
                "replace the tab's cookie values and secret storage values in the result"
            )
            .or(DefaultValue::Bool(true)),
        ],
        result: "{tab, resultId, json: this page of the JSON text, offset, nextCursor, totalBytes, scrubbed}",
    },
    MethodSpec {
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
    MethodSpec {
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

typed_methods!(
    PageAct,
    PageFillForm,
    PageUploadOpen,
    PageUploadChunk,
    PageUploadCancel,
    PageUpload,
    PageEvaluate,
    PageWaitFor,
    PageDialog,
);

/// What `page.act` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Click,
    Hover,
    Fill,
    Type,
    Select,
    Press,
    Scroll,
    Drag,
}

/// A field's value: text, or a checkbox's or radio's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FieldValue {
    Text(String),
    Checked(bool),
}

/// `page.act`: one action; the fields an action does not use stay out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageAct {
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// Drag: the drop target's locator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_nth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<FieldValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shift: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dx: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dy: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageAct => PAGE_ACT, Acted, ACTION_TIMEOUT_MS);

impl PageAct {
    /// `action` on `locator`, nothing else set yet.
    pub fn on(action: Action, locator: Option<String>) -> PageAct {
        PageAct {
            action,
            locator,
            nth: None,
            to: None,
            to_nth: None,
            value: None,
            text: None,
            values: None,
            key: None,
            shift: None,
            dx: None,
            dy: None,
            timeout_ms: None,
        }
    }
}

/// One field of `page.fillForm`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormField {
    #[serde(rename = "ref")]
    pub reference: String,
    pub value: FieldValue,
}

/// `page.fillForm`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFillForm {
    pub fields: Vec<FormField>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageFillForm => PAGE_FILL_FORM, FormFilled, ACTION_TIMEOUT_MS);

/// A file of an upload, as the page will see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileMeta {
    pub name: String,
    #[serde(rename = "type")]
    pub mime: String,
    pub size: u64,
    /// Milliseconds since the epoch.
    pub last_modified: u64,
}

/// `page.uploadOpen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageUploadOpen {
    pub upload: String,
    pub locator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    pub files: Vec<FileMeta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageUploadOpen => PAGE_UPLOAD_OPEN, UploadOpened, ACTION_TIMEOUT_MS);

/// `page.uploadChunk`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageUploadChunk {
    pub upload: String,
    pub file: u32,
    pub index: u32,
    /// Base64.
    pub data: String,
}
method!(PageUploadChunk => PAGE_UPLOAD_CHUNK, Staged, ACTION_TIMEOUT_MS);

/// `page.uploadCancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageUploadCancel {
    pub upload: String,
}
method!(PageUploadCancel => PAGE_UPLOAD_CANCEL, UploadCancelled, 5_000);

/// `page.upload`: an open upload (`upload`), or (Chromium debugger mode) real `paths`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageUpload {
    pub locator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload: Option<String>,
    pub files: Vec<FileMeta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageUpload => PAGE_UPLOAD, Acted, ACTION_TIMEOUT_MS);

impl From<&PageUploadOpen> for PageUpload {
    /// The `page.upload` that finishes an opened upload: the same element and files.
    fn from(open: &PageUploadOpen) -> PageUpload {
        PageUpload {
            locator: open.locator.clone(),
            nth: open.nth,
            upload: Some(open.upload.clone()),
            files: open.files.clone(),
            paths: None,
            drop: open.drop,
            timeout_ms: open.timeout_ms,
        }
    }
}

/// `page.evaluate`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageEvaluate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Replace the tab's current cookie values and secret storage values found verbatim in
    /// the result (best effort: code can always encode a secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrub_secrets: Option<bool>,
}
method!(PageEvaluate => PAGE_EVALUATE, Evaluated, EVALUATE_TIMEOUT_MS);

/// `page.waitFor`: one condition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageWaitFor {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `visible` or `gone`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageWaitFor => PAGE_WAIT_FOR, Waited, ACTION_TIMEOUT_MS);

/// `page.dialog`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageDialog {
    pub accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}
method!(PageDialog => PAGE_DIALOG, DialogReply, TAB_CALL_TIMEOUT_MS);

/// `page.uploadChunk`: one piece of an upload staged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Staged {
    pub upload: String,
    pub file: u32,
    pub index: u32,
    /// Bytes of this upload staged so far.
    pub staged_bytes: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.uploadOpen`: the element an upload is bound to, and where its pieces go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadOpened {
    pub upload: String,
    /// `page` (decoded in the element's frame as they arrive) or `helper` (kept in the
    /// background until page.upload: a Firefox drop, built in the page's main world).
    pub staging: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.uploadCancel`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadCancelled {
    pub upload: String,
    /// Whether the upload was still open.
    pub cancelled: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What an action changed: the interactive elements added (snapshot lines) and removed
/// (refs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.act`: what was done, how, and what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acted {
    pub action: String,
    /// `synthetic` or `trusted`.
    pub input: String,
    pub navigated: bool,
    /// The tab afterwards (the new page after a navigation).
    pub tab: Tab,
    pub settled_ms: u64,
    /// `None`: nothing interactive changed (or a navigation replaced the page).
    pub changes: Option<Changes>,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The element acted on, as a snapshot line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.fillForm`: the fields filled, then what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormFilled {
    pub filled: Vec<Filled>,
    #[serde(flatten)]
    pub acted: Acted,
}

/// `page.waitFor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Waited {
    pub met: bool,
    pub waited_ms: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.evaluate`: one page of the result's JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    pub tab: Tab,
    pub result_id: String,
    /// This page of the result's JSON text.
    pub json: String,
    pub offset: u64,
    pub next_cursor: Option<String>,
    pub total_bytes: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.dialog` (accept_dialog / dismiss_dialog).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogReply {
    pub tab: Tab,
    /// The answer armed for the next dialog.
    pub armed: Armed,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The answer `page.dialog` armed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Armed {
    /// `accept` or `dismiss`.
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// One field `page.fillForm` filled, and what it holds now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filled {
    #[serde(rename = "ref")]
    pub reference: String,
    /// The field, as a snapshot line.
    pub element: String,
    /// What it holds now: a box's state, the option picked, the text taken.
    #[serde(default)]
    pub value: Value,
    #[serde(flatten)]
    pub extra: Extra,
}
