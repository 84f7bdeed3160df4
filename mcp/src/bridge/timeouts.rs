//! How a browser tool's `timeoutMs` becomes the deadlines of its call; the numbers are
//! [`webext_mcp_host::protocol::timeouts`], the one place they are declared (read its
//! module doc for the whole policy).
//!
//! One rule for every browser tool: `timeoutMs` absent takes the tool's default; present, it
//! must lie in `MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS` or the call is `INVALID_ARGUMENT` naming
//! the range (nothing is clamped). The page side gets the value itself; the bridge gives the
//! transport [`transport`] (one margin more), the client adds the same margin once more.

use std::time::Duration;

use webext_mcp_host::protocol::ErrorBody;
use webext_mcp_host::protocol::timeouts::{MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, transport_ms};

/// A caller's timeout, validated: what the page side may wait, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout(u64);

impl Timeout {
    /// A timeout fixed by the tool itself (a policy constant, never an argument).
    pub const fn fixed(ms: u64) -> Timeout {
        Timeout(ms)
    }

    /// The tool's `timeoutMs` argument, or `default_ms` when absent; out of range is
    /// `INVALID_ARGUMENT` naming the range.
    pub fn from_arg(arg: Option<u64>, default_ms: u64) -> Result<Timeout, ErrorBody> {
        match arg {
            None => Ok(Timeout(default_ms)),
            Some(ms) if (MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&ms) => Ok(Timeout(ms)),
            Some(ms) => Err(ErrorBody::invalid_argument(format!(
                "`timeoutMs` must be between {MIN_TIMEOUT_MS} and {MAX_TIMEOUT_MS} (got {ms})"
            ))
            .with_hint(format!(
                "omit it for the default ({default_ms} ms); MCP clients give up on a call after 60 s"
            ))),
        }
    }

    /// What the page side waits (the `timeoutMs` the helper gets).
    pub const fn ms(self) -> u64 {
        self.0
    }

    /// The transport deadline: the page's timeout plus the one margin.
    pub const fn transport(self) -> Duration {
        Duration::from_millis(transport_ms(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webext_mcp_host::protocol::ErrorCode;
    use webext_mcp_host::protocol::timeouts::CALL_MARGIN_MS;

    #[test]
    fn timeout_policy_table() {
        // (argument, default) → Ok(page ms) or the range error.
        let table: [(Option<u64>, u64, Option<u64>); 7] = [
            (None, 10_000, Some(10_000)),
            (None, 15_000, Some(15_000)),
            (Some(1), 10_000, Some(1)),
            (Some(MAX_TIMEOUT_MS), 10_000, Some(MAX_TIMEOUT_MS)),
            (Some(0), 10_000, None),
            (Some(MAX_TIMEOUT_MS + 1), 15_000, None),
            (Some(300_000), 15_000, None),
        ];
        for (arg, default, want) in table {
            let got = Timeout::from_arg(arg, default);
            match want {
                Some(ms) => {
                    let t = got.unwrap();
                    assert_eq!(t.ms(), ms, "{arg:?}");
                    assert_eq!(t.transport(), Duration::from_millis(ms + CALL_MARGIN_MS), "{arg:?}");
                }
                None => {
                    let e = got.unwrap_err();
                    assert_eq!(e.code, ErrorCode::InvalidArgument, "{arg:?}");
                    assert!(
                        e.message.contains(&format!("between {MIN_TIMEOUT_MS} and {MAX_TIMEOUT_MS}")),
                        "{}",
                        e.message
                    );
                }
            }
        }
        assert_eq!(Timeout::fixed(30_000).transport(), Duration::from_millis(30_000 + CALL_MARGIN_MS));
    }
}
