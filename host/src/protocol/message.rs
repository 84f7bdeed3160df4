//! The message shapes of protocol v1 and the one function that tells them apart.
//!
//! A frame is classified by its keys, never by position: `chunk` → chunk frame, `method` →
//! request, `event` → event, `id` with `result` or `error` → reply. Anything else is
//! malformed and becomes an `INVALID_ARGUMENT` error body that names what was wrong.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// Classifies one frame body. Errors name the problem and, when the frame had an id, the
/// caller can answer it (`ErrorBody.data.id`).
pub fn parse_message(body: &[u8]) -> Result<Incoming, ErrorBody> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ErrorBody::invalid_argument(format!("frame is not valid UTF-8 JSON: {e}"))
            .with_hint("each frame is a 4-byte native-endian length followed by one JSON object")
    })?;
    let Value::Object(map) = value else {
        return Err(ErrorBody::invalid_argument("frame is not a JSON object"));
    };
    classify(map)
}

fn classify(map: Map<String, Value>) -> Result<Incoming, ErrorBody> {
    let id = map.get("id").cloned();
    let shape_error = |what: &str, e: serde_json::Error| {
        let mut body = ErrorBody::invalid_argument(format!("malformed {what}: {e}"));
        if let Some(id) = &id {
            body = body.with_data(serde_json::json!({ "id": id }));
        }
        body
    };
    let value = Value::Object(map);
    if value.get("chunk").is_some() {
        return serde_json::from_value(value).map(Incoming::Chunk).map_err(|e| shape_error("chunk frame", e));
    }
    if value.get("method").is_some() {
        let request: Request = serde_json::from_value(value).map_err(|e| shape_error("request", e))?;
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
        return Ok(Incoming::Request(request));
    }
    if value.get("event").is_some() {
        return serde_json::from_value(value).map(Incoming::Event).map_err(|e| shape_error("event", e));
    }
    if id.is_some() && (value.get("result").is_some() || value.get("error").is_some()) {
        return serde_json::from_value(value).map(Incoming::Reply).map_err(|e| shape_error("reply", e));
    }
    let mut body = ErrorBody::invalid_argument(
        "frame is neither a request, a reply, an event nor a chunk (no `method`, `event`, `chunk`, `result` or `error`)",
    );
    if let Some(id) = id {
        body = body.with_data(serde_json::json!({ "id": id }));
    }
    Err(body)
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn hello_accepts_camel_case_and_missing_fields() {
        let h: Hello = serde_json::from_value(json!({"extVersion":"0.1.0","browser":"chromium","browserVersion":"140","label":"chromium-abc123","capabilities":["tabs"]})).unwrap();
        assert_eq!(h.browser_version, "140");
        let h: Hello = serde_json::from_value(json!({})).unwrap();
        assert_eq!(h, Hello::default());
    }
}
