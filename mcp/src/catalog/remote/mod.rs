//! Remote template catalogs (`templates-meta.json` v2, staged or raw shape) beside the
//! embedded one, offline first.
//!
//! ```text
//! catalog.sources ─parse─▶ [SourceSpec]            (URL or local path, `name=`, `#commit`)
//!   each: cache fresh (< 1 h)   ─▶ answer from it
//!         cache stale           ─▶ answer from it, refresh on a background thread
//!         no cache              ─▶ fetch (≤ 2.5 s) ─▶ cache ─▶ answer
//!                                  fails ─▶ left out, with a warning naming the fetch
//!   local path                  ─▶ read it (its files sit beside it)
//! embedded + remote sources ─▶ Catalog (embedded first unless catalog.preferRemote)
//! ```
//!
//! A process keeps what it loaded ([`shared`]) until a source's document gets old, so a
//! listing from a warm cache does no I/O. Template files come later, on demand
//! ([`files`]), verified.

pub mod cache;
pub mod fetch;
pub mod files;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use webext_mcp_host::digest::sha256_hex;

use super::{CatalogError, EMBEDDED, Provenance, Template, TemplateSource, parse_catalog};
use crate::catalog::Catalog;
use cache::Freshness;
use fetch::Fetch;

/// Extension.js's published catalog: the default source.
pub const DEFAULT_SOURCE: &str =
    "https://github.com/extension-js/examples/releases/download/nightly/templates-meta.json";
/// A cached document is fresh for this long.
pub const TTL: Duration = Duration::from_secs(3600);
/// After a failed fetch, calls answer without trying again for this long.
pub const RETRY_AFTER: Duration = Duration::from_secs(60);

/// One configured source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceSpec {
    /// The name in `source:slug` and in each template's `source`.
    pub name: String,
    /// An `https://` URL (`http://` for loopback hosts) or a local file path.
    pub location: String,
    /// A commit pinned in the configuration (`…#<commit>`).
    pub pin: Option<String>,
}

impl SourceSpec {
    pub fn is_local(&self) -> bool {
        !self.location.starts_with("https://") && !self.location.starts_with("http://")
    }
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n != EMBEDDED
        && n.len() <= 40
        && n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b))
        && !n.starts_with(['.', '-'])
}

/// Whether a catalog's slug can name a folder: letters, digits, `-`, `_`, `.`, not leading
/// `.` or `-`.
fn safe_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        && !s.starts_with(['.', '-'])
}

/// A name for a source given without one: `extension-js` for the default, else its host
/// (URL) or its folder (path), made safe.
fn default_name(location: &str) -> String {
    if location == DEFAULT_SOURCE {
        return "extension-js".into();
    }
    let raw = match location.split_once("://") {
        Some((_, rest)) => rest.split(['/', ':']).next().unwrap_or("remote").to_owned(),
        None => Path::new(location)
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "local".into()),
    };
    let safe: String =
        raw.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let safe = safe.trim_matches('-').to_owned();
    if valid_name(&safe) { safe } else { "remote".into() }
}

