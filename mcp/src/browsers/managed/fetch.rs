//! HTTP(S) for managed browsers: small metadata documents read into memory with a cap, and
//! archives streamed to a file while their SHA-512 is computed, checked against the length
//! the server announced (a cut connection is a truncated download, not an archive).
//!
//! Plain `http://` is accepted only for loopback hosts (a local mirror in tests or a
//! developer's cache); everything else must be HTTPS. Blocking (ureq): callers run this on
//! a blocking thread.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha512};

use super::ManagedError;

/// Metadata documents larger than this are refused (the real ones are a few MB at most).
const MAX_METADATA: u64 = 32 * 1024 * 1024;
/// Archives larger than this are refused (real browser archives are 100–200 MB).
const MAX_ARCHIVE: u64 = 2 * 1024 * 1024 * 1024;

/// Whether `url` may be fetched: HTTPS, or HTTP to a loopback host.
pub fn check_url(url: &str) -> Result<(), ManagedError> {
    let bad = |reason: &str| ManagedError::BadUrl { url: url.to_owned(), reason: reason.to_owned() };
    if url.starts_with("https://") {
        return Ok(());
    }
    let Some(rest) = url.strip_prefix("http://") else { return Err(bad("only https:// URLs are fetched")) };
    let authority = rest.split('/').next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    if matches!(host, "127.0.0.1" | "localhost" | "::1") {
        return Ok(());
    }
    Err(bad("plain http:// is accepted only for 127.0.0.1, localhost and ::1; use https://"))
}

/// The most redirects one request follows; each hop is checked like the first URL.
const MAX_HOPS: usize = 8;

/// The HTTP client, built once per install: one agent for HTTPS URLs and one for loopback
/// mirrors. Neither follows a redirect by itself: [`Http`] follows each one only after
/// checking its target as it checked the first URL (https, or a loopback URL it allows).
pub struct Http {
    secure: ureq::Agent,
    loopback: ureq::Agent,
    /// When set, the only loopback URLs fetched (first URL or redirect): those under one of
    /// these origins (`http://127.0.0.1:8000/`), the configured mirror or source. `None`:
    /// any loopback URL.
    loopback_allowed: Option<Vec<String>>,
}

/// `scheme://authority/` of a URL, lowercased, or `None` when it has none.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().filter(|a| !a.is_empty())?;
    Some(format!("{}://{}/", scheme.to_ascii_lowercase(), authority.to_ascii_lowercase()))
}

/// Whether the URL's host is this machine (`127.0.0.0/8`, `localhost`, `::1`, `0.0.0.0`).
pub fn is_loopback(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, r)| r) else { return false };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or("").to_owned(),
        None => authority.rsplit_once(':').map_or(authority.as_str(), |(h, _)| h).to_owned(),
    };
    let host = host.trim_end_matches('.');
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// Resolves a `Location` header against the URL that sent it.
fn resolve_location(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_owned();
    }
    let origin = origin_of(base).unwrap_or_default();
    if let Some(rest) = location.strip_prefix("//") {
        let scheme = base.split("://").next().unwrap_or("https");
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        return format!("{}{}", origin.trim_end_matches('/'), location);
    }
    let dir = base.split(['?', '#']).next().unwrap_or(base);
    let dir = dir.rsplit_once('/').map_or(dir, |(d, _)| d);
    format!("{dir}/{location}")
}

/// A finished download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    pub bytes: u64,
    pub sha512: String,
}

fn network(url: &str, e: impl std::fmt::Display) -> ManagedError {
    ManagedError::Network { url: url.to_owned(), reason: e.to_string() }
}

impl Http {
    pub fn new() -> Http {
        Http::build(None)
    }

    /// A client whose every request ends within `deadline`, answered or not (the template
    /// catalog must fall back to the embedded one within seconds when the network stalls).
    pub fn with_deadline(deadline: Duration) -> Http {
        Http::build(Some(deadline))
    }

    fn build(deadline: Option<Duration>) -> Http {
        // The loopback agent never goes through a proxy from the environment: the mirror is
        // on this machine.
        let agent = |https_only: bool| {
            let proxy = if https_only { ureq::Proxy::try_from_env() } else { None };
            ureq::Agent::config_builder()
                .https_only(https_only)
                // Redirects are followed by `get`, each target checked first.
                .max_redirects(0)
                .proxy(proxy)
                .timeout_global(deadline)
                .timeout_connect(Some(Duration::from_secs(15)))
                .timeout_recv_response(Some(Duration::from_secs(30)))
                // A stalled transfer ends; a slow one goes on as long as bytes arrive.
                .timeout_per_read(Some(Duration::from_secs(30)))
                .user_agent(concat!("webext-mcp/", env!("CARGO_PKG_VERSION")))
                .build()
                .new_agent()
        };
        Http { secure: agent(true), loopback: agent(false), loopback_allowed: None }
    }

    /// Fetches loopback URLs only under `origins` (the configured mirror and loopback
    /// sources): a catalog that names, or redirects to, another local service is refused
    /// before any request reaches it.
    pub fn only_loopback(mut self, origins: impl IntoIterator<Item = String>) -> Http {
        self.loopback_allowed = Some(origins.into_iter().filter_map(|o| origin_of(&o)).collect());
        self
    }

    /// Whether `url` may be fetched by this client (first URL or a redirect's target).
    pub fn check(&self, url: &str) -> Result<(), ManagedError> {
        check_url(url)?;
        if let Some(allowed) = &self.loopback_allowed
            && is_loopback(url)
            && !origin_of(url).is_some_and(|o| allowed.contains(&o))
        {
            return Err(ManagedError::BadUrl {
                url: url.to_owned(),
                reason:
                    "a loopback URL that is not the configured mirror or catalog source; nothing was fetched"
                        .to_owned(),
            });
        }
        Ok(())
    }

