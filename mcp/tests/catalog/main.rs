//! The template catalog and its tools: the embedded catalog, the real Extension.js v2 catalog
//! parsed into the same model, ranking, reading sources, creating projects, and every
//! embedded template built natively. One module per behaviour; helpers here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

mod add_feature;
mod builds;
mod create_bad_input;
mod create_ok;
mod fixture_format;
mod fixture_ranking;
mod hostile;
mod icons;
mod list;
mod remote;
mod source;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use webext_mcp::catalog::{Catalog, CatalogError, Template, TemplateSource, parse_catalog};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_webext-mcp")
}

pub fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/catalog/fixtures/templates-meta.v2.json")
}

/// A catalog source holding only metadata (what a remote catalog is before its files are
/// fetched).
pub struct MetaOnly {
    pub name: String,
    pub templates: Vec<Template>,
}

impl TemplateSource for MetaOnly {
    fn name(&self) -> &str {
        &self.name
    }
    fn templates(&self) -> &[Template] {
        &self.templates
    }
    fn read(&self, slug: &str, _path: &str) -> Result<Option<Cow<'static, [u8]>>, CatalogError> {
        Err(CatalogError::FilesUnavailable { source_name: self.name.clone(), slug: slug.to_owned() })
    }
}

/// The real 53-template Extension.js catalog as a catalog of its own.
pub fn extension_js_catalog() -> Catalog {
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    let templates = parse_catalog(&text, "extension-js").unwrap();
    Catalog::new(vec![Box::new(MetaOnly { name: "extension-js".into(), templates })])
}

/// A native build of `project` for chrome and firefox into `project/dist`.
pub fn native_build(project: &Path, zip: bool) -> webext_mcp::build::BuildRequest {
    webext_mcp::build::BuildRequest {
        project: project.to_path_buf(),
        targets: webext_mcp::manifest::parse_targets(&["chrome".into(), "firefox".into()]).unwrap(),
        zip,
        zip_source: false,
        out_dir: project.join("dist"),
        session: None,
        allow_delegation: false,
        allow_npx: false,
        node: None,
        timeout: std::time::Duration::from_secs(60),
        consent: Default::default(),
        cancel: None,
    }
}

/// Runs `webext-mcp call <tool> <args> --json` in `cwd` with a temporary home.
pub fn call(cwd: &Path, tool: &str, args: Value) -> (i32, Value) {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["--home"])
        .arg(home.path())
        .args(["call", tool, &args.to_string(), "--json"])
        // Only the embedded catalog: these tests never reach for the network.
        .env("WEBEXT_MCP_CATALOG_SOURCES", "")
        .current_dir(cwd)
        .output()
        .unwrap();
    let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), value)
}

/// Every file under `dir` with its bytes, sorted by relative path.
pub fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                walk(root, &p, out);
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Asserts that each query ranks its template first in `catalog`, reporting every miss.
pub fn assert_ranked_first(catalog: &Catalog, cases: &[(&str, &str)]) {
    use webext_mcp::tools::templates::catalog::{ListArgs, list};
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(q, want)| {
            let out = list(catalog, &ListArgs { query: Some((*q).into()), ..ListArgs::default() }).unwrap();
            let got = out["templates"][0]["slug"].as_str().unwrap_or_default().to_owned();
            (got != *want).then(|| format!("{q:?}: got {got}, want {want}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The slugs of the embedded catalog.
pub fn embedded_slugs() -> Vec<String> {
    Catalog::embedded().templates().map(|t| t.slug.clone()).collect()
}
