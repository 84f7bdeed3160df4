//! `screenshot_page` and `screenshot_by_uid`: an image of any tab (viewport, full page, clip)
//! or of one element, background tabs included, without activating the tab or focusing its
//! window (`extension/src/capture.js` says how, per browser; docs/screenshots-and-storage.md why).
//!
//! ```text
//! tool ─▶ page.screenshot ─▶ helper: mask secret fields → capture → fit to budget (long side, bytes)
//!      ◀─ {format, width, height, bytes, data} ─▶ MCP image block, or a file under savePath
//! ```

use std::path::Path;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::methods::{Method, PageScreenshot, Region};

use super::save as capture_save;
use crate::bridge::results::to_value;
use crate::bridge::{TabTarget, Timeout};
use crate::tools::input::upload;
use crate::tools::registry::{decode_with_target, schema_with_target};
use crate::tools::{Ctx, Effect, ToolDef, ToolOutput, ToolResult, Toolset};

pub fn tools() -> Vec<ToolDef> {
    vec![SCREENSHOT_PAGE, SCREENSHOT_BY_UID]
}

/// Image format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// As captured (PNG) when it fits the budget, else JPEG.
    #[default]
    Auto,
    Png,
    Jpeg,
}

impl Format {
    const fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Png => "png",
            Format::Jpeg => "jpeg",
        }
    }
}

/// Whether secret fields are masked in the image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MaskFields {
    /// Password, one-time-code, card and secret-named fields are blanked for the capture.
    #[default]
    Safe,
    Off,
}

/// A region of the page, CSS pixels from the document's top left.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Clip {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// The budget, format, redaction and file options both screenshot tools take.
#[derive(Debug, Default)]
pub struct ImageArgs {
    pub format: Option<Format>,
    pub quality: Option<u8>,
    pub max_width: Option<u32>,
    pub max_bytes: Option<u32>,
    pub redact: Option<MaskFields>,
    pub save_path: Option<String>,
    pub overwrite: Option<bool>,
    pub timeout_ms: Option<u64>,
}

/// An argument struct with the tool's own fields and those of [`ImageArgs`] (serde's
/// `flatten` would turn `deny_unknown_fields` off).
macro_rules! image_args {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $fvis:vis $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            $($(#[$fmeta])* $fvis $field: $ty,)*
            /// png | jpeg (default: as captured when it fits the budget, else JPEG).
            #[serde(default)]
            pub format: Option<Format>,
            /// JPEG quality 1–100 (first try).
            #[serde(default)]
            pub quality: Option<u8>,
            /// Longest side in pixels (default 1568).
            #[serde(default)]
            pub max_width: Option<u32>,
            /// Image size budget in bytes (default 204800, at most 1048576).
            #[serde(default)]
            pub max_bytes: Option<u32>,
            /// safe (default: secret fields masked) | off.
            #[serde(default)]
            pub redact: Option<MaskFields>,
            /// Write the image to this absolute .png/.jpg path instead of returning it (under
            /// the upload roots: config upload.roots, dev-session projects, the uploads folder).
            #[serde(default)]
            pub save_path: Option<String>,
            /// With savePath: replace an existing image there (default false: ALREADY_EXISTS).
            #[serde(default)]
            pub overwrite: Option<bool>,
            /// Default 15000.
            #[serde(default)]
            pub timeout_ms: Option<u64>,
        }

        impl $name {
            fn image(&self) -> ImageArgs {
                ImageArgs {
                    format: self.format,
                    quality: self.quality,
                    max_width: self.max_width,
                    max_bytes: self.max_bytes,
                    redact: self.redact,
                    save_path: self.save_path.clone(),
                    overwrite: self.overwrite,
                    timeout_ms: self.timeout_ms,
                }
            }
        }
    };
}

image_args! {
    /// Arguments of `screenshot_page` (plus the tab's address).
    PageArgs {
        /// The whole page (up to 16384 CSS px tall), not only the viewport.
        #[serde(default)]
        pub full_page: bool,
        #[serde(default)]
        pub clip: Option<Clip>,
    }
}

image_args! {
    /// Arguments of `screenshot_by_uid` (plus the tab's address).
    UidArgs {
        /// A ref (e12) from take_snapshot.
        pub uid: String,
        /// CSS pixels around the element (default 8).
        #[serde(default)]
        pub padding: Option<u32>,
    }
}

const SCREENSHOT_PAGE: ToolDef = ToolDef {
    name: "screenshot_page",
    title: "Screenshot a page",
    toolset: Toolset::Capture,
    description: "Image of a tab's viewport (fullPage: the whole page; clip: a region), background tabs included, without focusing it. Fitted to ≤200 KB and ≤1568 px (maxBytes, maxWidth); format png|jpeg (default: as captured if it fits, else JPEG). Secret fields masked unless redact: off. savePath writes a file instead (under the upload roots; overwrite: true replaces one).",
    // savePath writes a file (over an existing one only with overwrite: true, an image
    // the agent names); the image alone reads.
    effect: Effect::Additive,
    input_schema: schema_with_target::<PageArgs>,
    run: |ctx, _call, args| Box::pin(screenshot_page(ctx, args)),
};

