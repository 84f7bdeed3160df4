//! The control socket over a real unix socket: typed round trips, wire shapes, refusals.

use serde_json::json;
use tokio::net::UnixStream;

use super::*;
use crate::session::contract::{ErrorEntry, Status};
use crate::session::inspect::Context;

fn ready() -> Ready {
    Ready {
        schema_version: super::super::contract::SCHEMA_VERSION,
        schema: super::super::contract::SCHEMA.into(),
        status: Status::Ready,
        command: "dev".into(),
        browser: "chromium".into(),
        run_id: "r1".into(),
        pid: 42,
        browser_pid: Some(43),
        port: None,
        dist_path: "/p/dist/dev/chromium".into(),
        manifest_path: "/p/dist/dev/chromium/manifest.json".into(),
        started_at: "2026-01-01T00:00:00Z".into(),
        compiled_at: None,
        errors: vec!["a.js:1 x".into()],
        error_details: vec![ErrorEntry {
            source: "build".into(),
            message: "x".into(),
            file: Some("a.js".into()),
            line: Some(1),
            column: None,
            code: "BUILD_FAILED".into(),
        }],
        extension_id: Some("abc".into()),
        profile_path: "/p/profile".into(),
        session_id: "dev-1".into(),
        project_path: "/p".into(),
        control_socket: "/run/s".into(),
        run_config: None,
    }
}

fn reloaded() -> Reloaded {
    Reloaded {
        extension_id: Some("abc".into()),
        status: Status::Ready,
        build_ms: None,
        background_ms: Some(7),
        duration_ms: 9,
        tabs: json!([{"url": "https://a/", "action": "reinjected"}]),
        errors: Vec::new(),
        error_details: Vec::new(),
    }
}

/// A session serving `socket` whose answers are made by `answer`; every request it
/// received is counted in the returned channel.
fn session(
    dir: &Path,
    answer: fn(Request) -> Result<Answer, ErrorBody>,
) -> (Endpoint, mpsc::UnboundedReceiver<Request>) {
    let socket = dir.join("d.sock");
    let token = Token::generate().unwrap();
    let mut rx = serve(&socket, token.clone()).unwrap();
    let (seen_tx, seen_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some((req, reply, _written)) = rx.recv().await {
            let _ = seen_tx.send(req.clone());
            let _ = reply.send(answer(req));
        }
    });
    (Endpoint { socket, token }, seen_rx)
}

fn answer(req: Request) -> Result<Answer, ErrorBody> {
    Ok(match req {
        Request::Status => Answer::Ready(Box::new(ready())),
        Request::Stop => Answer::Stopping(Stopping { stopping: true }),
        Request::Evaluate { expression, .. } | Request::Eval { expression, .. } => {
            Answer::Value(json!({ "evaluated": expression }))
        }
        Request::Inspect(_) => {
            Answer::Inspection(Inspection { session_id: "dev-1".into(), tab: None, events: vec![json!({})] })
        }
        Request::Reload { .. } => Answer::Reloaded(reloaded()),
        Request::Storage(_) => Answer::Stored(Stored::Pairs(vec![("k".into(), json!([1]))])),
        Request::Open { popup: true, .. } => {
            return Err(ErrorBody::not_found("the extension has no action popup"));
        }
        Request::Open { context, .. } => Answer::Opened(Opened {
            url: "chrome-extension://abc/options.html".into(),
            target_id: Some("T1".into()),
            opened: true,
            popup: None,
            context,
        }),
    })
}

#[tokio::test]
async fn requests_and_typed_answers_round_trip_over_the_socket() {
    let dir = tempfile::tempdir().unwrap();
    let (ep, mut seen) = session(dir.path(), answer);
    let t = Duration::from_secs(5);
    assert_eq!(request(&ep, &Call::status(), t).await.unwrap(), ready());
    assert_eq!(request(&ep, &Call::stop(), t).await.unwrap(), Stopping { stopping: true });
    let v = request(&ep, &Call::eval("1 + 1".into(), true, Some(100)), t).await.unwrap();
    assert_eq!(v, json!({"evaluated": "1 + 1"}));
    let r = request(&ep, &Call::reload(Default::default()), t).await.unwrap();
    assert_eq!((r.background_ms, r.tabs), (Some(7), reloaded().tabs));
    let req = super::super::act::StorageRequest {
        action: super::super::act::StorageOp::Get,
        area: super::super::act::Area::Local,
        keys: Vec::new(),
        items: Default::default(),
    };
    let s = request(&ep, &Call::storage(req), t).await.unwrap();
    assert_eq!(s, Stored::Pairs(vec![("k".into(), json!([1]))]));
    let o = request(&ep, &Call::open(Context::Options, false), t).await.unwrap();
    assert_eq!((o.target_id.as_deref(), o.context), (Some("T1"), Context::Options));
    let e = request(&ep, &Call::open(Context::Popup, true), t).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let mut ops = Vec::new();
    while let Ok(req) = seen.try_recv() {
        ops.push(serde_json::to_value(req).unwrap()["op"].as_str().unwrap().to_owned());
    }
    assert_eq!(ops, ["status", "stop", "eval", "reload", "storage", "open", "open"]);

    // A wrong token is refused before anything runs; a socket nobody serves is NOT_CONNECTED.
    let wrong = Endpoint { socket: ep.socket.clone(), token: Token::generate().unwrap() };
    let e = request(&wrong, &Call::stop(), t).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::PermissionDenied);
    let gone = Endpoint { socket: dir.path().join("none.sock"), token: ep.token.clone() };
    assert_eq!(request(&gone, &Call::status(), t).await.unwrap_err().code, ErrorCode::NotConnected);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(seen.try_recv().is_err(), "a refused caller's request never reaches the session");
}

