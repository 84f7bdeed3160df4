//! What every tool may use: one [`Context`] per server (or CLI run), shared by its calls.

use std::sync::Arc;

use crate::config::Config;
use crate::paths::{Env, Paths};

use super::Selection;

/// Everything a tool may use. Shared by every call of one server (or one CLI run).
pub struct Context {
    pub paths: Paths,
    pub config: Config,
    pub env: Env,
    /// What `tools/list` shows; `enable_toolsets` widens it during the session.
    pub toolsets: std::sync::RwLock<Selection>,
    /// Connections to browser hosts and the browser chosen by `select_browser`.
    pub browser: crate::bridge::BrowserState,
    /// Every tool (`tools::registry()`, handed in by whoever builds the context), for the
    /// tools that describe the others (`server_info`, `enable_toolsets`).
    pub tools: &'static [super::ToolDef],
}

pub type Ctx = Arc<Context>;