    fn get(&self, url: &str) -> Result<ureq::http::Response<ureq::Body>, ManagedError> {
        let mut at = url.to_owned();
        for _ in 0..=MAX_HOPS {
            self.check(&at)?;
            let agent = if at.starts_with("https://") { &self.secure } else { &self.loopback };
            let response = match agent.get(&at).call() {
                Ok(r) => r,
                Err(ureq::Error::StatusCode(404)) => return Err(ManagedError::NotFound { what: at }),
                Err(ureq::Error::StatusCode(code)) => {
                    return Err(network(&at, format!("HTTP status {code}")));
                }
                Err(e) => return Err(network(&at, e)),
            };
            if !response.status().is_redirection() {
                return Ok(response);
            }
            let Some(location) = response.headers().get("location").and_then(|v| v.to_str().ok()) else {
                return Err(network(&at, format!("HTTP status {} without a Location", response.status())));
            };
            let next = resolve_location(&at, location);
            // A redirect is held to the rules of the URL itself: refused targets are named.
            self.check(&next).map_err(|e| match e {
                ManagedError::BadUrl { url: target, reason } => ManagedError::BadUrl {
                    url: target,
                    reason: format!("{at} redirects here, which is refused: {reason}"),
                },
                other => other,
            })?;
            at = next;
        }
        Err(network(url, format!("more than {MAX_HOPS} redirects")))
    }

    /// A metadata document.
    pub fn document(&self, url: &str) -> Result<Vec<u8>, ManagedError> {
        let mut response = self.get(url)?;
        response.body_mut().with_config().limit(MAX_METADATA).read_to_vec().map_err(|e| network(url, e))
    }

    /// Streams `url` into `dest` (created new), calling `progress(done, total)` now and then
    /// and `cancelled()` between reads.
    pub fn download(
        &self,
        url: &str,
        dest: &Path,
        progress: &mut dyn FnMut(u64, Option<u64>),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Downloaded, ManagedError> {
        self.download_capped(url, dest, MAX_ARCHIVE, progress, cancelled)
    }

    /// [`Http::download`] of at most `limit` bytes: a larger announced length is refused
    /// before reading, and a body that grows past it stops the stream.
    pub fn download_capped(
        &self,
        url: &str,
        dest: &Path,
        limit: u64,
        progress: &mut dyn FnMut(u64, Option<u64>),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Downloaded, ManagedError> {
        let mut response = self.get(url)?;
        let total = response.body().content_length();
        if total.is_some_and(|t| t > limit) {
            return Err(network(url, format!("the archive is larger than the limit of {} MiB", limit >> 20)));
        }
        let io = |source| ManagedError::Io { what: format!("writing {}", dest.display()), source };
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(dest).map_err(io)?;
        let mut reader = response.body_mut().with_config().limit(limit).reader();
        let mut hasher = Sha512::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut done: u64 = 0;
        let mut reported: u64 = 0;
        loop {
            if cancelled() {
                return Err(ManagedError::Cancelled);
            }
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ManagedError::Truncated {
                        url: url.to_owned(),
                        got: done,
                        expected: total,
                        reason: e.to_string(),
                    });
                }
            };
            hasher.update(&buf[..n]);
            file.write_all(&buf[..n]).map_err(io)?;
            done += n as u64;
            if done - reported >= 1024 * 1024 {
                reported = done;
                progress(done, total);
            }
        }
        if let Some(expected) = total
            && done != expected
        {
            return Err(ManagedError::Truncated {
                url: url.to_owned(),
                got: done,
                expected: Some(expected),
                reason: "the connection ended early".to_owned(),
            });
        }
        file.sync_all().map_err(io)?;
        progress(done, total);
        let sha512 = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(Downloaded { bytes: done, sha512 })
    }
}

impl Default for Http {
    fn default() -> Http {
        Http::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_is_fetched() {
        assert!(check_url("https://archive.mozilla.org/pub/").is_ok());
        assert!(check_url("http://127.0.0.1:8123/m/x.json").is_ok());
        assert!(check_url("http://localhost/x").is_ok());
        assert!(check_url("http://[::1]:80/x").is_ok());
        for bad in
            ["http://mirror.example.com/x", "ftp://x/y", "file:///etc/passwd", "http://127.0.0.1.evil.com/x"]
        {
            assert!(matches!(check_url(bad), Err(ManagedError::BadUrl { .. })), "{bad}");
        }
    }

    #[test]
    fn loopback_urls_are_fetched_only_at_allowed_origins() {
        for local in [
            "http://127.0.0.1:9/x",
            "https://127.1.2.3/x",
            "http://localhost./x",
            "http://[::1]:8/x",
            "http://a.localhost/",
        ] {
            assert!(is_loopback(local), "{local}");
        }
        assert!(!is_loopback("https://127.0.0.1.example.com/x"));
        let http = Http::new().only_loopback(["http://127.0.0.1:8000".to_owned()]);
        assert!(http.check("http://127.0.0.1:8000/cat/a.zip").is_ok());
        assert!(http.check("https://example.com/a.zip").is_ok());
        for refused in ["http://127.0.0.1:8001/a.zip", "https://localhost/a.zip", "http://example.com/a.zip"]
        {
            assert!(matches!(http.check(refused), Err(ManagedError::BadUrl { .. })), "{refused}");
        }
        assert_eq!(resolve_location("http://h:1/a/b?q", "/c"), "http://h:1/c");
        assert_eq!(resolve_location("http://h:1/a/b", "c"), "http://h:1/a/c");
        assert_eq!(resolve_location("https://h/a", "//o/p"), "https://o/p");
        assert_eq!(resolve_location("https://h/a", "http://x/y"), "http://x/y");
    }
}
