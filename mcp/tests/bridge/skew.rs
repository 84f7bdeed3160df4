//! A client speaking another protocol version gets `VERSION_SKEW` naming both versions.

use webext_mcp_host::client::Client;
use webext_mcp_host::peer::Script;
use webext_mcp_host::protocol::ErrorCode;

use crate::harness::{Host, runtime_dir};

#[tokio::test]
async fn protocol_2_client_gets_version_skew_naming_both() {
    let rt = runtime_dir();
    let host = Host::start(rt.path(), Script::new("chromium", "c"), None);
    let d = host.descriptor();
    let Err(err) = Client::connect_speaking(&d, 2).await else { panic!("protocol 2 must be refused") };
    assert_eq!(err.code, ErrorCode::VersionSkew);
    assert!(err.message.contains("protocol 2") && err.message.contains("protocol 1"), "{}", err.message);
    assert_eq!(err.data.unwrap()["host"], 1);
    // The host is still fine for a v1 client.
    assert!(Client::connect(&d).await.is_ok());
}
