//! Socket and descriptor security: modes, peer uid rule, live sockets kept, stale ones
//! cleaned, deep runtime dirs.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;
use webext_mcp_host::client::Client;
use webext_mcp_host::descriptor::{self, Descriptor};
use webext_mcp_host::peer::Script;
use webext_mcp_host::runtime::{MAX_SOCKET_PATH, current_uid};
use webext_mcp_host::transport::{PeerVerdict, Platform, Transport, classify_peer};

use crate::harness::{Host, runtime_dir};

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn runtime_dir_socket_and_descriptor_are_private() {
    let rt = runtime_dir();
    let dir = rt.path().join("nested");
    let host = Host::start(&dir, Script::new("chromium", "chromium-aaaaaa"), None);
    let d = host.descriptor();
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&d.socket), 0o600);
    assert_eq!(mode(&dir.join(format!("h-{}.json", host.pid()))), 0o600);
    assert_eq!(mode(&dir.join(format!("h-{}.log", host.pid()))), 0o600);
    assert!(d.socket.starts_with(&dir));
}

#[test]
fn a_group_readable_runtime_dir_is_tightened() {
    let rt = runtime_dir();
    std::fs::set_permissions(rt.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let host = Host::start(rt.path(), Script::new("chromium", "c"), None);
    host.descriptor();
    assert_eq!(mode(rt.path()), 0o700);
}

#[test]
fn peers_of_another_uid_are_refused() {
    let me = current_uid();
    assert_eq!(classify_peer(me, Some(me)), PeerVerdict::Allow);
    assert!(matches!(classify_peer(me, Some(me.wrapping_add(1))), PeerVerdict::Refuse(_)));
    assert!(matches!(classify_peer(me, None), PeerVerdict::Refuse(_)));
}

#[tokio::test]
async fn a_live_socket_is_never_unlinked() {
    let rt = runtime_dir();
    let a = Host::start(rt.path(), Script::new("chromium", "first"), None);
    let d = a.descriptor();
    // Binding over it is refused and leaves it working.
    let err = Platform::bind(&d.socket).expect_err("bind over a live socket must fail");
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    // A second host starting in the same dir cleans stale entries only.
    let b = Host::start(rt.path(), Script::new("firefox", "second"), None);
    b.descriptor();
    assert!(d.socket.exists());
    let client = Client::connect(&d).await.unwrap();
    let pong = client.call("ping", json!({"payload": "x"}), Duration::from_secs(30)).await.unwrap();
    assert_eq!(pong["payload"], "x");
}

#[test]
fn stale_sockets_and_descriptors_are_cleaned() {
    let rt = runtime_dir();
    let dead_pid = 0x7fff_fff0u32;
    let sock = rt.path().join(format!("h-{dead_pid}.sock"));
    drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
    let stale = Descriptor {
        browser: "chrome".into(),
        browser_version: "1".into(),
        label: "ghost".into(),
        pid: dead_pid,
        ppid: 1,
        ext_version: "0".into(),
        protocol: 1,
        socket: sock.clone(),
        started_at: 0,
        session: None,
        capabilities: vec![],
        token: Default::default(),
    };
    let desc = rt.path().join(format!("h-{dead_pid}.json"));
    descriptor::write(&desc, &stale).unwrap();
    let orphan = rt.path().join("h-2147483631.sock");
    drop(std::os::unix::net::UnixListener::bind(&orphan).unwrap());
    let host = Host::start(rt.path(), Script::new("chromium", "c"), None);
    host.descriptor();
    assert!(!sock.exists() && !desc.exists() && !orphan.exists());
    assert_eq!(descriptor::discover(rt.path()).len(), 1);
}

#[tokio::test]
async fn deep_runtime_dirs_get_short_socket_paths() {
    let rt = runtime_dir();
    let deep = rt.path().join("d".repeat(60)).join("e".repeat(60));
    let host = Host::start(&deep, Script::new("chromium", "deep"), None);
    let d = host.descriptor();
    assert!(d.socket.as_os_str().len() <= MAX_SOCKET_PATH, "{:?}", d.socket);
    assert_eq!(mode(&d.socket), 0o600);
    assert_eq!(mode(d.socket.parent().unwrap()), 0o700);
    let client = Client::connect(&d).await.unwrap();
    assert!(client.call("ping", json!({}), Duration::from_secs(30)).await.unwrap()["pong"] == true);
    drop(client);
    let mut host = host;
    host.kill_peer();
    host.wait_exit();
    assert!(!d.socket.exists(), "socket outside the runtime dir is removed too");
}
