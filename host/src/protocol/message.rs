//! The message shapes of protocol v1 and the one function that tells them apart.
//!
//! A frame is classified by its keys, never by position: `chunk` → chunk frame, `method` →
//! request, `event` → event, `id` with `result` or `error` → reply. Anything else is
//! malformed and becomes an `INVALID_ARGUMENT` error body that names what was wrong.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{ErrorBody, ErrorCode, PROTOCOL_VERSION};

/// A request: `{"v":1,"id":"<client>:<n>","method":"tabs.list","params":{…}}`.
///
/// Clients choose their own ids (strings or numbers); the host rewrites them to
/// `c<connection>:<id>` before the extension sees them, so ids never collide across clients.
/// `timeoutMs` is optional: the host answers `TIMEOUT` when it passes (default 30 s) and the
/// extension may use it to bound its own work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub v: u32,
    pub id: Value,
    pub method: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
    #[serde(rename = "timeoutMs", default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl Request {
    pub fn new(id: impl Into<Value>, method: impl Into<String>, params: Value) -> Request {
        Request { v: PROTOCOL_VERSION, id: id.into(), method: method.into(), params, timeout_ms: None }
    }
}

/// A reply: `{"id":…,"result":…}` or `{"id":…,"error":{code,message,hint,data}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Reply {
    pub fn ok(id: Value, result: Value) -> Reply {
        Reply { id, result: Some(result), error: None }
    }

    pub fn err(id: Value, error: ErrorBody) -> Reply {
        Reply { id, result: None, error: Some(error) }
    }

    /// The outcome as a `Result`; a reply with neither field is a `null` result.
    pub fn into_result(self) -> Result<Value, ErrorBody> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.result.unwrap_or(Value::Null)),
        }
    }
}

/// An event from the extension: `{"v":1,"event":"<name>","params":{…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub v: u32,
    pub event: String,
    #[serde(default)]
    pub params: Value,
}

/// Where a chunk belongs: the payload `id`, its position `seq` (from 0) and whether it is
/// the `last` one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkHeader {
    pub id: String,
    pub seq: u32,
    pub last: bool,
}

/// A slice of an oversized host → browser payload:
/// `{"v":1,"chunk":{"id":"…","seq":n,"last":bool},"data":"<UTF-8 slice>"}`. The extension
/// concatenates `data` of seq 0, 1, … up to `last` and handles the result as one frame.
/// Field order is fixed (serde keeps declaration order) so the envelope size is exact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkFrame {
    pub v: u32,
    pub chunk: ChunkHeader,
    pub data: String,
}

/// The extension's first event, `hello`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    #[serde(default)]
    pub ext_version: String,
    #[serde(default)]
    pub browser: String,
    #[serde(default)]
    pub browser_version: String,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// What `permissions.getAll()` says the helper holds; `None` from helpers that do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<super::permissions::PermissionSet>,
}

/// Parameters of `client.hello`, the first request of every client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientHello {
    pub protocol: u32,
    /// Free text for the host's log (e.g. `webext-mcp 0.1.0 pid 123`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The host's token from its 0600 descriptor: proof that the client may read the
    /// runtime dir, i.e. runs as the same user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// Any frame of protocol v1.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request(Request),
    Reply(Reply),
    Event(Event),
    Chunk(ChunkFrame),
}

/// Classifies one frame body into owned values. Built on [`parse_envelope`], so both agree
/// on every frame.
pub fn parse_message(body: &[u8]) -> Result<Incoming, ErrorBody> {
    let owned = |raw: Option<&RawValue>| -> Result<Value, ErrorBody> {
        match raw {
            None => Ok(Value::Null),
            Some(r) => serde_json::from_str(r.get())
                .map_err(|e| ErrorBody::invalid_argument(format!("frame is not valid JSON: {e}"))),
        }
    };
    Ok(match parse_envelope(body)? {
        Envelope::Request(r) => Incoming::Request(Request {
            v: r.v,
            id: r.id,
            method: r.method,
            params: owned(r.params)?,
            timeout_ms: r.timeout_ms,
        }),
        Envelope::Reply(r) => Incoming::Reply(Reply {
            id: r.id,
            result: r.result.map(|v| owned(Some(v))).transpose()?,
            error: r.error,
        }),
        Envelope::Event(e) => Incoming::Event(Event { v: e.v, event: e.event, params: owned(e.params)? }),
        Envelope::Chunk(c) => Incoming::Chunk(c),
    })
}