/// The JSON of each answer is what the session sent before answers were typed (tools
/// forward it as their structured output): a renamed field fails here.
#[test]
fn answers_keep_their_wire_shape() {
    let wire = |a: Answer| serde_json::to_value(a).unwrap();
    assert_eq!(wire(Answer::Stopping(Stopping { stopping: true })), json!({"stopping": true}));
    assert_eq!(wire(Answer::Ready(Box::new(ready()))), serde_json::to_value(ready()).unwrap());
    assert_eq!(
        wire(Answer::Reloaded(reloaded())),
        json!({"extensionId": "abc", "status": "ready", "buildMs": null, "backgroundMs": 7, "durationMs": 9,
               "tabs": [{"url": "https://a/", "action": "reinjected"}], "errors": [], "errorDetails": []})
    );
    assert_eq!(wire(Answer::Stored(Stored::Count(3))), json!(3));
    assert_eq!(wire(Answer::Stored(Stored::Pairs(vec![("k".into(), json!(1))]))), json!([["k", 1]]));
    let tab = Opened {
        url: "u".into(),
        target_id: Some("T".into()),
        opened: false,
        popup: None,
        context: Context::Options,
    };
    assert_eq!(
        wire(Answer::Opened(tab)),
        json!({"url": "u", "targetId": "T", "opened": false, "context": "options"})
    );
    let popup =
        Opened { url: "u".into(), target_id: None, opened: true, popup: Some(true), context: Context::Popup };
    assert_eq!(
        wire(Answer::Opened(popup)),
        json!({"url": "u", "opened": true, "popup": true, "context": "popup"})
    );
    let seen = InspectedTab { target_id: "T".into(), url: "u".into(), title: "t".into(), opened: false };
    let page = Inspection { session_id: "s".into(), tab: Some(seen), events: Vec::new() };
    assert_eq!(
        wire(Answer::Inspection(page)),
        json!({"sessionId": "s", "tab": {"targetId": "T", "url": "u", "title": "t", "opened": false}, "events": []})
    );
    let background = Inspection { session_id: "s".into(), tab: None, events: Vec::new() };
    assert_eq!(wire(Answer::Inspection(background)), json!({"sessionId": "s", "tab": null, "events": []}));
}

/// Writes `bytes` raw and reads what the session answers: the answer, and whether the
/// session then closed the connection.
async fn poke(socket: &Path, bytes: &[u8]) -> (Value, bool) {
    let stream = UnixStream::connect(socket).await.unwrap();
    let (read, mut write) = tokio::io::split(stream);
    write.write_all(bytes).await.unwrap();
    let mut frames = FrameReader::new(read, MAX_SOCKET_FRAME);
    let first = frames.next().await.unwrap().unwrap().unwrap();
    let next = tokio::time::timeout(Duration::from_millis(300), frames.next()).await;
    let closed = matches!(next, Ok(Ok(None)) | Ok(Err(_)));
    (serde_json::from_slice(&first).unwrap(), closed)
}

fn frame(v: &Value) -> Vec<u8> {
    encode_frame(v.to_string().as_bytes(), MAX_SOCKET_FRAME).unwrap()
}

#[tokio::test]
async fn refuses_callers_without_the_token_in_a_first_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (ep, mut seen) = session(dir.path(), answer);
    let token = json!({"token": ep.token.as_str()});
    let stop = json!({"op": "stop"});
    let oversized = ((MAX_SOCKET_FRAME + 1) as u32).to_ne_bytes();
    let line_framed = format!("{token}\n{stop}\n");
    for (what, bytes) in [
        ("a request without the token", frame(&stop)),
        ("a wrong token", [frame(&json!({"token": "0".repeat(64)})), frame(&stop)].concat()),
        ("a first frame over the cap", [&oversized[..], &[b'x'; 16][..]].concat()),
        ("the old line protocol", line_framed.into_bytes()),
    ] {
        let (answer, closed) = poke(&ep.socket, &bytes).await;
        assert_eq!(answer["error"]["code"], "PERMISSION_DENIED", "{what}: {answer}");
        assert!(closed, "{what}: the connection is closed");
    }
    // Past the token, a frame over the cap is answered PAYLOAD_TOO_LARGE and not run.
    let (answer, _) = poke(&ep.socket, &[frame(&token), oversized.to_vec()].concat()).await;
    assert_eq!(answer["error"]["code"], "PAYLOAD_TOO_LARGE", "{answer}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(seen.try_recv().is_err(), "nothing refused reached the session");
    // The same socket still serves a caller that speaks the protocol.
    let (answer, _) = poke(&ep.socket, &[frame(&token), frame(&json!({"op": "status"}))].concat()).await;
    assert_eq!(answer["ok"]["sessionId"], "dev-1", "{answer}");
    assert!(matches!(seen.try_recv(), Ok(Request::Status)));
}