/// Parses `catalog.sources` entries: `[name=]<url or path>[#<commit>]`.
pub fn parse_specs(entries: &[String]) -> Result<Vec<SourceSpec>, CatalogError> {
    let mut out: Vec<SourceSpec> = Vec::new();
    for raw in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        let bad = |why: &str| {
            CatalogError::InvalidArgument {
            message: format!("catalog.sources entry `{raw}`: {why}"),
            hint: "write each entry as [name=]<https URL or local path>[#<commit>], e.g. \"mine=https://example.com/templates-meta.json\"".into(),
        }
        };
        let (name, rest) = match raw.split_once('=') {
            Some((n, rest)) if !n.contains(['/', ':']) => (Some(n.trim()), rest.trim()),
            _ => (None, raw),
        };
        let (location, pin) = match rest.rsplit_once('#') {
            Some((l, c))
                if !c.is_empty() && c.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b)) =>
            {
                (l, Some(c.to_owned()))
            }
            _ => (rest, None),
        };
        if location.starts_with("http://") {
            crate::browsers::managed::fetch::check_url(location).map_err(|e| bad(&e.to_string()))?;
        } else if location.contains("://") && !location.starts_with("https://") {
            return Err(bad("only https:// URLs (http:// for 127.0.0.1 and localhost) or local paths"));
        }
        let name = match name {
            Some(n) if valid_name(n) => n.to_owned(),
            Some(n) => {
                return Err(bad(&format!(
                    "`{n}` is not a source name (lowercase letters, digits, `-`, `_`, `.`; not `embedded`)"
                )));
            }
            None => {
                let base = default_name(location);
                let mut name = base.clone();
                let mut n = 2;
                while out.iter().any(|s| s.name == name) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                name
            }
        };
        if out.iter().any(|s| s.name == name) {
            return Err(bad(&format!("the name `{name}` is used twice")));
        }
        out.push(SourceSpec { name, location: location.to_owned(), pin });
    }
    Ok(out)
}

/// What loading needs from the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Settings {
    pub specs: Vec<SourceSpec>,
    /// Remote sources before the embedded one for unqualified names.
    pub prefer_remote: bool,
    pub cache_dir: PathBuf,
    /// `catalog.mirror`: base URL for `https://` fetches.
    pub mirror: Option<String>,
}

impl Settings {
    pub fn from_config(
        config: &crate::config::Config,
        paths: &crate::paths::Paths,
    ) -> Result<Settings, CatalogError> {
        Ok(Settings {
            specs: parse_specs(&config.list("catalog.sources"))?,
            prefer_remote: config.flag("catalog.preferRemote"),
            cache_dir: paths.cache_dir.clone(),
            mirror: config.text("catalog.mirror").map(str::to_owned),
        })
    }
}

/// How one source answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    pub name: String,
    pub location: String,
    /// `fresh`, `stale` (answered from the cache; refreshing), `failed` or `local`.
    pub state: &'static str,
    pub templates: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<u64>,
    /// The catalog's `commit`, or the configured pin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether that is a commit id (a branch moves: its archives are not pinned).
    pub pinned: bool,
}

/// Every source loaded: the catalog to answer from, how each source did, and warnings.
pub struct Loaded {
    pub catalog: Catalog,
    pub sources: Vec<SourceStatus>,
    pub warnings: Vec<String>,
    /// When this should be loaded again.
    fresh_until: SystemTime,
}

impl Loaded {
    /// `embedded`, or `embedded+<name>…`: which catalogs answered.
    pub fn answered_by(&self) -> String {
        let mut names = vec![EMBEDDED.to_owned()];
        names.extend(self.sources.iter().filter(|s| s.state != "failed").map(|s| s.name.clone()));
        names.join("+")
    }
}

/// The catalog document's header: where its files come from.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub repo: Option<String>,
    pub commit: Option<String>,
}

fn header_of(text: &str) -> Header {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    Header { repo: s("sourceRepo"), commit: s("commit") }
}

/// One remote (or local-file) catalog.
pub struct RemoteSource {
    pub name: String,
    templates: Vec<Template>,
    /// The source's cache folder.
    pub dir: PathBuf,
    pub header: Header,
    pub pin: Option<String>,
    pub catalog_sha256: String,
    pub fetch: Arc<dyn Fetch>,
    /// For a catalog read from disk: its folder (the files sit beside it).
    pub local_root: Option<PathBuf>,
    /// Template folders prepared in this process, by slug.
    pub prepared: Mutex<HashMap<String, PathBuf>>,
}

impl RemoteSource {
    fn new(
        spec: &SourceSpec,
        dir: PathBuf,
        text: &str,
        templates: Vec<Template>,
        fetch: Arc<dyn Fetch>,
    ) -> RemoteSource {
        // Slugs name folders: a hostile catalog's `../x` never becomes one.
        let templates = templates.into_iter().filter(|t| safe_slug(&t.slug)).collect();
        RemoteSource {
            name: spec.name.clone(),
            templates,
            dir,
            header: header_of(text),
            pin: spec.pin.clone(),
            catalog_sha256: sha256_hex(text.as_bytes()),
            fetch,
            local_root: None,
            prepared: Mutex::default(),
        }
    }

