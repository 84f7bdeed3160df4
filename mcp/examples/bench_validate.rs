//! In-process timing of `extension_manifest_validate` (figures, not pass/fail), run by
//! `scripts/bench-validate`: the warm validation of a project (the starter template created
//! into a temporary folder), chrome + firefox, scripts scanned; median of many runs.
//! `cargo run --release -p webext-mcp --example bench_validate -- <project>`.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;
use std::time::Instant;

use webext_mcp::tools::build::validate::{ValidateArgs, run_validate};

const RUNS: usize = 501;

fn main() -> ExitCode {
    let Some(project) = std::env::args().nth(1) else {
        eprintln!("usage: bench_validate <project folder>");
        return ExitCode::from(2);
    };
    let args =
        ValidateArgs { project_path: project, manifest_path: None, browsers: None, skip_code_scan: false };
    let mut samples = Vec::with_capacity(RUNS);
    let mut scripts = 0;
    for i in 0..=RUNS {
        let t0 = Instant::now();
        let report = match run_validate(&args) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}", e.line());
                return ExitCode::from(1);
            }
        };
        let us = t0.elapsed().as_secs_f64() * 1e6;
        if i > 0 {
            samples.push(us);
        }
        scripts = report.scanned.scripts;
        if !report.valid {
            eprintln!("the benchmark project is not valid: {:?}", report.errors);
            return ExitCode::from(1);
        }
    }
    samples.sort_by(f64::total_cmp);
    let med = samples[samples.len() / 2];
    println!(
        "validate_in_process[starter, chrome+firefox, {scripts} scripts scanned] median {:.3} ms (p10 {:.3}, p90 {:.3}, n={RUNS})",
        med / 1000.0,
        samples[samples.len() / 10] / 1000.0,
        samples[samples.len() * 9 / 10] / 1000.0
    );
    ExitCode::SUCCESS
}
