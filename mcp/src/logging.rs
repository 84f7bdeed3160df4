//! Logging: `tracing` to stderr (or a file in host mode), never stdout, which belongs to the
//! protocol. What a log line may carry is decided in one place,
//! [`webext_mcp_host::log_policy`]: names and sizes, never argument values or results.

/// Installs the stderr logger with a filter such as `info` or `webext_mcp=debug`.
/// An invalid filter falls back to `info` and says so.
pub fn init_stderr(filter: &str) {
    if let Some(e) = webext_mcp_host::log_policy::init(filter, std::io::stderr) {
        tracing::warn!("ignoring invalid log filter: {e}");
    }
}
