//! Unit tests of the parent module.

use super::*;
use crate::protocol::ChunkFrame;

fn req(id: Value, method: &str, params: Value) -> Vec<u8> {
    body_of(&Request::new(id, method, params))
}

fn greet(r: &mut Router, c: ClientId) {
    r.client_connected(c);
    let mut out = Vec::new();
    r.client_frame(c, &req(json!(0), "client.hello", json!({"protocol": 1})), Instant::now(), &mut out);
    assert!(matches!(&out[..], [Out::ToClient(id, _)] if *id == c));
}

fn parsed(body: &[u8]) -> Value {
    serde_json::from_slice(body).unwrap()
}

#[test]
fn same_ids_from_two_clients_are_routed_back_to_each() {
    let mut r = Router::new();
    greet(&mut r, 1);
    greet(&mut r, 2);
    let now = Instant::now();
    let mut out = Vec::new();
    r.client_frame(1, &req(json!("7"), "ping", json!({})), now, &mut out);
    r.client_frame(2, &req(json!("7"), "ping", json!({})), now, &mut out);
    let sent: Vec<Value> = out
        .iter()
        .map(|o| match o {
            Out::ToBrowser { frames, .. } => parsed(&frames[0]),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sent[0]["id"], "c1:7");
    assert_eq!(sent[1]["id"], "c2:7");
    let mut out = Vec::new();
    r.browser_frame(&body_of(&Reply::ok(json!("c2:7"), json!("two"))), &mut out);
    r.browser_frame(&body_of(&Reply::ok(json!("c1:7"), json!("one"))), &mut out);
    assert!(matches!(&out[0], Out::ToClient(2, b) if parsed(b) == json!({"id":"7","result":"two"})));
    assert!(matches!(&out[1], Out::ToClient(1, b) if parsed(b) == json!({"id":"7","result":"one"})));
    assert_eq!(r.pending_count(), 0);
}

#[test]
fn requests_before_hello_and_unknown_methods_are_refused() {
    let mut r = Router::new();
    r.client_connected(1);
    let mut out = Vec::new();
    r.client_frame(1, &req(json!(1), "ping", json!({})), Instant::now(), &mut out);
    let Out::ToClient(1, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["error"]["code"], "INVALID_ARGUMENT");
    greet(&mut r, 1);
    let mut out = Vec::new();
    r.client_frame(1, &req(json!(2), "tabs.nope", json!({})), Instant::now(), &mut out);
    let Out::ToClient(1, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["error"]["code"], "UNSUPPORTED");
}

#[test]
fn version_skew_names_both_versions_and_closes() {
    let mut r = Router::new();
    r.client_connected(1);
    let mut out = Vec::new();
    r.client_frame(1, &req(json!(0), "client.hello", json!({"protocol": 2})), Instant::now(), &mut out);
    let Out::ToClient(1, b) = &out[0] else { panic!() };
    let e = &parsed(b)["error"];
    assert_eq!(e["code"], "VERSION_SKEW");
    assert!(e["message"].as_str().unwrap().contains("protocol 2"));
    assert!(e["message"].as_str().unwrap().contains("protocol 1"));
    assert_eq!(out[1], Out::Close(1));
}

#[test]
fn a_client_without_the_token_is_refused_and_closed() {
    let mut r = Router::new();
    r.set_token(crate::descriptor::Token::from("secret"));
    for (c, params) in [
        (1, json!({"protocol": 1})),
        (2, json!({"protocol": 1, "token": "guess"})),
        (3, json!({"protocol": 1, "token": ""})),
    ] {
        r.client_connected(c);
        let mut out = Vec::new();
        r.client_frame(c, &req(json!(0), "client.hello", params), Instant::now(), &mut out);
        let Out::ToClient(_, b) = &out[0] else { panic!() };
        assert_eq!(parsed(b)["error"]["code"], "PERMISSION_DENIED");
        assert_eq!(out[1], Out::Close(c));
        let mut out = Vec::new();
        r.client_frame(c, &req(json!(1), "ping", json!({})), Instant::now(), &mut out);
        assert!(!matches!(&out[..], [Out::ToBrowser { .. }]), "nothing forwarded for client {c}");
    }
    r.client_connected(4);
    let mut out = Vec::new();
    let hello = json!({"protocol": 1, "token": "secret"});
    r.client_frame(4, &req(json!(0), "client.hello", hello), Instant::now(), &mut out);
    let Out::ToClient(4, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["result"]["protocol"], 1);
}

#[test]
fn deadlines_answer_timeout_and_late_replies_are_dropped() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut request = Request::new(json!(5), "ping", json!({}));
    request.timeout_ms = Some(100);
    r.client_frame(1, &body_of(&request), t0, &mut out);
    assert_eq!(r.next_deadline(), Some(t0 + Duration::from_millis(100)));
    let mut out = Vec::new();
    r.expire(t0 + Duration::from_millis(50), &mut out);
    assert!(out.is_empty());
    r.expire(t0 + Duration::from_millis(100), &mut out);
    let Out::ToClient(1, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["error"]["code"], "TIMEOUT");
    let mut out = Vec::new();
    r.browser_frame(&body_of(&Reply::ok(json!("c1:5"), json!(1))), &mut out);
    assert!(out.is_empty());
}

