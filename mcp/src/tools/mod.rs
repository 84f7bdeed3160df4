//! Every tool, one folder per toolset (the groups `tools/list` and `--toolsets` name), and the
//! machinery they share in [`registry`]. The MCP server (`server.rs`) and the CLI twin
//! (`webext-mcp call`) both reach a tool through [`call`], so they cannot drift.
//!
//! ```text
//! server.rs / cli ──▶ call(name) ──▶ registry::run ──▶ <toolset>/<tool>.rs ──▶ bridge ──▶ host protocol
//!                                                                         └─▶ build, session, catalog, …
//! ```
//!
//! A tool file holds its tools' definitions ([`ToolDef`]) beside the functions that run them,
//! its argument types (which are also the CLI flags) and its text forms. Adding one:
//! `docs/adding-a-tool.md`.

use std::sync::OnceLock;

use serde_json::Value;

pub mod browsers;
pub mod build;
pub mod capture;
#[cfg(test)]
mod checks;
pub mod core;
pub mod debug;
pub mod dev;
pub mod input;
pub mod observe;
pub mod pages;
pub mod registry;
pub mod snapshot;
pub mod storage;
pub mod templates;

pub use registry::{
    Call, Context, Ctx, DEFAULT_TOOLS, Effect, HEARTBEAT, IMAGE_FIELD, Progress, ProgressSink, Selection,
    ToolDef, ToolFuture, ToolOutput, ToolResult, Toolset, decode, schema_of,
};

/// Every tool, in the order `tools/list` has always given them.
pub fn registry() -> &'static [ToolDef] {
    static TOOLS: OnceLock<Vec<ToolDef>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        [
            core::info::tools(),
            core::install::tools(),
            build::extension_build::tools(),
            build::validate::tools(),
            dev::sessions::tools(),
            dev::source_inspect::tools(),
            dev::logs::tools(),
            dev::act::tools(),
            browsers::managed::tools(),
            templates::catalog::tools(),
            templates::add_feature::tools(),
            pages::connected::tools(),
            debug::ping::tools(),
            pages::tabs::tools(),
            pages::containers::tools(),
            snapshot::take_snapshot::tools(),
            snapshot::reading::tools(),
            input::actions::tools(),
            input::upload::tools(),
            input::dialogs::tools(),
            capture::screenshot::tools(),
            pages::viewport::tools(),
            storage::cookies::tools(),
            storage::web_storage::tools(),
            observe::console::tools(),
            observe::network::tools(),
            debug::echo::tools(),
        ]
        .into_iter()
        .flatten()
        .collect()
    })
}

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    registry().iter().find(|t| t.name == name)
}

/// Runs a tool by name (progress, heartbeat and cancellation: [`registry::run`]). `None` when
/// no tool has that name.
pub async fn call(ctx: &Ctx, call: Call, name: &str, args: Value) -> Option<ToolResult> {
    let def = find(name)?;
    Some(registry::run(ctx, call, def, args).await)
}
