//! The host's routing state, with no I/O: frames in, frames out.
//!
//! ```text
//! client 3 ──{id:"7"}──▶ Router ──{id:"c3:7"}──▶ browser      pending["c3:7"] = (3, "7", deadline)
//! client 3 ◀─{id:"7"}─── Router ◀─{id:"c3:7"}─── browser      pending removed
//! subscribers ◀──────── Router ◀──{event}─────── browser
//! ```
//!
//! Ids are namespaced per connection, so two clients may both use id "1". A reply goes only
//! to the connection that asked; a connection that leaves has its pending calls dropped (late
//! replies are discarded); a deadline passing answers `TIMEOUT`; the browser going away
//! answers every pending call `NOT_CONNECTED`.
//!
//! Payloads are routed as JSON text: only a frame's envelope is parsed ([`parse_envelope`]),
//! the `id` is rewritten and `params`/`result` are copied through verbatim, so a large reply
//! costs about its own size, not a tree of values. Inputs are bounded before they are
//! parsed: nesting depth, host-method params, calls in flight per client and in total, and
//! unfinished chunked payloads (the constants in [`crate::protocol`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::protocol::codec::{Reassembler, frames_for_browser};
use crate::protocol::methods::{self, Target};
use crate::protocol::timeouts;
use crate::protocol::{
    ClientHello, Envelope, ErrorBody, ErrorCode, Hello, MAX_BROWSER_JSON_DEPTH, MAX_CALLS_IN_FLIGHT,
    MAX_CALLS_PER_CLIENT, MAX_CLIENT_JSON_DEPTH, MAX_HOST_PARAMS, MAX_SOCKET_FRAME, MAX_TO_BROWSER,
    MAX_UNFINISHED_CHUNK_BYTES, PROTOCOL_VERSION, RawReply, Reply, Request, nests_deeper_than,
    parse_envelope,
};

/// A client connection's number, unique for the host's lifetime.
pub type ClientId = u64;

/// Deadline of a call that names none ([`timeouts::HOST_DEFAULT_TIMEOUT_MS`]).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(timeouts::HOST_DEFAULT_TIMEOUT_MS);

/// Longest deadline a client may ask for ([`timeouts::HOST_MAX_TIMEOUT_MS`], a hard cap;
/// the MCP tools stay under [`timeouts::MAX_TIMEOUT_MS`]).
pub const MAX_TIMEOUT: Duration = Duration::from_millis(timeouts::HOST_MAX_TIMEOUT_MS);

/// What the router wants done.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// Frame bodies for the browser (several when chunked), for the call `call` if any.
    ToBrowser { call: Option<String>, frames: Vec<Vec<u8>> },
    /// A frame body for one client.
    ToClient(ClientId, Vec<u8>),
    /// Close a client after what was queued for it.
    Close(ClientId),
}

#[derive(Debug, Default)]
struct ClientState {
    greeted: bool,
    events: HashSet<String>,
    /// Calls of this client in `pending`.
    in_flight: usize,
}

#[derive(Debug)]
struct Pending {
    client: ClientId,
    id: Value,
    method: String,
    timeout: Duration,
}

/// Routing state of one host.
#[derive(Debug)]
pub struct Router {
    clients: HashMap<ClientId, ClientState>,
    pending: HashMap<String, Pending>,
    deadlines: BinaryHeap<Reverse<(Instant, String)>>,
    hello: Option<Hello>,
    /// The host's descriptor as JSON, for `client.hello` and `host.info`.
    descriptor: Value,
    chunks: Reassembler,
    /// Chunks refused so far (logged at powers of two, so a flood cannot flood the log).
    chunk_refusals: u64,
    per_client_cap: usize,
    total_cap: usize,
    /// The token `client.hello` must carry (`None` only in unit tests of routing).
    token: Option<crate::descriptor::Token>,
}

impl Default for Router {
    fn default() -> Self {
        Router::new()
    }
}

fn body_of(v: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec())
}

/// [`body_of`] into a buffer sized up front for a payload of `payload` bytes, so a large
/// routed body is written once instead of through a chain of doubling reallocations.
fn body_sized(v: &impl serde::Serialize, payload: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.saturating_add(256));
    match serde_json::to_writer(&mut out, v) {
        Ok(()) => out,
        Err(_) => b"{}".to_vec(),
    }
}

/// A reply with the extension's `result` copied through as text.
#[derive(serde::Serialize)]
struct RoutedReply<'a> {
    id: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorBody>,
}

/// A request for the browser with the client's `params` copied through as text.
#[derive(serde::Serialize)]
struct RoutedRequest<'a> {
    v: u32,
    id: &'a str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
    #[serde(rename = "timeoutMs")]
    timeout_ms: u64,
}