#[test]
fn leaving_client_drops_its_calls_and_browser_gone_fails_the_rest() {
    let mut r = Router::new();
    greet(&mut r, 1);
    greet(&mut r, 2);
    let mut out = Vec::new();
    for c in [1, 2] {
        r.client_frame(c, &req(json!(1), "ping", json!({})), Instant::now(), &mut out);
    }
    r.client_gone(1);
    assert_eq!(r.pending_count(), 1);
    let mut out = Vec::new();
    r.browser_gone("stdin closed", &mut out);
    assert_eq!(out.len(), 1);
    let Out::ToClient(2, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["error"]["code"], "NOT_CONNECTED");
}

#[test]
fn events_go_to_subscribers_only_and_hello_is_recorded() {
    let mut r = Router::new();
    greet(&mut r, 1);
    greet(&mut r, 2);
    let mut out = Vec::new();
    r.client_frame(
        1,
        &req(json!(1), "subscribe", json!({"events": ["tabs.changed"]})),
        Instant::now(),
        &mut out,
    );
    let mut out = Vec::new();
    let ev = json!({"v":1,"event":"tabs.changed","params":{}});
    assert!(!r.browser_frame(ev.to_string().as_bytes(), &mut out));
    assert!(matches!(&out[..], [Out::ToClient(1, _)]));
    let hello = json!({"v":1,"event":"hello","params":{"browser":"firefox","browserVersion":"140","label":"firefox-aaaaaa","extVersion":"0.1.0","capabilities":[]}});
    assert!(r.browser_frame(hello.to_string().as_bytes(), &mut Vec::new()));
    assert_eq!(r.hello().unwrap().browser, "firefox");
}

#[test]
fn oversized_requests_are_chunked_for_the_browser() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let mut out = Vec::new();
    let big = "\"".repeat(MAX_TO_BROWSER);
    r.client_frame(1, &req(json!(1), "ping", json!({"payload": big})), Instant::now(), &mut out);
    let Out::ToBrowser { frames, .. } = &out[0] else { panic!() };
    assert!(frames.len() >= 2);
    assert!(frames.iter().all(|f| f.len() <= MAX_TO_BROWSER));
    assert_eq!(parsed(&frames[0])["chunk"]["id"], "c1:1");
}

