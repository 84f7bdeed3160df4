//! The helper connects by itself: its `hello` reaches a host started from the real binary,
//! and the browser tools answer through it (`webext-mcp call … --json`).

use serde_json::{Value, json};
use webext_mcp::browsers::Engine;
use webext_mcp_host::client::Client;
use webext_mcp_host::protocol::methods::BROWSER_INFO;
use webext_mcp_host::protocol::permissions::{Kind, Need, PERMISSIONS, PermissionSet};
use webext_mcp_host::protocol::{HELPER_CHROMIUM_ID, Hello, tab_set_fingerprint};

use crate::common::DEADLINE;
use crate::helper_support::{Host, is_default_label, launch};

fn in_order(mut set: PermissionSet) -> PermissionSet {
    set.permissions.sort();
    set.origins.sort();
    set
}

/// What the permission table requires of `family`'s helper, as `permissions.getAll()` says it.
fn required_permissions(family: Engine) -> PermissionSet {
    let engine = family;
    let mut set = PermissionSet::default();
    for p in PERMISSIONS.iter().filter(|p| p.need(engine) == Need::Required) {
        match p.kind {
            Kind::Api => set.permissions.push(p.name.to_owned()),
            Kind::Host => set.origins.push(p.name.to_owned()),
        }
    }
    in_order(set)
}

async fn hello_list_ping_and_info(family: Engine) {
    let b = launch(family, Host::Installed).await;
    let d = b.wait_host("after hello", |_| true).await;
    assert_eq!(d.browser, family.name(), "{d:?}");
    assert!(!d.browser_version.is_empty(), "{d:?}");
    assert_eq!(d.ext_version, env!("CARGO_PKG_VERSION"));
    assert!(is_default_label(&d.label, family.name()), "label {:?}", d.label);
    for cap in ["tabs", "scripting", "engine"] {
        assert!(d.capabilities.iter().any(|c| c == cap), "{cap} missing from {:?}", d.capabilities);
    }
    assert!(!d.capabilities.iter().any(|c| c == "debugger"), "debugger mode is off by default");

    let (code, list) = b.cli("list_connected_browsers", json!({})).await;
    assert_eq!(code, 0, "{list}");
    let rows = list["browsers"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{list}");
    assert_eq!(rows[0]["label"], d.label.as_str());
    assert_eq!(rows[0]["session"], b.session.as_str());
    assert!(rows[0]["tabCount"].as_u64().is_some_and(|n| n >= 1), "{list}");

    let (code, pong) = b.cli("ping", json!({"browser": b.session, "payload": "héllo 𝄞"})).await;
    assert_eq!(code, 0, "{pong}");
    assert_eq!(pong["reply"]["pong"], true, "{pong}");
    assert_eq!(pong["reply"]["payload"], "héllo 𝄞");

    let (code, info) = b.cli("get_browser_info", json!({"browser": d.label})).await;
    assert_eq!(code, 0, "{info}");
    assert_eq!(info["browser"], family.name());
    assert!(info["visibleTabCount"].as_u64().is_some_and(|n| n >= 1), "{info}");
    assert_eq!(info["tabSetFingerprint"].as_str().map(str::len), Some(12), "{info}");
    assert!(info["platform"]["os"].is_string(), "{info}");

    // The raw answer: tabs in fingerprint order, and the wasm engine instantiated lazily.
    let client = Client::connect(&d).await.unwrap();
    let raw = client.call(BROWSER_INFO, json!({}), DEADLINE).await.unwrap();
    assert_eq!(raw["engineVersion"], env!("CARGO_PKG_VERSION"), "engine did not load: {raw}");
    let tabs: Vec<(i64, i64)> = raw["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["windowId"].as_i64().unwrap(), t["tabId"].as_i64().unwrap()))
        .collect();
    let mut sorted = tabs.clone();
    sorted.sort_by_key(|(w, _)| *w);
    assert_eq!(tabs.iter().map(|t| t.0).collect::<Vec<_>>(), sorted.iter().map(|t| t.0).collect::<Vec<_>>());
    assert_eq!(info["tabSetFingerprint"], Value::from(tab_set_fingerprint(&tabs)));

    // The helper built from the generated manifest holds exactly the table's required
    // permissions, and says so in hello (what doctor compares) and in browser.info.
    let want = required_permissions(family);
    let hello: Hello = serde_json::from_value(client.hello()["hello"].clone()).unwrap();
    assert_eq!(hello.permissions.map(in_order), Some(want.clone()), "hello: {:#}", client.hello());
    let now: PermissionSet = serde_json::from_value(raw["permissions"].clone()).unwrap();
    assert_eq!(in_order(now), want, "browser.info: {raw}");

    if family == Engine::Chromium {
        // The id Chromium gave the unpacked helper is the one derived from its `key`.
        assert_eq!(b.runner.extensions()[0].id, HELPER_CHROMIUM_ID);
    }
    b.runner.shutdown().await;
}

#[tokio::test]
async fn chromium_helper_says_hello_and_answers_tools() {
    hello_list_ping_and_info(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_helper_says_hello_and_answers_tools() {
    hello_list_ping_and_info(Engine::Gecko).await;
}