async fn screenshot_page(ctx: Ctx, args: Value) -> ToolResult {
    let (target, a) = decode_with_target::<PageArgs>(args)?;
    if a.full_page && a.clip.is_some() {
        return Err(ErrorBody::invalid_argument("give fullPage or clip, not both"));
    }
    let params = PageScreenshot {
        full_page: Some(a.full_page),
        clip: a.clip.map(|c| Region { x: c.x, y: c.y, width: c.width, height: c.height }),
        ..PageScreenshot::default()
    };
    let what = if a.full_page {
        "full page"
    } else if a.clip.is_some() {
        "clip"
    } else {
        "viewport"
    };
    shoot(ctx, target, params, a.image(), what).await
}

const SCREENSHOT_BY_UID: ToolDef = ToolDef {
    name: "screenshot_by_uid",
    title: "Screenshot an element",
    toolset: Toolset::Capture,
    description: "Image of the element a ref names (inside frames too), padded, scrolled into view first; same budget, format, redact and savePath as screenshot_page.",
    effect: Effect::Additive,
    input_schema: schema_with_target::<UidArgs>,
    run: |ctx, _call, args| Box::pin(screenshot_by_uid(ctx, args)),
};

async fn screenshot_by_uid(ctx: Ctx, args: Value) -> ToolResult {
    let (target, a) = decode_with_target::<UidArgs>(args)?;
    let params = PageScreenshot {
        reference: Some(a.uid.clone()),
        padding: a.padding.map(u64::from),
        ..PageScreenshot::default()
    };
    shoot(ctx, target, params, a.image(), "element").await
}

async fn shoot(
    ctx: Ctx,
    target: TabTarget,
    mut params: PageScreenshot,
    a: ImageArgs,
    what: &str,
) -> ToolResult {
    let overwrite = a.overwrite.unwrap_or(false);
    let save = match &a.save_path {
        Some(p) => Some(capture_save::target(Path::new(p), &upload::rule(&ctx)?, overwrite)?),
        None => None,
    };
    let mut format = a.format.unwrap_or_default();
    if let Some(path) = &save {
        format = format_for_path(path, format)?;
    }
    params.format = Some(format.as_str().to_owned());
    params.quality = a.quality.map(u64::from);
    params.max_width = a.max_width.map(u64::from);
    params.max_bytes = a.max_bytes.map(u64::from);
    if a.redact == Some(MaskFields::Off) {
        params.redact = Some("off".to_owned());
    }
    let timeout = Timeout::from_arg(a.timeout_ms, PageScreenshot::TIMEOUT_MS)?;
    params.timeout_ms = Some(timeout.ms());
    let (_, shot) = ctx.browser.call_tab(&target, params, timeout).await?;
    let mime = if shot.format == "jpeg" { "image/jpeg" } else { "image/png" };
    let mut text = format!(
        "tabId={}: {what} {}×{} {} {} KB ({}{}{})",
        shot.tab.tab_id,
        shot.width,
        shot.height,
        shot.format,
        shot.bytes.div_ceil(1024),
        shot.mechanism,
        if shot.scaled { ", scaled to the budget" } else { "" },
        if shot.masked > 0 { format!(", {} secret field(s) masked", shot.masked) } else { String::new() },
    );
    let mut structured = to_value(&shot)?;
    if let Some(path) = save {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(shot.data.as_bytes())
            .map_err(|e| ErrorBody::internal(format!("the helper's image is not base64: {e}")))?;
        capture_save::write(&path, &bytes, overwrite)?;
        text.push_str(&format!("\nsaved to {}", path.display()));
        structured["savedTo"] = json!(path.display().to_string());
        return Ok(ToolOutput { structured, text: Some(text) });
    }
    Ok(ToolOutput::with_image(structured, text, mime, shot.data))
}

/// The format a file's extension asks for; a conflicting `format` is an error.
fn format_for_path(path: &Path, asked: Format) -> Result<Format, ErrorBody> {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let by_ext = if ext == "png" { Format::Png } else { Format::Jpeg };
    if asked != Format::Auto && asked != by_ext {
        return Err(ErrorBody::invalid_argument(format!(
            "format {} does not match savePath's .{ext}",
            asked.as_str()
        )));
    }
    Ok(by_ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_format_and_a_conflict_is_an_error() {
        assert_eq!(format_for_path(Path::new("/t/a.PNG"), Format::Auto).unwrap(), Format::Png);
        assert_eq!(format_for_path(Path::new("/t/a.jpg"), Format::Auto).unwrap(), Format::Jpeg);
        assert!(format_for_path(Path::new("/t/a.jpg"), Format::Png).is_err());
    }
}
