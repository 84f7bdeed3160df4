//! What the logs of the server and of host mode may carry: tool and method names, ids,
//! sizes, timings and error codes — never tool arguments, results, page content or secrets,
//! at any level (MCP clients often save a server's stderr).
//!
//! Our own crates are written to that rule. Other crates are not: rmcp logs every request
//! it receives with its full arguments at `debug` ("received request"), and every message at
//! `trace`. So whatever filter the user gives, events from any other crate are kept only up
//! to `info`.

use tracing::Level;
use tracing::Metadata;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterExt as _, filter_fn};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// Crates whose log lines are reviewed to carry names and sizes only.
const OWN_TARGETS: [&str; 3] = ["webext_mcp", "webext_mcp_host", "webext_mcp_engine"];

/// Whether an event or span may reach a log: ours at any level, anyone else's up to `info`.
pub fn allowed(meta: &Metadata<'_>) -> bool {
    *meta.level() <= Level::INFO || is_own(meta.target())
}

fn is_own(target: &str) -> bool {
    OWN_TARGETS
        .iter()
        .any(|own| target.strip_prefix(own).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
}

/// Installs the global logger writing to `writer` with `filter` (e.g. `debug`), capped by
/// [`allowed`]. An invalid filter falls back to `info`; its error is returned so the caller
/// can say so once logging works.
pub fn init<W>(filter: &str, writer: W) -> Option<String>
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let (env, bad) = match EnvFilter::try_new(filter) {
        Ok(f) => (f, None),
        Err(e) => (EnvFilter::new("info"), Some(e.to_string())),
    };
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(false)
        .with_target(false)
        .with_filter(env.and(filter_fn(allowed)));
    let _ = tracing_subscriber::registry().with(layer).try_init();
    bad
}

#[cfg(test)]
mod tests {
    use super::is_own;

    #[test]
    fn only_our_crates_count_as_ours() {
        for (target, own) in [
            ("webext_mcp", true),
            ("webext_mcp::tools", true),
            ("webext_mcp_host::router", true),
            ("webext_mcp_engine", true),
            ("rmcp::service", false),
            ("rmcp", false),
            ("webext_mcp_evil", false),
            ("tokio", false),
        ] {
            assert_eq!(is_own(target), own, "{target}");
        }
    }
}
