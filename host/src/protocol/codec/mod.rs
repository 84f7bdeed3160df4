//! Framing (4-byte native-endian length + UTF-8 JSON body) and chunking, used by both ends of
//! both links (browser stdio and local socket). Pure: bytes in, bytes out.
//!
//! The decoder is incremental so split reads are normal. An oversized length is reported
//! once, at the header, and its body skipped as it streams by: the socket side answers it and
//! goes on, the browser side treats it as fatal (see `MAX_FROM_BROWSER`). The decoder never
//! reserves memory ahead of the bytes that arrived, so a hostile header costs nothing, and a
//! large frame's buffer is handed over as its body instead of being copied.
//! Chunking measures the *encoded* frame: JSON escaping can double a payload (`"` → `\"`) or
//! grow a control character six-fold, so slices are cut on UTF-8 boundaries against the
//! escaped length, and every produced frame body is checked against the cap.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use byteorder::{ByteOrder, NativeEndian};

use super::{
    CHUNK_DEADLINE_MS, ChunkFrame, ChunkHeader, ErrorBody, ErrorCode, MAX_UNFINISHED_CHUNKS, PROTOCOL_VERSION,
};

/// Size of the length prefix.
pub const HEADER_LEN: usize = 4;

/// A framing failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The frame body is larger than the link allows. The decoder skips its bytes; the socket
    /// side answers `PAYLOAD_TOO_LARGE` and goes on, the browser side ends the host.
    #[error("frame of {len} bytes exceeds the {cap}-byte limit of this link")]
    TooLarge { len: usize, cap: usize },
    /// A payload cannot be chunked because a single frame cannot hold any of it.
    #[error("chunk id of {id_len} bytes leaves no room for data in a {cap}-byte frame")]
    IdTooLong { id_len: usize, cap: usize },
}

impl From<FrameError> for ErrorBody {
    fn from(e: FrameError) -> Self {
        ErrorBody::new(ErrorCode::PayloadTooLarge, e.to_string())
            .with_hint("send less data per call (e.g. page through results)")
    }
}

/// Prefixes `body` with its length. Refuses bodies over `cap`.
pub fn encode_frame(body: &[u8], cap: usize) -> Result<Vec<u8>, FrameError> {
    let header = encode_header(body.len(), cap)?;
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header);
    out.extend_from_slice(body);
    Ok(out)
}

/// The length prefix of a `len`-byte body, for writers that send the body from where it is.
pub fn encode_header(len: usize, cap: usize) -> Result<[u8; HEADER_LEN], FrameError> {
    if len > cap || len > u32::MAX as usize {
        return Err(FrameError::TooLarge { len, cap });
    }
    let mut header = [0u8; HEADER_LEN];
    NativeEndian::write_u32(&mut header, len as u32);
    Ok(header)
}

/// Frames at least this large leave the decoder as its buffer rather than as a copy.
const HAND_OVER: usize = 64 * 1024;

/// Reassembles frames from a byte stream that arrives in arbitrary pieces.
#[derive(Debug)]
pub struct FrameDecoder {
    cap: usize,
    buf: Vec<u8>,
    start: usize,
    /// Bytes of an oversized frame still to be thrown away.
    skip: usize,
}