/// An event for clients with the extension's `params` copied through as text.
#[derive(serde::Serialize)]
struct RoutedEvent<'a> {
    v: u32,
    event: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
}

fn reply_body(id: Value, result: Result<Value, ErrorBody>) -> Vec<u8> {
    match result {
        Ok(v) => body_of(&Reply::ok(id, v)),
        Err(e) => body_of(&Reply::err(id, e)),
    }
}

impl Router {
    pub fn new() -> Router {
        Router {
            clients: HashMap::new(),
            pending: HashMap::new(),
            deadlines: BinaryHeap::new(),
            hello: None,
            descriptor: Value::Null,
            chunks: Reassembler::new(MAX_UNFINISHED_CHUNK_BYTES),
            chunk_refusals: 0,
            per_client_cap: MAX_CALLS_PER_CLIENT,
            total_cap: MAX_CALLS_IN_FLIGHT,
            token: None,
        }
    }

    /// Requires `token` in every `client.hello`; a client without it is refused and closed.
    pub fn set_token(&mut self, token: crate::descriptor::Token) {
        self.token = Some(token);
    }

    /// Records the descriptor shown to clients.
    pub fn set_descriptor(&mut self, descriptor: Value) {
        self.descriptor = descriptor;
    }

    /// The extension's hello, once received.
    pub fn hello(&self) -> Option<&Hello> {
        self.hello.as_ref()
    }

    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    pub fn client_connected(&mut self, client: ClientId) {
        self.clients.insert(client, ClientState::default());
    }

    /// Removes a pending call, keeping its client's count of calls in flight.
    fn take_pending(&mut self, key: &str) -> Option<Pending> {
        let p = self.pending.remove(key)?;
        if let Some(state) = self.clients.get_mut(&p.client) {
            state.in_flight = state.in_flight.saturating_sub(1);
        }
        Some(p)
    }

    /// A client left: forget it and its pending calls.
    pub fn client_gone(&mut self, client: ClientId) {
        self.clients.remove(&client);
        self.pending.retain(|_, p| p.client != client);
    }

    /// A client sent a frame larger than the socket allows.
    pub fn client_oversized(&mut self, client: ClientId, len: usize, out: &mut Vec<Out>) {
        let e = ErrorBody::new(
            ErrorCode::PayloadTooLarge,
            format!("frame of {len} bytes exceeds the {MAX_SOCKET_FRAME}-byte socket limit"),
        );
        out.push(Out::ToClient(client, reply_body(Value::Null, Err(e))));
    }

