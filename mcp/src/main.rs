//! The `webext-mcp` binary: parse arguments, run the chosen verb, map errors to exit codes.
//! All logic lives in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    webext_mcp::cli::main(std::env::args_os().collect())
}
