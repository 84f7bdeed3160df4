//! Host → browser framing through the real browsers: a frame body of exactly 1,048,576 bytes
//! arrives whole, one byte more arrives as chunk frames, and multi-MiB payloads that JSON
//! escaping inflates (`"`, `\`) or that are all 4-byte characters arrive intact. The helper
//! hashes what it reassembled (`debug.digest`) and the test compares.

use serde_json::{Value, json};
use webext_mcp::browsers::Engine;
use webext_mcp_host::client::Client;
use webext_mcp_host::digest::sha256_hex;
use webext_mcp_host::protocol::MAX_TO_BROWSER;
use webext_mcp_host::protocol::methods::{DEBUG_DIGEST, PING};

use crate::common::DEADLINE;
use crate::helper_support::{Host, launch};

async fn digest(client: &Client, payload: &str) -> Value {
    let r = client.call(DEBUG_DIGEST, json!({ "payload": payload }), DEADLINE).await;
    let r = r.unwrap_or_else(|e| panic!("debug.digest of {} bytes: {e}", payload.len()));
    assert_eq!(
        r["sha256"],
        Value::from(sha256_hex(payload.as_bytes())),
        "payload of {} bytes altered",
        payload.len()
    );
    assert_eq!(r["bytes"], payload.len());
    assert_eq!(r["length"], payload.encode_utf16().count());
    r
}

async fn frames_arrive_whole_or_chunked_and_intact(family: Engine) {
    let b = launch(family, Host::Installed).await;
    let d = b.wait_host("after hello", |_| true).await;
    let client = Client::connect(&d).await.unwrap();

    // What the host wraps around a payload that needs no escaping (its id, method, deadline).
    // The ids of the next calls have the same length, so the overhead stays the same.
    let probe = digest(&client, "x").await;
    assert_eq!(probe["chunked"], false);
    let overhead = probe["frameBytes"].as_u64().unwrap() as usize - 1;

    let exact = digest(&client, &"x".repeat(MAX_TO_BROWSER - overhead)).await;
    assert_eq!(exact["chunked"], false, "{exact}");
    assert_eq!(exact["frameBytes"], MAX_TO_BROWSER, "{exact}");

    let over = digest(&client, &"x".repeat(MAX_TO_BROWSER - overhead + 1)).await;
    assert_eq!(over["chunked"], true, "{over}");
    assert_eq!(over["chunks"], 2, "{over}");
    assert_eq!(over["frameBytes"], MAX_TO_BROWSER + 1, "{over}");

    // 3 MiB of characters that JSON escapes to two bytes each: 6 MiB on the wire.
    let escaped = "\"\\".repeat(3 * 1024 * 1024 / 2 + 1);
    let r = digest(&client, &escaped).await;
    assert_eq!(r["chunked"], true);
    assert!(r["chunks"].as_u64().unwrap() >= 6, "{r}");

    // 3 MiB of 4-byte characters (surrogate pairs in JS): slices must not split them.
    let wide = "𝄞😀🂡".repeat(3 * 1024 * 1024 / 12 + 1);
    let r = digest(&client, &wide).await;
    assert_eq!(r["chunked"], true);
    assert!(r["chunks"].as_u64().unwrap() >= 3, "{r}");

    // The port survived all of it.
    let pong = client.call(PING, json!({}), DEADLINE).await.unwrap();
    assert_eq!(pong["pong"], true);
    b.runner.shutdown().await;
}

#[tokio::test]
async fn chromium_frames_of_one_mebibyte_and_chunked_payloads_arrive_intact() {
    frames_arrive_whole_or_chunked_and_intact(Engine::Chromium).await;
}

#[tokio::test]
async fn firefox_frames_of_one_mebibyte_and_chunked_payloads_arrive_intact() {
    frames_arrive_whole_or_chunked_and_intact(Engine::Gecko).await;
}