    /// One frame from a client.
    pub fn client_frame(&mut self, client: ClientId, body: &[u8], now: Instant, out: &mut Vec<Out>) {
        if nests_deeper_than(body, MAX_CLIENT_JSON_DEPTH) {
            let e = ErrorBody::invalid_argument(format!(
                "frame nests arrays and objects deeper than {MAX_CLIENT_JSON_DEPTH} levels"
            ))
            .with_hint("send flatter parameters");
            out.push(Out::ToClient(client, reply_body(Value::Null, Err(e))));
            return;
        }
        let (request, raw_params) = match parse_envelope(body) {
            Ok(Envelope::Request(r)) => {
                // Params of the host's own methods are parsed (and so kept small); the
                // extension's are forwarded as text; an unknown method's are never read.
                let for_host = methods::find(&r.method).is_some_and(|spec| spec.target == Target::Host);
                let size = r.params.map_or(0, |p| p.get().len());
                if for_host && size > MAX_HOST_PARAMS {
                    let e = ErrorBody::new(
                        ErrorCode::PayloadTooLarge,
                        format!(
                            "params of `{}` are {size} bytes, over the {MAX_HOST_PARAMS}-byte limit",
                            r.method
                        ),
                    );
                    out.push(Out::ToClient(client, reply_body(r.id, Err(e))));
                    return;
                }
                let (params, raw) = match r.params {
                    Some(p) if for_host => match serde_json::from_str(p.get()) {
                        Ok(v) => (v, None),
                        Err(e) => {
                            let e = ErrorBody::internal(format!(
                                "params that parsed once do not parse again: {e}"
                            ));
                            out.push(Out::ToClient(client, reply_body(r.id, Err(e))));
                            return;
                        }
                    },
                    other => (Value::Null, other),
                };
                let request =
                    Request { v: r.v, id: r.id, method: r.method, params, timeout_ms: r.timeout_ms };
                (request, raw)
            }
            Ok(_) => {
                let e = ErrorBody::invalid_argument("clients send requests only");
                out.push(Out::ToClient(client, reply_body(Value::Null, Err(e))));
                return;
            }
            Err(e) => {
                tracing::warn!(client, "malformed frame from client: {}", e.message);
                let id = e.data.as_ref().and_then(|d| d.get("id")).cloned().unwrap_or(Value::Null);
                let skew = e.code == ErrorCode::VersionSkew;
                out.push(Out::ToClient(client, reply_body(id, Err(e))));
                if skew {
                    out.push(Out::Close(client));
                }
                return;
            }
        };
        let Some(state) = self.clients.get_mut(&client) else { return };
        let id = request.id.clone();
        if request.method == methods::CLIENT_HELLO {
            let hello: Result<ClientHello, _> = serde_json::from_value(request.params.clone());
            let authentic = |h: &ClientHello| match &self.token {
                Some(t) => h.token.as_deref().is_some_and(|p| t.matches(p)),
                None => true,
            };
            match hello {
                Ok(h) if !authentic(&h) => {
                    tracing::warn!(client, "refused a client without the host's token");
                    let e = ErrorBody::new(
                        ErrorCode::PermissionDenied,
                        "client.hello did not carry this host's token",
                    )
                    .with_hint("connect through webext-mcp as the user who runs the browser; it reads the token from the host's descriptor in the runtime dir");
                    out.push(Out::ToClient(client, reply_body(id, Err(e))));
                    out.push(Out::Close(client));
                }
                Ok(h) if h.protocol == PROTOCOL_VERSION => {
                    state.greeted = true;
                    tracing::debug!(client, name = ?h.name, "client hello");
                    let result = json!({
                        "protocol": PROTOCOL_VERSION,
                        "host": self.descriptor,
                        "hello": self.hello,
                    });
                    out.push(Out::ToClient(client, reply_body(id, Ok(result))));
                }
                Ok(h) => {
                    let e = ErrorBody::new(
                        ErrorCode::VersionSkew,
                        format!(
                            "client speaks protocol {}, this host speaks protocol {PROTOCOL_VERSION}",
                            h.protocol
                        ),
                    )
                    .with_hint("use the same webext-mcp version for the MCP server and the browser host (run `webext-mcp install` again)")
                    .with_data(json!({ "client": h.protocol, "host": PROTOCOL_VERSION }));
                    out.push(Out::ToClient(client, reply_body(id, Err(e))));
                    out.push(Out::Close(client));
                }
                Err(err) => {
                    let e = ErrorBody::invalid_argument(format!("client.hello params: {err}"))
                        .with_hint("send {\"protocol\": 1}");
                    out.push(Out::ToClient(client, reply_body(id, Err(e))));
                }
            }
            return;
        }
        if !state.greeted {
            let e = ErrorBody::invalid_argument("send client.hello before any other request").with_hint(
                "first request: {\"v\":1,\"id\":0,\"method\":\"client.hello\",\"params\":{\"protocol\":1}}",
            );
            out.push(Out::ToClient(client, reply_body(id, Err(e))));
            return;
        }
        let Some(spec) = methods::find(&request.method) else {
            let e = ErrorBody::new(ErrorCode::Unsupported, format!("unknown method `{}`", request.method))
                .with_hint("the methods are listed in host/src/protocol/methods.rs");
            out.push(Out::ToClient(client, reply_body(id, Err(e))));
            return;
        };
        match spec.target {
            Target::Host => {
                let result = self.host_method(client, &request);
                out.push(Out::ToClient(client, reply_body(id, result)));
            }
            Target::Extension => self.forward(client, request, raw_params, now, out),
        }
    }