    fn status(&self, spec: &SourceSpec, state: &'static str, fetched_at: Option<u64>) -> SourceStatus {
        let commit = spec.pin.clone().or_else(|| self.header.commit.clone());
        SourceStatus {
            name: self.name.clone(),
            location: spec.location.clone(),
            state,
            templates: self.templates.len(),
            fetched_at,
            pinned: commit.as_deref().is_some_and(files::is_commit_id),
            commit,
        }
    }

    fn template(&self, slug: &str) -> Result<&Template, CatalogError> {
        self.templates
            .iter()
            .find(|t| t.slug == slug)
            .ok_or_else(|| CatalogError::UnknownTemplate { name: slug.to_owned(), closest: Vec::new() })
    }
}

impl TemplateSource for RemoteSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn templates(&self) -> &[Template] {
        &self.templates
    }

    fn read(&self, slug: &str, path: &str) -> Result<Option<Cow<'static, [u8]>>, CatalogError> {
        let t = self.template(slug)?;
        let Some(root) = files::files_root(self, t) else {
            return Err(CatalogError::FilesUnavailable {
                source_name: self.name.clone(),
                slug: slug.to_owned(),
            });
        };
        Ok(files::read_file(&root, path)?.map(Cow::Owned))
    }

    fn list_files(&self, slug: &str) -> Option<Vec<String>> {
        let root = files::files_root(self, self.template(slug).ok()?)?;
        Some(files::walk(&root))
    }

    fn prepare(
        &self,
        slug: &str,
        progress: &mut dyn FnMut(String),
    ) -> Result<Option<Provenance>, CatalogError> {
        if self.local_root.is_some() {
            return Ok(None);
        }
        let t = self.template(slug)?;
        files::prepare_and_remember(self, t, progress).map(Some)
    }
}

/// The embedded catalog as one source among others.
struct Embedded;

impl TemplateSource for Embedded {
    fn name(&self) -> &str {
        EMBEDDED
    }
    fn templates(&self) -> &[Template] {
        Catalog::embedded().sources().next().map(|s| s.templates()).unwrap_or(&[])
    }
    fn read(&self, slug: &str, path: &str) -> Result<Option<Cow<'static, [u8]>>, CatalogError> {
        match Catalog::embedded().sources().next() {
            Some(s) => s.read(slug, path),
            None => Ok(None),
        }
    }
}

/// Which way a stale cache is refreshed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// On a thread of its own; this call answers from the stale copy at once.
    Background,
    /// Not at all (benchmarks, tests of the stale answer).
    Never,
}

/// Sources being refreshed now (cache folders), so one refresh runs per source.
fn refreshing() -> &'static Mutex<std::collections::HashSet<PathBuf>> {
    static SET: OnceLock<Mutex<std::collections::HashSet<PathBuf>>> = OnceLock::new();
    SET.get_or_init(Mutex::default)
}

fn refresh_in_background(spec: SourceSpec, dir: PathBuf, fetch: Arc<dyn Fetch>, key: String) {
    if !refreshing().lock().unwrap_or_else(PoisonError::into_inner).insert(dir.clone()) {
        return;
    }
    let spawned = std::thread::Builder::new().name("catalog-refresh".into()).spawn(move || {
        match cache::refresh(&spec, &dir, fetch.as_ref(), SystemTime::now()) {
            Ok(_) => tracing::debug!(source = %spec.name, "catalog refreshed"),
            Err(e) => tracing::warn!(source = %spec.name, "catalog refresh failed: {e}"),
        }
        memo().lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
        refreshing().lock().unwrap_or_else(PoisonError::into_inner).remove(&dir);
    });
    if spawned.is_err() {
        tracing::warn!("cannot start the catalog refresh thread");
    }
}

