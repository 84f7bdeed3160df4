//! What a page looks like: screenshots, viewport size, emulation.

use super::*;

pub(super) const METHODS: &[MethodSpec] = &[
    MethodSpec {
        name: PAGE_SCREENSHOT,
        target: Target::Extension,
        doc: "An image of the tab (viewport, full page, clip or one element), background tabs included, \
              without activating the tab or focusing its window; fitted to the budget.",
        params: tab_params![
            p("format", "string", false, "png | jpeg | auto (as captured when it fits, else JPEG)")
                .or(DefaultValue::Str("auto")),
            p("quality", "integer", false, "JPEG quality").within(1, 100),
            p("maxWidth", "integer", false, "longest side in pixels")
                .or(DefaultValue::Int(SCREENSHOT_MAX_WIDTH))
                .within(16, 8192),
            p("maxBytes", "integer", false, "image size budget")
                .or(DefaultValue::Int(SCREENSHOT_MAX_BYTES))
                .within(1024, SCREENSHOT_HARD_MAX_BYTES),
            p("fullPage", "boolean", false, "the whole page, not only the viewport"),
            p("clip", "object", false, "{x, y, width, height} in CSS pixels of the page"),
            p("ref", "string", false, "an element (a ref from take_snapshot) instead of the viewport"),
            p("padding", "integer", false, "with ref: CSS pixels around the element")
                .or(DefaultValue::Int(8))
                .within(0, 200),
            p("redact", "string", false, "safe (mask password and secret fields) | off")
                .or(DefaultValue::Str("safe")),
            timeout_ms("capture deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: captureTab | visibleTab | debugger, format, width, height, bytes, scaled, masked, \
                 element?, truncated?, data: base64, timings: {captureMs, encodeMs, helperMs}}",
    },
    MethodSpec {
        name: PAGE_RESIZE,
        target: Target::Extension,
        doc: "Sets the tab's viewport (innerWidth × innerHeight) by sizing its window, or per tab through \
              the debugger (Chromium, debugger mode); a window holding the user's other tabs only with `force`.",
        params: tab_params![
            p("width", "integer", true, "viewport width in CSS px").within(VIEWPORT_MIN, VIEWPORT_MAX),
            p("height", "integer", true, "viewport height in CSS px").within(VIEWPORT_MIN, VIEWPORT_MAX),
            p("force", "boolean", false, "size the tab's window even when it holds tabs of the user's"),
            timeout_ms("deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: window | debugger, width, height (what the page reports now), asked: {width, height}, \
                 exact: bool, window?: {windowId, width, height, agent: bool, otherTabs: tabs sharing the new size}, moved?: bool}",
    },
    MethodSpec {
        name: PAGE_EMULATE,
        target: Target::Extension,
        doc: "Per-tab emulation through the debugger (Chromium, debugger mode): device scale factor, mobile, \
              user agent, colour scheme, reduced motion; held until reset. UNSUPPORTED naming what is missing otherwise.",
        params: tab_params![
            p("deviceScaleFactor", "number", false, "devicePixelRatio the page sees (0.5–4)"),
            p("mobile", "boolean", false, "mobile viewport (meta viewport honoured) and touch events"),
            p("userAgent", "string", false, "navigator.userAgent and the User-Agent header"),
            p("colorScheme", "string", false, "light | dark (prefers-color-scheme)"),
            p("reducedMotion", "string", false, "reduce | no-preference (prefers-reduced-motion)"),
            p(
                "reset",
                "boolean",
                false,
                "clear every emulation of the tab (and its debugger-made size) first"
            ),
            timeout_ms("deadline", TAB_CALL_TIMEOUT_MS),
        ],
        result: "{tab, mechanism: debugger | none, emulation: {…what is in effect}, \
                 page: {innerWidth, innerHeight, devicePixelRatio, userAgent, dark, reducedMotion, touch}}",
    },
];

typed_methods!(PageScreenshot, PageResize, PageEmulate);

/// A region of the page, CSS pixels from the document's top left.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// `page.screenshot`: the viewport, the full page, a clip, or one element (`ref`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageScreenshot {
    /// `png`, `jpeg` or `auto`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_width: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Region>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<u64>,
    /// `safe` or `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageScreenshot => PAGE_SCREENSHOT, Screenshot, TAB_CALL_TIMEOUT_MS);

/// `page.resize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageResize {
    pub width: u64,
    pub height: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageResize => PAGE_RESIZE, Resized, TAB_CALL_TIMEOUT_MS);

/// `page.emulate`: what to emulate (absent: unchanged).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageEmulate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mobile: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// `light` or `dark`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<String>,
    /// `reduce` or `no-preference`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduced_motion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
method!(PageEmulate => PAGE_EMULATE, Emulated, TAB_CALL_TIMEOUT_MS);

/// `page.screenshot`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Screenshot {
    pub tab: Tab,
    /// captureTab (Firefox), visibleTab or debugger (Chromium).
    pub mechanism: String,
    pub format: String,
    pub width: u64,
    pub height: u64,
    pub bytes: u64,
    pub scaled: bool,
    pub masked: u64,
    /// Base64 of the image (never echoed: a tool returns it as image content).
    #[serde(skip_serializing)]
    pub data: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `page.resize`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resized {
    pub tab: Tab,
    /// window | debugger.
    pub mechanism: String,
    /// What the page reports now.
    pub width: u64,
    pub height: u64,
    pub exact: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What the page reports of its viewport and media after `page.emulate`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageView {
    pub inner_width: f64,
    pub inner_height: f64,
    pub device_pixel_ratio: f64,
    pub user_agent: String,
    pub dark: bool,
    pub reduced_motion: bool,
    pub touch: bool,
}

/// `page.emulate`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Emulated {
    pub tab: Tab,
    /// debugger | none (a reset with nothing new).
    pub mechanism: String,
    /// The emulation in effect on the tab.
    pub emulation: Value,
    pub page: PageView,
    #[serde(flatten)]
    pub extra: Extra,
}
