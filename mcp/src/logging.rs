//! Logging: `tracing` to stderr (or a file in host mode), never stdout, which belongs to the
//! protocol.

use tracing_subscriber::EnvFilter;

/// Installs the stderr logger with a filter such as `info` or `webext_mcp=debug`.
/// An invalid filter falls back to `info` and says so.
pub fn init_stderr(filter: &str) {
    let (filter, bad) = match EnvFilter::try_new(filter) {
        Ok(f) => (f, None),
        Err(e) => (EnvFilter::new("info"), Some(e.to_string())),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .try_init();
    if let Some(e) = bad {
        tracing::warn!("ignoring invalid log filter: {e}");
    }
}
