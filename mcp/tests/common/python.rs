//! The Python that has the official `mcp` SDK: `scripts/test` installs it into a cache venv;
//! `WEBEXT_MCP_TEST_PYTHON` names another.

use std::path::PathBuf;

pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("WEBEXT_MCP_TEST_PYTHON") {
        return PathBuf::from(p);
    }
    ci_cache().join("py-mcp/bin/python")
}

/// Where `scripts/setup` caches the test tools: `${XDG_CACHE_HOME:-~/.cache}/webext-mcp-ci`.
pub fn ci_cache() -> PathBuf {
    let cache = std::env::var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache"));
    cache.join("webext-mcp-ci")
}

/// [`python`], or a panic saying how to get it.
pub fn sdk_python() -> PathBuf {
    let py = python();
    assert!(
        py.exists(),
        "no Python with the `mcp` SDK at {py:?}: run scripts/test once, or set WEBEXT_MCP_TEST_PYTHON"
    );
    py
}