/// A request whose `params` are still JSON text.
#[derive(Debug, Clone)]
pub struct RawRequest<'a> {
    pub v: u32,
    pub id: Value,
    pub method: String,
    pub params: Option<&'a RawValue>,
    pub timeout_ms: Option<u64>,
}

/// A reply whose `result` is still JSON text (errors are small and parsed).
#[derive(Debug, Clone)]
pub struct RawReply<'a> {
    pub id: Value,
    pub result: Option<&'a RawValue>,
    pub error: Option<ErrorBody>,
}

/// An event whose `params` are still JSON text.
#[derive(Debug, Clone)]
pub struct RawEvent<'a> {
    pub v: u32,
    pub event: String,
    pub params: Option<&'a RawValue>,
}

/// A frame classified from its keys with its payload (`params`, `result`) left as JSON text
/// borrowed from the body: what the host routes, so a 60 MB reply is never turned into a
/// tree of values. The whole body is still checked to be one valid JSON object.
#[derive(Debug, Clone)]
pub enum Envelope<'a> {
    Request(RawRequest<'a>),
    Reply(RawReply<'a>),
    Event(RawEvent<'a>),
    Chunk(ChunkFrame),
}

/// A key that is present (even as `null`) is `Some`; serde's own `Option` would fold `null`
/// into "absent" and lose `{"result":null}`.
#[derive(Debug, Default)]
struct Present<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Present<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Present(Some(r)))
    }
}

/// The top-level keys of any v1 frame; everything else is skipped without being kept.
#[derive(Debug, Deserialize)]
struct Keys<'a> {
    #[serde(default, borrow)]
    v: Present<'a>,
    #[serde(default, borrow)]
    id: Present<'a>,
    #[serde(default, borrow)]
    method: Present<'a>,
    #[serde(default, borrow)]
    params: Present<'a>,
    #[serde(default, borrow, rename = "timeoutMs")]
    timeout_ms: Present<'a>,
    #[serde(default, borrow)]
    event: Present<'a>,
    #[serde(default, borrow)]
    chunk: Present<'a>,
    #[serde(default, borrow)]
    data: Present<'a>,
    #[serde(default, borrow)]
    result: Present<'a>,
    #[serde(default, borrow)]
    error: Present<'a>,
}

/// Classifies one frame body by its keys, leaving payloads unparsed. Errors name the problem
/// and, when the frame had an id, carry it (`ErrorBody.data.id`) so the caller can answer it.
pub fn parse_envelope(body: &[u8]) -> Result<Envelope<'_>, ErrorBody> {
    let not_json = |e: serde_json::Error| {
        ErrorBody::invalid_argument(format!("frame is not valid UTF-8 JSON: {e}"))
            .with_hint("each frame is a 4-byte native-endian length followed by one JSON object")
    };
    // A struct also deserializes from a JSON array (by position): only objects are frames.
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {}
        Some(_) => {
            // Tell "not JSON" from "JSON but not an object", as a full parse would.
            return Err(match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
                Ok(_) => ErrorBody::invalid_argument("frame is not a JSON object"),
                Err(e) => not_json(e),
            });
        }
        None => return Err(not_json(serde_json::from_slice::<Value>(body).err().unwrap_or_else(eof))),
    }
    let keys: Keys<'_> = serde_json::from_slice(body).map_err(not_json)?;
    classify(keys)
}

fn eof() -> serde_json::Error {
    serde::de::Error::custom("empty frame")
}

fn field<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, name: &str) -> Result<T, String> {
    let raw = raw.ok_or_else(|| format!("missing field `{name}`"))?;
    serde_json::from_str(raw.get()).map_err(|e| format!("field `{name}`: {e}"))
}

fn optional<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, name: &str) -> Result<Option<T>, String> {
    match raw {
        None => Ok(None),
        Some(r) if r.get() == "null" => Ok(None),
        Some(_) => field(raw, name).map(Some),
    }
}

