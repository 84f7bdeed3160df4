//! The behaviour harness: load a built extension (ours, or any dist folder) into a real
//! headless browser on a local test page and report what a user would see, per surface;
//! given two builds, their differences.
//!
//! ```text
//! check(dist, engine) ── serve the test page on 127.0.0.1 (serve.rs)
//!   └─ launch the browser, no extension yet (runner)
//!        ├─ test page: probe.js once settled ──────────────▶ baseline (host styles, page's own
//!        │                                                    roots and console lines)
//!        ├─ load the extension; wait for its background
//!        ├─ test page again: probe.js ─────────────────────▶ surface `content`
//!        ├─ popup, options, side panel, new tab, devtools ─▶ one surface each (opened as tabs)
//!        └─ background alive?  errors of every world ──────▶ Report (report.rs)
//! diff(report, report) ─────────────────────────────────────▶ sorted path differences (diff.rs)
//! ```
//!
//! What is trusted. The test page is hostile input like any page (the caller may pass their
//! own): `probe.js` caps every string and list, and [`report::read_probe`] reads its answer
//! as data, capped again, never as a shape it trusts. The probe runs in a world of its own
//! (`Runner::call_isolated`: Chromium's isolated world, Firefox's content-script world
//! through an extension of the runner's own): the page's DOM with built-ins the page's
//! scripts cannot patch, so they cannot feed it fake styles or hide the extension's roots.
//! (Extension pages are read in their own world: they are the extension under test.) What the
//! page shows without the extension (its own `[data-extension-root]` elements, its console
//! lines, its styles) is read first and never credited to the extension: roots present in
//! the baseline are counted as the page's, page console lines seen in the baseline are
//! dropped, and host styles are compared against it. Console lines are attributed by the
//! browser (the document or worker they ran in, the file they came from), never by their
//! text; in Chromium a web page's main-world line counts as the page's whatever file it names
//! (`ConsoleEvent::page_world`: a page can name the extension's file in a `sourceURL`
//! comment), so it is credited to the extension only when the page does not print it by
//! itself. Firefox attributes content-script lines by file only: there a page that knows the
//! extension's uuid (derived from its gecko id) can forge one. Page text never reaches a log.
//!
//! Determinism: every page is read once no DOM mutation (document and shadow trees) happened
//! for [`Options::quiet`], at most [`Options::settle_max`] after it loaded; URLs inside the
//! extension are written relative to it, so two builds of one project compare equal wherever
//! they live.

mod check;
pub mod diff;
pub mod report;
pub mod serve;

use std::path::PathBuf;
use std::time::Duration;

pub use check::{check, check_in, runner_options};
pub use diff::{Difference, diff, problems};
pub use report::Report;

/// How to run a check.
#[derive(Debug, Clone)]
pub struct Options {
    /// The caller's test page (an HTML file; the files beside it are served too); `None`
    /// serves the default page ([`serve::DEFAULT_PAGE`]).
    pub page: Option<PathBuf>,
    /// A page counts as settled after this long without a DOM mutation.
    pub quiet: Duration,
    /// ... or this long after it loaded, whichever comes first.
    pub settle_max: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { page: None, quiet: Duration::from_millis(400), settle_max: Duration::from_secs(5) }
    }
}

/// Why a check could not run at all (what a build does wrong is in the [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum BehaviourError {
    /// The folder is not a built extension.
    #[error(
        "{dir}: {reason}; pass a built extension folder (the one holding manifest.json, e.g. dist/chrome)"
    )]
    Dist { dir: PathBuf, reason: String },
    /// The caller's test page cannot be served.
    #[error("cannot serve the test page {page}: {source}; pass an HTML file that exists")]
    Page { page: PathBuf, source: std::io::Error },
    /// The browser could not be run or driven.
    #[error(transparent)]
    Runner(#[from] crate::runner::RunnerError),
}
