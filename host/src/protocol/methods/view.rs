//! What a page looks like: screenshots, viewport size, emulation.

use super::*;

pub(super) const METHODS: &[Method] = &[
    Method {
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
    Method {
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
    Method {
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