fn classify(keys: Keys<'_>) -> Result<Envelope<'_>, ErrorBody> {
    let id: Option<Value> = keys.id.0.and_then(|r| serde_json::from_str(r.get()).ok());
    let shape_error = |what: &str, e: String| {
        let mut body = ErrorBody::invalid_argument(format!("malformed {what}: {e}"));
        if let Some(id) = &id {
            body = body.with_data(serde_json::json!({ "id": id }));
        }
        body
    };
    if keys.chunk.0.is_some() {
        let chunk = (|| {
            Ok::<_, String>(ChunkFrame {
                v: field(keys.v.0, "v")?,
                chunk: field(keys.chunk.0, "chunk")?,
                data: field(keys.data.0, "data")?,
            })
        })();
        return chunk.map(Envelope::Chunk).map_err(|e| shape_error("chunk frame", e));
    }
    if keys.method.0.is_some() {
        let request = (|| {
            Ok::<_, String>(RawRequest {
                v: field(keys.v.0, "v")?,
                id: field(keys.id.0, "id")?,
                method: field(keys.method.0, "method")?,
                params: keys.params.0.filter(|p| p.get() != "null"),
                timeout_ms: optional(keys.timeout_ms.0, "timeoutMs")?,
            })
        })()
        .map_err(|e| shape_error("request", e))?;
        if !(request.id.is_string() || request.id.is_number()) {
            return Err(ErrorBody::invalid_argument("request id must be a string or a number"));
        }
        if request.v != PROTOCOL_VERSION {
            return Err(ErrorBody::new(
                ErrorCode::VersionSkew,
                format!("request speaks protocol {}, this end speaks protocol {PROTOCOL_VERSION}", request.v),
            )
            .with_data(
                serde_json::json!({ "id": request.id, "theirs": request.v, "ours": PROTOCOL_VERSION }),
            ));
        }
        return Ok(Envelope::Request(request));
    }
    if keys.event.0.is_some() {
        let event = (|| {
            Ok::<_, String>(RawEvent {
                v: field(keys.v.0, "v")?,
                event: field(keys.event.0, "event")?,
                params: keys.params.0.filter(|p| p.get() != "null"),
            })
        })();
        return event.map(Envelope::Event).map_err(|e| shape_error("event", e));
    }
    if let Some(reply_id) = &id
        && (keys.result.0.is_some() || keys.error.0.is_some())
    {
        let reply = (|| {
            Ok::<_, String>(RawReply {
                id: reply_id.clone(),
                result: keys.result.0,
                error: optional(keys.error.0, "error")?,
            })
        })();
        return reply.map(Envelope::Reply).map_err(|e| shape_error("reply", e));
    }
    let mut body = ErrorBody::invalid_argument(
        "frame is neither a request, a reply, an event nor a chunk (no `method`, `event`, `chunk`, `result` or `error`)",
    );
    if let Some(id) = id {
        body = body.with_data(serde_json::json!({ "id": id }));
    }
    Err(body)
}

/// Whether `body` nests arrays and objects deeper than `limit`, by one pass over its bytes
/// (strings and their escapes skipped) that allocates nothing. Cheap enough to run before
/// any parsing; malformed JSON is left for the parser to describe.
pub fn nests_deeper_than(body: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in body {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Incoming, ErrorBody> {
        parse_message(v.to_string().as_bytes())
    }

    #[test]
    fn classifies_each_shape() {
        assert!(matches!(
            parse(json!({"v":1,"id":"a:1","method":"ping","params":{}})),
            Ok(Incoming::Request(_))
        ));
        assert!(matches!(parse(json!({"v":1,"id":3,"method":"ping"})), Ok(Incoming::Request(_))));
        assert!(matches!(parse(json!({"id":"a:1","result":null})), Ok(Incoming::Reply(_))));
        let Ok(Incoming::Reply(r)) = parse(json!({"id":"a:1","error":{"code":"STALE","message":"m"}})) else {
            panic!()
        };
        assert_eq!(r.into_result().unwrap_err().code, ErrorCode::Stale);
        assert!(matches!(parse(json!({"v":1,"event":"hello","params":{}})), Ok(Incoming::Event(_))));
        assert!(matches!(
            parse(json!({"v":1,"chunk":{"id":"x","seq":0,"last":true},"data":""})),
            Ok(Incoming::Chunk(_))
        ));
    }

    #[test]
    fn malformed_frames_are_errors_that_keep_the_id() {
        assert_eq!(parse_message(b"{not json").unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(parse_message(b"[1,2]").unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(parse_message(&[0xff, 0xfe]).unwrap_err().code, ErrorCode::InvalidArgument);
        let e = parse(json!({"id":"k","what":1})).unwrap_err();
        assert_eq!(e.data.unwrap()["id"], "k");
        let e = parse(json!({"v":1,"id":"k","method":7})).unwrap_err();
        assert_eq!(e.data.unwrap()["id"], "k");
        assert!(parse(json!({"v":1,"id":{"x":1},"method":"ping"})).is_err());
    }

    #[test]
    fn wrong_version_is_version_skew_naming_both() {
        let e = parse(json!({"v":2,"id":"1","method":"ping"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::VersionSkew);
        assert!(e.message.contains('2') && e.message.contains('1'), "{}", e.message);
    }

    #[test]
    fn envelopes_leave_payloads_as_text() {
        let body = br#"{"id":"c1:2","result":[1, {"a" : "\u00e9"}],"junk":{"x":[1,2]}}"#;
        let Ok(Envelope::Reply(r)) = parse_envelope(body) else { panic!() };
        assert_eq!(r.id, "c1:2");
        assert_eq!(r.result.unwrap().get(), r#"[1, {"a" : "\u00e9"}]"#);
        // `null` is a result, not an absent one.
        let Ok(Envelope::Reply(r)) = parse_envelope(br#"{"id":"x","result":null}"#) else { panic!() };
        assert_eq!(r.result.unwrap().get(), "null");
        let Ok(Envelope::Request(q)) =
            parse_envelope(br#"{"v":1,"id":5,"method":"ping","params":{"p":[1]},"timeoutMs":70}"#)
        else {
            panic!()
        };
        assert_eq!(
            (q.id, q.method.as_str(), q.params.unwrap().get(), q.timeout_ms),
            (json!(5), "ping", r#"{"p":[1]}"#, Some(70))
        );
        // Invalid JSON anywhere, even in a skipped key, is still refused.
        assert!(parse_envelope(br#"{"id":"x","result":1,"junk":[1,}"#).is_err());
        assert!(parse_envelope(br#"{"id":"x","result":1} trailing"#).is_err());
        assert_eq!(parse_envelope(b"  [1,2]").unwrap_err().message, "frame is not a JSON object");
        assert!(parse_envelope(b"").is_err());
        assert!(parse_envelope(b"   ").is_err());
        assert!(parse_envelope(br#"{"id":"x","result":"\ud800"}"#).is_ok());
    }

    #[test]
    fn nesting_depth_is_counted_outside_strings_only() {
        assert!(!nests_deeper_than(b"[[]]", 2));
        assert!(nests_deeper_than(b"[[[]]]", 2));
        assert!(!nests_deeper_than(br#"["[[[[", "\"[[[[", {"a":"{{{{"}]"#, 2));
        assert!(nests_deeper_than(br#"{"a":{"b":[1]}}"#, 2));
        assert!(!nests_deeper_than(b"]]]][[", 2));
        assert!(nests_deeper_than(&vec![b'['; 1_000_000], 64));
    }

    fn depth_of(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
            _ => 0,
        }
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "(?s).{0,8}".prop_map(Value::from),
            prop::sample::select(vec!["c1:1", "[", "{\"", "\\", "\""]).prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "v",
                            "id",
                            "method",
                            "params",
                            "event",
                            "chunk",
                            "data",
                            "result",
                            "error",
                            "timeoutMs",
                            "seq",
                            "last",
                            "code",
                            "message",
                            "x",
                        ]),
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn classification_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse_message(&bytes);
            let _ = parse_envelope(&bytes);
            let _ = nests_deeper_than(&bytes, 3);
        }

        /// Arbitrary JSON, mostly objects built from the protocol's own keys: the envelope
        /// and the owned parse agree, and the depth scan matches the parsed depth.
        #[test]
        fn classification_of_any_json_agrees_and_never_panics(v in arb_json()) {
            let text = v.to_string();
            let owned = parse_message(text.as_bytes());
            let light = parse_envelope(text.as_bytes());
            prop_assert_eq!(owned.is_ok(), light.is_ok(), "{}", text);
            if let (Err(a), Err(b)) = (&owned, &light) {
                prop_assert_eq!(a, b);
            }
            let d = depth_of(&v);
            prop_assert!(!nests_deeper_than(text.as_bytes(), d));
            prop_assert_eq!(nests_deeper_than(text.as_bytes(), d.saturating_sub(1)), d > 0);
        }
    }

    #[test]
    fn hello_accepts_camel_case_and_missing_fields() {
        let h: Hello = serde_json::from_value(json!({"extVersion":"0.1.0","browser":"chromium","browserVersion":"140","label":"chromium-abc123","capabilities":["tabs"]})).unwrap();
        assert_eq!(h.browser_version, "140");
        let h: Hello = serde_json::from_value(json!({})).unwrap();
        assert_eq!(h, Hello::default());
    }
}
