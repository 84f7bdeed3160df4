//! `resize_page` and `emulate`: a tab's viewport size, and device emulation (scale factor,
//! mobile, user agent, colour scheme, reduced motion). How, per browser, is decided in the
//! helper (`extension/src/viewport.js`; the matrix is in docs/pages.md):
//!
//! ```text
//! resize_page ─▶ page.resize ─▶ window only the agent's (or force) → windows.update until the page reports the size
//!                              Chromium + debugger mode            → Emulation.setDeviceMetricsOverride (this tab only)
//!                              hidden agent tab in the user's window → moved into the agent window, then sized
//!                              else                                → PERMISSION_DENIED (the user's window is theirs)
//! emulate     ─▶ page.emulate ─▶ Chromium + debugger mode → Emulation.* held until reset; otherwise UNSUPPORTED
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{Method, PageEmulate, PageResize, VIEWPORT_MAX, VIEWPORT_MIN};

use crate::bridge::results::to_value;
use crate::bridge::{TabTarget, Timeout};
use crate::tools::registry::{Wait, decode_with, decode_with_target, schema_with, schema_with_target};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![RESIZE_PAGE, EMULATE]
}

/// Arguments of `resize_page` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResizeArgs {
    /// Viewport width, CSS px (100–7680).
    pub width: u32,
    /// Viewport height, CSS px (100–7680).
    pub height: u32,
    /// Size the tab's window even when it holds tabs of the user's.
    #[serde(default)]
    pub force: bool,
    /// Default 15000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `prefers-color-scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColorScheme {
    Light,
    Dark,
}

impl ColorScheme {
    fn as_str(self) -> &'static str {
        match self {
            ColorScheme::Light => "light",
            ColorScheme::Dark => "dark",
        }
    }
}

/// `prefers-reduced-motion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReducedMotion {
    Reduce,
    NoPreference,
}

impl ReducedMotion {
    fn as_str(self) -> &'static str {
        match self {
            ReducedMotion::Reduce => "reduce",
            ReducedMotion::NoPreference => "no-preference",
        }
    }
}

/// Arguments of `emulate` (plus the tab's address).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmulateArgs {
    /// devicePixelRatio, 0.5–4.
    #[serde(default)]
    pub device_scale_factor: Option<f64>,
    #[serde(default)]
    pub mobile: Option<bool>,
    #[serde(default)]
    pub user_agent: Option<String>,
    #[serde(default)]
    pub color_scheme: Option<ColorScheme>,
    #[serde(default)]
    pub reduced_motion: Option<ReducedMotion>,
    /// Clear the tab's emulation (and a debugger-made size) first.
    #[serde(default)]
    pub reset: bool,
}

fn check_side(name: &str, v: u32) -> Result<(), ErrorBody> {
    if (VIEWPORT_MIN..=VIEWPORT_MAX).contains(&i64::from(v)) {
        return Ok(());
    }
    Err(ErrorBody::invalid_argument(format!("`{name}` is {VIEWPORT_MIN}–{VIEWPORT_MAX} CSS px"))
        .with_hint("e.g. width 1280, height 800"))
}

const RESIZE_PAGE: ToolDef = ToolDef {
    name: "resize_page",
    title: "Resize a page's viewport",
    toolset: Toolset::Pages,
    description: "Set a tab's viewport (innerWidth×innerHeight, CSS px) by sizing its window: other tabs of that window get the size too. A window holding your own tabs is left alone unless force: true; then Chromium with debugger mode sizes the tab alone, and a hidden agent tab moves to the agent window first.",
    effect: Effect::Idempotent,
    input_schema: schema_with_target::<ResizeArgs>,
    run: |ctx, _call, args| Box::pin(resize_page(ctx, args)),
};

async fn resize_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, a) = decode_with_target::<ResizeArgs>(args)?;
    check_side("width", a.width)?;
    check_side("height", a.height)?;
    let timeout = Timeout::from_arg(a.timeout_ms, PageResize::TIMEOUT_MS)?;
    let params = PageResize {
        width: u64::from(a.width),
        height: u64::from(a.height),
        force: Some(a.force),
        timeout_ms: Some(timeout.ms()),
    };
    let (_, out) = ctx.browser.call_tab(&target, params, timeout).await?;
    let how = match out.mechanism.as_str() {
        "debugger" => "this tab only, through the debugger".to_owned(),
        _ => {
            let others = out.extra.get("window").and_then(|w| w.get("otherTabs")).and_then(Value::as_u64);
            let moved = out.extra.get("moved").is_some_and(|m| m == &json!(true));
            format!(
                "by its window{}{}",
                if moved { " (moved into the agent window first)" } else { "" },
                match others {
                    Some(0) | None => String::new(),
                    Some(n) => format!("; {n} other tab(s) of that window have the new size too"),
                }
            )
        }
    };
    let mut text = format!("tabId={}: viewport {}×{} {how}", out.tab.tab_id, out.width, out.height);
    if !out.exact {
        let hidden = out.extra.get("hidden").is_some_and(|h| h == &json!(true));
        text.push_str(&if hidden {
            format!(
                "\nthe tab is hidden: the browser lays it out at {}×{} when it is shown",
                a.width, a.height
            )
        } else {
            format!(
                "\nthe browser did not give exactly {}×{} (limited by the screen or a minimum window size)",
                a.width, a.height
            )
        });
    }
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}

const EMULATE: ToolDef = ToolDef {
    name: "emulate",
    title: "Emulate a device",
    toolset: Toolset::Pages,
    description: "Per-tab device scale factor, mobile (touch), userAgent, colorScheme light|dark, reducedMotion reduce|no-preference; kept until reset: true. Chromium with debugger mode only (its debugging bar stays up meanwhile); otherwise UNSUPPORTED, and always in Firefox.",
    effect: Effect::Idempotent,
    input_schema: schema_with::<(TabTarget, Wait), EmulateArgs>,
    run: |ctx, _call, args| Box::pin(emulate(ctx, args)),
};

async fn emulate(ctx: Ctx, args: Value) -> ToolResult {
    let ((target, w), a) = decode_with::<(TabTarget, Wait), EmulateArgs>(args)?;
    if let Some(f) = a.device_scale_factor
        && !(0.5..=4.0).contains(&f)
    {
        return Err(ErrorBody::invalid_argument("`deviceScaleFactor` is 0.5–4")
            .with_hint("e.g. 2 for a high-density screen"));
    }
    let timeout = Timeout::from_arg(w.timeout_ms, PageEmulate::TIMEOUT_MS)?;
    let params = PageEmulate {
        device_scale_factor: a.device_scale_factor,
        mobile: a.mobile,
        user_agent: a.user_agent,
        color_scheme: a.color_scheme.map(|c| c.as_str().to_owned()),
        reduced_motion: a.reduced_motion.map(|r| r.as_str().to_owned()),
        reset: Some(a.reset),
        timeout_ms: Some(timeout.ms()),
    };
    let (_, out) = ctx.browser.call_tab(&target, params, timeout).await?;
    let p = &out.page;
    let text = format!(
        "tabId={}: {} — the page sees {}×{} at devicePixelRatio {}, {} colour scheme, reduced motion {}, {} pointer",
        out.tab.tab_id,
        if out.mechanism == "debugger" { "emulated through the debugger" } else { "emulation cleared" },
        p.inner_width,
        p.inner_height,
        p.device_pixel_ratio,
        if p.dark { "dark" } else { "light" },
        if p.reduced_motion { "on" } else { "off" },
        if p.touch { "coarse (touch)" } else { "fine" },
    );
    Ok(ToolOutput { structured: to_value(&out)?, text: Some(text) })
}
