//! The timeout policy, in one place: every default, limit and margin of a call from a tool
//! to a page, in milliseconds, and below them the waits outside page calls (host connect,
//! catalog fetch, runners' protocol requests, dev-session waits). The MCP server's bridge (`mcp/src/bridge/timeouts.rs`)
//! applies it; `extension/src/protocol.js` is generated with these numbers so the helper
//! never restates them.
//!
//! ```text
//!  tool's timeoutMs T (validated: MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS, else INVALID_ARGUMENT)
//!   ├─ page side (the helper's auto-wait, load wait):  T         → TIMEOUT naming what it waited for
//!   ├─ transport (host router, helper's bridge.js):    T + CALL_MARGIN_MS → TIMEOUT naming the method
//!   └─ the client's own backstop:                      T + 2 × CALL_MARGIN_MS (a host that stopped answering)
//! ```
//!
//! Every default and maximum keeps the whole call under 55 s: MCP clients give up on a
//! request after 60 s by default, and progress notifications do not extend that (the
//! TypeScript SDK's `resetTimeoutOnProgress` defaults to false). The host's own
//! [`HOST_MAX_TIMEOUT_MS`] is a hard cap for any client; tools never ask for more than
//! [`MAX_TIMEOUT_MS`] plus the margin.

/// The one margin: the transport deadline is the caller's timeout plus this, so the page's
/// own `TIMEOUT` (which says what it waited for) arrives first; the client waits one margin
/// more than the host, so the host's `TIMEOUT` (which names the method) arrives before the
/// client gives up by itself.
pub const CALL_MARGIN_MS: u64 = 2_000;

/// Smallest `timeoutMs` a tool accepts.
pub const MIN_TIMEOUT_MS: u64 = 1;

/// Largest `timeoutMs` a tool accepts: with two margins the slowest answer still comes
/// within 54 s, under the 60 s MCP clients wait.
pub const MAX_TIMEOUT_MS: u64 = 50_000;

/// Default `timeoutMs` of the action tools and `wait_for` (`page.act`, `page.fillForm`,
/// `page.waitFor`): how long the helper waits for the element.
pub const ACTION_TIMEOUT_MS: u64 = 10_000;

/// Default `timeoutMs` of the tools that load a page (`tabs.new`, `tabs.navigate`).
pub const LOAD_TIMEOUT_MS: u64 = 15_000;

/// Timeout of the calls that wait for no page (`tabs.list`, `tabs.select`, `tabs.close`,
/// `browser.info`, `ping`).
pub const TAB_CALL_TIMEOUT_MS: u64 = 15_000;

/// Timeout of `page.snapshot`, `page.clearSnapshot` and `page.resolveRef`.
pub const SNAPSHOT_TIMEOUT_MS: u64 = 30_000;

/// Timeout of `page.evaluate`.
pub const EVALUATE_TIMEOUT_MS: u64 = 30_000;

/// Timeout per host of `list_connected_browsers` (a stuck browser must not stall the list;
/// with the margin its transport deadline is 3 s).
pub const LIST_TIMEOUT_MS: u64 = 1_000;

/// Default `timeoutMs` of waiting for a dev session to be ready (`extension_wait`, and
/// `extension_start` with `wait`).
pub const SESSION_WAIT_TIMEOUT_MS: u64 = 45_000;

/// How long one MCP call waits for long work (a delegated build, a dependency install) before
/// it answers with the work's status; the work goes on and the next call with the same
/// arguments picks up its result.
pub const CALL_BUDGET_MS: u64 = 45_000;

/// Deadline the host gives a request that names none.
pub const HOST_DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// Longest deadline the host grants any client (a hard cap; tools stay far below it).
pub const HOST_MAX_TIMEOUT_MS: u64 = 600_000;

/// Whole-call ceiling the tool defaults and maximum must stay under (MCP clients' 60 s
/// request timeout, less room for connecting).
pub const CLIENT_BUDGET_MS: u64 = 55_000;

// Waits outside page calls: how long the MCP server, its runners and its commands wait for
// something that is not a page. They are not sent to the helper; they live here so that every
// wait of the project is read in one place, each with its reason.

/// Connecting to a host and saying hello (a live host answers at once; a stale socket must not
/// hold a tool up).
pub const HOST_CONNECT_MS: u64 = 5_000;

/// One request for a remote catalog document, answered or not: the embedded catalog answers
/// when the network is slow, so this stays short.
pub const CATALOG_FETCH_MS: u64 = 2_500;

/// `doctor`'s probes: `<path> --version` of a registered binary and a host connection.
pub const DOCTOR_PROBE_MS: u64 = 5_000;

