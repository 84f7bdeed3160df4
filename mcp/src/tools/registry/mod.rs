//! The machinery every tool shares: its definition ([`ToolDef`], [`Effect`]), its context,
//! the call (progress, cancellation, heartbeat), its output, argument decoding and schemas,
//! and background jobs for work that outlives one MCP answer. The tools themselves live in
//! one folder per toolset beside this one; `tools::registry()` lists them.
//!
//! ```text
//! server / CLI ──▶ tools::call(name) ──▶ run(def): heartbeat, dialogs ──▶ (def.run)(ctx, call, args)
//!                                                                     └─▶ decode::<Args>(args) ─▶ …
//! ```

use std::sync::Arc;

use serde_json::{Map, Value};

mod call;
mod context;
pub mod jobs;
mod output;
pub mod schema;
pub mod shared;
mod toolset;

pub use call::{Call, HEARTBEAT, Progress, ProgressSink};
pub use context::{Context, Ctx};
pub use output::{IMAGE_FIELD, ToolFuture, ToolOutput, ToolResult, dialog_lines};
pub use schema::{decode, schema_of};
pub use shared::{
    ArgGroup, Groups, Paging, Wait, decode_with, decode_with_target, schema_with, schema_with_target,
};
pub use toolset::{DEFAULT_TOOLS, Selection, Toolset};

/// What a tool does to the world, for the MCP annotations clients use to decide what needs
/// the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes nothing outside webext-mcp (`readOnlyHint`).
    Read,
    /// Adds or acts (opens a tab, clicks, creates a project); never deletes or overwrites
    /// what it did not make.
    Additive,
    /// Acts, and calling it again with the same arguments changes nothing more
    /// (`idempotentHint`): selecting, filling, installing.
    Idempotent,
    /// May overwrite or remove what exists (`destructiveHint`): replacing `dist/`, closing a
    /// tab, running arbitrary page script, uninstalling.
    Destructive,
}

/// One tool.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub toolset: Toolset,
    pub description: &'static str,
    pub effect: Effect,
    pub input_schema: fn() -> Map<String, Value>,
    pub run: fn(Ctx, Call, Value) -> ToolFuture,
}

impl ToolDef {
    /// Whether the tool deals with the open world (web pages in a real browser) rather than
    /// only local files and processes (`openWorldHint`).
    pub fn open_world(&self) -> bool {
        // Installing a browser downloads from the vendor: the one open-world tool outside
        // the page groups.
        matches!(
            self.toolset,
            Toolset::Pages
                | Toolset::Snapshot
                | Toolset::Input
                | Toolset::Capture
                | Toolset::Storage
                | Toolset::Observe
        ) || self.name == "extension_install_browser"
    }
}

/// Runs one tool. A call that runs longer than
/// [`HEARTBEAT`] reports progress once a second (elapsed seconds and the tool's name) when
/// the caller listens and the tool said nothing itself in that second, so every long call
/// has progress even where the tool reports none of its own. Cancellation is the caller's: the MCP server drops this future when the client
/// cancels (ending every wait inside it), the CLI ends with Ctrl-C.
pub async fn run(ctx: &Ctx, call: Call, def: &ToolDef, args: Value) -> ToolResult {
    let name = def.name;
    tracing::debug!(tool = name, "call");
    let started = std::time::Instant::now();
    let run = with_dialogs((def.run)(Arc::clone(ctx), call.clone(), args));
    if !call.wants_progress() {
        return run.await;
    }
    tokio::pin!(run);
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    loop {
        tokio::select! {
            result = &mut run => return result,
            _ = beat.tick() => {
                if !call.reported_within(HEARTBEAT) {
                    let secs = started.elapsed().as_secs_f64().floor();
                    call.report(secs, None, format!("{name}: still working ({secs:.0} s)"));
                }
            }
        }
    }
}

/// Every result that met a page dialog says so under its text, whatever the tool.
async fn with_dialogs(run: impl std::future::Future<Output = ToolResult>) -> ToolResult {
    let mut out = run.await?;
    if let Some(lines) = dialog_lines(&out.structured) {
        let text = out.text.take().unwrap_or_default();
        out.text = Some(if text.is_empty() { lines } else { format!("{text}\n{lines}") });
    }
    Ok(out)
}
