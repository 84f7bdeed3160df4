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
                // The size only: a decoder's message can quote the frame, i.e. page data.
                tracing::warn!(bytes = body.len(), "malformed frame from the extension");
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
mod tests;