/// A browser starting: launched until its debugging endpoint answers (the runners' default).
pub const BROWSER_START_MS: u64 = 30_000;

/// A browser asked to close (Chromium's `Browser.close`) before its process is signalled.
pub const BROWSER_CLOSE_MS: u64 = 2_000;

/// A browser's process group exiting after SIGTERM before it is killed.
pub const BROWSER_SHUTDOWN_MS: u64 = 3_000;

/// A build (native or delegated to the project's toolchain): long, since a first `npm`
/// install may run; a tool call answers within [`CALL_BUDGET_MS`] and the build goes on.
pub const BUILD_MS: u64 = 600_000;

/// A dev session's control socket answering `status` or `stop`.
pub const SESSION_CONTROL_MS: u64 = 10_000;

/// A dev session's readiness probes: the helper's `tabs.list`, the starting page's state.
pub const READINESS_PROBE_MS: u64 = 5_000;

/// `extension_stop`: the session's process gone after it was asked to stop.
pub const SESSION_STOP_MS: u64 = 15_000;

/// A CDP command of the Chromium runner, unless the call says otherwise.
pub const CDP_COMMAND_MS: u64 = 30_000;

/// A lookup of the Chromium runner that waits for the helper's worker to answer.
pub const HELPER_WORKER_MS: u64 = 15_000;

/// A Firefox remote-debugging (RDP) request, unless the call says otherwise.
pub const RDP_REQUEST_MS: u64 = 30_000;

/// One Firefox devtools round trip (add-on installs and reloads included).
pub const FIREFOX_DEVTOOLS_REQUEST_MS: u64 = 30_000;

/// A Firefox tab command other than evaluation (a navigation waits for the load).
pub const FIREFOX_TAB_COMMAND_MS: u64 = 30_000;

/// One request of the Firefox per-tab console follower (it relists every 2 s, so a slow
/// answer is dropped rather than waited for).
pub const FIREFOX_CONSOLE_REQUEST_MS: u64 = 10_000;

/// A (re)loaded Firefox add-on's background starting, before its console is followed.
pub const ADDON_BACKGROUND_START_MS: u64 = 15_000;

/// The developed extension's worker answering after a (re)load in a dev session.
pub const EXTENSION_WORKER_MS: u64 = 15_000;

/// A dev session waiting for its helper and its starting page before it says ready.
pub const SESSION_USABLE_MS: u64 = 30_000;

/// A dev session's page loading after `url` or after opening an extension page.
pub const SESSION_PAGE_LOAD_MS: u64 = 15_000;

/// A dev session's evaluation in an extension page.
pub const SESSION_EVAL_MS: u64 = 10_000;

/// The browser showing the action popup once asked (`page popup`).
pub const POPUP_SHOWN_MS: u64 = 10_000;

/// A dev session answering an inspection (it may navigate and open pages).
pub const SESSION_ANSWER_MS: u64 = 30_000;

/// A dev session's reload (it rebuilds first): under the client's 55 s budget.
pub const SESSION_RELOAD_MS: u64 = 50_000;

/// How long `extension_logs` with `follow` waits for new lines by default.
pub const FOLLOW_DEFAULT_MS: u64 = 10_000;

/// The transport deadline of a call whose caller allows `timeout_ms`.
pub const fn transport_ms(timeout_ms: u64) -> u64 {
    timeout_ms.saturating_add(CALL_MARGIN_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_and_the_maximum_answer_within_the_client_budget() {
        for ms in [
            MAX_TIMEOUT_MS,
            ACTION_TIMEOUT_MS,
            LOAD_TIMEOUT_MS,
            TAB_CALL_TIMEOUT_MS,
            SNAPSHOT_TIMEOUT_MS,
            EVALUATE_TIMEOUT_MS,
            LIST_TIMEOUT_MS,
            SESSION_WAIT_TIMEOUT_MS,
            CALL_BUDGET_MS,
        ] {
            assert!((MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&ms), "{ms}");
            // The client's backstop is the last moment a call can end.
            assert!(transport_ms(ms) + CALL_MARGIN_MS < CLIENT_BUDGET_MS, "{ms}");
        }
        assert!(transport_ms(MAX_TIMEOUT_MS) <= HOST_MAX_TIMEOUT_MS);
        // The waits a tool call makes outside the page end within the client's budget too.
        for ms in [SESSION_ANSWER_MS, SESSION_RELOAD_MS, FOLLOW_DEFAULT_MS, SESSION_USABLE_MS] {
            assert!(ms < CLIENT_BUDGET_MS, "{ms}");
        }
        assert_eq!(transport_ms(u64::MAX), u64::MAX);
    }
}
