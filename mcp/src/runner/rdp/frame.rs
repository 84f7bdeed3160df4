//! RDP framing: every packet is `<decimal length>:<JSON of that many bytes>`. Pure, so the
//! reader thread and the tests share one decoder.

use serde_json::Value;

/// Packets larger than this are refused: the browser is ours, but a corrupt length must not
/// make the reader allocate without bound.
pub const MAX_PACKET: usize = 256 << 20;

/// Longest length prefix accepted (digits).
const MAX_DIGITS: usize = 10;

/// Why the byte stream is not RDP.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("bad RDP length prefix {0:?}")]
    BadLength(String),
    #[error("RDP packet of {0} bytes is over the limit")]
    TooLarge(usize),
    #[error("RDP packet is not JSON: {0}")]
    BadJson(String),
}

/// Encodes one packet.
pub fn encode(packet: &Value) -> Vec<u8> {
    let body = packet.to_string();
    let mut out = format!("{}:", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Accumulates bytes and yields whole packets.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: Vec<u8>,
}

impl Decoder {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole packet, `None` until one has arrived. An error means the stream is
    /// unusable from here on.
    pub fn next_packet(&mut self) -> Option<Result<Value, FrameError>> {
        let colon = match self.buf.iter().take(MAX_DIGITS + 1).position(|b| *b == b':') {
            Some(i) => i,
            None if self.buf.len() > MAX_DIGITS => {
                return Some(Err(FrameError::BadLength(prefix_text(&self.buf[..MAX_DIGITS]))));
            }
            None => return None,
        };
        let digits = &self.buf[..colon];
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return Some(Err(FrameError::BadLength(prefix_text(digits))));
        }
        let len: usize = match std::str::from_utf8(digits).ok().and_then(|s| s.parse().ok()) {
            Some(n) => n,
            None => return Some(Err(FrameError::BadLength(prefix_text(digits)))),
        };
        if len > MAX_PACKET {
            return Some(Err(FrameError::TooLarge(len)));
        }
        let end = colon + 1 + len;
        if self.buf.len() < end {
            return None;
        }
        let parsed = serde_json::from_slice(&self.buf[colon + 1..end]);
        self.buf.drain(..end);
        Some(parsed.map_err(|e| FrameError::BadJson(e.to_string())))
    }
}

fn prefix_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn packets_round_trip_split_anywhere() {
        let a = json!({"to": "root", "type": "getRoot"});
        let b = json!({"from": "root", "text": "é:{}"});
        let mut bytes = encode(&a);
        bytes.extend(encode(&b));
        for cut in 0..bytes.len() {
            let mut d = Decoder::default();
            d.push(&bytes[..cut]);
            let mut got = Vec::new();
            while let Some(p) = d.next_packet() {
                got.push(p.unwrap());
            }
            d.push(&bytes[cut..]);
            while let Some(p) = d.next_packet() {
                got.push(p.unwrap());
            }
            assert_eq!(got, [a.clone(), b.clone()], "cut at {cut}");
        }
    }

    #[test]
    fn lengths_count_bytes_not_characters() {
        let p = json!({"t": "ü"});
        let bytes = encode(&p);
        assert!(bytes.starts_with(b"10:"), "{}", String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn garbage_is_an_error_not_a_hang() {
        let mut d = Decoder::default();
        d.push(b"x1:{}");
        assert!(matches!(d.next_packet(), Some(Err(FrameError::BadLength(_)))));
        let mut d = Decoder::default();
        d.push(b"123456789012345");
        assert!(matches!(d.next_packet(), Some(Err(FrameError::BadLength(_)))));
        let mut d = Decoder::default();
        d.push(b"999999999:");
        assert!(matches!(d.next_packet(), Some(Err(FrameError::TooLarge(_)))));
        let mut d = Decoder::default();
        d.push(b"3:abc");
        assert!(matches!(d.next_packet(), Some(Err(FrameError::BadJson(_)))));
        let mut d = Decoder::default();
        d.push(b":{}");
        assert!(matches!(d.next_packet(), Some(Err(FrameError::BadLength(_)))));
    }
}