/// Loads every source (see the module comment). `key` names this configuration in the
/// process memo.
pub fn load(settings: &Settings, fetch: Arc<dyn Fetch>, now: SystemTime, refresh: Refresh) -> Loaded {
    let key = memo_key(settings);
    let mut remotes: Vec<Box<dyn TemplateSource>> = Vec::new();
    let mut sources = Vec::new();
    let mut warnings = Vec::new();
    let mut fresh_until = now + TTL;
    for spec in &settings.specs {
        let dir = cache::dir_of(&settings.cache_dir, &spec.location);
        if spec.is_local() {
            match read_local(spec, &dir, &fetch) {
                Ok(src) => {
                    sources.push(src.status(spec, "local", None));
                    remotes.push(Box::new(src));
                }
                Err(e) => {
                    warnings.push(format!("catalog `{}` ({}) was left out: {e}", spec.name, spec.location));
                    sources.push(failed(spec));
                }
            }
            fresh_until = fresh_until.min(now + Duration::from_secs(5));
            continue;
        }
        let cached = cache::read(&dir).and_then(|(meta, text)| {
            let templates = parse_catalog(&text, &spec.name).ok()?;
            Some((meta, text, templates))
        });
        let (state, loaded) = match cached {
            Some((meta, text, templates)) => match cache::freshness(meta.fetched_at, now) {
                Freshness::Fresh => {
                    let until = std::time::UNIX_EPOCH + Duration::from_secs(meta.fetched_at) + TTL;
                    fresh_until = fresh_until.min(until);
                    ("fresh", Ok((meta, text, templates)))
                }
                Freshness::Stale => {
                    if refresh == Refresh::Background {
                        refresh_in_background(spec.clone(), dir.clone(), Arc::clone(&fetch), key.clone());
                    }
                    fresh_until = fresh_until.min(now + Duration::from_secs(5));
                    ("stale", Ok((meta, text, templates)))
                }
            },
            None => match recent_failure(&dir, now, &spec.location) {
                // Another process failed a moment ago: do not make every CLI call wait.
                Some(e) => ("remembered", Err(e)),
                None => ("fresh", cache::refresh(spec, &dir, fetch.as_ref(), now)),
            },
        };
        match loaded {
            Ok((meta, text, templates)) => {
                let src = RemoteSource::new(spec, dir, &text, templates, Arc::clone(&fetch));
                sources.push(src.status(spec, state, Some(meta.fetched_at)));
                remotes.push(Box::new(src));
            }
            Err(e) => {
                if state != "remembered" {
                    remember_failure(&dir, &e, now);
                }
                warnings.push(format!(
                    "catalog `{}` could not be fetched ({e}); answering from the embedded catalog",
                    spec.name
                ));
                sources.push(failed(spec));
                fresh_until = fresh_until.min(now + RETRY_AFTER);
            }
        }
    }
    let mut all: Vec<Box<dyn TemplateSource>> = Vec::new();
    if !settings.prefer_remote {
        all.push(Box::new(Embedded));
    }
    all.extend(remotes);
    if settings.prefer_remote {
        all.push(Box::new(Embedded));
    }
    Loaded { catalog: Catalog::new(all), sources, warnings, fresh_until }
}

const FAILED: &str = "failed.json";

/// Records a failed fetch of a source with no cache, for [`recent_failure`].
fn remember_failure(dir: &Path, e: &CatalogError, now: SystemTime) {
    let record = serde_json::json!({ "at": cache::unix(now), "error": e.to_string() });
    let _ = cache::store(&dir.join(FAILED), record.to_string().as_bytes());
}

