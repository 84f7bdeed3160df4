//! Prints a manifest resolved for one browser, as the build would write it:
//! `cargo run -p webext-mcp --example resolve_manifest -- path/to/manifest.json firefox`.
//! Handy for comparing with other tools' resolution.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use webext_mcp::manifest::{Target, parse_jsonc, resolve};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, browser] = args.as_slice() else {
        eprintln!("usage: resolve_manifest <manifest.json> <browser>");
        return ExitCode::from(2);
    };
    let Some(target) = Target::named(browser) else {
        eprintln!("unknown browser {browser}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    match parse_jsonc(&text) {
        Ok(json) => {
            println!("{}", resolve(&json, target).manifest.to_pretty());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(1)
        }
    }
}
