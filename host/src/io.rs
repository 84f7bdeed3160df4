//! Async framing over any byte stream (socket or pipe), built on [`crate::protocol::codec`].

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::protocol::codec::{FrameDecoder, FrameError, encode_header};

/// Reads frames from a stream.
pub struct FrameReader<R> {
    inner: R,
    decoder: FrameDecoder,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(inner: R, cap: usize) -> Self {
        FrameReader { inner, decoder: FrameDecoder::new(cap), buf: vec![0; 64 * 1024] }
    }

    /// The next frame body (or an oversized-frame error, after which reading continues);
    /// `None` at end of stream. An unfinished frame at end of stream is `UnexpectedEof`.
    pub async fn next(&mut self) -> std::io::Result<Option<Result<Vec<u8>, FrameError>>> {
        loop {
            if let Some(frame) = self.decoder.next_frame() {
                return Ok(Some(frame));
            }
            let n = self.inner.read(&mut self.buf).await?;
            if n == 0 {
                let left = self.decoder.pending_bytes();
                if left > 0 {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!("stream ended inside a frame ({left} bytes unread)"),
                    ));
                }
                return Ok(None);
            }
            self.decoder.push(&self.buf[..n]);
        }
    }
}

/// Appends one length-prefixed frame to `out`.
pub fn push_frame(out: &mut Vec<u8>, body: &[u8], cap: usize) -> Result<(), FrameError> {
    out.extend_from_slice(&encode_header(body.len(), cap)?);
    out.extend_from_slice(body);
    Ok(())
}