/// The failure recorded less than [`RETRY_AFTER`] ago, if any.
fn recent_failure(dir: &Path, now: SystemTime, location: &str) -> Option<CatalogError> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join(FAILED)).ok()?).ok()?;
    let at = v.get("at")?.as_u64()?;
    let age = cache::unix(now).checked_sub(at)?;
    (Duration::from_secs(age) < RETRY_AFTER).then(|| CatalogError::Network {
        url: location.to_owned(),
        reason: format!(
            "the last attempt {age} s ago failed ({}); trying again after {} s",
            v.get("error").and_then(|e| e.as_str()).unwrap_or("unknown error"),
            RETRY_AFTER.as_secs()
        ),
    })
}

fn failed(spec: &SourceSpec) -> SourceStatus {
    SourceStatus {
        name: spec.name.clone(),
        location: spec.location.clone(),
        state: "failed",
        templates: 0,
        fetched_at: None,
        commit: spec.pin.clone(),
        pinned: spec.pin.as_deref().is_some_and(files::is_commit_id),
    }
}

fn read_local(spec: &SourceSpec, dir: &Path, fetch: &Arc<dyn Fetch>) -> Result<RemoteSource, CatalogError> {
    let path = Path::new(&spec.location);
    let bytes = crate::manifest::read_capped(path, cache::MAX_DOCUMENT)
        .map_err(|e| CatalogError::Io { context: format!("cannot read {}", path.display()), source: e })?
        .ok_or_else(|| CatalogError::BadCatalog {
            source_name: spec.name.clone(),
            message: "larger than 8 MiB".into(),
        })?;
    let text = String::from_utf8(bytes).map_err(|_| CatalogError::BadCatalog {
        source_name: spec.name.clone(),
        message: "not UTF-8".into(),
    })?;
    let templates = parse_catalog(&text, &spec.name)?;
    let mut src = RemoteSource::new(spec, dir.to_path_buf(), &text, templates, Arc::clone(fetch));
    src.local_root = path.parent().map(Path::to_path_buf);
    Ok(src)
}

fn memo_key(settings: &Settings) -> String {
    format!("{settings:?}")
}

fn memo() -> &'static Mutex<HashMap<String, Arc<Loaded>>> {
    static MEMO: OnceLock<Mutex<HashMap<String, Arc<Loaded>>>> = OnceLock::new();
    MEMO.get_or_init(Mutex::default)
}

/// [`load`], kept per process until a source needs looking at again: a warm call is a
/// lookup.
pub fn shared(settings: &Settings, fetch: impl FnOnce() -> Arc<dyn Fetch>, now: SystemTime) -> Arc<Loaded> {
    let key = memo_key(settings);
    if let Some(hit) = memo().lock().unwrap_or_else(PoisonError::into_inner).get(&key)
        && now < hit.fresh_until
    {
        return Arc::clone(hit);
    }
    let loaded = Arc::new(load(settings, fetch(), now, Refresh::Background));
    memo().lock().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::clone(&loaded));
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_with_names_and_pins() {
        let specs = parse_specs(&[
            DEFAULT_SOURCE.to_owned(),
            "mine=https://example.com/t/templates-meta.json#0123456789abcdef0123456789abcdef01234567"
                .to_owned(),
            "http://127.0.0.1:8000/templates-meta.json".to_owned(),
            "/home/u/my-cat/templates-meta.json".to_owned(),
        ])
        .unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["extension-js", "mine", "127-0-0-1", "my-cat"]);
        assert_eq!(specs[1].pin.as_deref(), Some("0123456789abcdef0123456789abcdef01234567"));
        assert_eq!(specs[1].location, "https://example.com/t/templates-meta.json");
        assert!(specs[3].is_local() && !specs[0].is_local());
        for bad in ["http://example.com/x.json", "ftp://x/y", "embedded=https://x/y", "Big=https://x/y"] {
            assert!(parse_specs(&[bad.to_owned()]).is_err(), "{bad}");
        }
        assert!(parse_specs(&["a=https://x/1".into(), "a=https://x/2".into()]).is_err());
        assert!(!safe_slug("../x") && !safe_slug(".hidden") && !safe_slug("a/b") && safe_slug("new-react"));
        assert!(parse_specs(&[String::new()]).unwrap().is_empty());
    }
}