impl FrameDecoder {
    pub fn new(cap: usize) -> FrameDecoder {
        FrameDecoder { cap, buf: Vec::new(), start: 0, skip: 0 }
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.skip > 0 {
            let n = self.skip.min(bytes.len());
            self.skip -= n;
            bytes = &bytes[n..];
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame body, an error for an oversized one (whose body is then
    /// skipped), or `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        let avail = &self.buf[self.start..];
        if avail.len() < HEADER_LEN {
            return None;
        }
        let len = NativeEndian::read_u32(&avail[..HEADER_LEN]) as usize;
        if len > self.cap {
            let have = avail.len() - HEADER_LEN;
            let dropped = have.min(len);
            self.start += HEADER_LEN + dropped;
            self.skip = len - dropped;
            return Some(Err(FrameError::TooLarge { len, cap: self.cap }));
        }
        if avail.len() < HEADER_LEN + len {
            // No reserve for the announced length: the buffer grows with the bytes that come.
            return None;
        }
        if len >= HAND_OVER {
            // Hand the buffer over as the body (one memmove, no second copy of a big frame);
            // the few bytes after it start the next buffer.
            let end = self.start + HEADER_LEN + len;
            let rest = self.buf.split_off(end);
            let mut body = std::mem::replace(&mut self.buf, rest);
            body.drain(..self.start + HEADER_LEN);
            self.start = 0;
            return Some(Ok(body));
        }
        let body = avail[HEADER_LEN..HEADER_LEN + len].to_vec();
        self.start += HEADER_LEN + len;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Some(Ok(body))
    }

    /// Bytes of an unfinished frame: non-zero at end of stream means the input was truncated.
    pub fn pending_bytes(&self) -> usize {
        self.buf.len() - self.start + self.skip
    }

    /// Whether the unfinished bytes stop inside the 4-byte length prefix.
    pub fn inside_header(&self) -> bool {
        self.skip == 0 && (1..HEADER_LEN).contains(&(self.buf.len() - self.start))
    }

    /// Bytes the decoder holds allocated (tests of its bounds).
    pub fn buffered_capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// Length of `c` once escaped inside a JSON string, as `serde_json` writes it.
pub fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{08}' | '\u{0C}' | '\n' | '\r' | '\t' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Splits `payload` (the JSON text of one message) into chunk frame bodies whose encoded
/// length never exceeds `cap`. Slices follow UTF-8 boundaries; concatenating their `data`
/// restores `payload` exactly.
pub fn chunk_payload(id: &str, payload: &str, cap: usize) -> Result<Vec<Vec<u8>>, FrameError> {
    let mut frames = Vec::new();
    let mut rest = payload;
    let mut seq: u32 = 0;
    loop {
        // Envelope with empty data and `last:false` (longer than `true`): the exact overhead.
        let envelope = chunk_body(id, seq, false, "")?;
        let budget = cap.checked_sub(envelope.len()).filter(|b| *b >= 6);
        let Some(budget) = budget else {
            return Err(FrameError::IdTooLong { id_len: id.len(), cap });
        };
        let mut used = 0;
        let mut cut = rest.len();
        for (i, c) in rest.char_indices() {
            let n = escaped_len(c);
            if used + n > budget {
                cut = i;
                break;
            }
            used += n;
        }
        let (slice, tail) = rest.split_at(cut);
        let last = tail.is_empty();
        let body = chunk_body(id, seq, last, slice)?;
        if body.len() > cap {
            return Err(FrameError::TooLarge { len: body.len(), cap });
        }
        frames.push(body);
        if last {
            return Ok(frames);
        }
        rest = tail;
        seq = seq.saturating_add(1);
    }
}

fn chunk_body(id: &str, seq: u32, last: bool, data: &str) -> Result<Vec<u8>, FrameError> {
    let frame = ChunkFrame {
        v: PROTOCOL_VERSION,
        chunk: ChunkHeader { id: id.to_owned(), seq, last },
        data: data.to_owned(),
    };
    // Serializing plain strings and integers cannot fail; map the impossible to a frame error.
    serde_json::to_vec(&frame).map_err(|_| FrameError::TooLarge { len: usize::MAX, cap: 0 })
}

/// Frame bodies for one outgoing message to the browser: the body itself when it fits,
/// else chunk frames keyed by `chunk_id`. Payloads over `max_total` are refused.
pub fn frames_for_browser(
    chunk_id: &str,
    body: &[u8],
    cap: usize,
    max_total: usize,
) -> Result<Vec<Vec<u8>>, ErrorBody> {
    if body.len() <= cap {
        return Ok(vec![body.to_vec()]);
    }
    if body.len() > max_total {
        return Err(FrameError::TooLarge { len: body.len(), cap: max_total }.into());
    }
    let text = std::str::from_utf8(body).map_err(|_| ErrorBody::internal("outgoing frame is not UTF-8"))?;
    Ok(chunk_payload(chunk_id, text, cap)?)
}

/// The receiving side of chunking: collects slices per id and yields whole payloads.
/// Out-of-order, duplicate or oversized sequences are refused and forgotten. It is bounded:
/// at most `max_ids` unfinished payloads, `max_total` bytes across all of them, and each is
/// dropped `deadline` after its first slice ([`Reassembler::expire`]).
#[derive(Debug)]
pub struct Reassembler {
    max_total: usize,
    max_ids: usize,
    deadline: Duration,
    held: usize,
    parts: HashMap<String, Partial>,
}

#[derive(Debug)]
struct Partial {
    next: u32,
    data: String,
    started: Instant,
}

impl Default for Reassembler {
    fn default() -> Self {
        Reassembler::new(super::MAX_UNFINISHED_CHUNK_BYTES)
    }
}

impl Reassembler {
    /// At most `max_total` bytes in all unfinished payloads together, the protocol's
    /// [`MAX_UNFINISHED_CHUNKS`] ids and [`CHUNK_DEADLINE_MS`].
    pub fn new(max_total: usize) -> Reassembler {
        Reassembler::with_limits(max_total, MAX_UNFINISHED_CHUNKS, Duration::from_millis(CHUNK_DEADLINE_MS))
    }

    pub fn with_limits(max_total: usize, max_ids: usize, deadline: Duration) -> Reassembler {
        Reassembler { max_total, max_ids, deadline, held: 0, parts: HashMap::new() }
    }

    /// Unfinished payloads.
    pub fn unfinished(&self) -> usize {
        self.parts.len()
    }

    /// Bytes held in unfinished payloads.
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    fn forget(&mut self, id: &str) -> Option<Partial> {
        let p = self.parts.remove(id)?;
        self.held -= p.data.len();
        Some(p)
    }

    /// Adds one chunk received at `now`; returns `(id, payload)` when it was the last one.
    pub fn push(&mut self, frame: ChunkFrame, now: Instant) -> Result<Option<(String, String)>, ErrorBody> {
        let ChunkFrame { chunk, data, .. } = frame;
        let expected = self.parts.get(&chunk.id).map(|p| p.next).unwrap_or(0);
        if chunk.seq != expected {
            self.forget(&chunk.id);
            return Err(ErrorBody::invalid_argument(format!(
                "chunk {} of `{}` arrived, expected {expected}",
                chunk.seq, chunk.id
            )));
        }
        if self.held.saturating_add(data.len()) > self.max_total {
            let had = self.forget(&chunk.id).map(|p| p.data.len()).unwrap_or(0);
            return Err(ErrorBody::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "chunked payloads would hold more than {} bytes (this one had {had})",
                    self.max_total
                ),
            ));
        }
        if chunk.last && expected == 0 {
            return Ok(Some((chunk.id, data)));
        }
        if expected == 0 && self.parts.len() >= self.max_ids {
            return Err(ErrorBody::new(
                ErrorCode::Busy,
                format!("{} chunked payloads are already unfinished", self.max_ids),
            )
            .with_hint("finish or abandon a chunked payload before starting another"));
        }
        let entry = self.parts.entry(chunk.id.clone()).or_insert_with(|| Partial {
            next: 0,
            data: String::new(),
            started: now,
        });
        self.held += data.len();
        entry.data.push_str(&data);
        entry.next = entry.next.saturating_add(1);
        if chunk.last {
            let payload = self.forget(&chunk.id).map(|p| p.data).unwrap_or_default();
            return Ok(Some((chunk.id, payload)));
        }
        Ok(None)
    }

    /// When the oldest unfinished payload expires.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.parts.values().map(|p| p.started + self.deadline).min()
    }

    /// Drops every payload whose deadline has passed; returns `(id, bytes held)` of each.
    pub fn expire(&mut self, now: Instant) -> Vec<(String, usize)> {
        let due: Vec<String> = self
            .parts
            .iter()
            .filter(|(_, p)| p.started + self.deadline <= now)
            .map(|(id, _)| id.clone())
            .collect();
        let mut dropped: Vec<(String, usize)> = due
            .into_iter()
            .filter_map(|id| {
                let p = self.forget(&id)?;
                Some((id, p.data.len()))
            })
            .collect();
        dropped.sort();
        dropped
    }
}

#[cfg(test)]
mod tests;
