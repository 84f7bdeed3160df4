//! The MCP server: rmcp over stdio, tools from the registry filtered by toolset.
//!
//! Tool schemas are built on the first `tools/list`, not at start-up, so `initialize` is
//! answered as soon as the process runs.

use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, ToolAnnotations,
    UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::resources::{self, subscriptions::Notifier, subscriptions::Subscriptions};
use crate::tools::{self, Ctx, ToolResult};

const INSTRUCTIONS: &str = "webext-mcp builds browser extensions and drives real browsers. \
Failures come back as tool results whose text starts with a stable code (e.g. NOT_FOUND) \
followed by what to do next. Call server_info for versions, toolsets and paths. \
Browser tools take `browser` (name, profile label or dev-session id; default: the selected \
browser). Per-tab tools take `tabId` (from list_pages, preferred) or `pageIdx` (position in \
list_pages), optionally `expectTabSet` (list_pages' tabSet: STALE, nothing done, if the tab \
set changed); with neither, the last page this server opened or selected. `timeoutMs` is \
how long a call may wait, in milliseconds (each tool has its own default). Refs like e12 \
come from take_snapshot.";

#[derive(Clone)]
pub struct WebextServer {
    ctx: Ctx,
    /// Every tool in MCP form, built on first use (registry order).
    all: Arc<OnceLock<Vec<Tool>>>,
    /// `console://` / `network://` subscriptions of this client.
    subscriptions: Arc<Subscriptions>,
}

impl WebextServer {
    pub fn new(ctx: Ctx) -> Self {
        WebextServer { ctx, all: Arc::new(OnceLock::new()), subscriptions: Arc::default() }
    }

    /// The tools the current selection shows; `enable_toolsets` changes it mid-session.
    fn listed_tools(&self) -> Vec<Tool> {
        let all = self.all.get_or_init(|| {
            tools::registry()
                .iter()
                .map(|t| {
                    let mut tool = Tool::new(t.name, t.description, Arc::new((t.input_schema)()));
                    tool.annotations = Some(annotations(t));
                    tool
                })
                .collect()
        });
        let Ok(selection) = self.ctx.toolsets.read() else { return all.clone() };
        tools::registry()
            .iter()
            .zip(all)
            .filter(|(def, _)| selection.shows(def))
            .map(|(_, t)| t.clone())
            .collect()
    }

    fn selection(&self) -> Option<tools::Selection> {
        self.ctx.toolsets.read().ok().map(|s| s.clone())
    }
}

/// The MCP annotations of a tool, leaving out what equals the protocol's defaults
/// (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint`
/// true) to keep `tools/list` small.
fn annotations(t: &tools::ToolDef) -> ToolAnnotations {
    use tools::Effect;
    let mut ann = ToolAnnotations::with_title(t.title);
    match t.effect {
        Effect::Read => ann.read_only_hint = Some(true),
        Effect::Additive => ann.destructive_hint = Some(false),
        Effect::Idempotent => {
            ann.destructive_hint = Some(false);
            ann.idempotent_hint = Some(true);
        }
        Effect::Destructive => {}
    }
    if !t.open_world() {
        ann.open_world_hint = Some(false);
    }
    ann
}

impl ServerHandler for WebextServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.listed_tools()))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::listed(&self.ctx)))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Ok(resources::read(&self.ctx, &request.uri, context.ct.clone()).await?.into())
    }

    /// Clients of protocol versions before 2026-07-28.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let notifier = Notifier::Legacy(context.peer.clone());
        self.subscriptions
            .subscribe(&self.ctx, &request.uri, notifier)
            .await
            .map(|_| ())
            .map_err(resources::to_mcp_error)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe_uri(&request.uri);
        Ok(())
    }

    /// 2026-07-28 `subscriptions/listen`: the resource URIs this server knows (well-formed
    /// console:// and network:// URIs); list-changed streams are not offered there.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|u| resources::parse(u).is_ok())
            .cloned()
            .collect();
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(uris);
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let uris = context.accepted().resource_subscriptions.clone().unwrap_or_default();
        let mut ids = Vec::new();
        for uri in &uris {
            match self.subscriptions.subscribe(&self.ctx, uri, Notifier::Listen(context.sink().clone())).await
            {
                Ok(id) => ids.push(id),
                // The stream is acknowledged already: a tab that cannot be read gets no
                // notifications (its read says why).
                Err(e) => tracing::info!(code = e.code.as_str(), "a listened resource cannot be watched"),
            }
        }
        context.cancelled().await;
        for id in ids {
            self.subscriptions.remove(id);
        }
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed_tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // MCP clients give up on a request by themselves (60 s by default): long work answers
        // with its status within the budget instead.
        let budget = std::time::Duration::from_millis(webext_mcp_host::protocol::timeouts::CALL_BUDGET_MS);
        let call = tools::Call::new(progress_sink(&context), context.ct.clone()).with_budget(budget);
        let before = self.selection();
        let run = tools::call(&self.ctx, call, &request.name, args);
        // A cancelled request's future is dropped, which ends every wait inside it; rmcp
        // sends no response for it.
        let result = tokio::select! {
            result = run => result,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled by the client");
                return Err(McpError::internal_error("cancelled by the client", None));
            }
        };
        if self.selection() != before {
            // enable_toolsets widened the list: tell clients that listen.
            if let Err(e) = context.peer.notify_tool_list_changed().await {
                tracing::debug!("tools/list_changed not sent: {e}");
            }
        }
        match result {
            Some(result) => Ok(to_call_result(result).into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool `{}`; tools/list shows the available ones", request.name),
                None,
            )),
        }
    }
}

