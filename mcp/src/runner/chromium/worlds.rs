//! Calls into a tab's JavaScript worlds beyond a plain evaluation: with the page's closed
//! shadow roots handed over (`Runner::call_with_closed_shadow_roots`), and in an isolated
//! world of our own (`Runner::call_isolated`). Each runs on a CDP session of its own, without
//! `Runtime.enable`, so the monitor stays the only one that reports the tab's console.

use std::time::Duration;

use serde_json::{Value, json};

use super::{ChromiumRunner, by_value};
use crate::runner::RunnerError;
use crate::runner::answer;
use crate::runner::cdp::CdpClient;

impl ChromiumRunner {
    /// [`Runner::call_with_closed_shadow_roots`]: the closed roots are found with
    /// `DOM.getDocument {pierce}` and passed to `Runtime.callFunctionOn`, on a session of our
    /// own without `Runtime.enable`, so the monitor stays the only one that reports this
    /// tab's console.
    pub(super) async fn call_with_closed(
        &self,
        target_id: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
    ) -> Result<Option<Value>, RunnerError> {
        self.on_own_session(target_id, |cdp, session| async move {
            let closed = closed_root_objects(&cdp, &session, None, timeout).await?;
            let Some(this) = closed.first().cloned() else { return Ok(None) };
            let mut args = vec![json!({ "value": arg })];
            args.extend(closed.into_iter().map(|obj| json!({ "objectId": obj })));
            let call = json!({"functionDeclaration": function, "objectId": this, "arguments": args,
                              "returnByValue": true, "awaitPromise": true});
            let reply = cdp.send_to(Some(&session), "Runtime.callFunctionOn", call, timeout).await?;
            by_value(reply).map(Some)
        })
        .await
    }

    /// [`Runner::call_isolated`]: a world of our own in the tab's main frame
    /// (`Page.createIsolatedWorld`: the page's DOM with fresh JavaScript built-ins, which the
    /// page's scripts cannot patch), the closed shadow roots resolved into it, and the function
    /// called there, on a session of our own as in `call_with_closed`.
    pub(super) async fn call_isolated_world(
        &self,
        target_id: &str,
        function: &str,
        arg: &Value,
        timeout: Duration,
    ) -> Result<Value, RunnerError> {
        self.on_own_session(target_id, |cdp, session| async move {
            let tree = cdp.send_to(Some(&session), "Page.getFrameTree", json!({}), timeout).await?;
            let frame = answer::owned(&tree["frameTree"]["frame"], "id", "Page.getFrameTree frame")?;
            let world = cdp
                .send_to(
                    Some(&session),
                    "Page.createIsolatedWorld",
                    json!({"frameId": frame, "worldName": "webext-mcp-behaviour"}),
                    timeout,
                )
                .await?;
            let context = world["executionContextId"].as_i64().ok_or_else(|| RunnerError::Answer {
                what: "Page.createIsolatedWorld".into(),
                field: "executionContextId".into(),
            })?;
            let closed = closed_root_objects(&cdp, &session, Some(context), timeout).await?;
            let mut args = vec![json!({ "value": arg })];
            args.extend(closed.into_iter().map(|obj| json!({ "objectId": obj })));
            let call = json!({"functionDeclaration": function, "executionContextId": context,
                              "arguments": args, "returnByValue": true, "awaitPromise": true});
            let reply = cdp.send_to(Some(&session), "Runtime.callFunctionOn", call, timeout).await?;
            by_value(reply)
        })
        .await
    }

    /// Runs `work` on a CDP session of our own attached to the tab, detached afterwards.
    async fn on_own_session<T, F, Fut>(&self, target_id: &str, work: F) -> Result<T, RunnerError>
    where
        F: FnOnce(CdpClient, String) -> Fut,
        Fut: std::future::Future<Output = Result<T, RunnerError>>,
    {
        let attached =
            self.cdp.send("Target.attachToTarget", json!({"targetId": target_id, "flatten": true})).await?;
        let Some(session) = attached["sessionId"].as_str().map(str::to_owned) else {
            return Err(RunnerError::Script { message: format!("cannot attach to tab {target_id}") });
        };
        let result = work(self.cdp.clone(), session.clone()).await;
        self.cdp.send_detached(None, "Target.detachFromTarget", json!({ "sessionId": session }));
        result
    }
}

/// The closed shadow roots of the tab's top document (at most [`crate::runner::MAX_CLOSED_ROOTS`]) as
/// remote objects, in the page's main world or in `context`.
async fn closed_root_objects(
    cdp: &CdpClient,
    session: &str,
    context: Option<i64>,
    timeout: Duration,
) -> Result<Vec<String>, RunnerError> {
    let doc =
        cdp.send_to(Some(session), "DOM.getDocument", json!({"depth": -1, "pierce": true}), timeout).await?;
    let mut closed = Vec::new();
    closed_roots(&doc["root"], &mut closed);
    let mut objects = Vec::new();
    for id in closed.into_iter().take(crate::runner::MAX_CLOSED_ROOTS) {
        let mut params = json!({ "backendNodeId": id });
        if let Some(context) = context {
            params["executionContextId"] = json!(context);
        }
        let r = cdp.send_to(Some(session), "DOM.resolveNode", params, timeout).await?;
        if let Some(obj) = r["object"]["objectId"].as_str() {
            objects.push(obj.to_owned());
        }
    }
    Ok(objects)
}

/// The backend node ids of the closed shadow roots of a `DOM.getDocument` tree (the top
/// document only: a frame's nodes live in another JavaScript context).
fn closed_roots(node: &Value, out: &mut Vec<u64>) {
    for root in node["shadowRoots"].as_array().into_iter().flatten() {
        if root["shadowRootType"] == "closed"
            && let Some(id) = root["backendNodeId"].as_u64()
        {
            out.push(id);
        }
        closed_roots(root, out);
    }
    for child in node["children"].as_array().into_iter().flatten() {
        closed_roots(child, out);
    }
    if let Some(t) = node.get("templateContent") {
        closed_roots(t, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_roots_are_found_at_any_depth_but_not_in_frames() {
        let tree = json!({"children": [
            {"shadowRoots": [{"shadowRootType": "open", "backendNodeId": 1,
                              "children": [{"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 2}]}]}]},
            {"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 3}]},
            {"contentDocument": {"children": [{"shadowRoots": [{"shadowRootType": "closed", "backendNodeId": 4}]}]}},
        ]});
        let mut out = Vec::new();
        closed_roots(&tree, &mut out);
        assert_eq!(out, [2, 3]);
    }
}
