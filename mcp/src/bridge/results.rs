//! Decoding the helper's answers into their types (declared beside each method in
//! `webext_mcp_host::protocol::methods`): a renamed or missing field fails as `INTERNAL`
//! naming it ("the helper's `tabs.new` result lacked `tab.url`") instead of becoming an
//! empty string. The types are re-exported here for the tools.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use webext_mcp_host::protocol::ErrorBody;

pub use webext_mcp_host::protocol::methods::{
    Acted, Armed, BrowserReport, Changes, Cleared, Closed, DialogReply, Evaluated, Extra, FormFilled, Pong,
    Resolved, Snapshot, Staged, Tab, TabList, TabPlace, TabReply, UploadCancelled, UploadOpened, Waited,
};

/// Deserializes `method`'s result; a mismatch is `INTERNAL` naming the field.
pub fn decode<R: DeserializeOwned>(method: &str, value: Value) -> Result<R, ErrorBody> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let prefix = if path == "." { String::new() } else { format!("{path}.") };
        let message = match missing_field(&inner) {
            Some(field) => format!("the helper's `{method}` result lacked `{prefix}{field}`"),
            None if path == "." => format!("the helper's `{method}` result is malformed: {inner}"),
            None => format!("the helper's `{method}` result has a bad `{path}`: {inner}"),
        };
        ErrorBody::internal(message)
            .with_hint("the helper extension and this server disagree; reinstall both from one release")
    })
}

/// `missing field `x`` → `x`.
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.split('`').next()
}

/// The structured content of a typed value.
pub fn to_value<T: Serialize>(value: &T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value).map_err(|e| ErrorBody::internal(format!("encoding a result: {e}")))
}

#[cfg(test)]
mod tests {
    //! The samples are the helper's replies as a pages test run saw them (Chromium 156,
    //! `WEBEXT_MCP_EVALUATE_SCRIPT=true`, the corpus' forms and table pages).
    use super::*;

    use serde_json::json;
    use webext_mcp_host::protocol::ErrorCode;

    fn tab() -> Value {
        json!({"active":true,"container":null,"index":1,"status":"complete","tabId":477453831,"title":"Forms",
               "url":"http://127.0.0.1:38733/forms.html","windowId":477453829})
    }

    /// Decodes `sample` as `R`, and checks that encoding it again gives the same JSON (what
    /// the agent sees is what the helper sent).
    fn round_trip<R: DeserializeOwned + Serialize>(method: &str, sample: Value) -> R {
        let typed: R = decode(method, sample.clone()).unwrap();
        assert_eq!(to_value(&typed).unwrap(), sample, "{method}");
        typed
    }

    #[test]
    fn tab_lists_decode() {
        let list: TabList = round_trip(
            "tabs.list",
            json!({"activeTabId":477453830,"fingerprint":"38463679724e","tabs":[
                {"active":true,"container":null,"index":0,"status":"complete","tabId":477453830,"title":"about:blank",
                 "url":"about:blank","windowId":477453829},
                tab(),
                {"active":false,"container":null,"index":2,"status":"complete","tabId":477453832,"title":"Table",
                 "url":"http://127.0.0.1:38733/table.html","windowId":477453829}]}),
        );
        assert_eq!(list.tabs[1].url, "http://127.0.0.1:38733/forms.html");
        assert_eq!(list.tabs[1].container, None);
        assert_eq!(list.active_tab_id, Some(477453830));
        // Firefox containers name the tab's cookie store.
        let mut ff = tab();
        ff["container"] = json!("firefox-container-1");
        let list: TabList =
            round_trip("tabs.list", json!({"tabs": [ff], "fingerprint": "abc", "activeTabId": null}));
        assert_eq!(list.tabs[0].container.as_deref(), Some("firefox-container-1"));
        assert_eq!(list.active_tab_id, None);
    }

    #[test]
    fn tab_replies_decode() {
        let table = json!({"active":false,"container":null,"index":2,"status":"complete","tabId":477453832,
                           "title":"Table","url":"http://127.0.0.1:38733/table.html","windowId":477453829});
        let new: TabReply = round_trip("tabs.new", json!({"loaded":true,"tab":table}));
        assert_eq!(new.tab.tab_id, 477453832);
        assert_eq!(new.extra["loaded"], true);
        let nav: TabReply = round_trip("tabs.navigate", json!({"loaded":true,"tab":table}));
        assert_eq!(nav.tab.title, "Table");
        let sel: TabReply = round_trip("tabs.select", json!({"tab":tab()}));
        assert!(sel.tab.active);
        let closed: Closed = round_trip("tabs.close", json!({"closed":143790064}));
        assert_eq!(closed.closed, 143790064);
    }

    #[test]
    fn browser_info_decodes() {
        let info: BrowserReport = round_trip(
            "browser.info",
            json!({"browser":"chromium","browserVersion":"156.0.8078.114","extVersion":"0.1.0",
                   "label":"chromium-58ddc7","platform":{"arch":"x86-64","os":"linux"},
                   "tabs":[{"windowId":477453829,"tabId":477453830},{"windowId":477453829,"tabId":477453831}],
                   "capabilities":["tabs","scripting","engine"],"lastError":null,"debuggerSessions":0,
                   "engineVersion":"0.1.0"}),
        );
        assert_eq!(info.places(), [(477453829, 477453830), (477453829, 477453831)]);
        assert_eq!(info.extra["engineVersion"], "0.1.0");
        // The scripted peer (`host/src/peer.rs`) has no debugger mode.
        let peer: BrowserReport = decode(
            "browser.info",
            json!({"browser": "firefox", "browserVersion": "128.0", "extVersion": "0.1.0", "label": "home",
                   "platform": {"os": "linux", "arch": "x86_64"}, "tabs": [], "capabilities": []}),
        )
        .unwrap();
        assert_eq!(peer.debugger_sessions, 0);
    }

