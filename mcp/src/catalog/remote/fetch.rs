//! How remote catalogs reach the network: the binary's one HTTP client (ureq with rustls,
//! `crate::browsers::managed::fetch::Http`), behind a trait so tests inject failures and
//! count requests without mocking the happy path away.
//!
//! Two clients: catalog documents and commit lookups end within [`DOCUMENT_DEADLINE`]
//! (a cold cache with no network must answer from the embedded catalog within 3 s);
//! template archives get the ordinary long timeouts. `catalog.mirror` rewrites `https://`
//! URLs to `<mirror>/<host>/<path>` the way `browsers.mirror` does.

use std::path::Path;
use std::time::Duration;

use crate::browsers::managed::ManagedError;
use crate::browsers::managed::fetch::Http;
use crate::browsers::managed::vendors::via_mirror;
use crate::catalog::CatalogError;

/// Every catalog-document request ends within this, answered or not.
pub const DOCUMENT_DEADLINE: Duration =
    Duration::from_millis(webext_mcp_host::protocol::timeouts::CATALOG_FETCH_MS);

/// The network, as remote catalogs use it. Blocking: call from a blocking thread.
pub trait Fetch: Send + Sync {
    /// A small document (a catalog, a commit lookup).
    fn document(&self, url: &str) -> Result<Vec<u8>, CatalogError>;
    /// Streams `url` into `dest` (created new); `progress(done, total)` now and then.
    fn download(
        &self,
        url: &str,
        dest: &Path,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<u64, CatalogError>;
}

/// [`Fetch`] over HTTP(S).
pub struct HttpFetch {
    quick: Http,
    long: Http,
    mirror: Option<String>,
}

/// The most bytes a template archive may have, compressed (its unpacked size is capped by
/// `files::TEMPLATE_LIMITS`).
pub const MAX_TEMPLATE_ARCHIVE: u64 = 64 * 1024 * 1024;

impl HttpFetch {
    /// A client that reaches loopback URLs only at the mirror's origin.
    pub fn new(mirror: Option<&str>) -> HttpFetch {
        HttpFetch::for_sources(mirror, &[])
    }

    /// A client that reaches loopback URLs only at the mirror's origin and at the origins
    /// of the configured loopback `sources` (a catalog on 127.0.0.1 names archives beside it);
    /// every other loopback URL, first or redirected to, is refused before a request.
    pub fn for_sources(mirror: Option<&str>, sources: &[String]) -> HttpFetch {
        let mirror = mirror.filter(|m| !m.is_empty()).map(str::to_owned);
        let allowed: Vec<String> = mirror
            .iter()
            .cloned()
            .chain(sources.iter().filter(|s| s.starts_with("http://")).cloned())
            .collect();
        HttpFetch {
            quick: Http::with_deadline(DOCUMENT_DEADLINE).only_loopback(allowed.clone()),
            long: Http::new().only_loopback(allowed),
            mirror,
        }
    }

    fn url(&self, url: &str) -> String {
        if url.starts_with("https://") { via_mirror(self.mirror.as_deref(), url) } else { url.to_owned() }
    }
}

/// The catalog's view of a download failure.
pub fn from_managed(e: ManagedError) -> CatalogError {
    match e {
        ManagedError::Integrity { what } => CatalogError::Integrity { what },
        ManagedError::UnsafeArchive { entry, reason } => {
            CatalogError::Integrity { what: format!("refused archive entry `{entry}`: {reason}") }
        }
        ManagedError::BadUrl { url, reason } => CatalogError::Refused { url, reason },
        ManagedError::NotFound { what } => {
            CatalogError::Network { url: what, reason: "not found (HTTP 404)".into() }
        }
        ManagedError::Network { url, reason } => CatalogError::Network { url, reason },
        ManagedError::Truncated { url, got, expected, reason } => CatalogError::Network {
            url,
            reason: format!(
                "cut short after {got} bytes{}: {reason}",
                expected.map(|e| format!(" of {e}")).unwrap_or_default()
            ),
        },
        ManagedError::Io { what, source } => CatalogError::Io { context: what, source },
        other => CatalogError::Network { url: String::new(), reason: other.to_string() },
    }
}

impl Fetch for HttpFetch {
    fn document(&self, url: &str) -> Result<Vec<u8>, CatalogError> {
        self.quick.document(&self.url(url)).map_err(from_managed)
    }

    fn download(
        &self,
        url: &str,
        dest: &Path,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<u64, CatalogError> {
        let d = self
            .long
            .download_capped(&self.url(url), dest, MAX_TEMPLATE_ARCHIVE, progress, &|| false)
            .map_err(from_managed)?;
        Ok(d.bytes)
    }
}
