//! The remote-catalog half of `bench_catalog`: a warm cache of the published catalog (the
//! real fixture) with the `action` template's archive unpacked, served by an in-process
//! fetcher, so the listing and `create` figures need no network; and `add_feature` timed.

use std::path::Path;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use webext_mcp::catalog::CatalogError;
use webext_mcp::catalog::remote::fetch::Fetch;
use webext_mcp::catalog::remote::{self, Refresh, Settings, cache};
use webext_mcp::feature::{AddRequest, Feature, add};

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// Answers the catalog, the commit lookup and the archive from memory.
struct Offline {
    catalog: Vec<u8>,
    archive: Vec<u8>,
}

impl Fetch for Offline {
    fn document(&self, url: &str) -> Result<Vec<u8>, CatalogError> {
        if url.contains("api.github.com") {
            return Ok(format!("{{\"sha\":\"{SHA}\"}}").into_bytes());
        }
        Ok(self.catalog.clone())
    }
    fn download(
        &self,
        _url: &str,
        dest: &Path,
        _p: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<u64, CatalogError> {
        std::fs::write(dest, &self.archive)
            .map_err(|e| CatalogError::Io { context: "bench".into(), source: e })?;
        Ok(self.archive.len() as u64)
    }
}

fn archive() -> Result<Vec<u8>, String> {
    use std::io::Write as _;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let top = format!("examples-{SHA}/examples/action");
    let files: [(&str, &str); 5] = [
        ("package.json", r#"{"name":"action","private":true,"scripts":{}}"#),
        (
            "src/manifest.json",
            r#"{"manifest_version":3,"name":"Action","version":"1.0.0","action":{"default_popup":"action/index.html"}}"#,
        ),
        ("src/action/index.html", "<!doctype html><script src=\"scripts.js\"></script>"),
        ("src/action/scripts.js", "document.title = 'action';"),
        ("src/background.js", "console.log('bg');"),
    ];
    for (name, text) in files {
        z.start_file(format!("{top}/{name}"), zip::write::SimpleFileOptions::default())
            .map_err(|e| e.to_string())?;
        z.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(z.finish().map_err(|e| e.to_string())?.into_inner())
}

/// Fills `cache_dir` as a first listing and a first create from `extension-js:action` would.
pub fn warm(cache_dir: &Path) -> Result<(), String> {
    let catalog = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/catalog/fixtures/templates-meta.v2.json"),
    )
    .map_err(|e| e.to_string())?;
    let fetch: Arc<dyn Fetch> = Arc::new(Offline { catalog, archive: archive()? });
    let specs = remote::parse_specs(&[remote::DEFAULT_SOURCE.to_owned()]).map_err(|e| e.to_string())?;
    let settings = Settings { specs, prefer_remote: false, cache_dir: cache_dir.to_path_buf(), mirror: None };
    let loaded = remote::load(&settings, fetch, SystemTime::now(), Refresh::Never);
    let (source, t) = loaded.catalog.lookup("extension-js:action").map_err(|e| e.to_string())?;
    source.prepare(&t.slug, &mut |_| {}).map_err(|e| e.to_string())?;
    let dir = cache::dir_of(cache_dir, remote::DEFAULT_SOURCE);
    println!("remote cache warmed in {}", dir.display());
    Ok(())
}

/// `add_feature` (sidebar into a fresh starter), median of 51; project creation untimed.
pub fn add_feature() {
    let Ok(work) = tempfile::tempdir() else { return };
    let mut samples = Vec::new();
    for i in 0..51 {
        let dest = work.path().join(format!("p{i}"));
        let req = webext_mcp::catalog::create::CreateRequest {
            dest: dest.clone(),
            project_name: format!("p{i}"),
            template: "starter".into(),
            install: false,
            consent: Default::default(),
            dry_run: false,
            git: None,
        };
        if webext_mcp::catalog::create::create(webext_mcp::catalog::Catalog::embedded(), &req).is_err() {
            eprintln!("cannot create the starter");
            return;
        }
        let t0 = Instant::now();
        let out =
            add(&AddRequest { project: dest, feature: Feature::Sidebar, framework: None, dry_run: false });
        samples.push(t0.elapsed().as_secs_f64() * 1e3);
        if let Err(e) = out {
            eprintln!("add_feature failed: {e}");
            return;
        }
    }
    samples.sort_by(f64::total_cmp);
    println!("add_feature[sidebar into starter, with validation] median {:.2} ms, n=51", samples[25]);
}
