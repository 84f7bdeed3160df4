//! Malformed, truncated and oversized input, from the browser and from clients: logged,
//! answered where it has an id, never a panic or a wedge.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webext_mcp_host::descriptor;
use webext_mcp_host::protocol::HELPER_CHROMIUM_ID;
use webext_mcp_host::protocol::codec::FrameDecoder;

use crate::harness::{DEADLINE, bin, frame, read_frame, runtime_dir};

#[test]
fn garbage_from_the_browser_and_from_clients_is_survived() {
    let rt = runtime_dir();
    let mut child = Command::new(bin())
        .arg(format!("chrome-extension://{HELPER_CHROMIUM_ID}/"))
        .env("WEBEXT_MCP_RUNTIME_DIR", rt.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_host = child.stdin.take().unwrap();
    // Not JSON, not an object, an unknown shape, a reply nobody waits for, a request.
    for body in
        [&b"\xff\xfe not json"[..], b"[1,2,3]", b"{\"what\":1}", b"{\"id\":\"c9:9\",\"result\":1}", b""]
    {
        to_host.write_all(&frame(body)).unwrap();
    }
    to_host.write_all(&frame(br#"{"v":1,"id":"x1","method":"tabs.list","params":{}}"#)).unwrap();
    // (An oversized frame from the browser ends the host: see bounds.rs.)
    let hello = json!({"v":1,"event":"hello","params":{"extVersion":"0.1.0","browser":"chromium","browserVersion":"1","label":"g","capabilities":[]}});
    to_host.write_all(&frame(hello.to_string().as_bytes())).unwrap();
    to_host.flush().unwrap();

    // The host answered the extension's request with an error carrying its id.
    let mut from_host = child.stdout.take().unwrap();
    let mut decoder = FrameDecoder::new(1 << 20);
    let mut buf = [0u8; 4096];
    let answer: Value = loop {
        if let Some(f) = decoder.next_frame() {
            break serde_json::from_slice(&f.unwrap()).unwrap();
        }
        let n = from_host.read(&mut buf).unwrap();
        assert!(n > 0);
        decoder.push(&buf[..n]);
    };
    assert_eq!(answer["id"], "x1");
    assert_eq!(answer["error"]["code"], "UNSUPPORTED");

    let until = Instant::now() + DEADLINE;
    let d = loop {
        if let Some(d) = descriptor::discover(rt.path()).into_iter().next() {
            break d;
        }
        assert!(Instant::now() < until, "host did not survive garbage");
        std::thread::sleep(Duration::from_millis(20));
    };

    // Clients: garbage gets an error (null id), a bad request keeps its id, the link lives on.
    let mut s = UnixStream::connect(&d.socket).unwrap();
    let mut dec = FrameDecoder::new(1 << 20);
    s.write_all(&frame(b"nonsense")).unwrap();
    let e = read_frame(&mut s, &mut dec);
    assert_eq!(e["id"], Value::Null);
    assert_eq!(e["error"]["code"], "INVALID_ARGUMENT");
    s.write_all(&frame(br#"{"v":1,"id":"q","method":"ping"}"#)).unwrap();
    assert_eq!(
        read_frame(&mut s, &mut dec)["error"]["message"],
        "send client.hello before any other request"
    );
    let hello = serde_json::json!({"v":1,"id":"h","method":"client.hello","params":{"protocol":1,"token":d.token.as_str()}});
    s.write_all(&frame(hello.to_string().as_bytes())).unwrap();
    let greeted = read_frame(&mut s, &mut dec);
    assert_eq!(greeted["result"]["protocol"], 1);
    assert!(greeted["result"]["host"].get("token").is_none(), "the token is never echoed");
    s.write_all(&frame(br#"{"v":1,"id":7,"method":"host.info"}"#)).unwrap();
    let info = read_frame(&mut s, &mut dec);
    assert_eq!(info["id"], 7);
    assert_eq!(info["result"]["hello"]["label"], "g");

    // Truncated input from the browser, then EOF: the host exits cleanly and cleans up.
    to_host.write_all(&[200, 0, 0, 0, b'{']).unwrap();
    drop(to_host);
    let until = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < until, "host wedged on truncated input");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    assert!(!d.socket.exists());
    let log = std::fs::read_to_string(rt.path().join(format!("h-{}.log", d.pid))).unwrap();
    assert!(log.contains("stdin ended inside a frame"), "{log}");
}
