//! The on-disk cache of remote catalogs, and the freshness rule (1 h TTL,
//! stale-while-revalidate).
//!
//! ```text
//! <cache>/catalogs/<16 hex of sha256(location)>/
//!   templates-meta.json   the document as fetched (only a document that parsed is kept)
//!   meta.json             location, fetchedAt, sha256, bytes (written last)
//!   resolved.json         the branch → commit lookup for this document
//!   pins.json             archive URL → sha256 recorded on first use
//!   trees/<key>/          unpacked archives (appear complete, by rename)
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use webext_mcp_host::digest::sha256_hex;

use super::fetch::Fetch;
use super::{SourceSpec, TTL};
use crate::catalog::{CatalogError, Template, parse_catalog};

pub const DOCUMENT: &str = "templates-meta.json";
pub const META: &str = "meta.json";

/// A catalog document larger than this is refused (the real one is about 150 KB).
pub const MAX_DOCUMENT: u64 = 8 * 1024 * 1024;

/// What the cache knows about the document it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub location: String,
    /// Seconds since the Unix epoch.
    pub fetched_at: u64,
    pub sha256: String,
    pub bytes: u64,
}

/// The cache folder of the source at `location`.
pub fn dir_of(cache_dir: &Path, location: &str) -> PathBuf {
    cache_dir.join("catalogs").join(&sha256_hex(location.as_bytes())[..16])
}

pub fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// How a cached document stands at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Younger than the TTL: answer, fetch nothing.
    Fresh,
    /// Older (or dated in the future, a clock that moved): answer, refresh in the background.
    Stale,
}

/// The freshness rule, pure: fresh while `now - fetched_at < TTL`.
pub fn freshness(fetched_at: u64, now: SystemTime) -> Freshness {
    let now = unix(now);
    match now.checked_sub(fetched_at) {
        Some(age) if Duration::from_secs(age) < TTL => Freshness::Fresh,
        _ => Freshness::Stale,
    }
}

/// The cached document of a source, if there is one that parses.
pub fn read(dir: &Path) -> Option<(Meta, String)> {
    let meta: Meta = serde_json::from_slice(&std::fs::read(dir.join(META)).ok()?).ok()?;
    let text = std::fs::read_to_string(dir.join(DOCUMENT)).ok()?;
    (sha256_hex(text.as_bytes()) == meta.sha256).then_some((meta, text))
}

/// Writes `path` whole or not at all, creating its folder first (cache folders appear on
/// first use).
pub fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    crate::file::write_atomic(path, bytes)
}

/// Fetches the source's document, checks it parses as a v2 catalog, and caches it. A
/// document that does not parse never replaces a good cached one.
pub fn refresh(
    spec: &SourceSpec,
    dir: &Path,
    fetch: &dyn Fetch,
    now: SystemTime,
) -> Result<(Meta, String, Vec<Template>), CatalogError> {
    let bytes = fetch.document(&spec.location)?;
    if bytes.len() as u64 > MAX_DOCUMENT {
        return Err(CatalogError::BadCatalog {
            source_name: spec.name.clone(),
            message: format!("the document is larger than {MAX_DOCUMENT} bytes"),
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| CatalogError::BadCatalog {
        source_name: spec.name.clone(),
        message: "the document is not UTF-8".into(),
    })?;
    let templates = parse_catalog(&text, &spec.name)?;
    let meta = Meta {
        location: spec.location.clone(),
        fetched_at: unix(now),
        sha256: sha256_hex(text.as_bytes()),
        bytes: text.len() as u64,
    };
    let io = |e| CatalogError::Io {
        context: format!("cannot write the catalog cache in {}", dir.display()),
        source: e,
    };
    store(&dir.join(DOCUMENT), text.as_bytes()).map_err(io)?;
    let meta_json = serde_json::to_vec_pretty(&meta).unwrap_or_default();
    store(&dir.join(META), &meta_json).map_err(io)?;
    let _ = std::fs::remove_file(dir.join("failed.json"));
    Ok((meta, text, templates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_for_an_hour_then_stale_and_a_future_date_is_stale() {
        let at = 1_800_000_000;
        let t = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(freshness(at, t(at)), Freshness::Fresh);
        assert_eq!(freshness(at, t(at + 3599)), Freshness::Fresh);
        assert_eq!(freshness(at, t(at + 3600)), Freshness::Stale);
        assert_eq!(freshness(at, t(at - 10)), Freshness::Stale);
    }

    #[test]
    fn a_tampered_cache_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"{"version":"2","templates":[]}"#;
        let meta =
            Meta { location: "x".into(), fetched_at: 1, sha256: sha256_hex(text.as_bytes()), bytes: 2 };
        store(&dir.path().join(DOCUMENT), text.as_bytes()).unwrap();
        store(&dir.path().join(META), &serde_json::to_vec(&meta).unwrap()).unwrap();
        assert!(read(dir.path()).is_some());
        std::fs::write(dir.path().join(DOCUMENT), r#"{"version":"2","templates":[{}]}"#).unwrap();
        assert!(read(dir.path()).is_none());
    }
}
