//! How a browser tool's `timeoutMs` becomes the deadlines of its call; the numbers are
//! [`webext_mcp_host::protocol::timeouts`], the one place they are declared (read its
//! module doc for the whole policy).
//!
//! One rule for every browser tool: `timeoutMs` absent takes the tool's default; present, it
//! must lie in `MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS` or the call is `INVALID_ARGUMENT` naming
//! the range. The page side gets the value itself; the bridge gives the transport
//! [`transport`] (one margin more), the client adds the same margin once more.
//!
//! Waits (`wait_for`, `extension_wait`, `extension_start` with `wait`) are the exception:
//! asked for longer than the maximum, they wait the maximum and then answer with their current
//! status ([`WaitTimeout`]), because a longer wait would only end in the client's own
//! `-32001` request timeout (progress notifications do not extend it).

use std::time::Duration;

use webext_mcp_host::protocol::timeouts::{MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, transport_ms};
use webext_mcp_host::protocol::{ErrorBody, ErrorCode};

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

    /// A wait's `timeoutMs`: like [`Timeout::from_arg`], except that more than
    /// `MAX_TIMEOUT_MS` waits `MAX_TIMEOUT_MS` and remembers what was asked.
    pub fn for_wait(arg: Option<u64>, default_ms: u64) -> Result<WaitTimeout, ErrorBody> {
        match arg {
            Some(ms) if ms > MAX_TIMEOUT_MS => {
                Ok(WaitTimeout { timeout: Timeout(MAX_TIMEOUT_MS), asked: Some(ms) })
            }
            _ => Ok(WaitTimeout { timeout: Timeout::from_arg(arg, default_ms)?, asked: None }),
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

/// A wait's timeout, and the longer one the caller asked for when it was cut to the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeout {
    pub timeout: Timeout,
    pub asked: Option<u64>,
}

impl WaitTimeout {
    pub const fn ms(self) -> u64 {
        self.timeout.ms()
    }

    pub const fn duration(self) -> Duration {
        Duration::from_millis(self.timeout.ms())
    }

    /// A `TIMEOUT` of a cut wait says so, and that calling again waits on.
    pub fn explain(self, mut e: ErrorBody) -> ErrorBody {
        if let (Some(asked), ErrorCode::Timeout) = (self.asked, e.code) {
            e.message.push_str(&format!(
                " (asked for {asked} ms; a wait answers after at most {MAX_TIMEOUT_MS} ms, before MCP clients give up on a call at 60 s)"
            ));
            let then = e.hint.take().map_or(String::new(), |h| format!("; {h}"));
            e.hint = Some(format!("call it again to keep waiting{then}"));
        }
        e
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

    #[test]
    fn a_wait_longer_than_the_maximum_is_cut_and_its_timeout_says_so() {
        let cut = Timeout::for_wait(Some(65_000), 10_000).unwrap();
        assert_eq!((cut.ms(), cut.asked), (MAX_TIMEOUT_MS, Some(65_000)));
        let e = cut.explain(ErrorBody::new(ErrorCode::Timeout, "not visible").with_hint("check the text"));
        assert!(e.message.contains("asked for 65000 ms") && e.message.contains("50000"), "{}", e.message);
        assert_eq!(e.hint.as_deref(), Some("call it again to keep waiting; check the text"));
        // Other failures and uncut waits are left as they are; zero is still refused.
        let other = cut.explain(ErrorBody::invalid_argument("x"));
        assert_eq!(other.message, "x");
        let plain = Timeout::for_wait(Some(3_000), 10_000).unwrap();
        assert_eq!((plain.ms(), plain.asked), (3_000, None));
        assert_eq!(plain.explain(ErrorBody::new(ErrorCode::Timeout, "t")).message, "t");
        assert_eq!(Timeout::for_wait(None, 45_000).unwrap().ms(), 45_000);
        assert_eq!(Timeout::for_wait(Some(0), 10_000).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}