/// `notifications/progress` for the request's `progressToken`, when the client sent one.
/// Reports are sent in order from one task, so a slow client never blocks the tool.
fn progress_sink(context: &RequestContext<RoleServer>) -> Option<tools::ProgressSink> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<tools::Progress>();
    tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            let mut param = ProgressNotificationParam::new(token.clone(), p.done).with_message(p.message);
            param.total = p.total;
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    Some(Arc::new(move |p| {
        let _ = tx.send(p);
    }))
}

/// A tool's outcome as MCP sees it. Failures are results with `isError: true`, the error
/// object in `structuredContent.error` and the text `CODE: message — hint`.
pub fn to_call_result(result: ToolResult) -> CallToolResult {
    match result {
        Ok(mut out) => {
            let image = out.take_image();
            let mut content = vec![ContentBlock::text(out.text())];
            if let Some((mime, data)) = image {
                content.push(ContentBlock::image(data, mime));
            }
            let mut r = CallToolResult::success(content);
            r.structured_content = Some(out.structured);
            r
        }
        Err(err) => {
            let mut r = CallToolResult::error(vec![ContentBlock::text(err.line())]);
            r.structured_content = Some(json!({ "error": err }));
            r
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin. Input passes [`stdio::judge`]
/// first (malformed lines get their JSON-RPC error); one writer owns stdout.
pub async fn serve_stdio(ctx: Ctx) -> anyhow::Result<()> {
    const PIPE: usize = 1 << 20;
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
    let (lines, queue) = tokio::sync::mpsc::channel(64);
    let writer = tokio::spawn(stdio::write_lines(tokio::io::stdout(), queue));
    let output = tokio::spawn(stdio::forward_output(from_rmcp, lines.clone()));
    let input = tokio::spawn(stdio::filter_input(tokio::io::stdin(), to_rmcp, lines));
    let service = WebextServer::new(ctx).serve((rmcp_in, rmcp_out)).await?;
    let reason = service.waiting().await?;
    tracing::debug!(?reason, "MCP session ended");
    input.abort();
    // rmcp's end of the output pipe is gone: the forwarder ends, then the writer drains.
    let _ = output.await;
    let _ = writer.await;
    Ok(())
}

mod stdio;

#[cfg(test)]
mod tests {
    use serde_json::json;
    use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

    use super::*;
    use crate::tools::ToolOutput;

    #[test]
    fn failure_maps_to_is_error_with_structured_error_and_line() {
        let err = ErrorBody::new(ErrorCode::Stale, "tab set changed").with_hint("call list_pages");
        let r = to_call_result(Err(err));
        assert_eq!(r.is_error, Some(true));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["structuredContent"]["error"]["code"], "STALE");
        assert_eq!(v["content"][0]["text"], "STALE: tab set changed — call list_pages");
    }

    #[test]
    fn an_image_becomes_an_image_block_and_leaves_the_structured_content() {
        let out = ToolOutput::with_image(json!({"width": 2}), "2 px".into(), "image/png", "AAAA".into());
        let v = serde_json::to_value(to_call_result(Ok(out))).unwrap();
        assert_eq!(v["content"][0]["text"], "2 px");
        assert_eq!(v["content"][1]["type"], "image");
        assert_eq!(v["content"][1]["data"], "AAAA");
        assert_eq!(v["content"][1]["mimeType"], "image/png");
        assert_eq!(v["structuredContent"], json!({"width": 2}));
    }

    #[test]
    fn success_carries_structured_content_and_text() {
        let r = to_call_result(Ok(ToolOutput::json(json!({"a": 1}))));
        assert_eq!(r.is_error, Some(false));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["structuredContent"]["a"], 1);
        assert_eq!(v["content"][0]["text"], r#"{"a":1}"#);
    }
}
