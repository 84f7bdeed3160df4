//! The MCP server: rmcp over stdio, tools from the registry filtered by toolset.
//!
//! Tool schemas are built on the first `tools/list`, not at start-up, so `initialize` is
//! answered as soon as the process runs.

use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::error::to_call_result;
use crate::tools::{self, Ctx};

const INSTRUCTIONS: &str = "webext-mcp builds browser extensions and drives real browsers. \
Failures come back as tool results whose text starts with a stable code (e.g. NOT_FOUND) \
followed by what to do next. Call server_info for versions, toolsets and paths. \
Browser tools take `browser` (name, profile label or dev-session id; default: the selected \
browser). Per-tab tools take `tabId` (from list_pages, preferred) or `pageIdx` (position in \
list_pages), optionally `expectTabSet` (list_pages' tabSet: STALE, nothing done, if the tab \
set changed); with neither, the last page this server opened or selected. Refs like e12 \
come from take_snapshot.";

/// The MCP protocol revision this server announces.
pub fn mcp_protocol_version() -> String {
    ProtocolVersion::LATEST_WITH_INITIALIZE.to_string()
}

#[derive(Clone)]
pub struct WebextServer {
    ctx: Ctx,
    listed: Arc<OnceLock<Vec<Tool>>>,
}

impl WebextServer {
    pub fn new(ctx: Ctx) -> Self {
        WebextServer { ctx, listed: Arc::new(OnceLock::new()) }
    }

    fn listed_tools(&self) -> &[Tool] {
        self.listed.get_or_init(|| {
            tools::registry()
                .iter()
                .filter(|t| self.ctx.toolsets.contains(&t.toolset))
                .map(|t| {
                    let mut tool = Tool::new(t.name, t.description, Arc::new((t.input_schema)()));
                    let mut ann = ToolAnnotations::with_title(t.title);
                    // false is the protocol's default: only say it when it is true.
                    ann.read_only_hint = t.read_only.then_some(true);
                    tool.annotations = Some(ann);
                    tool
                })
                .collect()
        })
    }
}

impl ServerHandler for WebextServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.listed_tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed_tools().iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        match tools::call(&self.ctx, &request.name, args).await {
            Some(result) => Ok(to_call_result(result).into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool `{}`; tools/list shows the available ones", request.name),
                None,
            )),
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(ctx: Ctx) -> anyhow::Result<()> {
    let service = WebextServer::new(ctx).serve(rmcp::transport::stdio()).await?;
    let reason = service.waiting().await?;
    tracing::debug!(?reason, "MCP session ended");
    Ok(())
}