    #[test]
    fn pongs_decode() {
        let p: Pong = round_trip("ping", json!({"payload":"hi","pong":true,"time":1796119493619u64}));
        assert_eq!(p.payload.as_deref(), Some("hi"));
        let p: Pong = round_trip("ping", json!({"pong":true,"time":1796119493619u64}));
        assert_eq!(p.payload, None);
    }

    #[test]
    fn snapshots_decode() {
        let s: Snapshot = round_trip(
            "page.snapshot",
            json!({"collapsed":0,"frames":1,"nextCursor":"s1:249","nodes":32,"offset":0,"refs":30,"snapshotId":"s1",
                   "tab":tab(),
                   "text":"[e3] heading \"Every input\" level=1\n[e4] form \"Signup\"\n  [e6] textbox \"Name\" value=\"Ada\"\n",
                   "timings":{"collectMs":27,"engineMs":8,"helperMs":41,"jsonMs":1,"mapMs":2,"pageMs":1,"prepMs":4,
                              "transferMs":0,"walkMs":6,"walkers":["main"]},
                   "totalBytes":1119,"visibility":"visible"}),
        );
        assert_eq!(s.next_cursor.as_deref(), Some("s1:249"));
        assert_eq!(s.extra["timings"]["helperMs"], 41);
        // A later page (`nextPage`): no figures, and no cursor on the last one.
        let s: Snapshot = round_trip(
            "page.snapshot",
            json!({"snapshotId":"s1","tab":tab(),"text":"  [e12] checkbox","offset":249,"nextCursor":null,
                   "totalBytes":1119}),
        );
        assert_eq!(s.offset, 249);
        let c: Cleared = round_trip("page.clearSnapshot", json!({"cleared":true}));
        assert!(c.cleared);
        let r: Resolved = round_trip(
            "page.resolveRef",
            json!({"frame":{"frameId":0,"ordinal":0,"url":"http://127.0.0.1:38733/forms.html"},"ref":"e2",
                   "selector":"html > body","shadowPath":["html > body"],"tag":"body","unique":true}),
        );
        assert_eq!((r.reference.as_str(), r.selector.as_str()), ("e2", "html > body"));
    }

    #[test]
    fn action_results_decode() {
        let a: Acted = round_trip(
            "page.act",
            json!({"action":"click","changes":null,"element":"input","input":"synthetic","navigated":false,
                   "ref":"e12","settledMs":49,"tab":tab(),"waitedMs":59}),
        );
        assert_eq!((a.reference.as_deref(), a.element.as_deref()), (Some("e12"), Some("input")));
        assert!(a.changes.is_none());
        let a: Acted = round_trip(
            "page.act",
            json!({"action": "click", "ref": "e3", "element": "button \"Add\"", "input": "synthetic",
                   "waitedMs": 3, "navigated": false, "tab": tab(), "settledMs": 55,
                   "changes": {"added": ["[e9] button \"Delete row 2\""], "removed": [], "truncated": false}}),
        );
        assert_eq!(a.changes.unwrap().added.len(), 1);
        let a: Acted = round_trip(
            "page.act",
            json!({"action": "press", "input": "synthetic", "navigated": true, "tab": tab(),
                   "settledMs": 300, "changes": null}),
        );
        assert!(a.navigated && a.reference.is_none() && a.changes.is_none());
        let f: FormFilled = round_trip(
            "page.fillForm",
            json!({"action": "fill_form", "filled": [{"ref": "e6", "element": "textbox \"Name\"", "value": "Ada"}, {"ref": "e8", "element": "checkbox \"Agree\"", "value": true}], "input": "synthetic",
                   "navigated": false, "tab": tab(), "settledMs": 50, "changes": null}),
        );
        assert_eq!(f.filled.len(), 2);
        let w: Waited = round_trip(
            "page.waitFor",
            json!({"element":"form#f \"Signup\"","met":true,"ref":"e4","waitedMs":1}),
        );
        assert_eq!(w.waited_ms, 1);
        let _: Waited = round_trip("page.waitFor", json!({"met": true, "waitedMs": 0}));
    }

    #[test]
    fn evaluations_decode() {
        let e: Evaluated = round_trip(
            "page.evaluate",
            json!({"json":"\"Forms\"","nextCursor":null,"offset":0,"resultId":"r1","tab":tab(),"totalBytes":7,
                   "via":"main-world"}),
        );
        assert_eq!(e.json, "\"Forms\"");
    }

    #[test]
    fn a_missing_field_is_internal_naming_it() {
        let mut t = tab();
        t.as_object_mut().unwrap().remove("url");
        let e = decode::<TabReply>("tabs.new", json!({"tab": t, "loaded": true})).unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert_eq!(e.message, "the helper's `tabs.new` result lacked `tab.url`");
        let e = decode::<Closed>("tabs.close", json!({})).unwrap_err();
        assert_eq!(e.message, "the helper's `tabs.close` result lacked `closed`");
        let e = decode::<TabList>("tabs.list", json!({"tabs": [tab(), {"tabId": "x"}], "fingerprint": "f"}))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(e.message.contains("`tabs[1].tabId`"), "{}", e.message);
        let e = decode::<Waited>("page.waitFor", json!(null)).unwrap_err();
        assert!(e.message.contains("`page.waitFor`") && e.message.contains("malformed"), "{}", e.message);
    }
}