fn only_client(out: &[Out]) -> (ClientId, Value) {
    match out {
        [Out::ToClient(c, b)] => (*c, parsed(b)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn replies_keep_their_result_text_and_only_the_id_changes() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let mut out = Vec::new();
    r.client_frame(
        1,
        br#"{"v":1,"id":"q","method":"ping","params":{"n" : [1,2]}}"#,
        Instant::now(),
        &mut out,
    );
    let Out::ToBrowser { frames, .. } = &out[0] else { panic!() };
    // The client's params went through as written (spacing included).
    assert!(std::str::from_utf8(&frames[0]).unwrap().contains(r#""params":{"n" : [1,2]}"#));
    let mut out = Vec::new();
    r.browser_frame(br#"{"id":"c1:q","result":{"big" : [1.50, "\u00e9"]},"extra":1}"#, &mut out);
    let [Out::ToClient(1, b)] = &out[..] else { panic!("{out:?}") };
    assert_eq!(std::str::from_utf8(b).unwrap(), r#"{"id":"q","result":{"big" : [1.50, "\u00e9"]}}"#);
    r.client_frame(1, &req(json!(2), "ping", json!({})), Instant::now(), &mut Vec::new());
    let mut out = Vec::new();
    r.browser_frame(br#"{"id":"c1:2","result":null}"#, &mut out);
    assert_eq!(only_client(&out).1, json!({"id": 2, "result": null}));
    r.client_frame(1, &req(json!(3), "ping", json!({})), Instant::now(), &mut Vec::new());
    let mut out = Vec::new();
    r.browser_frame(br#"{"id":"c1:3","error":{"code":"STALE","message":"m","hint":"h"}}"#, &mut out);
    assert_eq!(only_client(&out).1["error"]["code"], "STALE");
    assert_eq!(r.pending_count(), 0);
}

#[test]
fn deep_or_oversized_client_input_is_refused_before_parsing() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let mut out = Vec::new();
    let deep = format!(
        r#"{{"v":1,"id":1,"method":"ping","params":{}{}}}"#,
        "[".repeat(MAX_CLIENT_JSON_DEPTH),
        "]".repeat(MAX_CLIENT_JSON_DEPTH)
    );
    r.client_frame(1, deep.as_bytes(), Instant::now(), &mut out);
    let (_, e) = only_client(&out);
    assert_eq!(e["error"]["code"], "INVALID_ARGUMENT");
    assert!(e["error"]["message"].as_str().unwrap().contains("deeper than 64"), "{e}");
    // One level less is fine.
    let ok = format!(
        r#"{{"v":1,"id":1,"method":"ping","params":{}{}}}"#,
        "[".repeat(MAX_CLIENT_JSON_DEPTH - 1),
        "]".repeat(MAX_CLIENT_JSON_DEPTH - 1)
    );
    let mut out = Vec::new();
    r.client_frame(1, ok.as_bytes(), Instant::now(), &mut out);
    assert!(matches!(&out[..], [Out::ToBrowser { .. }]), "{out:?}");
    let mut out = Vec::new();
    let big = json!({"events": ["x".repeat(MAX_HOST_PARAMS)]});
    r.client_frame(1, &req(json!(9), "subscribe", big), Instant::now(), &mut out);
    let (_, e) = only_client(&out);
    assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (json!(9), json!("PAYLOAD_TOO_LARGE")));
    // An unknown method is named as such whatever its params.
    let mut out = Vec::new();
    let big = json!({"x": "y".repeat(MAX_HOST_PARAMS)});
    r.client_frame(1, &req(json!(10), "tabs.nope", big), Instant::now(), &mut out);
    assert_eq!(only_client(&out).1["error"]["code"], "UNSUPPORTED");
}

#[test]
fn calls_in_flight_are_capped_per_client_and_in_total() {
    let mut r = Router::new();
    r.per_client_cap = 3;
    r.total_cap = 5;
    greet(&mut r, 1);
    greet(&mut r, 2);
    let now = Instant::now();
    let send = |r: &mut Router, c: ClientId, id: u64| {
        let mut out = Vec::new();
        r.client_frame(c, &req(json!(id), "ping", json!({})), now, &mut out);
        match &out[..] {
            [Out::ToBrowser { .. }] => None,
            [Out::ToClient(_, b)] => Some(parsed(b)),
            other => panic!("{other:?}"),
        }
    };
    for id in 0..3 {
        assert_eq!(send(&mut r, 1, id), None);
    }
    let e = send(&mut r, 1, 3).unwrap();
    assert_eq!(e["error"]["code"], "BUSY");
    assert!(e["error"]["message"].as_str().unwrap().contains("on this connection"));
    assert!(e["error"]["hint"].as_str().is_some());
    assert_eq!(send(&mut r, 2, 0), None);
    assert_eq!(send(&mut r, 2, 1), None);
    let e = send(&mut r, 2, 2).unwrap();
    assert!(e["error"]["message"].as_str().unwrap().contains("on this host"), "{e}");
    // An answer frees a slot of its client.
    r.browser_frame(&body_of(&Reply::ok(json!("c1:0"), json!(1))), &mut Vec::new());
    assert_eq!(send(&mut r, 1, 4), None);
    // Timeouts and a departed browser free them too.
    r.expire(now + MAX_TIMEOUT, &mut Vec::new());
    assert_eq!(r.pending_count(), 0);
    assert_eq!(send(&mut r, 1, 5), None);
    r.browser_gone("test", &mut Vec::new());
    assert_eq!(r.clients[&1].in_flight, 0);
}

#[test]
fn chunked_replies_reassemble_and_unfinished_ones_expire() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let t0 = Instant::now();
    r.client_frame(1, &req(json!(1), "ping", json!({})), t0, &mut Vec::new());
    let reply = br#"{"id":"c1:1","result":"whole"}"#;
    let (a, b) = reply.split_at(10);
    for (seq, data, last) in [(0, a, false), (1, b, true)] {
        let c = ChunkFrame {
            v: 1,
            chunk: crate::protocol::ChunkHeader { id: "r".into(), seq, last },
            data: String::from_utf8(data.to_vec()).unwrap(),
        };
        let mut out = Vec::new();
        r.browser_frame(&body_of(&c), &mut out);
        if last {
            assert_eq!(only_client(&out).1, json!({"id": 1, "result": "whole"}));
        }
    }
    let c = ChunkFrame {
        v: 1,
        chunk: crate::protocol::ChunkHeader { id: "stuck".into(), seq: 0, last: false },
        data: "x".into(),
    };
    r.browser_frame(&body_of(&c), &mut Vec::new());
    assert_eq!(r.chunks.unfinished(), 1);
    let due = r.next_deadline().unwrap();
    assert!(due > t0 && due <= Instant::now() + Duration::from_millis(crate::protocol::CHUNK_DEADLINE_MS));
    r.expire(due, &mut Vec::new());
    assert_eq!(r.chunks.unfinished(), 0);
    assert_eq!(r.next_deadline(), None);
}

#[test]
fn too_deep_replies_answer_internal_and_events_are_dropped() {
    let mut r = Router::new();
    greet(&mut r, 1);
    r.client_frame(1, &req(json!(1), "ping", json!({})), Instant::now(), &mut Vec::new());
    let deep = format!(r#"{{"id":"c1:1","result":{}{}}}"#, "[".repeat(200), "]".repeat(200));
    let mut out = Vec::new();
    r.browser_frame(deep.as_bytes(), &mut out);
    let (_, e) = only_client(&out);
    assert_eq!(e["error"]["code"], "INTERNAL");
    r.client_frame(1, &req(json!(2), "subscribe", json!({"events": ["*"]})), Instant::now(), &mut Vec::new());
    let ev = format!(r#"{{"v":1,"event":"x","params":{}{}}}"#, "[".repeat(200), "]".repeat(200));
    let mut out = Vec::new();
    r.browser_frame(ev.as_bytes(), &mut out);
    assert!(out.is_empty());
    r.browser_frame(br#"{"v":1,"event":"x","params":{"k" : 1}}"#, &mut out);
    let [Out::ToClient(1, b)] = &out[..] else { panic!("{out:?}") };
    assert_eq!(std::str::from_utf8(b).unwrap(), r#"{"v":1,"event":"x","params":{"k" : 1}}"#);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Any interleaving of clients, calls, answers, departures and deadlines: no panic,
    /// and each client's count of calls in flight matches the pending table.
    #[test]
    fn in_flight_counts_follow_any_interleaving(
        ops in proptest::collection::vec((0u8..6, 1u64..4, 0u64..6), 0..120),
    ) {
        let mut r = Router::new();
        r.per_client_cap = 4;
        r.total_cap = 7;
        let t0 = Instant::now();
        for c in 1..4 {
            greet(&mut r, c);
        }
        for (step, (op, c, id)) in ops.into_iter().enumerate() {
            let now = t0 + Duration::from_secs(step as u64);
            let mut out = Vec::new();
            match op {
                0 | 1 => {
                    let mut q = Request::new(json!(id), "ping", json!({}));
                    q.timeout_ms = Some(3000);
                    r.client_frame(c, &body_of(&q), now, &mut out);
                }
                2 => { r.browser_frame(&body_of(&Reply::ok(json!(format!("c{c}:{id}")), json!(1))), &mut out); }
                3 => r.expire(now, &mut out),
                4 => { r.client_gone(c); greet(&mut r, c); }
                _ => r.browser_gone("gone", &mut out),
            }
            proptest::prop_assert!(r.pending_count() <= 7);
            for (cid, state) in &r.clients {
                let n = r.pending.values().filter(|p| p.client == *cid).count();
                proptest::prop_assert_eq!(state.in_flight, n);
                proptest::prop_assert!(n <= 4);
            }
        }
    }
}

#[test]
fn malformed_reply_with_a_pending_id_fails_that_call() {
    let mut r = Router::new();
    greet(&mut r, 1);
    let mut out = Vec::new();
    r.client_frame(1, &req(json!(1), "ping", json!({})), Instant::now(), &mut out);
    let mut out = Vec::new();
    r.browser_frame(br#"{"id":"c1:1","what":true}"#, &mut out);
    let Out::ToClient(1, b) = &out[0] else { panic!() };
    assert_eq!(parsed(b)["error"]["code"], "INTERNAL");
    r.browser_frame(b"\x00garbage", &mut out);
}
