//! The behaviour harness for tests: a built extension folder loaded in a headless browser of
//! its own on the harness's test page, and the report as a typed value
//! (`webext_mcp::behaviour::Report`). A check launches its own browser because its baseline
//! is the page with no extension at all.

use std::path::Path;

use webext_mcp::behaviour::{self, Options, Report};
use webext_mcp::browsers::Engine;
use webext_mcp::paths::Env;

/// The report of `dist` in `engine` on the default test page.
pub async fn report(dist: &Path, engine: Engine) -> Report {
    report_with(dist, engine, &Options::default()).await
}

/// The report of `dist` in `engine`, with options (e.g. a page of the test's own).
pub async fn report_with(dist: &Path, engine: Engine, opts: &Options) -> Report {
    behaviour::check(dist, engine, opts, &Env::capture(), None)
        .await
        .unwrap_or_else(|e| panic!("behaviour check of {} in {}: {e}", dist.display(), engine.name()))
}

/// The report's surface `name` (`content`, `popup`, …), or a failure naming what there is.
pub fn surface<'a>(report: &'a Report, name: &str) -> &'a behaviour::report::Surface {
    report.surfaces.iter().find(|s| s.name == name).unwrap_or_else(|| {
        let names: Vec<&str> = report.surfaces.iter().map(|s| s.name.as_str()).collect();
        panic!("no surface `{name}` in the report (there are {names:?}): {report:#?}")
    })
}
