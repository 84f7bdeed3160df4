//! Extension events reach the clients that subscribed to them, and only those.

use std::time::Duration;

use serde_json::json;
use webext_mcp_host::client::Client;
use webext_mcp_host::peer::Script;

use crate::harness::{Host, runtime_dir};

const T: Duration = Duration::from_secs(30);

#[tokio::test]
async fn events_go_to_subscribers() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "ev"), None);
    let d = host.descriptor();
    let listener = Client::connect(&d).await.unwrap();
    let mut tabs = listener.subscribe(&["tabs.changed"]).await.unwrap();
    let bystander = Client::connect(&d).await.unwrap();
    let mut everything = bystander.subscribe(&["*"]).await.unwrap();
    let quiet = Client::connect(&d).await.unwrap();
    quiet.call("ping", json!({"payload": "emit other.event"}), T).await.unwrap();
    quiet.call("ping", json!({"payload": "emit tabs.changed"}), T).await.unwrap();
    let first = tokio::time::timeout(T, tabs.recv()).await.unwrap().unwrap();
    assert_eq!(first.event, "tabs.changed");
    assert_eq!(first.params["by"], "peer");
    let a = tokio::time::timeout(T, everything.recv()).await.unwrap().unwrap();
    let b = tokio::time::timeout(T, everything.recv()).await.unwrap().unwrap();
    assert_eq!((a.event.as_str(), b.event.as_str()), ("other.event", "tabs.changed"));
}
