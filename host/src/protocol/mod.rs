//! Wire protocol v1: the one contract shared by the host, its clients, the MCP server and the
//! helper extension. No I/O lives here.
//!
//! ```text
//! client ──{v,id:"7",method,params}──▶ host ──{v,id:"c3:7",method,params}──▶ extension
//! client ◀──{id:"7",result|error}──── host ◀──{id:"c3:7",result|error}───── extension
//! client ◀──{v,event,params}───────── host ◀──{v,event,params}────────────── extension
//! ```
//!
//! [`codec`] frames messages (4-byte native-endian length + UTF-8 JSON) and splits oversized
//! host → browser payloads into chunk frames; [`methods`] is the table of method names and
//! parameter schemas from which `extension/src/protocol.js` is generated ([`js`]).

pub mod capture;
pub mod codec;
mod error;
pub mod js;
mod message;
pub mod methods;
pub mod permissions;
pub mod timeouts;

pub use error::{ErrorBody, ErrorCode};
pub use message::{
    ChunkFrame, ChunkHeader, ClientHello, Envelope, Event, Hello, Incoming, RawEvent, RawReply, RawRequest,
    Reply, Request, nests_deeper_than, parse_envelope, parse_message,
};

/// Version of the wire protocol spoken by this build.
pub const PROTOCOL_VERSION: u32 = 1;

/// Name of the native-messaging host, as registered in host manifests.
pub const NATIVE_HOST_NAME: &str = "dev.webext_mcp.bridge";

/// The helper extension's id in the Gecko family (`browser_specific_settings.gecko.id`).
pub const HELPER_GECKO_ID: &str = "helper@webext-mcp.dev";

/// The helper extension's id in the Chromium family, derived from the public key in
/// `extension/key.pub.b64` (first 32 hex digits of sha256(DER), 0-9a-f mapped to a-p).
pub const HELPER_CHROMIUM_ID: &str = "dkcbnncejeekhnnfjnepngcdiipdcakc";

/// The public key the helper's Chromium manifest carries as `key`, so its id never changes.
pub const HELPER_CHROMIUM_KEY: &str = include_str!("../../../extension/key.pub.b64");

/// Largest frame body the host sends to a browser, envelope included. Both browsers accept
/// exactly 1,048,576 bytes and drop the port at 1,048,577 (verified); Firefox then stops
/// reading, so a larger blocking write would hang.
pub const MAX_TO_BROWSER: usize = 1_048_576;

/// Largest frame body accepted from a browser (Chrome's own limit; Firefox allows 4 GB).
///
/// A larger length on the browser link is fatal: the host logs it and exits as on EOF
/// (every pending call answers `NOT_CONNECTED`, socket and descriptor removed). Skipping the
/// body instead would desync the stream for good on a 4 GiB header. The helper reconnects
/// by itself (browsers never restart a native host).
///
/// Memory: a reply is routed without parsing its `result` (only the envelope and the `id`
/// are read), so a 60 MB JSON-array reply costs the router one copy of itself (the rewritten
/// body) and the host process peaks at 129 MB (`VmHWM`, bridge test `bounds`), where parsing
/// it into a `serde_json::Value` peaked at 618 MB here (1.08 GB in the security review).
pub const MAX_FROM_BROWSER: usize = 64 * 1024 * 1024;

/// Largest frame body on the local socket, in either direction.
///
/// An oversized frame from a client is answered `PAYLOAD_TOO_LARGE` and its body skipped as
/// it streams in, never buffered; the decoder never reserves memory ahead of the bytes that
/// arrived, so a header alone costs nothing. A request is forwarded with its `params`
/// spliced, not parsed: one 60 MB request peaks the host at 187 MB and leaves 14 MB resident
/// (606 MB and 74 MB here before; 1.6 GB and ~600 MB in the security review).
pub const MAX_SOCKET_FRAME: usize = 64 * 1024 * 1024;

/// Deepest nesting of arrays and objects accepted in a frame from a client, checked by a
/// byte scan before any parsing (`INVALID_ARGUMENT` beyond it). Requests are shallow; 64
/// stays well under `serde_json`'s own recursion limit of 128.
pub const MAX_CLIENT_JSON_DEPTH: usize = 64;

/// Deepest nesting accepted in a reply or event from the browser: `serde_json`'s recursion
/// limit, which every client parsing the reply would hit anyway. Deeper replies answer the
/// caller `INTERNAL` instead of a reply no client can read.
pub const MAX_BROWSER_JSON_DEPTH: usize = 128;

/// Largest `params` of a method the host answers itself (`client.hello`, `subscribe`,
/// `host.info`…): those are parsed into values, so they stay small (`PAYLOAD_TOO_LARGE`).
pub const MAX_HOST_PARAMS: usize = 64 * 1024;

/// Chunked payloads from the browser that may be unfinished at once; a new id beyond it is
/// refused. With the byte cap below, 10 k unfinished ids hold at most this many slices
/// (they held 66 MB forever before).
pub const MAX_UNFINISHED_CHUNKS: usize = 64;

/// Bytes of all unfinished chunked payloads together (the largest one frame could carry).
pub const MAX_UNFINISHED_CHUNK_BYTES: usize = MAX_FROM_BROWSER;

/// An unfinished chunked payload is dropped (and logged) this long after its first slice.
pub const CHUNK_DEADLINE_MS: u64 = 30_000;

/// Calls one client connection may have in flight; the excess answers `BUSY`. The MCP server
/// multiplexes all its calls on one connection, and the load test holds 1,000 per client.
pub const MAX_CALLS_PER_CLIENT: usize = 1024;

/// Calls in flight on one host across all clients; the excess answers `BUSY`. A pending call
/// costs ~200 bytes of routing state (its request already went to the browser queue).
pub const MAX_CALLS_IN_FLIGHT: usize = 16 * 1024;

/// Number of hex digits of a tab-set fingerprint.
pub const FINGERPRINT_LEN: usize = 12;

/// Separator between `windowId:tabId` entries in the fingerprint input.
pub const FINGERPRINT_SEPARATOR: &str = ",";

/// The tab-set fingerprint: the first 12 lowercase hex digits of sha256 over the UTF-8 text
/// `"<windowId>:<tabId>"` for each visible tab, in the order given, joined with `","` (no
/// spaces, no trailing separator; decimal integers). The order is the extension's:
/// windows by ascending id, then tabs by index. The empty set hashes the empty string.
///
/// Example: tabs `[(1, 10), (1, 11), (2, 20)]` hash the text `1:10,1:11,2:20`.
pub fn tab_set_fingerprint(tabs: &[(i64, i64)]) -> String {
    let text: Vec<String> = tabs.iter().map(|(w, t)| format!("{w}:{t}")).collect();
    let mut hex = crate::digest::sha256_hex(text.join(FINGERPRINT_SEPARATOR).as_bytes());
    hex.truncate(FINGERPRINT_LEN);
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;

    #[test]
    fn fingerprint_is_sha256_of_the_joined_list() {
        // sha256("1:10,1:11,2:20"), computed independently.
        assert_eq!(tab_set_fingerprint(&[(1, 10), (1, 11), (2, 20)]), &sha256_hex(b"1:10,1:11,2:20")[..12]);
        assert_eq!(tab_set_fingerprint(&[]), "e3b0c44298fc");
        assert_ne!(tab_set_fingerprint(&[(1, 2), (1, 3)]), tab_set_fingerprint(&[(1, 3), (1, 2)]));
        assert_eq!(tab_set_fingerprint(&[(1, 2)]).len(), FINGERPRINT_LEN);
    }
}