    fn host_method(&mut self, client: ClientId, request: &Request) -> Result<Value, ErrorBody> {
        let events = || -> Result<Vec<String>, ErrorBody> {
            request
                .params
                .get("events")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_owned)).collect())
                .ok_or_else(|| ErrorBody::invalid_argument("`events` must be an array of event names"))
        };
        match request.method.as_str() {
            methods::SUBSCRIBE | methods::UNSUBSCRIBE => {
                let names = events()?;
                let state = self.clients.entry(client).or_default();
                for n in names {
                    if request.method == methods::SUBSCRIBE {
                        state.events.insert(n);
                    } else {
                        state.events.remove(&n);
                    }
                }
                let mut now: Vec<&String> = state.events.iter().collect();
                now.sort();
                Ok(json!({ "events": now }))
            }
            methods::HOST_INFO => Ok(json!({
                "descriptor": self.descriptor,
                "hello": self.hello,
                "clients": self.clients.len(),
                "pending": self.pending.len(),
                "unfinishedChunks": self.chunks.unfinished(),
            })),
            other => Err(ErrorBody::internal(format!("host method `{other}` has no handler"))),
        }
    }

    fn forward(
        &mut self,
        client: ClientId,
        request: Request,
        params: Option<&RawValue>,
        now: Instant,
        out: &mut Vec<Out>,
    ) {
        let in_flight = self.clients.get(&client).map_or(0, |s| s.in_flight);
        if in_flight >= self.per_client_cap || self.pending.len() >= self.total_cap {
            let (message, cap) = if in_flight >= self.per_client_cap {
                ("on this connection", self.per_client_cap)
            } else {
                ("on this host", self.total_cap)
            };
            let e = ErrorBody::new(ErrorCode::Busy, format!("{cap} calls are already in flight {message}"))
                .with_hint("wait for earlier calls to answer, then retry")
                .with_data(json!({ "id": request.id, "limit": cap }));
            out.push(Out::ToClient(client, reply_body(request.id, Err(e))));
            return;
        }
        let key = match &request.id {
            Value::String(s) => format!("c{client}:{s}"),
            other => format!("c{client}:{other}"),
        };
        if self.pending.contains_key(&key) {
            let e = ErrorBody::invalid_argument(format!(
                "id {} is already in flight on this connection",
                request.id
            ));
            out.push(Out::ToClient(client, reply_body(request.id, Err(e))));
            return;
        }
        let timeout =
            request.timeout_ms.map(Duration::from_millis).unwrap_or(DEFAULT_TIMEOUT).min(MAX_TIMEOUT);
        let routed = RoutedRequest {
            v: PROTOCOL_VERSION,
            id: &key,
            method: &request.method,
            params,
            timeout_ms: timeout.as_millis() as u64,
        };
        let body =
            body_sized(&routed, params.map_or(0, |p| p.get().len()) + request.method.len() + key.len());
        let frames = match frames_for_browser(&key, &body, MAX_TO_BROWSER, MAX_SOCKET_FRAME) {
            Ok(f) => f,
            Err(e) => {
                out.push(Out::ToClient(client, reply_body(request.id, Err(e))));
                return;
            }
        };
        if let Some(state) = self.clients.get_mut(&client) {
            state.in_flight += 1;
        }
        self.pending.insert(key.clone(), Pending { client, id: request.id, method: request.method, timeout });
        self.deadlines.push(Reverse((now + timeout, key.clone())));
        out.push(Out::ToBrowser { call: Some(key), frames });
    }

    /// Answers a forwarded call with an error (e.g. the browser queue is full).
    pub fn fail(&mut self, call: &str, error: ErrorBody, out: &mut Vec<Out>) {
        if let Some(p) = self.take_pending(call) {
            out.push(Out::ToClient(p.client, reply_body(p.id, Err(error))));
        }
    }

    /// One frame from the browser. Returns true when the extension said hello (the
    /// descriptor must be written).
    pub fn browser_frame(&mut self, body: &[u8], out: &mut Vec<Out>) -> bool {
        match parse_envelope(body) {
            Ok(Envelope::Reply(reply)) => {
                let key = reply.id.as_str().unwrap_or_default().to_owned();
                match self.take_pending(&key) {
                    Some(p) => out.push(Out::ToClient(p.client, routed_reply(&p.id, &reply, body))),
                    None => tracing::debug!(id = %reply.id, "reply for a call that is no longer pending"),
                }
                false
            }
            Ok(Envelope::Event(event)) => {
                if nests_deeper_than(body, MAX_BROWSER_JSON_DEPTH) {
                    tracing::warn!(event = %event.event, "dropping an event nested deeper than {MAX_BROWSER_JSON_DEPTH} levels");
                    return false;
                }
                let mut hello = false;
                if event.event == methods::EVENT_HELLO {
                    let params = event.params.map_or("{}", |p| p.get());
                    match serde_json::from_str::<Hello>(params) {
                        Ok(h) => {
                            tracing::info!(browser = %h.browser, version = %h.browser_version, label = %h.label, "extension hello");
                            self.hello = Some(h);
                            hello = true;
                        }
                        Err(e) => tracing::warn!("malformed hello from the extension: {e}"),
                    }
                }
                let routed = RoutedEvent { v: PROTOCOL_VERSION, event: &event.event, params: event.params };
                let mut body = None;
                for (id, state) in &self.clients {
                    if state.events.contains(&event.event) || state.events.contains("*") {
                        let body = body.get_or_insert_with(|| body_of(&routed));
                        out.push(Out::ToClient(*id, body.clone()));
                    }
                }
                hello
            }
            Ok(Envelope::Chunk(chunk)) => match self.chunks.push(chunk, Instant::now()) {
                Ok(Some((_, payload))) => self.browser_frame(payload.as_bytes(), out),
                Ok(None) => false,
                Err(e) => {
                    self.chunk_refusals += 1;
                    if self.chunk_refusals.is_power_of_two() {
                        tracing::warn!(
                            refused = self.chunk_refusals,
                            unfinished = self.chunks.unfinished(),
                            held = self.chunks.held_bytes(),
                            "bad chunk from the extension (unfinished chunked payloads are capped): {}",
                            e.message
                        );
                    }
                    false
                }
            },
            Ok(Envelope::Request(r)) => {
                tracing::warn!(method = %r.method, "the extension sent a request; the host serves none");
                let e =
                    ErrorBody::new(ErrorCode::Unsupported, "the host answers no requests from the extension");
                let frames = vec![reply_body(r.id, Err(e))];
                out.push(Out::ToBrowser { call: None, frames });
                false
            }
            Err(e) => {
                tracing::warn!("malformed frame from the extension: {}", e.message);
                let id = e.data.as_ref().and_then(|d| d.get("id")).and_then(Value::as_str).map(str::to_owned);
                if let Some(id) = id {
                    let err =
                        ErrorBody::internal(format!("the extension sent a malformed reply: {}", e.message));
                    self.fail(&id, err, out);
                }
                false
            }
        }
    }

    /// When the next deadline passes.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(Reverse((_, key))) = self.deadlines.peek() {
            if self.pending.contains_key(key) {
                break;
            }
            self.deadlines.pop();
        }
        let call = self.deadlines.peek().map(|Reverse((at, _))| *at);
        match (call, self.chunks.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Answers `TIMEOUT` for every call whose deadline has passed, and drops unfinished
    /// chunked payloads that are past theirs.
    pub fn expire(&mut self, now: Instant, out: &mut Vec<Out>) {
        for (id, bytes) in self.chunks.expire(now) {
            tracing::warn!(%id, bytes, "dropping an unfinished chunked payload from the extension");
        }
        while let Some(Reverse((at, _))) = self.deadlines.peek() {
            if *at > now {
                break;
            }
            let Some(Reverse((_, key))) = self.deadlines.pop() else { break };
            if let Some(p) = self.take_pending(&key) {
                let e = ErrorBody::new(
                    ErrorCode::Timeout,
                    format!(
                        "`{}` got no answer from the browser within {} ms",
                        p.method,
                        p.timeout.as_millis()
                    ),
                )
                .with_hint("the tab may be busy or blocked; retry, or pass a longer timeout");
                out.push(Out::ToClient(p.client, reply_body(p.id, Err(e))));
            }
        }
    }

    /// The browser is gone: every pending call answers `NOT_CONNECTED`.
    pub fn browser_gone(&mut self, reason: &str, out: &mut Vec<Out>) {
        let mut pending: Vec<(String, Pending)> = self.pending.drain().collect();
        for state in self.clients.values_mut() {
            state.in_flight = 0;
        }
        pending.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, p) in pending {
            let e = ErrorBody::new(ErrorCode::NotConnected, format!("the browser went away ({reason})"))
                .with_hint("the call may or may not have run; check the browser, then retry");
            out.push(Out::ToClient(p.client, reply_body(p.id, Err(e))));
        }
        self.deadlines.clear();
    }
}

/// The client's answer to a reply from the extension: the client's own id, the `result`
/// copied through as text. A result nested deeper than any client can parse is answered
/// `INTERNAL` instead.
fn routed_reply(id: &Value, reply: &RawReply<'_>, body: &[u8]) -> Vec<u8> {
    if reply.error.is_none() && nests_deeper_than(body, MAX_BROWSER_JSON_DEPTH) {
        let e = ErrorBody::internal(format!(
            "the extension's answer nests deeper than {MAX_BROWSER_JSON_DEPTH} levels"
        ));
        return reply_body(id.clone(), Err(e));
    }
    let size = reply.result.map_or(0, |r| r.get().len());
    body_sized(&RoutedReply { id, result: reply.result, error: reply.error.as_ref() }, size)
}

#[cfg(test)]
mod tests {
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
        assert!(
            due > t0 && due <= Instant::now() + Duration::from_millis(crate::protocol::CHUNK_DEADLINE_MS)
        );
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
        r.client_frame(
            1,
            &req(json!(2), "subscribe", json!({"events": ["*"]})),
            Instant::now(),
            &mut Vec::new(),
        );
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
}
